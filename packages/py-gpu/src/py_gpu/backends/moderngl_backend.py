"""ModernGL backend: offscreen OpenGL on a headless EGL context.

Follows :mod:`py_gpu.convention`: pixel ``x`` maps to GL window ``x`` (and ``y`` to ``y``: GL's
bottom row is read back as our top row, so no row flip is needed) through a viewport with a guard
band (:func:`py_gpu.convention.guard`: nothing near the image is clipped), vertex positions are
pre-snapped to the 1/256 pixel grid GL rasterises on, and the depth is
:func:`py_gpu.convention.affine_depth` written per vertex (the fragment shader leaves depth
alone, so early depth tests stay on).  One vertex buffer persists across frames and is
grown only when a batch does not fit; a batch rendered again is not uploaded again, and
:meth:`ModernGLBackend.upload` keeps static batches resident.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..buffers import ColorLike, FrameBuffer
from ..convention import SUBPIXEL, affine_depth, guard
from ..errors import BackendUnavailableError
from ..geometry import RasterBatch
from ..readback import PendingFrame, Ring
from .lifecycle import Backend
from .protocol import (
    BackendCapabilities,
    BatchHandle,
    check_render_args,
    deliver,
    frame_for,
)

VERTEX_SHADER = """
#version 330
uniform vec3 u_scale;  // 2 / viewport width, 2 / viewport height, guard band in pixels
in vec3 in_position;  // x, y snapped to 1/256 px; z: the affine depth in [0, 0.5]
in vec4 in_color;
flat out vec4 v_color;
void main() {
    gl_Position = vec4((in_position.xy + u_scale.z) * u_scale.xy - 1.0,
                       in_position.z * 2.0 - 1.0, 1.0);
    v_color = in_color;
}
"""

FRAGMENT_SHADER = """
#version 330
flat in vec4 v_color;
out vec4 frag_color;
void main() {
    frag_color = v_color;
}
"""

ID_FRAGMENT_SHADER = """
#version 330
flat in vec4 v_color;
out float frag_id;
void main() {
    frag_id = float(gl_PrimitiveID + 1);
}
"""

#: Frames in flight for render_async (pixel-pack buffers per frame size).
RING_SIZE = 3
VERTEX_DTYPE = np.dtype([("position", np.float32, 3), ("color", np.uint8, 4)])


def create_egl_context(require: int = 330) -> Any:
    """A standalone headless ModernGL context on EGL (no display needed)."""
    import moderngl

    return moderngl.create_standalone_context(require=require, backend="egl")


def pack_vertices(batch: RasterBatch) -> bytes:
    """Interleaved float32 ``x, y`` (snapped to 1/256 px), the affine depth, RGBA8 per vertex."""
    xyz, rgb = batch.arrays()
    data = np.empty(xyz.shape[0] * 3, dtype=VERTEX_DTYPE)
    position = data["position"]
    position[:, :2] = (np.rint(xyz[:, :, :2] * SUBPIXEL) / SUBPIXEL).reshape(-1, 2)
    position[:, 2] = affine_depth(xyz[:, :, 2]).reshape(-1)
    data["color"][:, :3] = np.repeat(rgb, 3, axis=0)
    data["color"][:, 3] = 255
    return data.tobytes()


class ModernGLBackend(Backend):
    """GPU raster backend using an offscreen ModernGL context on headless EGL."""

    name = "moderngl"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="ModernGL GPU rasterizer",
        accelerated=True,
        supports_depth=True,
        supports_vertex_attributes=True,
        supports_ids=True,
        supports_persistent_batches=True,
        supports_async_readback=True,
        api="opengl",
        priority=200,
    )

    @classmethod
    def probe(cls) -> str | None:
        try:
            import glcontext  # noqa: F401
            import moderngl  # noqa: F401
        except ImportError as exc:
            return f"moderngl is not installed ({exc}); pip install 'py-gpu[opengl]'"
        return None

    def __init__(self, context: Any = None) -> None:
        import moderngl

        try:
            self._ctx = context if context is not None else create_egl_context()
        except Exception as exc:
            raise BackendUnavailableError(f"no headless EGL OpenGL context: {exc}") from exc
        self._moderngl = moderngl
        ctx = self._ctx
        self._max_viewport = int(min(ctx.info["GL_MAX_VIEWPORT_DIMS"]))
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        self._id_program = ctx.program(
            vertex_shader=VERTEX_SHADER, fragment_shader=ID_FRAGMENT_SHADER
        )
        self._vbo = ctx.buffer(reserve=VERTEX_DTYPE.itemsize * 3 * 1024, dynamic=True)
        self._vao = self._make_vao(self._program, self._vbo)
        self._id_vao = self._make_vao(self._id_program, self._vbo)
        self._resident: weakref.ref | None = None
        self._resident_count = 0
        self._targets: dict[tuple[int, int], tuple] = {}
        self._id_targets: dict[tuple[int, int], tuple] = {}
        self._packs: dict[tuple[int, int], tuple[list, Ring]] = {}
        #: Counters for tests and benchmarks: uploads and (re)allocations of the shared buffer.
        self.stats: dict[str, int] = {"uploads": 0, "allocations": 1}

    def _make_vao(self, program, vbo):
        if "in_color" in program:
            layout = (vbo, "3f 4f1", "in_position", "in_color")
        else:  # the id program does not read colours
            layout = (vbo, "3f 4x", "in_position")
        return self._ctx.vertex_array(program, [layout], mode=self._moderngl.TRIANGLES)

    # ------------------------------------------------------------------ resources
    def _target(self, width: int, height: int, ids: bool = False):
        cache = self._id_targets if ids else self._targets
        key = (width, height)
        if key not in cache:
            ctx = self._ctx
            if ids:
                color = ctx.renderbuffer(key, components=1, dtype="f4")
            else:
                color = ctx.renderbuffer(key, components=4)
            depth = ctx.depth_renderbuffer(key)
            cache[key] = (ctx.framebuffer([color], depth), color, depth)
        return cache[key][0]

    def _shared_vao(self, batch: RasterBatch, vao):
        """The shared VAO holding ``batch``, uploading it only when it is not resident."""
        resident = self._resident() if self._resident is not None else None
        if resident is not batch:
            data = pack_vertices(batch)
            if len(data) > self._vbo.size:
                self._vbo.orphan(max(len(data), 2 * self._vbo.size))
                self.stats["allocations"] += 1
            if data:
                self._vbo.write(data)
            self.stats["uploads"] += 1
            self._resident = weakref.ref(batch)
            self._resident_count = len(batch) * 3
        return vao, self._resident_count

    def upload(self, batch: RasterBatch) -> BatchHandle:
        """Keep ``batch`` in its own GPU buffer; render the returned handle many times."""
        if not isinstance(batch, RasterBatch):
            raise TypeError(f"upload() needs a RasterBatch, got {type(batch).__name__}")
        data = pack_vertices(batch)
        with self._ctx:
            vbo = self._ctx.buffer(data if data else b"\0" * VERTEX_DTYPE.itemsize)
            resources = {
                "vbo": vbo,
                "vao": self._make_vao(self._program, vbo),
                "id_vao": self._make_vao(self._id_program, vbo),
                "count": len(batch) * 3,
            }
        self.stats["uploads"] += 1
        return BatchHandle(batch, self, resources)

    def _release_handle(self, handle: BatchHandle) -> None:
        with self._ctx:
            for key in ("vao", "id_vao", "vbo"):
                handle.resources[key].release()

    def _draw(self, source, batch, width, height, ids: bool):
        fbo = self._target(width, height, ids)
        fbo.use()
        ctx = self._ctx
        g = guard(width, height, self._max_viewport)
        ctx.viewport = (-g, -g, width + 2 * g, height + 2 * g)
        ctx.enable_only(self._moderngl.DEPTH_TEST)
        ctx.depth_func = "<"
        program = self._id_program if ids else self._program
        program["u_scale"].value = (2.0 / (width + 2 * g), 2.0 / (height + 2 * g), g)
        if isinstance(source, BatchHandle):
            if source.released:
                raise ValueError("this batch handle was released")
            if source.backend is not self:
                raise ValueError("this batch handle belongs to another backend")
            vao = source.resources["id_vao" if ids else "vao"]
            count = source.resources["count"]
        else:
            vao, count = self._shared_vao(batch, self._id_vao if ids else self._vao)
        if count:
            vao.render(vertices=count)
        return fbo

    def _frame(self, source, batch: RasterBatch, width: int, height: int, bg) -> Any:
        """The target of this size, cleared to ``bg`` and drawn (our context is current)."""
        fbo = self._target(width, height)
        fbo.clear(bg[0] / 255.0, bg[1] / 255.0, bg[2] / 255.0, 1.0, depth=1.0)
        self._draw(source, batch, width, height, ids=False)
        return fbo

    # ------------------------------------------------------------------ protocol
    def render(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer:
        source = batch
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        # Make our context current for the call (other GL users may share the thread).
        with self._ctx:
            data = self._frame(source, batch, width, height, bg).read(components=3, alignment=1)
        return deliver(data, width, height, target)

    def _pixel_packs(self, width: int, height: int):
        """A ring of pixel-pack buffers that asynchronous frames of this size are read into."""
        key = (width, height)
        if key not in self._packs:
            with self._ctx:
                buffers = [self._ctx.buffer(reserve=width * height * 3) for _ in range(RING_SIZE)]
            self._packs[key] = (buffers, Ring(RING_SIZE))
        return self._packs[key]

    def render_async(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> PendingFrame:
        """Draw and start reading into a pixel-pack buffer; ``result()`` waits for that frame."""
        source = batch
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        buffers, ring = self._pixel_packs(width, height)
        slot = ring.claim()
        with self._ctx:
            fbo = self._frame(source, batch, width, height, bg)
            fbo.read_into(buffers[slot], components=3, alignment=1)

        def finish() -> FrameBuffer:
            self.check_open()
            frame = frame_for(target, width, height)
            with self._ctx:
                buffers[slot].read_into(frame.pixels)
            return frame

        return ring.attach(slot, PendingFrame(finish))

    def rasterize_ids(
        self, batch: RasterBatch | BatchHandle, width: int, height: int
    ) -> tuple[Any, Any]:
        """``(ids, depth)``: winning triangle per pixel from the GPU, ``z`` recomputed exactly."""
        from ._setup import depth_for_ids

        source = batch
        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        with self._ctx:
            fbo = self._target(width, height, ids=True)
            fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
            self._draw(source, batch, width, height, ids=True)
            raw = np.frombuffer(fbo.read(components=1, dtype="f4"), dtype=np.float32)
        ids = (raw.astype(np.int64) - 1).astype(np.int32).reshape(height, width)
        return ids, depth_for_ids(batch.arrays()[0], ids)

    def _release(self) -> None:
        self._ctx.__enter__()
        for cache in (self._targets, self._id_targets):
            for fbo, color, depth in cache.values():
                fbo.release()
                color.release()
                depth.release()
            cache.clear()
        for buffers, _ in self._packs.values():
            for buffer in buffers:
                buffer.release()
        self._packs.clear()
        self._ctx.release()
