"""Batch contracts: objects and the flat-array fast path, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from py_gpu import RasterBatch, ScreenTriangle, ScreenVertex
from py_gpu.errors import InvalidColorError, InvalidGeometryError


def test_from_arrays_matches_objects():
    tri = ScreenTriangle(
        ScreenVertex(1, 2, 3), ScreenVertex(4, 5, 6), ScreenVertex(7, 8, 9), (1, 2, 3)
    )
    objects = RasterBatch([tri, tri])
    flat = RasterBatch.from_arrays(np.tile(np.arange(1, 10, dtype=float), 2), [(1, 2, 3)] * 2)
    assert objects == flat and len(flat) == 2
    assert flat.triangles[0] == tri
    xyz, rgb = objects.arrays()
    assert xyz.shape == (2, 3, 3) and rgb.dtype == np.uint8
    assert not xyz.flags.writeable


def test_from_arrays_indexed_and_colour_forms():
    vertices = [(0, 0, 1), (10, 0, 1), (0, 10, 1), (10, 10, 2)]
    batch = RasterBatch.from_arrays(vertices, (10, 20, 30), indices=[(0, 1, 2), (1, 3, 2)])
    xyz, rgb = batch.arrays()
    assert xyz[1, 1].tolist() == [10, 10, 2]
    assert rgb.tolist() == [[10, 20, 30]] * 2
    floats = RasterBatch.from_arrays(np.zeros((1, 3, 3)), [[12.4, 0.0, 254.6]])
    assert floats.arrays()[1].tolist() == [[12, 0, 255]]
    assert RasterBatch.from_arrays(np.zeros((0, 3, 3))).arrays()[0].shape == (0, 3, 3)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_coordinates(bad):
    with pytest.raises(InvalidGeometryError, match="finite"):
        ScreenVertex(bad, 0, 0)
    with pytest.raises(InvalidGeometryError, match="finite"):
        ScreenVertex(0, 0, bad)
    positions = np.zeros((2, 3, 3))
    positions[1, 2, 1] = bad
    with pytest.raises(InvalidGeometryError, match="triangle 1 corner 2"):
        RasterBatch.from_arrays(positions)


def test_bad_shapes_and_ranges():
    with pytest.raises(InvalidGeometryError, match="9 numbers"):
        RasterBatch.from_arrays(np.zeros(10))
    with pytest.raises(InvalidGeometryError, match="indices must lie"):
        RasterBatch.from_arrays(np.zeros((3, 3)), indices=[(0, 1, 3)])
    with pytest.raises(InvalidGeometryError, match="integers"):
        RasterBatch.from_arrays(np.zeros((3, 3)), indices=[(0.0, 1.0, 2.0)])
    with pytest.raises(InvalidGeometryError, match="supported screen range"):
        RasterBatch.from_arrays([[(0, 0, 0), (1e9, 0, 0), (0, 1, 0)]])
    with pytest.raises(InvalidGeometryError):
        RasterBatch([(1, 2, 3)])
    with pytest.raises(InvalidGeometryError):
        ScreenTriangle((0, 0, 0), ScreenVertex(0, 0, 0), ScreenVertex(0, 0, 0))


@pytest.mark.parametrize(
    "colors", [[(256, 0, 0)], [(-1, 0, 0)], [(0, np.nan, 0)], [(1, 2)], [["a", "b", "c"]]]
)
def test_bad_colours(colors):
    with pytest.raises(InvalidColorError):
        RasterBatch.from_arrays(np.zeros((1, 3, 3)), colors)


def test_triangle_colour_validation():
    with pytest.raises(InvalidColorError, match=r"outside 0\.\.255"):
        ScreenTriangle(
            ScreenVertex(0, 0, 0), ScreenVertex(1, 0, 0), ScreenVertex(0, 1, 0), (300, 0, 0)
        )
    tri = ScreenTriangle(
        ScreenVertex(0, 0, 0), ScreenVertex(1, 0, 0), ScreenVertex(0, 1, 0), (1.4, 2, 3)
    )
    assert tri.color == (1, 2, 3)
