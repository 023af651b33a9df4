"""`hypergl.context()`: a device, the resources created on it, and submits.

Devices: ``trace`` records every GL-level call (``ctx.trace``), ``null`` does
nothing (measures the interpreter alone). Both need no GPU and run the same
programs as the real OpenGL device.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from hypergl_compiler.isa import ResourceKind

from . import _core
from ._native import translated_errors
from .errors import ContextError, ResourceError
from .resources import (
    BUFFER_USAGES,
    RESOURCE_CLASSES,
    Buffer,
    Fence,
    Framebuffer,
    GPUResource,
    Pipeline,
    Readback,
    Texture,
    _as_bytes,
)

DEVICES = ("gl", "trace", "null")


class TraceLog(list):
    """The calls a trace context has made: tuples ``(mnemonic, *args)``.

    A snapshot taken when ``ctx.trace`` is read; ``clear()`` also empties the
    context's log.
    """

    def __init__(self, entries: list, native: _core.Context) -> None:
        super().__init__(entries)
        self._native = native

    def clear(self) -> None:
        super().clear()
        self._native.clear_trace()

    def calls(self) -> list[str]:
        """Just the mnemonics, in order."""
        return [entry[0] for entry in self]


class Context:
    """A device plus every resource created on it. Create with `hypergl.context()`."""

    def __init__(self, device: str) -> None:
        self._device = device
        with translated_errors():
            self._native = _core.Context(device)
        self._handles: dict[int, GPUResource] = {}
        self._counter = itertools.count()

    # --- what the context is -------------------------------------------------
    @property
    def device(self) -> str:
        return self._device

    @property
    def trace(self) -> TraceLog:
        if self._device != "trace":
            raise ContextError(f"ctx.trace needs device='trace', this context is '{self._device}'")
        return TraceLog(self._native.trace_entries(), self._native)

    def __repr__(self) -> str:
        return f"<hypergl.Context device='{self._device}' live={len(self._handles)}>"

    # --- resources -----------------------------------------------------------------
    def _name(self, name: str | None, kind: str) -> str:
        if name is None:
            return f"{kind}{next(self._counter)}"
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        return name

    def _track(self, handle: GPUResource) -> GPUResource:
        self._handles[id(handle._native)] = handle
        return handle

    def buffer(
        self,
        data: Any = None,
        *,
        size: int | None = None,
        usage: str = "storage",
        name: str | None = None,
    ) -> Buffer:
        """A buffer of `size` bytes, or holding `data` (bytes-like or NumPy array)."""
        if usage not in BUFFER_USAGES:
            raise ValueError(f"unknown buffer usage {usage!r}; expected one of {BUFFER_USAGES}")
        raw = None if data is None else _as_bytes(data, "buffer")
        if size is None:
            if raw is None:
                raise ValueError("buffer needs data or size")
            size = raw.nbytes
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise TypeError(f"buffer size must be an int, got {size!r}")
        if size <= 0:
            raise ValueError(f"buffer size must be positive, got {size}")
        if raw is not None and raw.nbytes > size:
            raise ValueError(f"buffer data of {raw.nbytes} bytes exceeds size {size}")
        native = self._native.buffer(self._name(name, "buffer"), int(size))
        handle = Buffer(self, native, {"size": int(size), "usage": usage})
        if raw is not None:
            handle.write(raw)
        return self._track(handle)

    def _plain(self, cls: type[GPUResource], name: str | None, desc: dict) -> GPUResource:
        kind_name = cls.kind.name.lower()
        native = self._native.resource(int(cls.kind), self._name(name, kind_name))
        return self._track(cls(self, native, desc))

    def pipeline(
        self,
        *,
        vertex_shader: str | None = None,
        fragment_shader: str | None = None,
        compute_shader: str | None = None,
        name: str | None = None,
        **state: Any,
    ) -> Pipeline:
        """A pipeline: shaders plus fixed-function state, immutable once made."""
        if compute_shader is None and vertex_shader is None:
            raise ValueError(
                "pipeline needs a vertex_shader (with a fragment_shader) or a compute_shader"
            )
        for label, source in (
            ("vertex_shader", vertex_shader),
            ("fragment_shader", fragment_shader),
            ("compute_shader", compute_shader),
        ):
            if source is not None and not isinstance(source, str):
                raise TypeError(f"{label} must be GLSL source text, got {type(source).__name__}")
        desc = {
            "vertex_shader": vertex_shader,
            "fragment_shader": fragment_shader,
            "compute_shader": compute_shader,
            **state,
        }
        return self._plain(Pipeline, name, desc)

    def texture(
        self, size: tuple[int, int], *, format: str = "rgba8", layers: int = 0,
        name: str | None = None,
    ) -> Texture:  # fmt: skip
        width, height = _positive_size(size, "texture size")
        return self._plain(
            Texture, name, {"width": width, "height": height, "format": format, "layers": layers}
        )

    def framebuffer(
        self, size: tuple[int, int], *, color: tuple[str, ...] = ("rgba8",),
        depth: str | None = "depth24", name: str | None = None,
    ) -> Framebuffer:  # fmt: skip
        width, height = _positive_size(size, "framebuffer size")
        desc = {"width": width, "height": height, "color": list(color), "depth": depth}
        return self._plain(Framebuffer, name, desc)

    def fence(self, *, name: str | None = None) -> Fence:
        return self._plain(Fence, name, {})

    def readback(self, *, name: str | None = None) -> Readback:
        return self._plain(Readback, name, {})

    # --- lifetime --------------------------------------------------------------------
    def release(self, obj: GPUResource | str) -> None:
        """Free one resource, or every live one with ``release('all')``."""
        if obj == "all":
            self._native.release_all()
            self._handles.clear()
            return
        if not isinstance(obj, GPUResource):
            raise TypeError(f"release expects a HyperGL resource or 'all', got {obj!r}")
        if obj._context is not self:
            raise ResourceError(f"'{obj.name}' belongs to another context")
        self._native.release(obj._native)
        self._handles.pop(id(obj._native), None)

    def live_objects(self) -> list[GPUResource]:
        """Every resource created on this context and not yet released, oldest first."""
        return [self._handles[id(native)] for native in self._native.live_objects()]

    # --- programs --------------------------------------------------------------------
    def command_buffer(self, name: str = "program"):
        """A command buffer whose resource operands are this context's live objects."""
        from .command_buffer import CommandBuffer

        return CommandBuffer(self, name=name)


def _positive_size(size: Any, what: str) -> tuple[int, int]:
    try:
        width, height = size
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be (width, height), got {size!r}") from None
    for value in (width, height):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{what} must be integers, got {size!r}")
        if value <= 0:
            raise ValueError(f"{what} must be positive, got {size!r}")
    return int(width), int(height)


def context(device: str = "gl", **options: Any) -> Context:
    """Create a context: ``device='gl'`` (headless EGL), ``'trace'`` or ``'null'``."""
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {DEVICES}")
    if device == "gl":
        raise ContextError("the OpenGL device is not built yet; use device='trace' or 'null'")
    if options:
        raise TypeError(f"device {device!r} takes no options, got {sorted(options)}")
    return Context(device)


assert set(RESOURCE_CLASSES) == set(ResourceKind) - {ResourceKind.EXTERNAL}
