"""py-gpu's ``hypergl`` backend: RasterBatch rendering through a recorded VM program.

Loaded only through the ``py_gpu.backends`` entry point, so py-gpu is present
whenever this module is imported (hypergl-core itself does not depend on it).

Per target size and background one program is recorded: bind the framebuffer,
clear, set a viewport with a guard band, bind the pipeline and the persistent
vertex buffer, ``draw_reg`` with the vertex count in r0. A frame is then: pack
the vertices straight into the persistently mapped buffer (skipped when the same
batch is drawn again), one ``submit``, one read into the frame's own memory. The
convention is py-gpu's: pixel x maps to GL window x, y likewise (GL's bottom row
is read as our top row, so no flip), nothing near the image is clipped
(``py_gpu.convention.guard``), vertices snapped to 1/256 pixel, depth
``py_gpu.convention.affine_depth`` written per vertex into a 32-bit float depth
buffer (the fragment shader leaves depth alone: early depth tests stay on).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from py_gpu.backends import (
    Backend,
    BackendCapabilities,
    BatchHandle,
    check_render_args,
    depth_for_ids,
    frame_for,
)
from py_gpu.buffers import FrameBuffer
from py_gpu.convention import SUBPIXEL, affine_depth, guard
from py_gpu.errors import BackendUnavailableError
from py_gpu.geometry import RasterBatch
from py_gpu.readback import PendingFrame, Ring

from .errors import HyperGLError
from .shader_prelude import VERSION

VERTEX_SHADER = (
    VERSION
    + """// 2 / viewport width, 2 / viewport height, guard band in pixels
layout(location = 0) uniform vec3 u_scale;
layout(location = 0) in vec3 in_position;  // x, y snapped; z: the affine depth in [0, 0.5]
layout(location = 1) in vec4 in_color;
flat out vec4 v_color;
void main() {
    gl_Position = vec4((in_position.xy + u_scale.z) * u_scale.xy - 1.0,
                       in_position.z * 2.0 - 1.0, 1.0);
    v_color = in_color;
}
"""
)
FRAGMENT_SHADER = (
    VERSION
    + """flat in vec4 v_color;
out vec4 frag_color;
void main() {
    frag_color = v_color;
}
"""
)
ID_FRAGMENT_SHADER = (
    VERSION
    + """flat in vec4 v_color;
