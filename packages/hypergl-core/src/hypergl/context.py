"""`hypergl.context()`: a device, the resources created on it, and submits.

Devices: ``gl`` (real OpenGL: headless EGL by default, or a GLFW / SDL2 window),
``trace`` (records every GL-level call, ``ctx.trace``) and ``null`` (does
nothing: measures the interpreter alone). The same programs run on all three.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import weakref
from typing import Any

import numpy as np

from hypergl_compiler.isa import U32_MAX, ResourceKind

from . import _core, texture_set
from ._egl import HeadlessHost
from ._native import translated_errors
from .capabilities import Capabilities
from .checks import check_count, check_size
from .errors import ContextError, HyperGLError, ResourceError, ShaderError
from .formats import (
    ATTACHMENTS,
    COLOR_FORMATS,
    DEPTH_FORMATS,
    FILTERS,
    TEXTURE_FORMATS,
    WRAP_MODES,
    check_field,
    check_fields,
    check_pixels,
)
from .limits import check_framebuffer, check_texture, device_limits
from .pipeline_state import PipelineStateError, pipeline_state
from .resources import (
    BUFFER_USAGES,
    Buffer,
    ExternalSource,
    Fence,
    Framebuffer,
    GPUResource,
    Pipeline,
    Readback,
    Texture,
    TextureSet,
    as_bytes,
)
from .trace_log import TraceLog

DEVICES = ("gl", "trace", "null")
U64_MAX = (1 << 64) - 1
# format -> (NumPy dtype of its pixels, channels); depth formats take no pixels.
# Contexts still open at exit are closed then, in order: an external source's
# callback can reach its own context (a cycle through C++ that Python's
# collector cannot see), and GL objects must go before their GL context.
_open_contexts: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_open_contexts() -> None:
    for ctx in list(_open_contexts):
        with contextlib.suppress(Exception):  # best effort: the process is ending anyway
            ctx.close()


class Context:
    """A device plus every resource created on it. Create with `hypergl.context()`."""

    def __init__(self, device: str, host: Any = None) -> None:
        self._device = device
        self._host = host
        self._closed = False
        self._handles: dict[int, GPUResource] = {}
        self._counter = itertools.count()
        self._screen: Framebuffer | None = None
        self.capabilities: Capabilities | None = None
        _open_contexts.add(self)
        with translated_errors():
            if host is None:
                self._native = _core.Context(device)
            else:
                self.capabilities = Capabilities.from_probe(_core.probe(host.load))
                if not self.capabilities.at_least(4, 3):
                    raise ContextError(
                        f"HyperGL needs OpenGL 4.3 or newer, this driver has "
                        f"{self.capabilities.version}"
                    )
                indirect_arb = not self.capabilities.at_least(4, 6)
                self._native = _core.Context.gl(
                    host.load,
                    self.capabilities.indirect_count,
                    indirect_arb,
                    self.capabilities.bindless_textures,
                )

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

    def _enter(self) -> None:
        """Check the context is open and make it current on this thread.

        Always re-bound (about 0.3 us): another library's context (moderngl,
        a window) may have been made current in between.
        """
        if self._closed:
            raise ContextError("this context has been closed")
        if self._host is not None:
            self._host.make_current()

    @property
    def _gl(self) -> bool:
        return self._host is not None

    # --- naming and tracking ------------------------------------------------------------
    def _name(self, name: str | None, kind: str) -> str:
        if name is None:
            return f"{kind}{next(self._counter)}"
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        return name

    def _track(self, handle: GPUResource) -> Any:
        self._handles[id(handle._native)] = handle
        return handle

    def _make(
        self, cls: type[GPUResource], name: str, desc: dict, gl_factory=None, plain_factory=None
    ) -> Any:
        """Create the native object: through `gl_factory` on gl, a plain one elsewhere."""
        self._enter()
        with translated_errors():
            try:
                if self._gl:
                    native = gl_factory(name)
                elif plain_factory is not None:
                    native = plain_factory(name)
                elif cls.kind is ResourceKind.BUFFER:
                    native = self._native.buffer(name, desc["size"])
                else:
                    native = self._native.resource(int(cls.kind), name)
            except _core.ShaderError as exc:
                raise ShaderError(str(exc)) from None
        return self._track(cls(self, native, desc))

    # --- buffers -----------------------------------------------------------------------
    def buffer(
        self,
        data: Any = None,
        *,
        size: int | None = None,
        usage: str = "storage",
        name: str | None = None,
    ) -> Buffer:
        """A buffer of `size` bytes, or holding `data` (bytes-like or NumPy array).

        Its memory is mapped for reading and writing for its whole life:
        ``buf.map(dtype, shape)`` gives a NumPy array over it without a copy.
        """
        if usage not in BUFFER_USAGES:
            raise ValueError(f"unknown buffer usage {usage!r}; expected one of {BUFFER_USAGES}")
        raw = None if data is None else as_bytes(data, "buffer")
        if size is None:
            if raw is None:
                raise ValueError("buffer needs data or size")
            size = raw.nbytes
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise TypeError(f"buffer size must be an int, got {size!r}")
        if not 0 < size < 1 << 32:
            raise ValueError(f"buffer size must be in 1..2**32-1 bytes, got {size}")
        if raw is not None and raw.nbytes > size:
            raise ValueError(f"buffer data of {raw.nbytes} bytes exceeds size {size}")
        size = int(size)
        name = self._name(name, "buffer")
        handle = self._make(
            Buffer,
            name,
            {"size": size, "usage": usage},
            lambda n: self._native.gl_buffer(n, size, raw),
        )
        if raw is not None and not self._gl:
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
    ) -> Texture:
        """A 2D texture (or 2D array with `layers`), from a NumPy array or empty.

        `data` is ``(H, W, C)`` (or ``(layers, H, W, C)``) of the format's dtype:
        rgba8 uint8 x4, r32f float32 x1, rgba32f float32 x4, rgba16f float16 x4,
        r32ui uint32 x1. Depth formats (depth24, depth32f) take no data.
        """
        if format not in TEXTURE_FORMATS:
            raise ValueError(f"unknown texture format {format!r}; expected one of "
                             f"{sorted(TEXTURE_FORMATS)}")  # fmt: skip
        if filter not in FILTERS:
            raise ValueError(f"unknown filter {filter!r}; expected one of {FILTERS}")
        if wrap not in WRAP_MODES:
            raise ValueError(f"unknown wrap mode {wrap!r}; expected one of {sorted(WRAP_MODES)}")
        layers = check_count(layers, "layers", minimum=0)
        pixels = None
        if data is not None:
            pixels, (width, height) = check_pixels(data, format, layers)
            if size is not None and tuple(size) != (width, height):
                raise ValueError(f"texture size {size!r} disagrees with data of {width}x{height}")
        elif size is None:
            raise ValueError("texture needs data or size")
        else:
            width, height = check_size(size, "texture size")
        self._check_texture_size(width, height, layers)
        name = self._name(name, "texture")
        desc = {"width": width, "height": height, "format": format, "layers": layers,
                "filter": filter, "wrap": wrap}  # fmt: skip
        if pixels is not None:
            desc["data"] = pixels.tobytes()
        return self._make(
            Texture,
            name,
            desc,
            lambda n: self._native.gl_texture(
                n, width, height, layers, format, pixels, filter == "linear", WRAP_MODES[wrap]
            ),
        )

    def texture_set(
        self,
        images: Any,
        *,
        filter: str = "linear",
        wrap: str = "repeat",
        name: str | None = None,
    ) -> TextureSet:
        """N same-sized rgba8 images ``(N, H, W, 4)`` that shaders sample by index.

        Bind with ``cmd.bind_texture(texture_set, unit)`` and make the pipeline
        with ``texture_set_unit=unit``: GLSL then has ``hgl_texture(index, uv)``.
        Bindless textures back it where the driver has them, a texture array
        elsewhere; the program and the image are the same.
        """
        if filter not in FILTERS:
            raise ValueError(f"unknown filter {filter!r}; expected one of {FILTERS}")
        if wrap not in WRAP_MODES:
            raise ValueError(f"unknown wrap mode {wrap!r}; expected one of {sorted(WRAP_MODES)}")
        images = np.asarray(images)
        if images.ndim != 4 or images.shape[0] < 1:
            raise ValueError(f"texture_set needs images of shape (N, H, W, 4), got {images.shape}")
        pixels, (width, height) = check_pixels(images, "rgba8", images.shape[0])
        count = images.shape[0]
        self._check_texture_size(width, height, count)
        name = self._name(name, "texture_set")
        desc = {"width": width, "height": height, "format": "rgba8", "layers": count,
                "filter": filter, "wrap": wrap, "texture_set": True,
                "data": pixels.tobytes()}  # fmt: skip
        return self._make(
            TextureSet,
            name,
            desc,
            lambda n: self._native.gl_texture_set(
                n, width, height, count, "rgba8", pixels, filter == "linear", WRAP_MODES[wrap]
            ),
        )

    def _write_texture(self, texture: Texture, data: Any) -> None:
        desc = texture._desc
        if desc.get("texture_set"):
            raise ResourceError(f"texture set '{texture.name}' cannot be rewritten")
        if desc["format"] in DEPTH_FORMATS:
            raise ValueError(f"depth texture '{texture.name}' takes no pixel data")
        pixels, size = check_pixels(data, desc["format"], desc["layers"])
        if size != (desc["width"], desc["height"]):
            raise ValueError(f"texture '{texture.name}' is {desc['width']}x{desc['height']}, "
                             f"the data is {size[0]}x{size[1]}")  # fmt: skip
        self._enter()
        if self._gl:
            with translated_errors():
                self._native.gl_texture_write(texture._native, pixels)
        desc["data"] = pixels.tobytes()

    @property
    def limits(self) -> dict[str, int]:
        """The size limits this context applies: the same table on every device (see
        hypergl.limits), so what trace or null accepts, gl accepts too."""
        return device_limits(self.capabilities.limits if self.capabilities else None)

    def _check_texture_size(self, width: int, height: int, layers: int) -> None:
        check_texture(self.limits, width, height, layers)

    # --- pipelines ---------------------------------------------------------------------
    def pipeline(
        self,
        *,
        vertex_shader: str | None = None,
        fragment_shader: str | None = None,
        compute_shader: str | None = None,
        name: str | None = None,
        **state: Any,
    ) -> Pipeline:
        """An immutable pipeline: shaders plus state, all validated here.

        State keywords: vertex_layout, topology, depth_test, depth_write,
        depth_func, blend ('none' | 'alpha'), cull ('none' | 'front' | 'back'),
        front_face, texture_set_unit. Compile and link errors raise ShaderError
        with the driver's log.
        """
        for label, source in (
            ("vertex_shader", vertex_shader),
            ("fragment_shader", fragment_shader),
            ("compute_shader", compute_shader),
        ):
            if source is not None and (not isinstance(source, str) or not source.strip()):
                raise TypeError(f"{label} must be GLSL source text, got {source!r}")
        if compute_shader is not None and (vertex_shader or fragment_shader):
            raise ValueError("a pipeline is either compute (compute_shader) or graphics "
                             "(vertex_shader, fragment_shader), not both")  # fmt: skip
        if compute_shader is None and vertex_shader is None:
            raise ValueError("pipeline needs a vertex_shader or a compute_shader")
        try:
            parsed = pipeline_state(state)
        except PipelineStateError as exc:
            raise ValueError(str(exc)) from None
        name = self._name(name, "pipeline")
        desc = {"vertex_shader": vertex_shader, "fragment_shader": fragment_shader,
                "compute_shader": compute_shader, **parsed.describe()}  # fmt: skip

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
        return self._make(
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
    ) -> Framebuffer:
        """Colour attachments of the given formats plus an optional depth attachment."""
        width, height = check_size(size, "framebuffer size")
        if isinstance(color, str):
            color = (color,)
        color = list(color)
        if len(color) > 4:
            raise ValueError(f"at most 4 colour attachments, got {len(color)}")
        for fmt in color:
            if fmt not in COLOR_FORMATS:
                raise ValueError(f"unknown colour format {fmt!r}; expected one of {COLOR_FORMATS}")
        if depth is not None and depth not in DEPTH_FORMATS:
            raise ValueError(f"unknown depth format {depth!r}; expected one of {DEPTH_FORMATS}")
        if not color and depth is None:
            raise ValueError("a framebuffer needs a colour or a depth attachment")
        check_framebuffer(self.limits, width, height, "framebuffer")
        name = self._name(name, "framebuffer")
        desc = {"width": width, "height": height, "color": color, "depth": depth}
        return self._make(
            Framebuffer,
            name,
            desc,
            lambda n: self._native.gl_framebuffer(n, width, height, color, depth),
        )

    def fence(self, *, name: str | None = None) -> Fence:
        """A fence that ``fence_signal`` sets in a program and the CPU waits on."""
        return self._make(Fence, self._name(name, "fence"), {}, self._native_fence)

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
        """A ring of `depth` pixel-pack buffers for asynchronous reads of `framebuffer`.

        ``cmd.read_framebuffer(readback, framebuffer)`` captures a frame inside a
        program; ``readback.read(lag=1)`` returns it a frame later without a stall.
        """
        if isinstance(framebuffer, Framebuffer):
            width, height = framebuffer.size
        else:
            width, height = check_size(framebuffer, "readback size")
            check_framebuffer(self.limits, width, height, "readback")
        if attachment not in ATTACHMENTS:
            raise ValueError(f"unknown attachment {attachment!r}; expected one of "
                             f"{sorted(ATTACHMENTS)}")  # fmt: skip
        if components not in (1, 3, 4) or (attachment == "depth" and components != 1):
            raise ValueError(f"components must be 1, 3 or 4 (1 for depth), got {components!r}")
        depth = check_count(depth, "depth", minimum=1)
        if depth > 16:
            raise ValueError(f"readback depth {depth} is more than 16 frames")
        index = ATTACHMENTS[attachment]
        name = self._name(name, "readback")
        desc = {"width": width, "height": height, "components": components,
                "attachment": attachment, "depth": depth}  # fmt: skip
        return self._make(
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
        """Arrays outside HyperGL that ``upload`` converts into fixed-size records.

        `acquire()` returns a sequence of buffer-protocol objects, fresh at each
        upload; they are released right after the copy (then `release()` is
        called, if given). Each field copies ``components`` scalars of type
        ``type`` from ``source`` (index into that sequence) at ``offset`` in
        rows of ``stride`` bytes, converting to ``to`` at byte ``at`` of each
        ``record_size``-byte record. ``count=(buffer, offset)`` receives the row
        count as a u32. The copy runs in C++ without the GIL: no per-row Python.
        """
        if not callable(acquire):
            raise TypeError(f"acquire must be callable, got {acquire!r}")
        if release is not None and not callable(release):
            raise TypeError(f"release must be callable or None, got {release!r}")
        record_size = check_count(record_size, "record_size", minimum=1, maximum=U32_MAX)
        parts = [check_field(field, record_size) for field in check_fields(fields)]
        count_buffer, count_offset = None, 0
        if count is not None:
            try:
                count_buffer, count_offset = count
            except (TypeError, ValueError):
                raise TypeError(f"count must be (buffer, offset), got {count!r}") from None
            if not isinstance(count_buffer, Buffer) or count_buffer.context is not self:
                raise TypeError(f"count needs a buffer of this context, got {count_buffer!r}")
            count_offset = check_count(count_offset, "count offset", minimum=0, maximum=U32_MAX)
            if count_offset % 4 or count_offset + 4 > count_buffer.size:
                raise ValueError(f"count offset {count_offset} is not an aligned u32 inside "
                                 f"buffer '{count_buffer.name}'")  # fmt: skip
            count_buffer._check_live()
        name = self._name(name, "external")
        native = self._native.external_source(
            name, acquire, release, parts, record_size,
            None if count_buffer is None else count_buffer._native, count_offset,
        )  # fmt: skip
        return self._track(ExternalSource(self, native, {"record_size": record_size}))

    def upload(self, source: ExternalSource, buffer: Buffer) -> None:
        """Run `source`'s conversion into `buffer` now: the code path of the `upload` op."""
        if not isinstance(source, ExternalSource):
            raise TypeError(f"upload needs an ExternalSource, got {source!r}")
        if not isinstance(buffer, Buffer):
            raise TypeError(f"upload needs a Buffer, got {buffer!r}")
        self._enter()
        with translated_errors():
            try:
                self._native.upload(source._native, buffer._native)
            except RuntimeError as exc:
                raise HyperGLError(str(exc)) from None

    @property
    def screen(self) -> Framebuffer:
        """The window's own framebuffer (window contexts only)."""
        if not hasattr(self._host, "framebuffer_size"):
            raise ContextError("ctx.screen needs a window: hypergl.context(window=(w, h))")
        if self._screen is None or self._screen.released:
            width, height = self._host.framebuffer_size()
            self._screen = self._make(
                Framebuffer,
                "screen",
                {"width": width, "height": height, "color": ["rgba8"], "depth": "depth24"},
                lambda n: self._native.gl_default_framebuffer(n, width, height),
            )
        return self._screen

    # --- windows -------------------------------------------------------------------------
    def _window(self) -> Any:
        if not hasattr(self._host, "swap"):
            raise ContextError("this context has no window: hypergl.context(window=(w, h))")
        return self._host

    def swap(self) -> None:
        """Show the frame rendered into ``ctx.screen``."""
        self._enter()
        self._window().swap()

    def poll(self) -> None:
        """Process window events (resizes update ``ctx.screen``)."""
        window = self._window()
        window.poll()
        if self._screen is not None and not self._screen.released:
            self._screen._native.resize(*window.framebuffer_size())

    @property
    def should_close(self) -> bool:
        return self._window().should_close

    # --- reading back ----------------------------------------------------------------------
    def finish(self) -> None:
        """Wait until the GPU has done everything submitted; its writes are then visible."""
        self._enter()
        if self._gl:
            self._native.finish()

    def check_errors(self) -> None:
        """Raise HyperGLError if OpenGL has recorded an error (gl device)."""
        self._enter()
        if self._gl:
            try:
                self._native.check_errors()
            except RuntimeError as exc:
                raise HyperGLError(str(exc)) from None

    def _need_gl(self, what: str) -> None:
        if not self._gl:
            raise ContextError(f"{what} needs the gl device, this context is '{self._device}'")

    def _fence_wait(self, fence: Fence, timeout: float) -> bool:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0:
            raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
        if not self._gl:
            return True
        self._enter()
        nanoseconds = timeout * 1e9  # inf and beyond: wait for as long as it takes
        return self._native.fence_wait(
            fence._native, U64_MAX if nanoseconds >= U64_MAX else int(nanoseconds)
        )

    # --- lifetime --------------------------------------------------------------------
    def release(self, obj: GPUResource | str) -> None:
        """Free one resource, or every live one with ``release('all')``."""
        if isinstance(obj, str):
            if obj != "all":
                raise ValueError(f"release expects a resource or 'all', got {obj!r}")
            self._enter()
            self._native.release_all()
            self._handles.clear()
            return
        if not isinstance(obj, GPUResource):
            raise TypeError(f"release expects a HyperGL resource or 'all', got {obj!r}")
        if obj._context is not self:
            raise ResourceError(f"'{obj.name}' belongs to another context")
        self._enter()
        self._native.release(obj._native)
        self._handles.pop(id(obj._native), None)

    def live_objects(self) -> list[GPUResource]:
        """Every resource created on this context and not yet released, oldest first."""
        return [self._handles[id(native)] for native in self._native.live_objects()]

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release everything and destroy the GL context (and window).

        NumPy arrays that still map a buffer keep their memory: the GL context is
        then destroyed when the last of them is gone.
        """
        if self._closed:
            return
        self.release("all")
        self._closed = True
        _open_contexts.discard(self)
        host, self._host = self._host, None
        if host is not None and self._native.gl_live_mappings == 0:
            host.close()

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- programs --------------------------------------------------------------------
    def command_buffer(self, name: str = "program"):
        """A command buffer whose resource operands are this context's live objects."""
        from .command_buffer import CommandBuffer

        return CommandBuffer(self, name=name)

    def bridge(self, name: str, source: Any, **options: Any) -> Any:
        """A bridge plugin (entry-point group ``hypergl.bridges``) feeding `source` to the GPU.

        ``ctx.bridge("culverin", world)`` needs hypergl-culverin installed.
        """
        from .plugins import load_bridge

        return load_bridge(name)(self, source, **options)

    def load(self, source: Any, *, bindings: dict[str, GPUResource] | None = None):
        """Inflate a .hgb file (path or bytes) into live resources and a verified program.

        Self-contained files create every resource they describe; linked files
        name resources that `bindings` supplies. Returns a Scene to submit.
        """
        from .scene import load_scene

        return load_scene(self, source, bindings or {})


def context(
    device: str = "gl",
    *,
    window: tuple[int, int] | None = None,
    title: str = "HyperGL",
    backend: str = "glfw",
    vsync: bool = False,
    visible: bool = True,
) -> Context:
    """Create a context.

    ``hypergl.context()`` is headless OpenGL through EGL; ``window=(w, h)`` opens
    a GLFW window (``backend='sdl'`` for SDL2) with ``ctx.screen``, ``swap()``,
    ``poll()`` and ``should_close``; ``device='trace'`` or ``'null'`` need no GPU.
    """
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {DEVICES}")
    if device != "gl":
        if window is not None:
            raise ValueError(f"device {device!r} cannot open a window")
        return Context(device)
    if window is None:
        return Context("gl", HeadlessHost())
    from .windows import WINDOW_BACKENDS

    if backend not in WINDOW_BACKENDS:
        raise ValueError(f"unknown window backend {backend!r}; expected one of "
                         f"{sorted(WINDOW_BACKENDS)}")  # fmt: skip
    size = check_size(window, "window")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {title!r}")
    host = WINDOW_BACKENDS[backend](size, title, bool(vsync), bool(visible))
    try:
        return Context("gl", host)
    except BaseException:
        host.close()
        raise
