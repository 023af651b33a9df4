"""The raster convention every py_gpu backend follows.

The pure-Python CPU backend (:mod:`py_gpu.backends.cpu`) is the executable definition; the
NumPy and Numba backends reproduce it bit for bit and GPU backends agree with it on at least
99.9% of pixels of random batches and exactly on axis-aligned ones (``tests/py_gpu``).

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
  so on equal depth the triangle drawn first wins.  GPU backends map ``z`` through the fixed
  monotonic function :func:`gl_depth` into ``[0, 1]`` (so they order like the CPU up to depth
  buffer precision).
"""

from __future__ import annotations

SUBPIXEL_BITS = 8
SUBPIXEL = 1 << SUBPIXEL_BITS
HALF_PIXEL = SUBPIXEL // 2
MAX_SCREEN_COORD = float(1 << 20)


def gl_depth(z: float) -> float:
    """The fixed, monotonic map from contract ``z`` to a GPU depth in ``(0, 1)``.

    ``0.5 + 0.5 * z / (1 + |z|)``: strictly increasing over all reals, no per-batch range.
    """
    return 0.5 + 0.5 * z / (1.0 + abs(z))


GLSL_DEPTH = "0.5 + 0.5 * z / (1.0 + abs(z))"
