"""Many views tiled into framebuffers: the one layout every multi-view renderer uses.

:class:`Tiling` places ``views`` tiles of ``tile = (width, height)`` pixels on a grid of
``columns`` x ``rows`` in one framebuffer: view ``k`` at column ``k % columns``, row
``k // columns``. It says how big the framebuffer is, where each view's clip space lands
(:meth:`Tiling.clip`, applied in the vertex stage by :data:`TILE_GLSL`'s ``tiled()``), how
a read splits into views, and how many views fit the GPU's size limit (:meth:`Tiling.fitted`,
:meth:`Tiling.stacks`). The body renderer (``set_views``), hypergl-mujoco's worlds and
shadow maps and hypergl-rl's batch renderer all lay out their views with it.

Two orientations, each read without a rearranging copy:

* ``origin="top"``: row 0 at the top, each view upright: a top-first read
  (``Framebuffer.read``) holds the views in order (:meth:`Tiling.split`);
* ``origin="bottom"``: row 0 at the bottom, each view upside down: a bottom-up read
  (``Framebuffer.reader``, OpenGL's order: no flip) holds them in the same order. One column
  of them is (views, height, width, ...) in memory as read: the read lands in the
  caller's array, no copy at all (the RL renderer's layout). The y flip reverses
  triangles' winding: a pipeline culling back faces culls front faces there.

This module also holds the body renderer's per-view records (:data:`VIEW_DTYPE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..errors import BodyError
from ..transforms import eye_of

__all__ = ["TILE_GLSL", "VIEW_DTYPE", "Tiling", "eye_of", "tile_views"]  # eye_of: transforms'

ORIGINS = ("top", "bottom")

# The vertex stage's half of the tiling: a view's clip-space position moved into its tile
# (`tile`: the view's row of Tiling.clip). Scaling x, y by w keeps the divide exact.
TILE_GLSL = """// clip: a view's clip-space position; tile: its xy scale, zw offset (Tiling.clip)
vec4 tiled(vec4 clip, vec4 tile) { return vec4(clip.xy * tile.xy + tile.zw * clip.w, clip.zw); }
"""

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


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise BodyError(f"{what} must be a positive int, got {value!r}")
    return int(value)


class Tiling(NamedTuple):
    """`views` tiles of `tile` = (width, height) pixels, `columns` x `rows`, from `origin`."""

    views: int
    tile: tuple[int, int]
    columns: int
    rows: int
    origin: str = "top"

    @classmethod
    def grid(cls, views: int, tile: Sequence[int], columns: int | None = None,
             origin: str = "top") -> Tiling:  # fmt: skip
        """`views` tiles, `columns` wide (None: as square as it goes)."""
        views = _count(views, "views")
        width, height = (_count(v, "tile size") for v in tile)
        if columns is None:
            columns = int(np.ceil(np.sqrt(views)))
        columns = _count(columns, "columns")
        if origin not in ORIGINS:
            raise BodyError(f"origin must be one of {ORIGINS}, got {origin!r}")
        return cls(views, (width, height), columns, -(-views // columns), origin)

    @classmethod
    def fitted(cls, views: int, tile: Sequence[int], limit: int, *,
               error: type[Exception] = BodyError, hint: str = "") -> Tiling:  # fmt: skip
        """The squarest grid of `views` whose framebuffer fits `limit` pixels a side (the
        context's ``max_texture_size``), else as wide as the limit allows; `error` (naming
        the views, their size and the limit, then `hint`) when no grid fits."""
        grid = cls.grid(views, tile)
        width, height = grid.tile
        if width <= limit and grid.size[0] <= limit:
            return grid
        columns = max(1, min(grid.views, limit // width))
        wide = cls.grid(views, tile, columns)
        if width > limit or wide.size[1] > limit:
            raise error(f"{views} views of {width}x{height} do not fit one {limit}x{limit} "
                        f"framebuffer (the context's max_texture_size){hint}")  # fmt: skip
        return wide

    @classmethod
    def stacks(cls, views: int, tile: Sequence[int], limit: int,
               origin: str = "bottom") -> list[tuple[int, Tiling]]:  # fmt: skip
        """One-column tilings of `views` tiles in as few framebuffers as `limit` (pixels a
        side) allows, shared out evenly: (first view, its tiling) each."""
        views = _count(views, "views")
        width, height = (_count(v, "tile size") for v in tile)
        if width > limit or height > limit:
            raise BodyError(f"a {width}x{height} tile exceeds this GPU's limit of {limit}")
        share = -(-views // -(-views // (limit // height)))
        return [(first, cls.grid(min(share, views - first), tile, 1, origin))
                for first in range(0, views, share)]  # fmt: skip

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the framebuffer the tiles cover."""
        return (self.columns * self.tile[0], self.rows * self.tile[1])

    def clip(self) -> np.ndarray:
        """(views, 4) float32: each view's clip x, y scale and offset into its tile of the
        framebuffer's clip space (what ``tiled()`` of :data:`TILE_GLSL` applies)."""
        k = np.arange(self.views)
        column, row = k % self.columns, k // self.columns
        out = np.empty((self.views, 4), np.float32)
        out[:, 0] = 1.0 / self.columns
        out[:, 2] = -1.0 + (2 * column + 1) / self.columns
        centre = (2 * row + 1) / self.rows
        if self.origin == "top":
            out[:, 1], out[:, 3] = 1.0 / self.rows, 1.0 - centre
        else:  # row 0 at the bottom, each view upside down
            out[:, 1], out[:, 3] = -1.0 / self.rows, -1.0 + centre
        return out

    def split(self, image: np.ndarray) -> np.ndarray:
        """(views, height, width, ...) of a read of the framebuffer in this tiling's order
        (origin "top": top row first; "bottom": bottom row first); a view, no copy, for
        one column."""
        width, height = self.tile
        rest = image.shape[2:]
        if self.columns == 1:
            return image.reshape(self.rows, height, width, *rest)[: self.views]
        tiles = self.grid_view(image)
        return tiles.reshape(self.rows * self.columns, height, width, *rest)[: self.views]

    def grid_view(self, image: np.ndarray) -> np.ndarray:
        """(rows, columns, height, width, ...) of a read as :meth:`split` takes it: a view,
        never a copy (any strides: a bottom-up read turned over with ``[::-1]`` too), for a
        ufunc to write into the views' own layout in its one pass (``out=``)."""
        width, height = self.tile
        tiles = image.reshape(self.rows, height, self.columns, width, *image.shape[2:])
        return np.moveaxis(tiles, 2, 1)


def tile_views(
    cameras: Any,
    ranges: Sequence[tuple[int, int]],
    tiling: Tiling,
) -> np.ndarray:
    """The VIEW_DTYPE records of (view_proj, (first, count)) pairs laid out by `tiling` (a
    tile's size in pixels does not enter: each view's clip space maps onto its share)."""
    out = np.zeros(len(cameras), VIEW_DTYPE)
    out["tile"] = tiling.clip()[: len(cameras)]
    for k, (matrix, (first, count)) in enumerate(zip(cameras, ranges, strict=True)):
        out[k]["view_proj"] = np.asarray(matrix, np.float32).T.reshape(-1)  # column-major
        out[k]["range"] = (first, count, 1, 0)  # z: a live view
        out[k]["eye"] = eye_of(matrix)
        out[k]["depth"] = np.asarray(matrix, np.float32)[3]  # clip w
    return out
