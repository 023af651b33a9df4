"""The raster convention every py_gpu backend follows.

The pure-Python CPU backend (:mod:`py_gpu.backends.cpu`) is the executable definition; the
NumPy and Numba backends reproduce it bit for bit and GPU backends agree with it on at least
99.99% of pixels of random batches and exactly on axis-aligned ones (py-gpu's
``tests/test_agreement.py``).

* **Screen space.** ``x`` grows to the right and ``y`` grows *down*: row 0 of a
  :class:`~py_gpu.FrameBuffer` is the top of the image.  Pixel ``(i, j)`` covers
  ``[i, i + 1) x [j, j + 1)`` and is sampled at its centre ``(i + 0.5, j + 0.5)``.
* **Sub-pixel snapping.** Vertex ``x`` and ``y`` are snapped to a grid of 1/256 pixel
  (``round(x * 256)``, ties to even), as fixed-point GPU rasterisers do, and coverage is decided
  with exact integer edge functions on that grid.  Coordinates must stay within
  ``MAX_SCREEN_COORD`` pixels of the origin so that the integer arithmetic is exact.
* **Fill rule.** Top-left: a pixel centre exactly on an edge is covered only when the edge is a
  top edge (horizontal, with the triangle below it) or a left edge.  Triangles of either winding
  are drawn (no culling); zero-area triangles draw nothing.
* **Depth.** ``z`` is interpolated linearly in screen space with the barycentric weights of the
  pixel centre: ``z = (e0 * z0 + e1 * z1 + e2 * z2) / area`` in double precision.  Smaller ``z``
  is nearer.  There is no per-batch normalisation and no near/far clipping of ``z``: any finite
  ``z`` is drawn, a fragment is written when its ``z`` is strictly smaller than the stored one,
  so on equal depth the triangle drawn first wins.  GPU backends write :func:`affine_depth` per
  vertex, an increasing affine map of the batch's ``z`` range into ``[0, 0.5]``: affine, so the
  GPU's linear interpolation of it *is* the map of the interpolated ``z`` and they order like the
  CPU up to depth buffer precision; the fragment shader leaves depth alone, so early depth
  tests stay on.  GPU backends draw through a viewport with a guard band (:func:`guard`) so
  that the GPU does not clip triangles that reach just outside the image.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported where used: the pure-Python paths do without it
    import numpy as np
    from numpy.typing import ArrayLike

SUBPIXEL_BITS = 8
SUBPIXEL = 1 << SUBPIXEL_BITS
HALF_PIXEL = SUBPIXEL // 2
MAX_SCREEN_COORD = float(1 << 20)


def affine_depth(z: ArrayLike) -> np.ndarray:
    """``z`` (any shape, NumPy) mapped per vertex into ``[0, 0.5]`` float32, increasing.

    The lowest ``z`` of the array maps to 0 and the highest to 0.5 (below the cleared 1.0, so
    the farthest triangle still passes a ``less`` test); all equal -> 0.  Halves first so that
    no finite range overflows.
    """
    import numpy as np

    z = np.asarray(z, dtype=np.float64)
    if z.size == 0:
        return np.zeros(z.shape, dtype=np.float32)
    lo, hi = float(z.min()) * 0.5, float(z.max()) * 0.5
    span = hi - lo
    if span <= 0.0:
        return np.zeros(z.shape, dtype=np.float32)
    return ((z * 0.5 - lo) * (0.5 / span)).astype(np.float32)


#: Pixels of viewport that GPU backends add around the image on every side, so that triangles
#: reaching up to this far outside are not clipped by the GPU (clipping makes new vertices off
#: the 1/256 grid and moves edges by a fraction of a pixel next to the border).
GUARD_PIXELS = 2048


def guard(width: int, height: int, max_viewport: int = 16384) -> int:
    """The guard band (pixels per side) for a ``width`` x ``height`` image on a GPU whose
    viewports may be ``max_viewport`` pixels wide."""
    return max(0, min(GUARD_PIXELS, (max_viewport - max(width, height)) // 2))
