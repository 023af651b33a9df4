"""Numba rasterizer: the CPU reference's integer algorithm compiled to machine code.

Optional (``pip install "py-gpu[numeric]"``).  Bit-identical to the CPU reference.  The kernel is
compiled on first use and cached on disk (``cache=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..buffers import ColorLike, FrameBuffer
from ..convention import HALF_PIXEL, SUBPIXEL
from ..geometry import RasterBatch
from ._setup import setup
from .lifecycle import Backend
from .protocol import BackendCapabilities, BatchHandle, check_render_args, frame_for

_kernel = None


def _compile():
    global _kernel
    if _kernel is not None:
        return _kernel
    import numba

    @numba.njit(cache=True, nogil=True, parallel=True, fastmath=False)
    def kernel(
        index, X, Y, Z, area, bbox, bias, rgb, bg, width, height, nbands, ids, depth, out
    ):  # pragma: no cover
        band_rows = (height + nbands - 1) // nbands
        for band in numba.prange(nbands):
            ylo = band * band_rows
            yhi = min(height, ylo + band_rows) - 1
            for p in range(ylo * width, (yhi + 1) * width):
                depth[p] = np.inf
                ids[p] = -1
                out[3 * p] = bg[0]
                out[3 * p + 1] = bg[1]
                out[3 * p + 2] = bg[2]
            for t in range(index.shape[0]):
                y0 = max(bbox[t, 2], ylo)
                y1 = min(bbox[t, 3], yhi)
                if y0 > y1:
                    continue
                x0, x1, x2 = X[t, 0], X[t, 1], X[t, 2]
                yy0, yy1, yy2 = Y[t, 0], Y[t, 1], Y[t, 2]
                z0, z1, z2 = Z[t, 0], Z[t, 1], Z[t, 2]
                area_f = np.float64(area[t])
                inv_area = 1.0 / area_f
                zmax = max(abs(z0), abs(z1), abs(z2))
                exact_only = not (zmax < 1e250)  # the planar shortcut could overflow
                tri = index[t]
                r, g, b = rgb[tri, 0], rgb[tri, 1], rgb[tri, 2]
                # Edge k: E = a_k * x + (b_k * py + c_k) at pixel centre x of row py.
                a0 = -(yy2 - yy1) * 256
                a1 = -(yy0 - yy2) * 256
                a2 = -(yy1 - yy0) * 256
                dz = (np.float64(a0) * z0 + np.float64(a1) * z1 + np.float64(a2) * z2) * inv_area
                for y in range(y0, y1 + 1):
                    py = y * 256 + 128
                    c0 = (x2 - x1) * (py - yy1) - (yy2 - yy1) * (128 - x1)
                    c1 = (x0 - x2) * (py - yy2) - (yy0 - yy2) * (128 - x2)
                    c2 = (x1 - x0) * (py - yy0) - (yy1 - yy0) * (128 - x0)
                    lo = bbox[t, 0]
                    hi = bbox[t, 1]
                    empty = False
                    for k in range(3):
                        if k == 0:
                            a, need = a0, bias[t, 0] - c0
                        elif k == 1:
                            a, need = a1, bias[t, 1] - c1
                        else:
                            a, need = a2, bias[t, 2] - c2
                        if a > 0:
                            lo = max(lo, -((-need) // a))
                        elif a < 0:
                            hi = min(hi, need // a)
                        elif need > 0:
                            empty = True
                    if empty or lo > hi:
                        continue
                    e0 = a0 * lo + c0
                    e1 = a1 * lo + c1
                    e2 = a2 * lo + c2
                    row = y * width
                    # Running planar depth: it stays within `tol` of the exact reference depth
                    # (k additions of a few ulps each), so a fragment it puts clearly behind
                    # the stored depth is rejected without the exact formula; every other one
                    # gets the exact reference depth, which keeps the result bit-identical.
                    za = (
                        np.float64(e0) * z0 + np.float64(e1) * z1 + np.float64(e2) * z2
                    ) * inv_area
                    tol = (hi - lo + 16) * 4.5e-15 * zmax
                    for x in range(lo, hi + 1):
                        p = row + x
                        d = depth[p]
                        if exact_only or za <= d + tol:
                            k = x - lo
                            z = (
                                np.float64(e0 + a0 * k) * z0
                                + np.float64(e1 + a1 * k) * z1
                                + np.float64(e2 + a2 * k) * z2
                            ) / area_f
                            if z < d:
                                depth[p] = z
                                ids[p] = tri
                                out[3 * p] = r
                                out[3 * p + 1] = g
                                out[3 * p + 2] = b
                        za += dz

    _kernel = kernel
    return kernel


def _bands(height: int) -> int:
    import numba

    return max(1, min(height, 4 * numba.get_num_threads()))


def rasterize_arrays(xyz: np.ndarray, width: int, height: int, rgb=None, background=(0, 0, 0),
                     out=None):  # fmt: skip
    """``(ids, depth)`` flat arrays; also writes RGB into ``out`` (uint8, ``H*W*3``) when given."""
    s = setup(xyz, width, height)
    ids = np.empty(width * height, dtype=np.int32)
    depth = np.empty(width * height, dtype=np.float64)
    if out is None:
        out = np.empty(width * height * 3, dtype=np.uint8)
    if rgb is None:
        rgb = np.zeros((xyz.shape[0], 3), dtype=np.uint8)
    assert SUBPIXEL == 256 and HALF_PIXEL == 128  # constants baked into the kernel
    _compile()(
        s.index.astype(np.int64), s.X, s.Y, s.Z, s.area, s.bbox, s.bias,
        np.ascontiguousarray(rgb, dtype=np.uint8), np.asarray(background, dtype=np.uint8),
        width, height, _bands(height), ids, depth, out,
    )  # fmt: skip
    return ids, depth


class NumbaBackend(Backend):
    """Compiled CPU raster backend (Numba)."""

    name = "numba"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="Numba screen-space rasterizer",
        accelerated=True,
        supports_depth=True,
        supports_ids=True,
        api="cpu",
        priority=50,
    )

    @classmethod
    def probe(cls) -> str | None:
        try:
            import numba  # noqa: F401
        except ImportError as exc:
            return f"numba is not installed ({exc}); pip install 'py-gpu[numeric]'"
        return None

    def __init__(self) -> None:
        _compile()

    def render(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer:
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        xyz, rgb = batch.arrays()
        frame = frame_for(target, width, height)
        out = frame.to_numpy().reshape(-1)  # rendered in place, no copy
        rasterize_arrays(xyz, width, height, rgb, bg, out)
        return frame

    def rasterize_ids(self, batch: RasterBatch, width: int, height: int) -> tuple[Any, Any]:
        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        ids, depth = rasterize_arrays(batch.arrays()[0], width, height)
        return ids.reshape(height, width), depth.reshape(height, width)
