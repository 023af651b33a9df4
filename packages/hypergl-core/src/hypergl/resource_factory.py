"""`ResourceFactory`: the one place a context's resources are made.

Both :class:`~hypergl.Context` (whose makers, ``ctx.buffer()`` and the rest, delegate
here) and the ``.hgb`` loader (:func:`hypergl.scene.load_scene`) make resources through
it, so loading a file does not call back into the facade. Each maker checks its
arguments (:mod:`.resource_checks`), makes the engine's object on the link's context
and tracks the handle in the link's table.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypergl_compiler.isa import ResourceKind

from . import _core, resource_checks, texture_set
from ._native import translated_errors
from .capabilities import Capabilities
from .context_link import ContextLink
from .errors import ShaderError
from .formats import ATTACHMENTS, WRAP_MODES
from .limits import device_limits
from .reading import attachment_index
from .resources import (
    Buffer,
    ExternalSource,
    Fence,
    Framebuffer,
    GPUResource,
    Pipeline,
    Readback,
    Texture,
    TextureSet,
)


def _sizes(desc: dict) -> str:
    """What a resource's description asks for, for a message: bytes, pixels, formats."""
    if "size" in desc:
        return f"{desc['size']} bytes"
    if "width" in desc:
        formats = [*(desc.get("color") or ()), desc.get("depth"), desc.get("format")]
        layers = f" x {desc['layers']} layers" if desc.get("layers") else ""
        named = ", ".join(str(f) for f in formats if f)
        return f"{desc['width']}x{desc['height']}{layers}" + (f" {named}" if named else "")
    return "no storage"


