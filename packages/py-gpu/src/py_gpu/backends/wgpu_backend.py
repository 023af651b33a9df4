"""WebGPU backend through wgpu-py: Vulkan, Metal or D3D12, headless (Mesa's lavapipe in CI).

Follows :mod:`py_gpu.convention`: vertices are pre-snapped to the 1/256 pixel grid, pixel ``x``
maps to framebuffer ``x`` and ``y`` to ``y`` (WebGPU's row 0 is the top, as ours) through a
viewport with a guard band (:func:`~py_gpu.convention.guard`), and the depth is
:func:`~py_gpu.convention.affine_depth` written per vertex into a ``depth32float`` buffer with a
``less`` test (the fragment shader never writes depth: early depth tests stay on).  One vertex
buffer persists across frames and grows when a batch does not fit; a batch drawn again is not
uploaded again; :meth:`WgpuBackend.upload` keeps static batches resident;
:meth:`WgpuBackend.render_async` returns a :class:`~py_gpu.readback.PendingFrame` read from a
ring of staging buffers.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import numpy as np

from ..buffers import ColorLike, FrameBuffer
from ..convention import SUBPIXEL, affine_depth, guard
from ..errors import BackendUnavailableError, InvalidSizeError
from ..geometry import RasterBatch
from ..readback import PendingFrame, Ring
from .lifecycle import Backend
from .protocol import BackendCapabilities, BatchHandle, check_render_args, frame_for

SHADER = """
struct Out {
    @builtin(position) position: vec4f,
    @location(0) @interpolate(flat) color: vec4f,
    @location(1) @interpolate(flat) id: u32,
};
// (2 / viewport width, 2 / viewport height, guard band in pixels, unused)
@group(0) @binding(0) var<uniform> scale: vec4f;

@vertex
fn vertex(@location(0) p: vec3f, @location(1) color: vec4f,
          @builtin(vertex_index) index: u32) -> Out {
    var out: Out;
    out.position = vec4f((p.x + scale.z) * scale.x - 1.0, 1.0 - (p.y + scale.z) * scale.y,
                         p.z, 1.0);
    out.color = color;
    out.id = index / 3u + 1u;
    return out;
}

@fragment
fn color(v: Out) -> @location(0) vec4f { return v.color; }

@fragment
fn triangle_id(v: Out) -> @location(0) u32 { return v.id; }
"""

VERTEX_DTYPE = np.dtype([("position", np.float32, 3), ("color", np.uint8, 4)])
RING_SIZE = 3


def pack_vertices(batch: RasterBatch) -> np.ndarray:
    """Vertices: x, y snapped to 1/256 px, the affine depth, RGBA8."""
    xyz, rgb = batch.arrays()
    data = np.empty(xyz.shape[0] * 3, dtype=VERTEX_DTYPE)
    position = data["position"]
    position[:, :2] = (np.rint(xyz[:, :, :2] * SUBPIXEL) / SUBPIXEL).reshape(-1, 2)
    position[:, 2] = affine_depth(xyz[:, :, 2]).reshape(-1)
    data["color"][:, :3] = np.repeat(rgb, 3, axis=0)
    data["color"][:, 3] = 255
    return data


#: wgpu's own backends this backend accepts; its OpenGL fallback is left to the GL backends.
NATIVE_APIS = ("Vulkan", "Metal", "D3D12")


@functools.cache
def _adapter():
    """The first Vulkan, Metal or D3D12 adapter (cached), or a string saying why there is none."""
    try:
        import wgpu
    except ImportError as exc:
        return f"wgpu is not installed ({exc}); pip install 'py-gpu[webgpu]'"
    try:
        adapters = wgpu.gpu.enumerate_adapters_sync()
    except Exception as exc:
        return listing_failed(exc)
    found = [a.info.get("backend_type", "?") for a in adapters]
    for adapter in adapters:
        if adapter.info.get("backend_type") in NATIVE_APIS:
            return adapter
    return (
        f"no Vulkan, Metal or D3D12 adapter (wgpu found: {', '.join(found) or 'none'}); "
        "on Linux without a GPU install Mesa's lavapipe (Debian: mesa-vulkan-drivers)"
    )


def listing_failed(exc: Exception) -> str:
    """Why wgpu could not list adapters, naming a shared libffi that took over cffi's calls.

    cffi's wheel links its own libffi without hiding its symbols; when an OpenGL driver was
    loaded into the process first (Mesa's llvmpipe links LLVM, which links the system's
    libffi, globally), cffi's calls can go to that libffi instead, and an older one (Debian
    11's libffi.so.7) fails them.
    """
    reason = f"wgpu cannot list adapters: {type(exc).__name__}: {exc}"
    if "ffi_prep_closure" not in str(exc) or (libffi := _shared_libffi()) is None:
        return reason
    return (f"{reason} [cffi's libffi calls went to {libffi}, which an OpenGL driver loaded "
            "into this process first: use the wgpu backend in a process that makes no "
            "OpenGL context before it]")  # fmt: skip


def _shared_libffi() -> str | None:
    """The path of a shared libffi mapped into this process (Linux), else None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split(None, 5)[-1].strip() for line in maps if "libffi.so" in line}
    except OSError:
        return None
    return min(paths) if paths else None


