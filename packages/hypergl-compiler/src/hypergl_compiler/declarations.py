"""Resource declarations of a :class:`~.builder.CommandBuffer` (a mixin).

``cmd.buffer("name", 64)`` and its siblings add an entry to the command
buffer's :class:`~.resource_table.ResourceTable` and return a
:class:`~.resource_table.ResourceHandle` that ops take as an operand. The
compiler checks what it needs (names, sizes, dimensions); every other key of a
description belongs to the runtime that makes the resource.
"""

from __future__ import annotations

import warnings
from typing import Any

from . import operands
from .errors import CompileError
from .isa import ResourceKind
from .resource_table import ResourceHandle


class ResourceDeclarations:
    """Declaring resources by name, and finding them again."""

    def _declare(self, kind: ResourceKind, name: str, desc: dict[str, Any]) -> ResourceHandle:
        # None means "not given": hypergl-core applies its own defaults for absent keys.
        desc = {key: value for key, value in desc.items() if value is not None}
        slot = self._resources.declare(kind, name, desc)
        return ResourceHandle(self, kind, slot, self._resources[slot].name)

    def buffer(
        self,
        name: str,
        size: int | None = None,
        data: bytes | None = None,
        usage: str | None = None,
        *,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a buffer of ``size`` bytes (default: ``len(data)``), optional initial data."""
        if data is not None:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise CompileError(f"buffer {name!r}: data {data!r} is not bytes")
            data = bytes(data)
            if size is None:
                size = len(data)
            elif isinstance(size, int) and len(data) > size:
                raise CompileError(f"buffer {name!r}: {len(data)} bytes of data exceed size {size}")
        if size is None:
            raise CompileError(f"buffer {name!r}: give a size or data")
        return self._declare(
            ResourceKind.BUFFER,
            name,
            {"size": size, "usage": usage, "data": data, "linked": linked or None, **desc},
        )

    def texture(
        self,
        name: str,
        size: tuple[int, int] | None = None,
        format: str | None = None,
        *legacy: Any,
        layers: int | None = None,
        data: bytes | None = None,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a texture of ``size=(width, height)`` (``format`` and pixel ``data``
        as hypergl-core defines them), as ``ctx.texture`` takes them."""
        old_spelling = (type(size) is int and type(format) is int) or legacy
        if old_spelling or {"width", "height"} & desc.keys():
            size, format = _legacy_size(f"texture {name!r}", size, format, legacy, desc)
        width, height = (None, None) if size is None else self._size(size, name, "texture")
        if layers is not None and (type(layers) is not int or layers < 1):
            raise CompileError(f"texture {name!r}: layers {layers!r} is not a positive int")
        return self._declare(
            ResourceKind.TEXTURE,
            name,
            {
                "width": width,
                "height": height,
                "layers": layers,
                "format": format,
                "data": data,
                "linked": linked or None,
                **desc,
            },
        )

    @staticmethod
    def _size(size: Any, name: str, kind: str) -> tuple[int, int]:
        return operands.check_size(size, f"{kind} {name!r} size")

    def pipeline(
        self,
        name: str,
        vertex_shader: str | None = None,
        fragment_shader: str | None = None,
        *,
        compute_shader: str | None = None,
        vertex_count: int | None = None,
        linked: bool = False,
        **state: Any,
    ) -> ResourceHandle:
        """Declare a pipeline: shader sources plus state (vertex_layout, topology, ...).

        ``vertex_count`` is what ``draw()`` without a count draws with this pipeline.
        """
        return self._declare(
            ResourceKind.PIPELINE,
            name,
            {
                "vertex_shader": vertex_shader,
                "fragment_shader": fragment_shader,
                "compute_shader": compute_shader,
                "vertex_count": vertex_count,
                "linked": linked or None,
                **state,
            },
        )

    def framebuffer(
        self,
        name: str,
        size: tuple[int, int] | None = None,
        *legacy: Any,
        color: Any = None,
        depth: Any = None,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a framebuffer of ``size=(width, height)`` (colour attachment formats,
        optional depth format), as ``ctx.framebuffer`` takes them."""
        if legacy or {"width", "height"} & desc.keys():
            height = legacy[0] if legacy else None
            size, _ = _legacy_size(f"framebuffer {name!r}", size, height, legacy[1:], desc)
        width, height = (None, None) if size is None else self._size(size, name, "framebuffer")
        return self._declare(
            ResourceKind.FRAMEBUFFER,
            name,
            {
                "width": width,
                "height": height,
                "color": color,
                "depth": depth,
                "linked": linked or None,
                **desc,
            },
        )

    def fence(self, name: str, **desc: Any) -> ResourceHandle:
        """Declare a fence (signalled and waited on by ``fence_signal``/``fence_wait``)."""
        return self._declare(ResourceKind.FENCE, name, desc)

    def readback(
        self,
        name: str,
        size: tuple[int, int] | None = None,
        *,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a readback slot of ``size=(width, height)`` that ``read_framebuffer``
        fills (the caller's array)."""
        if "width" in desc or "height" in desc:
            size, _ = _legacy_size(f"readback {name!r}", size, None, (None,), desc)
        if size is not None:
            desc["width"], desc["height"] = self._size(size, name, "readback")
        return self._declare(ResourceKind.READBACK, name, {"linked": linked or None, **desc})

    def external_source(
        self, name: str, source: str | None = None, *, linked: bool = False, **desc: Any
    ) -> ResourceHandle:
        """Declare an external source (e.g. a physics world) that ``upload`` copies from,
        as ``ctx.external_source`` makes them."""
        return self._declare(
            ResourceKind.EXTERNAL, name, {"source": source, "linked": linked or None, **desc}
        )

    def external(self, name: str, source: str | None = None, **options: Any) -> ResourceHandle:
        """Deprecated spelling of :meth:`external_source`."""
        warnings.warn(
            "cmd.external() is now cmd.external_source(), the name ctx uses",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.external_source(name, source, **options)

    def resource(self, name: str) -> ResourceHandle:
        """The handle of a declared resource, by name."""
        slot = self._resources.slot(name)
        if slot is None:
            raise CompileError(f"no resource named {name!r}")
        entry = self._resources[slot]
        return ResourceHandle(self, entry.kind, slot, entry.name)


def _legacy_size(what: str, size: Any, format: Any, legacy: tuple, desc: dict) -> tuple:
    """The 0.1 spelling ``(name, width, height[, format])`` or ``width=, height=``, as
    ``(size, format)``, with a DeprecationWarning."""
    if type(size) is int:  # positional width, height[, format]
        width, height = size, format
        format = legacy[0] if legacy else None
        if len(legacy) > 1:
            raise CompileError(f"{what}: too many positional arguments {legacy!r}")
    else:
        if legacy and legacy != (None,):
            raise CompileError(f"{what}: too many positional arguments {legacy!r}")
        width, height = desc.pop("width", None), desc.pop("height", None)
        if size is not None:
            raise CompileError(f"{what}: give size=(width, height), not size and width/height")
    warnings.warn(
        f"{what}: width and height are now size=(width, height), as ctx takes them",
        DeprecationWarning,
        stacklevel=3,
    )
    if width is None and height is None:
        return None, format
    return (width, height), format
