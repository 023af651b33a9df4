"""`hypergl.context()`: a device, the resources created on it, and submits.

Devices: ``gl`` (real OpenGL: headless EGL by default, a hidden GLFW window where EGL
gives no context, or a GLFW / SDL2 window),
``trace`` (records every GL-level call, ``ctx.trace``) and ``null`` (does
nothing: measures the interpreter alone). The same programs run on all three.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _core, glfw_lifetime, gpu_situation
from ._native import NATIVE_ERRORS, translate, translated_errors
from .capabilities import Capabilities
from .checks import check_size
from .context_link import ContextLink
from .errors import ContextError, HyperGLError, ResourceError
from .platform_support import MINIMUM_GL, too_old_message
from .resource_factory import ResourceFactory
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
from .trace_log import TraceLog
from .window_controls import WindowControls

if TYPE_CHECKING:
    from .command_buffer import CommandBuffer
    from .scene import Scene

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


class Context(WindowControls):
    """A device plus every resource created on it. Create with `hypergl.context()`."""

    def __init__(self, device: str, host: Any = None) -> None:
        self._device = device
        self._host = host
        self._closed = False
        self._closing = threading.Lock()
        self._link = ContextLink(self, device, host)  # owns the handles and release
        self._screen: Framebuffer | None = None
        self.capabilities: Capabilities | None = None
        _open_contexts.add(self)
        with translated_errors():
            if host is None:
                self._native = self._link.native = _core.Context(device)
            else:
                # The engine makes its own contexts current (EGL, the hidden window); a
                # window's is current.
                engine = getattr(host, "engine_context", None)
                probed = host.probe() if engine is not None else _core.probe(host.load)
                self.capabilities = Capabilities.from_probe(probed)
                if not self.capabilities.at_least(*MINIMUM_GL):
                    raise ContextError(too_old_message(self.capabilities.version))
                indirect_arb = not self.capabilities.at_least(4, 6)
                self._native = self._link.native = _core.Context.gl(
                    None if engine is not None else host.load,
                    self.capabilities.indirect_count,
                    indirect_arb,
                    self.capabilities.bindless_textures,
                    engine,
                    software=gpu_situation.is_software(self.capabilities.renderer),
                )
        self._factory = ResourceFactory(self._link, self.capabilities)  # every maker
        glfw = getattr(host, "glfw", None)  # the window is GLFW's: closed before it goes
        if glfw is not None:
            glfw_lifetime.watch(glfw, self._window_destroyed)

    # --- what the context is -------------------------------------------------
    @property
    def device(self) -> str:
        return self._device

    @property
    def info(self) -> dict[str, Any]:
        """Where this context renders. ``platform``: ``"egl"`` (the engine's headless EGL
        context), ``"glfw-hidden-window"`` (the fallback where EGL gives no context; then
        ``egl_error`` says why), ``"glfw-window"`` or ``"sdl-window"``, None off gl; and on
        gl the driver's ``renderer``, ``vendor`` and ``version``."""
        out: dict[str, Any] = {"device": self._device, "platform": None}
        host = self._host
        if host is not None:
            out.update(host.info() if hasattr(host, "info") else {"platform": host.platform})
        if self.capabilities is not None:
            caps = self.capabilities
            out.update(renderer=caps.renderer, vendor=caps.vendor, version=caps.version)
        return out

    @property
    def trace(self) -> TraceLog:
        if self._device != "trace":
            raise ContextError(f"ctx.trace needs device='trace', this context is '{self._device}'")
        return TraceLog(self._native.trace_entries(), self._native)

    def __repr__(self) -> str:
        return f"<hypergl.Context device='{self._device}' live={len(self._link.handles)}>"

    def _enter(self) -> None:
        self._link.enter()

    @property
    def _gl(self) -> bool:
        return self._link.gl

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
        return self._factory.buffer(data, size=size, usage=usage, name=name)

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
        """A 2D texture (or 2D array with `layers`), from a NumPy array or empty.

        `data` is ``(H, W, C)`` (or ``(layers, H, W, C)``) of the format's dtype:
        rgba8 uint8 x4, r32f float32 x1, rgba32f float32 x4, rgba16f float16 x4,
        r32ui uint32 x1. Depth formats (depth24, depth32f) take no data.

        ``cube=True``: a cube map (GLSL ``samplerCube``), `data` its 6 square faces
        ``(6, S, S, C)`` in GL's order +x, -x, +y, -y, +z, -z. ``mipmaps=True``: the
        full chain of levels, remade from level 0 at every write, sampled trilinearly
        (LINEAR_MIPMAP_LINEAR) with ``filter="linear"``; colour formats that filter only.
        ``mipmaps=[level1, level2, ...]``: the chain given instead of made (no
        glGenerateTextureMipmap): every level after `data`'s, each half the last (sizes
        rounded down, at least 1) down to 1x1, shaped and typed as `data` (a cube map's
        ``(6, s, s, C)``). A later ``write`` replaces level 0 and remakes the chain from it.
        """
        return self._factory.texture(
            data, size=size, format=format, layers=layers, filter=filter, wrap=wrap, name=name,
            mipmaps=mipmaps, cube=cube,
        )  # fmt: skip

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
        return self._factory.texture_set(images, filter=filter, wrap=wrap, name=name)

    @property
    def limits(self) -> dict[str, int]:
        """The size limits this context applies: the same table on every device (see
        hypergl.limits), so what trace or null accepts, gl accepts too."""
        return self._factory.limits

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
        """An immutable pipeline: shaders plus state, all validated here.

        ``vertex_count`` is what ``cmd.draw()`` without a count draws with it.
        State keywords: vertex_layout, topology, depth_test, depth_write,
        depth_func, blend ('none' | 'alpha'), cull ('none' | 'front' | 'back'),
        front_face, clip_distances (n: gl_ClipDistance[0 .. n - 1] enabled, n <= 8),
        multisample (False: rasterized as one sample in a multisampled framebuffer, its
        depth and colour written to every sample), texture_set_unit. Compile and link
        errors raise ShaderError with the driver's log.
        """
        return self._factory.pipeline(
            vertex_shader=vertex_shader, fragment_shader=fragment_shader,
            compute_shader=compute_shader, vertex_count=vertex_count, name=name, **state,
        )  # fmt: skip

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
        """Colour attachments of the given formats plus an optional depth attachment.

        `samples` > 0: each pixel has that many samples (at most the device's
        ``max_samples``; ``max_integer_samples`` with an ``r32ui`` attachment), drawn into
        multisampled storage and resolved into the attachment textures before every read:
        colour averaged, depth and integer formats one sample of each pixel. The resolved
        textures (:meth:`Framebuffer.color_texture`) hold the last read's picture."""
        return self._factory.framebuffer(size, color=color, depth=depth, name=name,
                                         samples=samples)  # fmt: skip

    def fence(self, *, name: str | None = None) -> Fence:
        """A fence that ``fence_signal`` sets in a program and the CPU waits on."""
        return self._factory.fence(name=name)

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
        return self._factory.readback(
            framebuffer, attachment=attachment, components=components, depth=depth, name=name
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
        return self._factory.external_source(
            acquire, fields, record_size=record_size, release=release, count=count, name=name
        )

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
        """An external source whose arrays are attributes `names` of `owner`, exported in C++.

        Like :meth:`external_source` with ``acquire = lambda: [getattr(owner, n) for n in
        names]``, but with no Python frame per upload: ``lock.acquire()`` / ``release()``
        (if given) bracket each copy.

        Many owners: pass ``owners=[...]`` (a sequence, e.g. one MuJoCo ``MjData`` per
        world) instead of `owner`; `owner` is always one object, even a list. Each owner's
        rows follow the previous owner's in the destination, the row count is their sum,
        and every owner must give arrays of owner 0's sizes (the upload fails naming the
        owner otherwise).

        ``keep_views`` holds the exports between uploads: for owners whose arrays never
        move (MuJoCo's ``mjData``), or, with ``count_attribute`` (each owner's row count),
        re-exported when a count changes, for owners that never reallocate exported memory
        (Culverin). ``source.drop_views()`` releases them (so the owner may grow).
        """
        return self._factory.attribute_source(
            owner, names, fields, record_size=record_size, owners=owners,
            count_attribute=count_attribute, lock=lock, keep_views=keep_views, count=count,
            name=name,
        )  # fmt: skip

    def upload(self, source: ExternalSource, buffer: Buffer) -> None:
        """Run `source`'s conversion into `buffer` now: the code path of the `upload` op."""
        if not isinstance(source, ExternalSource):
            raise TypeError(f"upload needs an ExternalSource, got {source!r}")
        if not isinstance(buffer, Buffer):
            raise TypeError(f"upload needs a Buffer, got {buffer!r}")
        # A CPU copy into persistently mapped memory: no GL call, so no make-current, and
        # no context manager: this runs every frame and its cold cost is the bridge's.
        if self._closed:
            raise ContextError(self._link.closed_reason)
        try:
            self._native.upload(source._native, buffer._native)
        except NATIVE_ERRORS as exc:  # a failed conversion too (the engine's RuntimeError)
            raise translate(exc) from None

    # --- reading back ----------------------------------------------------------------------
    # --- the VM's clock and random generator (see vm_state) --------------------
    def set_clock(self, seconds: float) -> None:
        """Set the clock that ``get_time`` / ``get_delta`` read at the next submits (seconds)."""
        self._link.vm.set_clock(seconds)

    def seed(self, seed: int) -> None:
        """Restart the generator ``gen_rand`` draws from (an int in 0..2**64-1)."""
        self._link.vm.seed(seed)

    def finish(self) -> None:
        """Wait until the GPU has done everything submitted; its writes are then visible."""
        self._link.finish()

    def flush(self) -> None:
        """Start the GPU on everything submitted and return without waiting (glFlush).

        GL only promises to start submitted work at a flush (or at a read, a wait, or when
        the context stops being current, as it does after each call from a thread that
        did not have it current). Flush after submitting a frame whose read comes later,
        so that the GPU works on it meanwhile."""
        self._link.flush()

    def check_errors(self) -> None:
        """Raise HyperGLError if OpenGL has recorded an error (gl device)."""
        self._enter()
        if self._gl:
            try:
                self._native.check_errors()
            except RuntimeError as exc:
                raise HyperGLError(str(exc)) from None

    # --- lifetime --------------------------------------------------------------------
    def release(self, obj: GPUResource | str) -> None:
        """Free one resource, or every live one with ``release('all')``."""
        if isinstance(obj, str):
            if obj != "all":
                raise ValueError(f"release expects a resource or 'all', got {obj!r}")
            self._link.release_all()
            return
        if not isinstance(obj, GPUResource):
            raise TypeError(f"release expects a HyperGL resource or 'all', got {obj!r}")
        if obj.context is not self:
            raise ResourceError(f"'{obj.name}' belongs to another context")
        self._link.release(obj)

    def live_objects(self) -> list[GPUResource]:
        """Every resource created on this context and not yet released, oldest first."""
        return self._link.live_objects()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release everything and destroy the GL context (and window).

        NumPy arrays that still map a buffer keep their memory: the GL context is
        then destroyed when the last of them is gone.
        """
        with self._closing:  # two threads closing at once: the second waits, then returns
            if self._closed:
                return
            # The engine refuses new resources from here on, under the lock it creates
            # them with: one made by a racing thread would outlive the GL context.
            self._enter()
            self._native.close()
            self._link.handles.clear()
            self._closed = self._link.closed = True
            _open_contexts.discard(self)
            host, self._host = self._host, None
            self._link.host = None
            if host is not None and self._native.gl_live_mappings == 0:
                host.close()

    def _window_destroyed(self, reason: str) -> None:
        """The window's library is about to destroy the window and its GL context (see
        glfw_lifetime): close now, while they exist, and raise ContextError(`reason`)
        from then on."""
        host = self._host
        self._link.closed_reason = reason
        self.close()
        if host is not None:
            host.close()  # even where arrays still map buffers: the library frees it all

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- programs --------------------------------------------------------------------
    def command_buffer(self, name: str = "program") -> CommandBuffer:
        """A command buffer whose resource operands are this context's live objects."""
        from .command_buffer import CommandBuffer

        return CommandBuffer(self, name=name)

    def bridge(self, name: str, source: Any, **options: Any) -> Any:
        """A bridge plugin (entry-point group ``hypergl.bridges``) feeding `source` to the GPU:
        a :class:`hypergl.plugins.Bridge` of this context, the record source of `source`'s
        bodies for ``hypergl.bodies.BodyRenderer``, whose ``set_looks(renderer)`` gives
        them their looks (docs/plugins/hypergl-bridge.md).

        ``ctx.bridge("culverin", world)`` needs hypergl-culverin installed.
        """
        from .plugins import checked_bridge, load_bridge

        return checked_bridge(name, load_bridge(name)(self, source, **options), self)

    def load(
        self,
        source: Any,
        *,
        bindings: dict[str, GPUResource] | None = None,
        memory_limit: int | None = None,
    ) -> Scene:
        """Inflate a .hgb file (path or bytes) into live resources and a verified program.

        Self-contained files create every resource they describe; linked files
        name resources that `bindings` supplies. Returns a Scene to submit.
        The resources the file makes may take `memory_limit` bytes together
        (default: ``hypergl_compiler.hgb.default_memory_limit()``, a quarter of
        this machine's memory, at most 4 GiB); the whole file is checked before
        anything is made.
        """
        from .scene import load_scene

        bindings = {} if bindings is None else bindings
        return load_scene(self, self._link, self._factory, source, bindings, memory_limit)