def _row_bytes(width: int, texel: int) -> int:
    """Bytes per row of a texture copy: WebGPU wants a multiple of 256."""
    return (width * texel + 255) // 256 * 256


class _Target:
    """Colour, id and depth textures of one size, their uniform and readback staging ring."""

    def __init__(self, backend: WgpuBackend, width: int, height: int) -> None:
        wgpu, device = backend._wgpu, backend._device
        usage = wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC
        self.width, self.height = width, height
        self.color = device.create_texture(size=(width, height, 1), format="rgba8unorm",
                                           usage=usage)  # fmt: skip
        self.ids = device.create_texture(size=(width, height, 1), format="r32uint", usage=usage)
        self.depth = device.create_texture(
            size=(width, height, 1), format="depth32float",
            usage=wgpu.TextureUsage.RENDER_ATTACHMENT,
        )  # fmt: skip
        self.views = (self.color.create_view(), self.ids.create_view(), self.depth.create_view())
        self.row_bytes = _row_bytes(width, 4)
        self.guard = g = guard(width, height, backend._max_viewport)
        self.viewport = (-g, -g, width + 2 * g, height + 2 * g, 0.0, 1.0)
        scale = np.array([2.0 / (width + 2 * g), 2.0 / (height + 2 * g), g, 0.0], dtype=np.float32)
        self.uniform = device.create_buffer_with_data(
            data=scale.tobytes(), usage=wgpu.BufferUsage.UNIFORM
        )
        self.bind_group = device.create_bind_group(
            layout=backend._layout,
            entries=[{"binding": 0, "resource": {"buffer": self.uniform}}],
        )
        self.staging = [self._staging(backend) for _ in range(RING_SIZE)]
        self.ring = Ring(RING_SIZE)

    def _staging(self, backend: WgpuBackend):
        wgpu = backend._wgpu
        return backend._device.create_buffer(
            size=self.row_bytes * self.height,
            usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST,
        )


