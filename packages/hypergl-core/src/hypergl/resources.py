"""Python handles of the GPU resources a context owns.

Each handle wraps the engine's object and the description that a
self-contained .hgb file stores for it. Using a released handle raises
ResourceError; it never touches freed memory.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from hypergl_compiler.isa import ResourceKind

from . import reading
from ._native import translated_errors
from .errors import ContextGoneError, ResourceError
from .formats import DEPTH_FORMATS, check_pixels

if TYPE_CHECKING:
    from .context_link import ContextLink

BUFFER_USAGES = ("vertex", "index", "uniform", "storage", "indirect", "parameter", "readback")


class GPUResource:
    """Common behaviour: a name, a kind, an owning context, release."""

    kind: ResourceKind

    def __init__(self, link: ContextLink, native: Any, desc: dict[str, Any]) -> None:
        self._link = link  # how the resource reaches its context's engine
        self._native = native
        self._desc = desc

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def context(self) -> Any:
        """The :class:`~hypergl.Context` that made this resource (typed Any: this module
        stands below context.py and does not import it)."""
        return self._link.context

    @property
    def released(self) -> bool:
        return self._native.released

    def describe(self) -> dict[str, Any]:
        """What a self-contained .hgb file records to recreate this resource."""
        return dict(self._desc)

    def release(self) -> None:
        self._link.release(self)

    def _check_live(self) -> None:
        if self._link.closed:  # the context's own reason (closed, or its window destroyed)
            raise ContextGoneError(self._link.closed_reason)
        if self._native.released:
            raise ResourceError(f"{self.kind.name.lower()} '{self.name}' has been released")

    def __repr__(self) -> str:
        state = " released" if self.released else ""
        return f"<{type(self).__name__} '{self.name}'{state}>"


class Buffer(GPUResource):
    """A block of GPU memory that the CPU also addresses: mapped, no copy."""

    kind = ResourceKind.BUFFER

    @property
    def size(self) -> int:
        return self._native.size

    @property
    def usage(self) -> str:
        return self._desc["usage"]

    def map(self, dtype: Any = np.uint8, shape: int | tuple[int, ...] | None = None) -> np.ndarray:
        """A writable NumPy array aliasing the buffer's memory: no copy.

        On the gl device the memory is a persistent, coherent mapping: writes are
        seen by the next submit; GPU writes are seen after ``ctx.finish()`` (or
        inside a program, by the VM's own barrier before a memory instruction).
        The array stays valid even after the buffer is released.
        """
        self._check_live()
        try:
            dtype = np.dtype(dtype)
        except TypeError as exc:
            raise TypeError(f"map: {dtype!r} is not a NumPy dtype") from exc
        if dtype.hasobject or dtype.itemsize == 0:
            raise TypeError(f"map: dtype {dtype} cannot alias GPU memory")
        raw = self._mapped()
        if shape is None:
            if self.size % dtype.itemsize:
                raise ValueError(
                    f"map: buffer '{self.name}' of {self.size} bytes is not a whole number "
                    f"of {dtype} ({dtype.itemsize} bytes)"
                )
            return raw.view(dtype)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0 for n in shape):
            raise ValueError(f"map: shape {shape} must be non-negative integers")
        needed = math.prod(shape) * dtype.itemsize
        if needed > self.size:
            raise ValueError(
                f"map: shape {shape} of {dtype} needs {needed} bytes, buffer '{self.name}' "
                f"has {self.size}"
            )
        return raw[:needed].view(dtype).reshape(shape)

    def write(self, data: Any, offset: int = 0) -> None:
        """Copy `data` (bytes-like or NumPy array) into the buffer at byte `offset`."""
        self._check_live()
        raw = as_bytes(data, "write")
        if (
            isinstance(offset, bool)
            or not isinstance(offset, int)
            or offset < 0
            or offset + raw.nbytes > self.size
        ):
            raise ValueError(
                f"write: {raw.nbytes} bytes at offset {offset!r} do not fit buffer "
                f"'{self.name}' of {self.size} bytes"
            )
        self._mapped()[offset : offset + raw.nbytes] = raw

    def _mapped(self) -> np.ndarray:
        """A uint8 array over the memory that keeps the memory and the GL context's host
        alive. The host is read before the view is taken: a close racing this either comes
        first (the view is refused) or finds the view and leaves the host to it (read after
        the view, a close in between left None, and the host's GL context, freeing the
        memory, went with the close: a heap corruption on Mesa 20.3)."""
        host = self._link.host
        return _Mapping(self._view(), host).array()

    def _view(self) -> np.ndarray:
        """The engine's uint8 array over the memory; it keeps the memory alive, so writes
        through it stay safe even if another thread releases the buffer meanwhile."""
        with translated_errors():
            return self._link.native.buffer_view(self._native)

    def read(self, dtype: Any = np.uint8) -> np.ndarray:
        """A copy of the buffer's contents, after the GPU's writes so far."""
        self._link.finish()
        return self.map(dtype).copy()


class _Mapping:
    """What a mapped array keeps alive: the memory, and the window or EGL context
    behind it, which is therefore destroyed only after the last array is gone."""

    def __init__(self, raw: np.ndarray, host: Any) -> None:
        self._raw = raw
        self._host = host

    def __buffer__(self, flags: int) -> memoryview:
        return memoryview(self._raw)

    def array(self) -> np.ndarray:
        return np.frombuffer(self, dtype=np.uint8)


class Texture(GPUResource):
    """A 2D, 2D-array or cube-map texture (with or without its mip chain) and its sampler state."""

    kind = ResourceKind.TEXTURE

    @property
    def size(self) -> tuple[int, int]:
        return (self._desc["width"], self._desc["height"])

    @property
    def layers(self) -> int:
        return self._desc.get("layers") or 0

    def write(self, data: Any) -> None:
        """Replace every pixel (same shape and dtype as at creation); seen by the next submit.
        A mipmapped texture's chain is remade from the new pixels, even levels given at
        creation (``mipmaps=[...]``)."""
        self._check_live()
        desc = self._desc
        if desc.get("texture_set"):
            raise ResourceError(f"texture set '{self.name}' cannot be rewritten")
        if desc.get("samples"):  # GL writes no pixels into a multisampled texture
            raise ResourceError(f"texture '{self.name}' holds framebuffer "
                                f"'{desc['attachment_of']}''s samples: draw into the "
                                "framebuffer to change them")  # fmt: skip
        if desc["format"] in DEPTH_FORMATS:
            raise ValueError(f"depth texture '{self.name}' takes no pixel data")
        pixels, size = check_pixels(data, desc["format"], desc["layers"])
        if size != (desc["width"], desc["height"]):
            raise ValueError(f"texture '{self.name}' is {desc['width']}x{desc['height']}, "
                             f"the data is {size[0]}x{size[1]}")  # fmt: skip
        self._link.enter()
        if self._link.gl:
            with translated_errors():
                self._link.native.gl_texture_write(self._native, pixels)
        desc["data"] = pixels.tobytes()
        desc.pop("mip_levels", None)  # the chain is made from level 0 now


class TextureSet(Texture):
    """N same-sized images sampled by index with ``hgl_texture(index, uv)`` in GLSL."""

    @property
    def count(self) -> int:
        return self._desc["layers"]

    @property
    def bindless(self) -> bool:
        """True when the driver's bindless handles back the set (else a texture array)."""
        return bool(getattr(self._native, "bindless", False))


class Pipeline(GPUResource):
    """Shaders plus fixed-function state; immutable."""

    kind = ResourceKind.PIPELINE

    @property
    def vertex_count(self) -> int | None:
        """What ``cmd.draw()`` without a count draws with this pipeline (None: not declared)."""
        return self._desc.get("vertex_count")


class AttachmentTexture(Texture):
    """A framebuffer's own attachment seen as a texture: it lives and dies with the
    framebuffer, and a program that binds it saves it linked (the loader binds it)."""

    def release(self) -> None:
        owner = self._desc["attachment_of"]
        raise ResourceError(f"texture '{self.name}' is an attachment of framebuffer "
                            f"'{owner}': release the framebuffer")  # fmt: skip


class Framebuffer(GPUResource):
    """Colour attachments and an optional depth attachment to render into."""

    kind = ResourceKind.FRAMEBUFFER
    _depth_view: AttachmentTexture | None = None
    # (index, sampled) -> color_texture's (False) or sample_texture's (True) view
    _color_views: dict[tuple[int, bool], AttachmentTexture] | None = None

    @property
    def depth_texture(self) -> Texture:
        """The depth attachment as a texture for shaders to read (``texelFetch`` on a
        ``sampler2D`` gives depth in 0..1), e.g. for occlusion culling after a first pass.

        Read it only while nothing draws into the framebuffer (a compute pass, or a draw
        into another framebuffer); GL leaves sampling a texture being rendered to undefined.
        """
        self._check_live()
        if self._depth_view is not None:
            return self._depth_view
        fmt = self._desc.get("depth")
        native = None
        if self._link.gl:
            with translated_errors():
                native = self._link.native.gl_depth_texture(self._native)
        if fmt is None or (self._link.gl and native is None):
            raise ResourceError(f"framebuffer '{self.name}' has no depth texture (made with "
                                "depth=None, or a window's own framebuffer)")  # fmt: skip
        desc = {"width": self._desc["width"], "height": self._desc["height"], "format": fmt,
                "layers": 0, "linked": True, "attachment_of": self.name}  # fmt: skip
        if native is None:  # trace and null: a plain texture stands in
            self._link.enter()
            with translated_errors():
                native = self._link.native.resource(int(ResourceKind.TEXTURE),
                                                    f"{self.name}#depth")  # fmt: skip
        self._depth_view = AttachmentTexture(self._link, native, desc)
        return self._depth_view

    def color_texture(self, index: int = 0) -> Texture:
        """Colour attachment `index` as a texture for shaders to read (``texelFetch``), as
        :attr:`depth_texture`: read it only while nothing draws into the framebuffer (a
        draw into another framebuffer: a mirror's picture on the floor that reflects it)."""
        return self._color_view(index, sampled=False)

    @property
    def samples(self) -> int:
        """Samples a pixel (0: single-sampled)."""
        return int(self._desc.get("samples", 0))

    def sample_texture(self, index: int = 0) -> Texture:
        """A multisampled framebuffer's colour attachment `index` itself, its samples
        unresolved, for a shader's ``sampler2DMS`` (``texelFetch(s, pixel, sample)``): a
        pass that resolves and draws at once. Read it as :meth:`color_texture` (only while
        nothing draws into the framebuffer); ResourceError on a single-sampled one."""
        return self._color_view(index, sampled=True)

    def _color_view(self, index: int, *, sampled: bool) -> Texture:
        """color_texture's view of colour attachment `index` (`sampled`: sample_texture's,
        its multisampled texture), made once and kept."""
        self._check_live()
        formats = tuple(self._desc.get("color") or ())
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(formats):
            raise ResourceError(f"framebuffer '{self.name}' has no colour attachment "
                                f"{index!r} ({len(formats)} of them)")  # fmt: skip
        samples = self.samples
        if sampled and not samples:
            raise ResourceError(f"framebuffer '{self.name}' is single-sampled: it has no "
                                "sample textures (color_texture reads its colours)")  # fmt: skip
        if self._color_views is None:
            self._color_views = {}
        views = self._color_views
        if (index, sampled) in views:
            return views[index, sampled]
        native = None
        if self._link.gl:
            fetch = (
                self._link.native.gl_sample_texture
                if sampled
                else self._link.native.gl_color_texture
            )
            with translated_errors():
                native = fetch(self._native, index)
            if native is None:
                raise ResourceError(f"framebuffer '{self.name}' has no colour texture "
                                    f"{index} (a window's own framebuffer)")  # fmt: skip
        desc = {"width": self._desc["width"], "height": self._desc["height"],
                "format": formats[index], "layers": 0, "linked": True,
                "attachment_of": self.name}  # fmt: skip
        if sampled:
            desc["samples"] = samples
        if native is None:  # trace and null: a plain texture stands in
            self._link.enter()
            with translated_errors():
                native = self._link.native.resource(
                    int(ResourceKind.TEXTURE),
                    f"{self.name}#{'samples' if sampled else 'color'}{index}")  # fmt: skip
        views[index, sampled] = view = AttachmentTexture(self._link, native, desc)
        return view

    def release(self) -> None:
        view = self._depth_view
        colors = list((self._color_views or {}).values())
        super().release()  # on gl this releases the attachments' textures too
        for attached in [view, *colors]:
            if attached is not None and not attached.released:  # a plain stand-in
                self._link.native.release(attached._native)

    @property
    def size(self) -> tuple[int, int]:
        return (self._native.width, self._native.height) if hasattr(
            self._native, "width"
        ) else (self._desc["width"], self._desc["height"])  # fmt: skip

    def read(
        self,
        into: np.ndarray | None = None,
        *,
        attachment: str = "color0",
        components: int = 4,
        origin: str = "top",
        rect: tuple[int, int, int, int] | None = None,
        dtype: Any = np.uint8,
    ) -> np.ndarray:
        """Read pixels straight into `into` (or a new array) and return it.

        Colour attachments give uint8 ``(H, W, components)``; ``attachment='depth'``
        gives float32 ``(H, W)`` depth in 0..1. ``origin='top'`` puts the top row
        first (an image); ``'bottom'`` keeps OpenGL's row order and skips the flip.
        ``rect=(x, y, width, height)`` reads part of the framebuffer, in GL's
        coordinates (x from the left, y from the bottom). ``dtype=np.float32``
        reads colour as floats (float attachments such as r32f).
        """
        self._check_live()
        return reading.read_pixels(
            self._link, self, into, attachment, components, origin, rect, dtype
        )

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """``np.asarray(fb)``: the colour pixels, uint8 ``(H, W, 4)``, top row first (a new
        array each time, read from the GPU)."""
        pixels = self.read()
        return pixels if dtype is None else pixels.astype(dtype, copy=False)

    def _repr_png_(self) -> bytes | None:
        """Jupyter shows a framebuffer as its picture (None when it cannot be read)."""
        from .errors import HyperGLError
        from .png import encode_png

        try:
            return encode_png(self.read())
        except (HyperGLError, ValueError):
            return None

    def reader(
        self,
        into: np.ndarray,
        *,
        attachment: str = "color0",
        components: int = 4,
        rect: tuple[int, int, int, int] | None = None,
    ) -> reading.PixelReader:
        """A reader into `into`, checked once: ``reader.read()`` is then the cheapest read.

        For hot loops; rows come in OpenGL's order (bottom row first).
        """
        self._check_live()
        dtype = into.dtype if isinstance(into, np.ndarray) else np.uint8
        return reading.pixel_reader(self._link, self, into, attachment, components, rect, dtype)


class Fence(GPUResource):
    """A point in the GPU's command stream that the CPU can wait for."""

    kind = ResourceKind.FENCE

    def wait(self, timeout: float = 10.0) -> bool:
        """Wait up to `timeout` seconds; True when the fence has passed."""
        self._check_live()
        with translated_errors():
            return self._link.fence_wait(self._native, timeout)


class Readback(GPUResource):
    """A ring of pixel-pack buffers that `read_framebuffer` fills asynchronously."""

    kind = ResourceKind.READBACK

    @property
    def frames_written(self) -> int:
        return self._native.frames_written if hasattr(self._native, "frames_written") else 0

    def read(
        self, lag: int = 1, into: np.ndarray | None = None, *, origin: str = "top"
    ) -> np.ndarray:
        """The frame captured `lag` captures ago (0: the newest, which may wait for the GPU).

        lag=1 gives one frame of latency: the GPU had a whole frame to finish it.
        """
        self._check_live()
        return reading.read_readback(self._link, self, lag, into, origin)


class ExternalSource(GPUResource):
    """Arrays outside HyperGL (e.g. a physics world) that ``upload`` converts into a buffer."""

    kind = ResourceKind.EXTERNAL

    @property
    def rows_uploaded(self) -> int:
        """Rows copied by the last upload."""
        return self._native.rows_uploaded

    @property
    def record_size(self) -> int:
        return self._native.record_size

    def drop_views(self) -> None:
        """Release views an attribute source keeps between uploads (``keep_views``)."""
        drop = getattr(self._native, "drop_views", None)
        if drop is not None and not self.released:
            drop()

    @property
    def views_held(self) -> bool:
        """Whether the source holds its owner's views now (between uploads)."""
        return bool(getattr(self._native, "views_held", False))


def as_bytes(data: Any, what: str) -> np.ndarray:
    """`data` as a flat uint8 array without copying where possible."""
    if isinstance(data, np.ndarray):
        if data.dtype.hasobject:
            raise TypeError(f"{what}: arrays of Python objects cannot be uploaded")
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    try:
        return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    except TypeError as exc:
        raise TypeError(
            f"{what}: expected bytes or a NumPy array, got {type(data).__name__}"
        ) from exc