out float frag_id;
void main() {
    frag_id = float(gl_PrimitiveID + 1);
}
"""
)
#: Frames in flight for render_async (framebuffers per frame size).
RING_SIZE = 3
VERTEX_DTYPE = np.dtype([("position", np.float32, 3), ("color", np.uint8, 4)])
VERTEX_LAYOUT = [
    {
        "binding": 0,
        "stride": VERTEX_DTYPE.itemsize,
        "attributes": [
            {"location": 0, "format": "f32x3", "offset": 0},
            {"location": 1, "format": "u8x4n", "offset": 12},
        ],
    }
]
STATE = {"vertex_layout": VERTEX_LAYOUT, "depth_test": True, "depth_func": "less"}


def pack_into(batch: RasterBatch, out: np.ndarray) -> None:
    """Write the batch's vertices (x, y snapped to 1/256 px, the affine depth, RGBA8) into
    `out` in place."""
    xyz, rgb = batch.arrays()
    count = xyz.shape[0] * 3
    position = out["position"][:count]
    position[:, :2] = xyz[:, :, :2].reshape(-1, 2)
    position[:, :2] = np.rint(position[:, :2] * SUBPIXEL) / SUBPIXEL
    position[:, 2] = affine_depth(xyz[:, :, 2]).reshape(-1)
    colour = out["color"][:count]
    colour[:, :3] = np.repeat(rgb, 3, axis=0)
    colour[:, 3] = 255


class HyperGLBackend(Backend):
    """GPU raster backend: one recorded HyperGL program per target, replayed per frame."""

    name = "hypergl"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="HyperGL VM rasterizer",
        accelerated=True,
        supports_depth=True,
        supports_vertex_attributes=True,
        supports_ids=True,
        supports_persistent_batches=True,
        supports_async_readback=True,
        api="opengl",
        priority=250,
    )

    @classmethod
    def probe(cls) -> str | None:
        from .headless import open_headless

        try:
            open_headless().close()
        except Exception as exc:
            return f"no headless OpenGL here: {exc}"
        return None

    def __init__(self, context: Any = None) -> None:
        import hypergl

        try:
            self._ctx = context if context is not None else hypergl.context()
        except hypergl.HyperGLError as exc:
            raise BackendUnavailableError(f"hypergl cannot start: {exc}") from exc
        ctx = self._ctx
        # OpenGL 4.x guarantees viewports of at least 16384 pixels.
        limits = ctx.capabilities.limits if ctx.capabilities is not None else {}
        self._max_viewport = min(limits.get("max_viewport_width", 16384),
                                 limits.get("max_viewport_height", 16384))  # fmt: skip
        self._pipeline = ctx.pipeline(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER,
                                      name="py_gpu_colour", **STATE)  # fmt: skip
        self._id_pipeline = ctx.pipeline(
            vertex_shader=VERTEX_SHADER, fragment_shader=ID_FRAGMENT_SHADER,
            name="py_gpu_ids", **STATE,
        )  # fmt: skip
        self._vertices = self._new_vertex_buffer(3 * 1024)
        self._resident: weakref.ref | None = None
        self._resident_count = 0
        self._targets: dict[tuple[int, int], Any] = {}
        self._programs: dict[tuple, Any] = {}
        self._in_flight: dict[tuple[int, int], tuple[list, Ring]] = {}
        #: Counters for tests and benchmarks: uploads and (re)allocations of the shared buffer.
        self.stats: dict[str, int] = {"uploads": 0, "allocations": 1, "recordings": 0}

    def _new_vertex_buffer(self, vertices: int):
        return self._ctx.buffer(size=max(vertices, 3) * VERTEX_DTYPE.itemsize, usage="vertex")

    # ------------------------------------------------------------------ resources
    def _target(self, width: int, height: int, ids: bool):
        key = (width, height, ids)
        if key not in self._targets:
            color = ["r32f"] if ids else ["rgba8"]
            self._targets[key] = self._ctx.framebuffer((width, height), color=color,
                                                       depth="depth32f")  # fmt: skip
        return self._targets[key]

    def _frames_in_flight(self, width: int, height: int):
        """A ring of framebuffers for asynchronous frames of this size."""
        key = (width, height)
        if key not in self._in_flight:
            framebuffers = [
                self._ctx.framebuffer((width, height), color=["rgba8"], depth="depth32f")
                for _ in range(RING_SIZE)
            ]
            self._in_flight[key] = (framebuffers, Ring(RING_SIZE))
        return self._in_flight[key]

    def _program(self, vertices, width: int, height: int, background, ids: bool,
                 framebuffer: Any = None):  # fmt: skip
        """The recorded frame program for this buffer, size and background (cached), into
        `framebuffer` (an asynchronous frame) or the shared target."""
        key = (id(vertices), width, height, tuple(background), ids, id(framebuffer))
        program = self._programs.get(key)
        if program is None:
            if len(self._programs) > 64:
                self._programs.clear()
            cmd = self._ctx.command_buffer(name="py_gpu_frame")
            cmd.bind_framebuffer(framebuffer or self._target(width, height, ids))
            colour = (0.0,) * 4 if ids else (*(c / 255.0 for c in background), 1.0)
            cmd.clear(color=colour, depth=1.0)
            g = guard(width, height, self._max_viewport)
            cmd.viewport(-g, -g, width + 2 * g, height + 2 * g)
            cmd.bind_pipeline(self._id_pipeline if ids else self._pipeline)
            cmd.uniform_const(0, (2.0 / (width + 2 * g), 2.0 / (height + 2 * g), g), "vec3")
            cmd.bind_vertex_buffer(vertices, 0)
            cmd.li(1, 0)
            cmd.li(2, 1)
            cmd.draw_reg(0, 1, 2)
            cmd.end()
            self._programs[key] = program = (cmd, vertices)
            self.stats["recordings"] += 1
        return program[0]

    def _shared_vertices(self, batch: RasterBatch):
        """The shared buffer holding `batch`, packing it only when it is not resident."""
        resident = self._resident() if self._resident is not None else None
        count = len(batch) * 3
        if resident is not batch:
            if count * VERTEX_DTYPE.itemsize > self._vertices.size:
                self._vertices.release()
                self._programs.clear()
                self._vertices = self._new_vertex_buffer(max(count, 2 * self._vertices.size))
                self.stats["allocations"] += 1
            pack_into(batch, self._vertices.map(VERTEX_DTYPE))
            self.stats["uploads"] += 1
            self._resident = weakref.ref(batch)
            self._resident_count = count
        return self._vertices, self._resident_count

    def _source(self, source: Any, batch: RasterBatch):
        if isinstance(source, BatchHandle):
            if source.released:
                raise ValueError("this batch handle was released")
            if source.backend is not self:
                raise ValueError("this batch handle belongs to another backend")
            return source.resources["vertices"], source.resources["count"]
        return self._shared_vertices(batch)

    def upload(self, batch: RasterBatch) -> BatchHandle:
        """Keep `batch` in its own GPU buffer; render the returned handle many times."""
        if not isinstance(batch, RasterBatch):
            raise TypeError(f"upload() needs a RasterBatch, got {type(batch).__name__}")
        vertices = self._new_vertex_buffer(len(batch) * 3)
        pack_into(batch, vertices.map(VERTEX_DTYPE))
        self.stats["uploads"] += 1
        return BatchHandle(batch, self, {"vertices": vertices, "count": len(batch) * 3})

    def _release_handle(self, handle: BatchHandle) -> None:
        vertices = handle.resources["vertices"]
        self._programs = {k: v for k, v in self._programs.items() if v[1] is not vertices}
        vertices.release()

    def _run(self, source, batch, width, height, background, ids: bool):
        vertices, count = self._source(source, batch)
        cmd = self._program(vertices, width, height, background, ids)
        cmd.submit(registers={0: count})
        return self._target(width, height, ids)

    # ------------------------------------------------------------------ protocol
    def render(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: Any = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer:
        source = batch
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        framebuffer = self._run(source, batch, width, height, bg, ids=False)
        # Straight into the frame's own memory: measured here, the driver's RGB
        # conversion (0.25 ms at 640x360) beats reading RGBA and dropping alpha
        # in NumPy (a strided 1 ms copy).
        frame = frame_for(target, width, height)
        framebuffer.read(frame.to_numpy(), components=3, origin="bottom")
        return frame

    def render_async(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: Any = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> PendingFrame:
        """Submit the frame into one of a ring of framebuffers, flush, and return at once;
        ``result()`` reads it. Measured on llvmpipe: a read-back into a pixel-pack buffer is
        done by the driver at submit time (no overlap), while a flushed draw is rasterised
        by its threads while Python goes on; the flush starts the frame even where a thread
        keeps the context current (GL only promises to start work at a flush)."""
        source = batch
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        framebuffers, ring = self._frames_in_flight(width, height)
        slot = ring.claim()
        vertices, count = self._source(source, batch)
        cmd = self._program(vertices, width, height, bg, False, framebuffers[slot])
        cmd.submit(registers={0: count})
        self._ctx.flush()

        def finish() -> FrameBuffer:
            self.check_open()
            frame = frame_for(target, width, height)
            try:
                framebuffers[slot].read(frame.to_numpy(), components=3, origin="bottom")
            except HyperGLError:
                self.check_open()  # closed by another thread meanwhile: say so
                raise
            return frame

        return ring.attach(slot, PendingFrame(finish))

    def rasterize_ids(
        self, batch: RasterBatch | BatchHandle, width: int, height: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, depth)``: the winning triangle per pixel from the GPU, ``z`` recomputed."""
        source = batch
        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        framebuffer = self._run(source, batch, width, height, (0, 0, 0), ids=True)
        raw = framebuffer.read(components=1, dtype=np.float32, origin="bottom")[..., 0]
        ids = (raw.astype(np.int64) - 1).astype(np.int32)
        return ids, depth_for_ids(batch.arrays()[0], ids)

    def _release(self) -> None:
        self._programs.clear()
        self._in_flight.clear()
        self._ctx.close()