class WgpuBackend(Backend):
    """GPU raster backend on WebGPU (wgpu-py), headless."""

    name = "wgpu"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="WebGPU (wgpu-py) rasterizer",
        accelerated=True,
        supports_depth=True,
        supports_vertex_attributes=True,
        supports_ids=True,
        supports_persistent_batches=True,
        supports_async_readback=True,
        api="webgpu",
        priority=150,
    )

    @classmethod
    def probe(cls) -> str | None:
        adapter = _adapter()
        return adapter if isinstance(adapter, str) else None

    def __init__(self) -> None:
        adapter = _adapter()
        if isinstance(adapter, str):
            raise BackendUnavailableError(adapter)
        import wgpu

        self._wgpu = wgpu
        self.adapter_info: dict[str, Any] = dict(adapter.info)
        self._device = device = adapter.request_device_sync()
        self._max_viewport = int(device.limits["max-texture-dimension-2d"])
        module = device.create_shader_module(code=SHADER)
        self._layout = device.create_bind_group_layout(
            entries=[{"binding": 0, "visibility": wgpu.ShaderStage.VERTEX,
                      "buffer": {"type": wgpu.BufferBindingType.uniform}}]
        )  # fmt: skip
        pipeline_layout = device.create_pipeline_layout(bind_group_layouts=[self._layout])
        self._pipelines = {
            ids: self._pipeline(module, pipeline_layout, ids) for ids in (False, True)
        }
        self._vertices = self._vertex_buffer(3 * 1024 * VERTEX_DTYPE.itemsize)
        self._resident: weakref.ref | None = None
        self._resident_count = 0
        self._targets: dict[tuple[int, int], _Target] = {}
        #: Counters for tests and benchmarks: uploads and (re)allocations of the shared buffer.
        self.stats: dict[str, int] = {"uploads": 0, "allocations": 1}

    def _pipeline(self, module, layout, ids: bool):
        wgpu = self._wgpu
        return self._device.create_render_pipeline(
            layout=layout,
            vertex={
                "module": module,
                "entry_point": "vertex",
                "buffers": [{
                    "array_stride": VERTEX_DTYPE.itemsize,
                    "step_mode": wgpu.VertexStepMode.vertex,
                    "attributes": [
                        {"format": wgpu.VertexFormat.float32x3, "offset": 0, "shader_location": 0},
                        {"format": wgpu.VertexFormat.unorm8x4, "offset": 12, "shader_location": 1},
                    ],
                }],
            },
            primitive={"topology": wgpu.PrimitiveTopology.triangle_list,
                       "cull_mode": wgpu.CullMode.none},
            depth_stencil={"format": "depth32float", "depth_write_enabled": True,
                           "depth_compare": wgpu.CompareFunction.less},
            multisample=None,
            fragment={
                "module": module,
                "entry_point": "triangle_id" if ids else "color",
                "targets": [{"format": "r32uint" if ids else "rgba8unorm"}],
            },
        )  # fmt: skip

    def _vertex_buffer(self, size: int):
        wgpu = self._wgpu
        return self._device.create_buffer(
            size=max(size, VERTEX_DTYPE.itemsize * 3),
            usage=wgpu.BufferUsage.VERTEX | wgpu.BufferUsage.COPY_DST,
        )

    # ------------------------------------------------------------------ resources
    def _target(self, width: int, height: int) -> _Target:
        key = (width, height)
        if key not in self._targets:
            if max(width, height) > self._max_viewport:
                raise InvalidSizeError(
                    f"{width}x{height} is larger than this WebGPU device's textures "
                    f"({self._max_viewport} pixels at most per side)"
                )
            if len(self._targets) > 8:
                self._targets.clear()
            self._targets[key] = _Target(self, width, height)
        return self._targets[key]

    def _shared_vertices(self, batch: RasterBatch):
        resident = self._resident() if self._resident is not None else None
        if resident is not batch:
            data = pack_vertices(batch)
            if data.nbytes > self._vertices.size:
                self._vertices.destroy()
                self._vertices = self._vertex_buffer(max(data.nbytes, 2 * self._vertices.size))
                self.stats["allocations"] += 1
            if data.nbytes:
                self._device.queue.write_buffer(self._vertices, 0, data)
            self.stats["uploads"] += 1
            self._resident = weakref.ref(batch)
            self._resident_count = len(data)
        return self._vertices, self._resident_count

    def _source(self, source, batch: RasterBatch):
        if isinstance(source, BatchHandle):
            if source.released:
                raise ValueError("this batch handle was released")
            if source.backend is not self:
                raise ValueError("this batch handle belongs to another backend")
            return source.resources["vertices"], source.resources["count"]
        return self._shared_vertices(batch)

    def upload(self, batch: RasterBatch) -> BatchHandle:
        """Keep ``batch`` in its own GPU buffer; render the returned handle many times."""
        if not isinstance(batch, RasterBatch):
            raise TypeError(f"upload() needs a RasterBatch, got {type(batch).__name__}")
        data = pack_vertices(batch)
        vertices = self._vertex_buffer(data.nbytes)
        if data.nbytes:
            self._device.queue.write_buffer(vertices, 0, data)
        self.stats["uploads"] += 1
        return BatchHandle(batch, self, {"vertices": vertices, "count": len(data)})

    def _release_handle(self, handle: BatchHandle) -> None:
        handle.resources["vertices"].destroy()

    def _encode(self, source, batch, width, height, background, ids: bool, staging):
        """Draw into the target and copy the colour (or id) texture into ``staging``."""
        vertices, count = self._source(source, batch)
        target = self._target(width, height)
        color_view, id_view, depth_view = target.views
        clear = (0, 0, 0, 0) if ids else (*(c / 255.0 for c in background), 1.0)
        encoder = self._device.create_command_encoder()
        rpass = encoder.begin_render_pass(
            color_attachments=[{"view": id_view if ids else color_view, "clear_value": clear,
                                "load_op": "clear", "store_op": "store"}],
            depth_stencil_attachment={"view": depth_view, "depth_clear_value": 1.0,
                                      "depth_load_op": "clear", "depth_store_op": "discard"},
        )  # fmt: skip
        if count:
            rpass.set_viewport(*target.viewport)
            rpass.set_pipeline(self._pipelines[ids])
            rpass.set_bind_group(0, target.bind_group)
            rpass.set_vertex_buffer(0, vertices)
            rpass.draw(count)
        rpass.end()
        encoder.copy_texture_to_buffer(
            {"texture": target.ids if ids else target.color},
            {"buffer": staging, "bytes_per_row": target.row_bytes, "rows_per_image": height},
            (width, height, 1),
        )
        self._device.queue.submit([encoder.finish()])
        return target

    def _read(self, staging, target: _Target, out: np.ndarray, channels: int) -> None:
        """Wait for ``staging``, copy its rows (first ``channels`` of 4 bytes) into ``out``."""
        staging.map_sync(self._wgpu.MapMode.READ)
        try:
            raw = np.frombuffer(staging.read_mapped(copy=False), dtype=np.uint8)
            rows = raw.reshape(target.height, target.row_bytes)[:, : target.width * 4]
            out[:] = rows.reshape(target.height, target.width, 4)[:, :, :channels]
        finally:
            staging.unmap()

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
        return self.render_async(batch, width, height, background=background,
                                 target=target).result()  # fmt: skip

    def render_async(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> PendingFrame:
        """Start the frame and return at once; ``result()`` waits for it (see py_gpu.readback)."""
        source = batch
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        ring = self._target(width, height).ring
        slot = ring.claim()
        staging = self._target(width, height).staging[slot]
        gpu_target = self._encode(source, batch, width, height, bg, False, staging)

        def finish() -> FrameBuffer:
            self.check_open()
            frame = frame_for(target, width, height)
            self._read(staging, gpu_target, frame.to_numpy(), 3)
            return frame

        return ring.attach(slot, PendingFrame(finish))

    def rasterize_ids(
        self, batch: RasterBatch | BatchHandle, width: int, height: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, depth)``: winning triangle per pixel from the GPU, ``z`` recomputed exactly."""
        from ._setup import depth_for_ids

        source = batch
        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        target = self._target(width, height)
        slot = target.ring.claim()  # finishes the frame in flight on that staging buffer
        staging = target.staging[slot]
        self._encode(source, batch, width, height, (0, 0, 0), True, staging)
        raw = np.empty((height, width, 4), dtype=np.uint8)
        self._read(staging, target, raw, 4)
        ids = raw.view(np.uint32)[:, :, 0].astype(np.int64) - 1
        return ids.astype(np.int32), depth_for_ids(batch.arrays()[0], ids)

    def _release(self) -> None:
        self._targets.clear()
        self._vertices.destroy()
        self._device.destroy()
