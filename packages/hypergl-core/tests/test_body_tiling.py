"""hypergl.bodies.views.Tiling: the one layout of many views in framebuffers (the body
renderer's set_views, hypergl-mujoco's worlds and shadow maps, hypergl-rl's stacks)."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.bodies.views import Tiling, tile_views
from hypergl.errors import BodyError


def test_a_grid_is_as_square_as_it_goes_unless_told():
    assert Tiling.grid(5, (8, 4)) == Tiling(5, (8, 4), 3, 2, "top")
    assert Tiling.grid(5, (8, 4)).size == (24, 8)
    assert Tiling.grid(5, (8, 4), columns=1).size == (8, 20)


@pytest.mark.parametrize("origin", ["top", "bottom"])
def test_clip_puts_each_view_on_its_tile_and_split_undoes_the_read(origin):
    """Pixel (x, y) of view k, drawn through clip(), lands where split() finds it."""
    tiling = Tiling.grid(5, (4, 2), columns=2, origin=origin)
    width, height = tiling.size
    image = np.full((height, width), -1)
    for k, (sx, sy, ox, oy) in enumerate(tiling.clip()):
        for y in range(2):  # the view's pixel rows, top down
            for x in range(4):
                cx, cy = (x + 0.5) / 2 - 1, 1 - (y + 0.5)  # the pixel centre's clip x, y
                fx, fy = cx * sx + ox, cy * sy + oy
                column, row_up = int((fx + 1) / 2 * width), int((fy + 1) / 2 * height)
                # a read: top row first ("top"), OpenGL's bottom row first ("bottom")
                row = height - 1 - row_up if origin == "top" else row_up
                image[row, column] = k * 100 + y * 10 + x
    views = tiling.split(image)
    assert views.shape == (5, 2, 4)
    for k in range(5):
        assert views[k].tolist() == [[k * 100 + y * 10 + x for x in range(4)] for y in range(2)]


def test_one_column_splits_without_a_copy():
    tiling = Tiling.grid(3, (4, 2), columns=1, origin="bottom")
    image = np.arange(6 * 4 * 3).reshape(6, 4, 3)
    assert np.shares_memory(tiling.split(image), image)


def test_grid_view_of_a_turned_over_read_is_a_view_in_split_order():
    # a bottom-up read turned over ([::-1]): the grid of tiles without a copy, as split
    # lays them out
    tiling = Tiling.grid(5, (4, 2), columns=2)
    bottom_up = np.arange(6 * 8 * 3).reshape(6, 8, 3)
    grid = tiling.grid_view(bottom_up[::-1])
    assert grid.shape == (3, 2, 2, 4, 3) and np.shares_memory(grid, bottom_up)
    np.testing.assert_array_equal(grid.reshape(6, 2, 4, 3)[:5], tiling.split(bottom_up[::-1]))


def test_fitted_is_square_then_as_wide_as_the_limit_then_refused():
    assert Tiling.fitted(4, (10, 10), 100).columns == 2
    wide = Tiling.fitted(60, (10, 1), 100)  # square (8 columns) is 80 wide: fits
    assert wide.columns == 8
    tall = Tiling.fitted(40, (30, 2), 100)  # 7 columns would be 210 wide: 3 of them
    assert (tall.columns, tall.rows) == (3, 14) and tall.size[0] <= 100
    with pytest.raises(ValueError, match=r"400 views of 30x30 do not fit one 100x100 "
                                         r"framebuffer.*: fewer"):  # fmt: skip
        Tiling.fitted(400, (30, 30), 100, hint=": fewer")


def test_stacks_share_the_views_out_within_the_limit():
    stacks = Tiling.stacks(5, (8, 40), 100)  # two 40-pixel tiles a stack at most
    assert [(first, t.views) for first, t in stacks] == [(0, 2), (2, 2), (4, 1)]
    assert all(t.columns == 1 and t.origin == "bottom" and t.size[1] <= 100 for _, t in stacks)
    assert [t.views for _, t in Tiling.stacks(7, (8, 10), 50)] == [4, 3]  # even shares
    with pytest.raises(BodyError, match="a 8x101 tile exceeds this GPU's limit of 100"):
        Tiling.stacks(1, (8, 101), 100)


@pytest.mark.parametrize(("args", "message"), [
    ((0, (4, 4)), "views must be a positive int, got 0"),
    ((2, (4, 0)), "tile size must be a positive int, got 0"),
    ((2, (4, 4), 0), "columns must be a positive int, got 0"),
    ((2, (4, 4), True), "columns must be a positive int, got True"),
    ((2, (4, 4), None, "left"), "origin must be one of"),
])  # fmt: skip
def test_bad_tilings_are_refused(args, message):
    with pytest.raises(BodyError, match=message):
        Tiling.grid(*args)


def test_the_view_records_carry_the_tiling():
    tiling = Tiling.grid(3, (4, 4))
    records = tile_views([np.eye(4)] * 3, [(0, 1), (1, 1), (2, 1)], tiling)
    assert np.array_equal(records["tile"], tiling.clip())
    assert records["range"][:, :3].tolist() == [[0, 1, 1], [1, 1, 1], [2, 1, 1]]
