"""Vectorised triangle set-up shared by the NumPy and Numba rasterizers.

It performs exactly the integer set-up of :func:`py_gpu.backends.cpu.setup_triangle` for all
triangles at once, so both reproduce the CPU reference bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..convention import HALF_PIXEL, SUBPIXEL, SUBPIXEL_BITS


@dataclass
class Setup:
    index: np.ndarray  # (n,) original triangle index (draw order), only drawable ones
    X: np.ndarray  # (n, 3) int64 snapped x, winding made positive
    Y: np.ndarray  # (n, 3) int64
    Z: np.ndarray  # (n, 3) float64
    area: np.ndarray  # (n,) int64 > 0
    bbox: np.ndarray  # (n, 4) int64 inclusive x0, x1, y0, y1
    bias: np.ndarray  # (n, 3) int64: 0 for top-left edges, 1 otherwise


def setup(xyz: np.ndarray, width: int, height: int) -> Setup:
    X = np.rint(xyz[:, :, 0] * SUBPIXEL).astype(np.int64)
    Y = np.rint(xyz[:, :, 1] * SUBPIXEL).astype(np.int64)
    Z = np.array(xyz[:, :, 2], dtype=np.float64)
    area = (X[:, 1] - X[:, 0]) * (Y[:, 2] - Y[:, 0]) - (Y[:, 1] - Y[:, 0]) * (X[:, 2] - X[:, 0])
    flip = area < 0
    if flip.any():
        for array in (X, Y, Z):
            array[flip, 1], array[flip, 2] = array[flip, 2].copy(), array[flip, 1].copy()
        area = np.abs(area)
    lo_x, hi_x = X.min(axis=1), X.max(axis=1)
    lo_y, hi_y = Y.min(axis=1), Y.max(axis=1)
    bx0 = np.maximum(0, -((HALF_PIXEL - lo_x) >> SUBPIXEL_BITS))
    bx1 = np.minimum(width - 1, (hi_x - HALF_PIXEL) >> SUBPIXEL_BITS)
    by0 = np.maximum(0, -((HALF_PIXEL - lo_y) >> SUBPIXEL_BITS))
    by1 = np.minimum(height - 1, (hi_y - HALF_PIXEL) >> SUBPIXEL_BITS)
    keep = (area != 0) & (bx0 <= bx1) & (by0 <= by1)
    index = np.flatnonzero(keep)
    X, Y, Z, area = X[keep], Y[keep], Z[keep], area[keep]
    bbox = np.stack([bx0[keep], bx1[keep], by0[keep], by1[keep]], axis=1)
    # Edge k runs from vertex (k + 1) % 3 to (k + 2) % 3 and weights vertex k.
    xs, xe = np.roll(X, -1, axis=1), np.roll(X, -2, axis=1)
    ys, ye = np.roll(Y, -1, axis=1), np.roll(Y, -2, axis=1)
    dy = ye - ys
    top_left = (dy < 0) | ((dy == 0) & (xe - xs > 0))
    bias = np.where(top_left, 0, 1).astype(np.int64)
    return Setup(index, X, Y, Z, area, bbox, bias)


def depth_for_ids(xyz: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The reference ``z`` of triangle ``ids[y, x]`` at each pixel centre (``inf`` where -1)."""
    depth = np.full(ids.shape, np.inf, dtype=np.float64)
    ys, xs = np.nonzero(ids >= 0)
    if ys.size == 0:
        return depth
    tri = ids[ys, xs]
    X = np.rint(xyz[tri, :, 0] * SUBPIXEL).astype(np.int64)
    Y = np.rint(xyz[tri, :, 1] * SUBPIXEL).astype(np.int64)
    Z = np.array(xyz[tri, :, 2], dtype=np.float64)
    area = (X[:, 1] - X[:, 0]) * (Y[:, 2] - Y[:, 0]) - (Y[:, 1] - Y[:, 0]) * (X[:, 2] - X[:, 0])
    flip = area < 0
    for array in (X, Y, Z):
        array[flip, 1], array[flip, 2] = array[flip, 2].copy(), array[flip, 1].copy()
    area = np.abs(area)
    # A GPU may report a pixel for a triangle that is degenerate on our grid: use its first z.
    degenerate = area == 0
    area[degenerate] = 1
    px = xs.astype(np.int64) * SUBPIXEL + HALF_PIXEL
    py = ys.astype(np.int64) * SUBPIXEL + HALF_PIXEL
    e = []
    for k in range(3):
        s, t = (k + 1) % 3, (k + 2) % 3
        e.append((X[:, t] - X[:, s]) * (py - Y[:, s]) - (Y[:, t] - Y[:, s]) * (px - X[:, s]))
    z = (
        e[0].astype(np.float64) * Z[:, 0]
        + e[1].astype(np.float64) * Z[:, 1]
        + e[2].astype(np.float64) * Z[:, 2]
    ) / area.astype(np.float64)
    z[degenerate] = Z[degenerate, 0]
    depth[ys, xs] = z
    return depth