class ResourceFactory:
    """Makes and tracks the resources of the context behind `link`."""

    def __init__(self, link: ContextLink, capabilities: Capabilities | None) -> None:
        self._link = link
        self._native = link.native
        self.capabilities = capabilities
        self._counter = itertools.count()

    # --- naming and making -------------------------------------------------------------
    def new_name(self, name: str | None, kind: str) -> str:
        """`name`, checked, or the next free one of `kind` ("buffer0", ...)."""
        if name is None:
            return f"{kind}{next(self._counter)}"
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        return name

    def make(
        self, cls: type[GPUResource], name: str, desc: dict, gl_factory=None, plain_factory=None
    ) -> Any:
        """Create the native object: through `gl_factory` on gl, a plain one elsewhere."""
        self._link.enter()
        with translated_errors(f"making {cls.kind.name.lower()} '{name}' ({_sizes(desc)})"):
            try:
                if self._link.gl:
                    native = gl_factory(name)
                elif plain_factory is not None:
                    native = plain_factory(name)
                elif cls.kind is ResourceKind.BUFFER:
                    native = self._native.buffer(name, desc["size"])
                else:
                    native = self._native.resource(int(cls.kind), name)
            except _core.ShaderError as exc:
                raise ShaderError(str(exc)) from None
        return self._link.track(cls(self._link, native, desc))

    # --- buffers -----------------------------------------------------------------------
    def buffer(
        self,
        data: Any = None,
        *,
        size: int | None = None,
        usage: str = "storage",
        name: str | None = None,
    ) -> Buffer:
        """A buffer of `size` bytes, or holding `data` (bytes-like or NumPy array)."""
        desc, raw = resource_checks.buffer_args(data, size, usage)
        size = desc["size"]
        name = self.new_name(name, "buffer")
        handle = self.make(Buffer, name, desc, lambda n: self._native.gl_buffer(n, size, raw))
        if raw is not None and not self._link.gl:
            handle.write(raw)
        return handle

    # --- textures ----------------------------------------------------------------------
    def texture(
        self,
        data: Any = None,
        *,
        size: tuple[int, int] | None = None,
        format: str = "rgba8",
        layers: int = 0,
        filter: str = "linear",
        wrap: str = "repeat",
        name: str | None = None,
        mipmaps: bool | Sequence[Any] = False,
        cube: bool = False,
    ) -> Texture:
        """A 2D texture (2D array: `layers`; cube map: `cube`), from a NumPy array or empty."""
        desc, pixels, levels = resource_checks.texture_args(
            data, size, format, layers, filter, wrap, self.limits, mipmaps, cube
        )
        width, height, layers = desc["width"], desc["height"], desc["layers"]
        mipmaps, cube = bool(desc.get("mipmaps")), bool(desc.get("cube"))
        name = self.new_name(name, "texture")
        return self.make(
            Texture,
            name,
            desc,
            lambda n: self._native.gl_texture(
                n, width, height, layers, format, pixels, filter == "linear", WRAP_MODES[wrap],
                mipmaps, cube, levels,
            ),
        )  # fmt: skip

    def texture_set(
        self,
        images: Any,
        *,
        filter: str = "linear",
        wrap: str = "repeat",
        name: str | None = None,
    ) -> TextureSet:
        """N same-sized rgba8 images ``(N, H, W, 4)`` that shaders sample by index."""
        desc, pixels = resource_checks.texture_set_args(images, filter, wrap, self.limits)
        width, height, count = desc["width"], desc["height"], desc["layers"]
        name = self.new_name(name, "texture_set")
        return self.make(
            TextureSet,
            name,
            desc,
            lambda n: self._native.gl_texture_set(
                n, width, height, count, "rgba8", pixels, filter == "linear", WRAP_MODES[wrap]
            ),
        )

    @property
    def limits(self) -> dict[str, int]:
        """The size limits this context applies: the same table on every device (hypergl.limits)."""
        return device_limits(self.capabilities.limits if self.capabilities else None)

    # --- pipelines ---------------------------------------------------------------------
    def pipeline(
        self,
        *,
        vertex_shader: str | None = None,
        fragment_shader: str | None = None,
        compute_shader: str | None = None,
        vertex_count: int | None = None,
        name: str | None = None,
        **state: Any,
    ) -> Pipeline:
        """An immutable pipeline: shaders plus state, all validated here."""
        desc, parsed = resource_checks.pipeline_args(
            vertex_shader, fragment_shader, compute_shader, vertex_count, state
        )
        name = self.new_name(name, "pipeline")

        def gl_factory(n: str) -> Any:
            sources = [vertex_shader or "", fragment_shader or "", compute_shader or ""]
            unit = parsed.texture_set_unit
            if unit is not None:
                bindless = self._native.bindless_textures
                sources = [
                    texture_set.inject(s, bindless, unit) if "hgl_texture" in s else s
                    for s in sources
                ]
            return self._native.gl_pipeline(n, *sources, **parsed.native())

        inputs = parsed.vertex_inputs()  # what the VM bounds draws by, on every device
        return self.make(
            Pipeline, name, desc, gl_factory, lambda n: self._native.pipeline(n, inputs)
        )

    # --- framebuffers, fences, readback ---------------------------------------------------
    def framebuffer(
        self,
        size: tuple[int, int],
        *,
        color: tuple[str, ...] | list[str] = ("rgba8",),
        depth: str | None = "depth24",
        name: str | None = None,
        samples: int = 0,
    ) -> Framebuffer:
        """Colour attachments of the given formats plus an optional depth attachment;
        `samples` > 0: multisampled, resolved before every read (see Context.framebuffer)."""
        desc = resource_checks.framebuffer_args(size, color, depth, self.limits, samples)
        width, height, color = desc["width"], desc["height"], desc["color"]
        name = self.new_name(name, "framebuffer")
        return self.make(
            Framebuffer,
            name,
            desc,
            lambda n: self._native.gl_framebuffer(n, width, height, color, depth, samples),
        )

    def fence(self, *, name: str | None = None) -> Fence:
        """A fence that ``fence_signal`` sets in a program and the CPU waits on."""
        return self.make(Fence, self.new_name(name, "fence"), {}, self._native_fence)

    def _native_fence(self, name: str) -> Any:
        return self._native.gl_fence(name)

    def readback(
        self,
        framebuffer: Framebuffer | tuple[int, int],
        *,
        attachment: str = "color0",
        components: int = 4,
        depth: int = 3,
        name: str | None = None,
    ) -> Readback:
        """A ring of `depth` pixel-pack buffers for asynchronous reads of `framebuffer`."""
        of_framebuffer = isinstance(framebuffer, Framebuffer)
        size = framebuffer.size if of_framebuffer else framebuffer
        limits = None if of_framebuffer else self.limits  # a framebuffer was checked already
        desc = resource_checks.readback_args(size, attachment, components, depth, limits)
        width, height, depth = desc["width"], desc["height"], desc["depth"]
        index = ATTACHMENTS[attachment]
        if of_framebuffer:
            attachment_index(framebuffer, attachment)  # one it has
        name = self.new_name(name, "readback")
        return self.make(
            Readback,
            name,
            desc,
            lambda n: self._native.gl_readback(n, width, height, components, index, depth),
        )

    # --- external sources ------------------------------------------------------------------
    def external_source(
        self,
        acquire: Any,
        fields: list[dict[str, Any]],
        *,
        record_size: int,
        release: Any = None,
        count: tuple[Buffer, int] | None = None,
        name: str | None = None,
    ) -> ExternalSource:
        """Arrays outside HyperGL that ``upload`` converts into fixed-size records."""
        parts, record_size, count_buffer, count_offset = resource_checks.external_source_args(
            self._link.context, acquire, fields, record_size, release, count
        )
        name = self.new_name(name, "external")
        native = self._native.external_source(
            name, acquire, release, parts, record_size,
            None if count_buffer is None else count_buffer._native, count_offset,
        )  # fmt: skip
        return self._link.track(ExternalSource(self._link, native, {"record_size": record_size}))

    def attribute_source(
        self,
        owner: Any = None,
        names: Sequence[str] | None = None,
        fields: list[dict[str, Any]] | None = None,
        *,
        record_size: int,
        owners: Sequence[Any] | None = None,
        count_attribute: str | None = None,
        lock: Any = None,
        keep_views: bool = False,
        count: tuple[Buffer, int] | None = None,
        name: str | None = None,
    ) -> ExternalSource:
        """An external source over attributes `names` of `owner`, exported in C++."""
        owners, many, names, parts, record_size, count_buffer, count_offset = (
            resource_checks.attribute_source_args(
                self._link.context, owner, owners, names, fields, record_size, count_attribute,
                lock, keep_views, count,
            )
        )  # fmt: skip
        native = self._native.attribute_source(
            self.new_name(name, "external"), owners, many, names, count_attribute or "", lock,
            bool(keep_views), parts, record_size,
            None if count_buffer is None else count_buffer._native, count_offset,
        )  # fmt: skip
        return self._link.track(ExternalSource(self._link, native, {"record_size": record_size}))
