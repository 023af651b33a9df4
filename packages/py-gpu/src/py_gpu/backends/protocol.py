"""The backend protocol: what a backend declares (:class:`BackendCapabilities`), the
protocol it follows (:class:`RasterBackend`), a resident batch (:class:`BatchHandle`) and
the helpers every backend's ``render`` uses.

A module of its own, below both the backends and the discovery in
:mod:`py_gpu.backends` (which re-exports all of it), so that no backend imports the
package that discovers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..buffers import ColorLike, FrameBuffer, as_rgb, check_frame_size
from ..errors import TargetSizeError
from ..geometry import RasterBatch

#: ``BackendCapabilities.api`` values: where a backend draws.
APIS = ("cpu", "opengl", "webgpu")


@dataclass(frozen=True)
class BackendCapabilities:
    """What a backend supports (fields kept from py_gpu 0.0.1, new ones default to False).

    ``api`` says where it draws (one of :data:`APIS`; the ``cpu`` ones reproduce the reference
    bit for bit).  ``priority`` ranks it for ``select_backend("auto")``: higher is tried first
    (py_gpu's own: OpenGL 200, WebGPU 150, Numba 50, NumPy 20, pure Python 0).
    """

    name: str
    accelerated: bool
    supports_depth: bool = True
    supports_textures: bool = False
    supports_vertex_attributes: bool = False
    supports_ids: bool = False
    supports_persistent_batches: bool = False
    headless: bool = True
    api: str = "cpu"
    priority: int = 0
    supports_async_readback: bool = False


@runtime_checkable
class RasterBackend(Protocol):
    """Protocol for projected triangle raster backends (see the module documentation)."""

    name: str
    capabilities: BackendCapabilities

    def render(
        self,
        batch: RasterBatch,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer: ...


@dataclass
class BatchHandle:
    """A batch kept resident by a backend (see ``upload``); render it instead of the batch."""

    batch: RasterBatch
    backend: Any
    resources: Any = None
    released: bool = False

    def __len__(self) -> int:
        return len(self.batch)

    def release(self) -> None:
        # A closed backend's resources went with its context: nothing is left to free.
        closed = getattr(self.backend, "closed", False)
        if not self.released and not closed and hasattr(self.backend, "_release_handle"):
            self.backend._release_handle(self)
        self.released = True


def check_render_args(
    batch: object, width: object, height: object, background: object, target: object
) -> tuple[RasterBatch, int, int, ColorLike]:
    """Validate ``render`` arguments; returns ``(batch, width, height, background_rgb)``."""
    if isinstance(batch, BatchHandle):
        batch = batch.batch
    if not isinstance(batch, RasterBatch):
        raise TypeError(f"render() needs a RasterBatch, got {type(batch).__name__}")
    w, h = check_frame_size(width, height)  # bounded before any backend allocates
    rgb = as_rgb(background)  # type: ignore[arg-type]
    if target is not None:
        if not isinstance(target, FrameBuffer):
            raise TargetSizeError(f"target must be a FrameBuffer, got {type(target).__name__}")
        target.check_size(w, h)
    return batch, w, h, rgb


def frame_for(target: FrameBuffer | None, width: int, height: int) -> FrameBuffer:
    """`target` (already size-checked), or a new black frame: what a backend renders into."""
    if target is not None:
        return target
    return FrameBuffer(width, height, bytearray(width * height * 3))


def deliver(payload: Any, width: int, height: int, target: FrameBuffer | None) -> FrameBuffer:
    """Wrap rendered RGB bytes (or a buffer) as a FrameBuffer, or copy them into ``target``."""
    if target is not None:
        target.pixels[:] = payload
        return target
    return FrameBuffer(width, height, bytearray(payload))
