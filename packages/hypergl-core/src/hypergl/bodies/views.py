"""Many views tiled into one framebuffer: the per-view records the shaders read.

View ``k`` of a ``columns``-wide grid of ``tile``-sized views sits at column ``k % columns``,
row ``k // columns`` counted from the top (image order, as ``Framebuffer.read`` returns it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import BodyError
from ..transforms import eye_of

__all__ = ["VIEW_DTYPE", "eye_of", "grid_shape", "tile_views"]  # eye_of: hypergl.transforms's

# std430 View: mat4 view_proj (column-major); tile: clip xy scale, offset (the vertex
# stage clips to the view's frustum sides, so its tile needs no pixel rectangle); range:
# first record row, row count, 1 (a live view); eye: the camera's centre, homogeneous
# (:func:`eye_of`); depth: the row whose dot product with a homogeneous world point is its
# depth output (metres along the view axis): view_proj's last row (clip w) by default,
# which is that for a perspective camera; an orthographic one's clip w is 1, so its
# caller gives the row (forward, -forward . position): see set_view_matrices.

VIEW_DTYPE = np.dtype([("view_proj", np.float32, 16), ("tile", np.float32, 4),
                       ("range", np.uint32, 4), ("eye", np.float32, 4),
                       ("depth", np.float32, 4)])  # fmt: skip


def grid_shape(views: int, columns: int | None) -> tuple[int, int]:
    """(columns, rows) of the tiling; `columns` None: as square as it goes."""
    if columns is None:
        columns = int(np.ceil(np.sqrt(views)))
    if isinstance(columns, bool) or not isinstance(columns, (int, np.integer)) or columns < 1:
        raise BodyError(f"columns must be a positive int, got {columns!r}")
    return int(columns), -(-views // int(columns))


def tile_views(
    cameras: Any,
    ranges: Sequence[tuple[int, int]],
    columns: int,
    rows: int,
) -> np.ndarray:
    """The VIEW_DTYPE records of (view_proj, (first, count)) pairs tiled as above (a
    tile's size in pixels does not enter: each view's clip space maps onto its share)."""
    out = np.zeros(len(cameras), VIEW_DTYPE)
    for k, (matrix, (first, count)) in enumerate(zip(cameras, ranges, strict=True)):
        column, row = k % columns, k // columns
        out[k]["view_proj"] = np.asarray(matrix, np.float32).T.reshape(-1)  # column-major
        # Clip x, y of the view scaled into its tile's share of the framebuffer's clip space.
        scale = (1.0 / columns, 1.0 / rows)
        offset = (-1.0 + (2 * column + 1) / columns, 1.0 - (2 * row + 1) / rows)
        out[k]["tile"] = (*scale, *offset)
        out[k]["range"] = (first, count, 1, 0)  # z: a live view
        out[k]["eye"] = eye_of(matrix)
        out[k]["depth"] = np.asarray(matrix, np.float32)[3]  # clip w
    return out