def context(
    device: str = "gl",
    *,
    window: tuple[int, int] | None = None,
    title: str = "HyperGL",
    backend: str = "glfw",
    vsync: bool = False,
    visible: bool = True,
    device_index: int | None = None,
    require_hardware: bool = False,
) -> Context:
    """Create a context.

    ``hypergl.context()`` is headless OpenGL through EGL, else (no EGL, or no context
    from it) through a hidden GLFW window, which must then be created on the main thread
    (``ctx.info["platform"]`` says which); ``device_index=i``
    opens the i-th GPU of ``hypergl.devices()`` (counted within
    ``CUDA_VISIBLE_DEVICES`` where that is set); ``window=(w, h)`` opens a GLFW
    window (``backend='sdl'`` for SDL2) with ``ctx.screen``, ``swap()``,
    ``poll()`` and ``should_close``; ``device='trace'`` or ``'null'`` need no GPU.
    ``require_hardware=True`` refuses a software rasterizer (llvmpipe) instead of
    rendering on the CPU without a word. Any thread may use a context, one at a time.
    """
    if not isinstance(require_hardware, bool):
        raise TypeError(f"require_hardware must be True or False, got {require_hardware!r}")
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {DEVICES}")
    if device_index is not None and (device != "gl" or window is not None):
        raise ValueError(f"device_index={device_index!r} needs a headless gl context "
                         f"(device='gl', no window), got device={device!r}")  # fmt: skip
    if device != "gl":
        if window is not None:
            raise ValueError(f"device {device!r} cannot open a window")
        return Context(device)
    if window is None:
        from .headless import open_headless

        host = open_headless(device_index)
        try:
            return _hardware_checked(Context("gl", host), require_hardware)
        except BaseException:
            host.close()
            raise
    from .windows import WINDOW_BACKENDS

    if backend not in WINDOW_BACKENDS:
        raise ValueError(f"unknown window backend {backend!r}; expected one of "
                         f"{sorted(WINDOW_BACKENDS)}")  # fmt: skip
    size = check_size(window, "window")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {title!r}")
    host = WINDOW_BACKENDS[backend](size, title, bool(vsync), bool(visible))
    try:
        return _hardware_checked(Context("gl", host), require_hardware)
    except BaseException:
        host.close()
        raise


def _hardware_checked(ctx: Context, require_hardware: bool) -> Context:
    """`ctx`, or a ContextError (ctx closed) when it renders in software and that was refused."""
    renderer = ctx.capabilities.renderer if ctx.capabilities else ""
    if require_hardware and gpu_situation.is_software(renderer):
        ctx.close()
        raise ContextError(f"require_hardware=True, but the only OpenGL driver found renders "
                           f"in software ({renderer}). {gpu_situation.explain()}")  # fmt: skip
    return ctx
