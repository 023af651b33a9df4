"""Every available backend agrees with the CPU reference (the definition of the convention)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import py_gpu
from py_gpu import RasterBatch, ScreenTriangle, ScreenVertex

W, H = 96, 64


def _pixels(frame):
    return frame.to_numpy().reshape(-1, 3)


def _agreement(a, b) -> float:
    return float(np.mean((_pixels(a) == _pixels(b)).all(axis=1)))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("grid", [None, 0.5], ids=["float", "half-pixel"])
def test_random_batches_agree(backend, reference, make_batch, exact_backends, seed, grid):
    rng = np.random.default_rng(seed)
    batch = make_batch(rng, 150, W, H, radius=14.0, grid=grid)
    expected = reference.render(batch, W, H, background=(9, 8, 7))
    got = backend.render(batch, W, H, background=(9, 8, 7))
    agreement = _agreement(expected, got)
    if backend.name in exact_backends:
        assert agreement == 1.0
    else:
        assert agreement >= 0.9999, f"{backend.name}: only {agreement:.6f} of pixels agree"


def _rect(x0, y0, x1, y1, z, color):
    a, b = ScreenVertex(x0, y0, z), ScreenVertex(x1, y0, z)
    c, d = ScreenVertex(x1, y1, z), ScreenVertex(x0, y1, z)
    return [ScreenTriangle(a, b, c, color), ScreenTriangle(a, c, d, color)]


@pytest.mark.parametrize("offset", [0.0, 0.5, 0.25], ids=["edges", "centres", "quarter"])
def test_axis_aligned_rectangles_exact(backend, reference, offset):
    triangles = []
    rng = np.random.default_rng(7)
    for _ in range(25):
        x0, y0 = rng.integers(-5, W, 2)
        w, h = rng.integers(1, 30, 2)
        z = float(rng.integers(1, 50)) / 7.0
        color = tuple(int(c) for c in rng.integers(0, 256, 3))
        triangles += _rect(x0 + offset, y0 + offset, x0 + w + offset, y0 + h + offset, z, color)
    batch = RasterBatch(triangles)
    assert backend.render(batch, W, H).pixels == reference.render(batch, W, H).pixels


def test_shared_edges_cover_every_pixel_once(backend):
    # A fan of triangles around a centre on pixel centres: no gaps, no double coverage
    # (checked through colours: each triangle paints with its own colour at equal depth).
    cx, cy = 40.5, 30.5
    points = [(10.5, 5.5), (70.5, 5.5), (80.5, 40.5), (50.5, 60.5), (5.5, 55.5)]
    triangles = []
    for i, (p, q) in enumerate(zip(points, points[1:] + points[:1], strict=True)):
        triangles.append(
            ScreenTriangle(
                ScreenVertex(cx, cy, 1.0),
                ScreenVertex(*p, 1.0),
                ScreenVertex(*q, 1.0),
                (40 * (i + 1), 0, 0),
            )
        )
    union = backend.render(RasterBatch(triangles), W, H).to_numpy()
    total = 0
    for tri in triangles:
        alone = backend.render(RasterBatch([tri]), W, H).to_numpy()
        total += int((alone[:, :, 0] > 0).sum())
    assert total == int((union[:, :, 0] > 0).sum())  # no pixel drawn by two triangles


def test_depth_is_not_normalised_per_batch(backend):
    near = ScreenTriangle(
        ScreenVertex(0, 0, 1.0), ScreenVertex(40, 0, 1.0), ScreenVertex(0, 40, 1.0)
    )
    far = ScreenTriangle(
        ScreenVertex(0, 0, 2.0), ScreenVertex(40, 0, 2.0), ScreenVertex(0, 40, 2.0), (255, 0, 0)
    )
    # Drawn after the near one, the far triangle stays hidden whatever else is in the batch.
    for extra_z in (0.5, 100.0, -100.0):
        extra = ScreenTriangle(
            ScreenVertex(60, 50, extra_z),
            ScreenVertex(70, 50, extra_z),
            ScreenVertex(60, 60, extra_z),
        )
        frame = backend.render(RasterBatch([near, far, extra]), W, H)
        assert frame.get_pixel(5, 5) == (255, 255, 255)


def test_smaller_z_is_nearer_and_y_is_down(backend):
    top = ScreenTriangle(
        ScreenVertex(0, 0, 3.0), ScreenVertex(W, 0, 3.0), ScreenVertex(0, 10, 3.0), (0, 255, 0)
    )
    front = ScreenTriangle(
        ScreenVertex(0, 0, 0.5), ScreenVertex(20, 0, 0.5), ScreenVertex(0, 20, 0.5), (0, 0, 255)
    )
    frame = backend.render(RasterBatch([top, front]), W, H)
    assert frame.get_pixel(2, 2) == (0, 0, 255)  # nearer wins although drawn later
    assert frame.get_pixel(60, 1) == (0, 255, 0)  # row 0 is the top
    assert frame.get_pixel(60, H - 1) == (0, 0, 0)


def test_ids_agree_with_reference(backend, reference, make_batch, exact_backends):
    rasterize_ids = getattr(backend, "rasterize_ids", None)
    if rasterize_ids is None:
        pytest.skip(f"{backend.name} has no rasterize_ids")
    batch = make_batch(np.random.default_rng(11), 120, W, H)
    ids, depth = rasterize_ids(batch, W, H)
    ref_ids, ref_depth = reference.rasterize_ids(batch, W, H)
    assert ids.shape == (H, W) and depth.shape == (H, W)
    same = ids == ref_ids
    assert same.mean() >= (1.0 if backend.name in exact_backends else 0.999)
    assert np.array_equal(depth[same], ref_depth[same])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            *[st.integers(-40, 200).map(lambda v: v / 4) for _ in range(6)],
            *[
                st.one_of(
                    st.floats(-5, 5, allow_nan=False),
                    st.sampled_from([0.0, 1.0, 1.0 + 1e-12, -2.0]),  # exact and near ties
                )
                for _ in range(3)
            ],
        ),
        min_size=1,
        max_size=12,
    )
)
def test_numpy_is_bit_identical_to_reference(triangles):
    positions = np.array(
        [[(t[0], t[1], t[6]), (t[2], t[3], t[7]), (t[4], t[5], t[8])] for t in triangles]
    )
    colors = np.array([((17 * i) % 256, (91 * i) % 256, 200) for i in range(len(triangles))])
    batch = RasterBatch.from_arrays(positions, colors)
    cpu = py_gpu.select_backend("cpu")
    vec = py_gpu.select_backend("numpy")
    ref_ids, ref_depth = cpu.rasterize_ids(batch, 40, 30)
    ids, depth = vec.rasterize_ids(batch, 40, 30)
    assert np.array_equal(ref_ids, ids)
    assert np.array_equal(ref_depth, depth)
    assert vec.render(batch, 40, 30).pixels == cpu.render(batch, 40, 30).pixels


@pytest.mark.parametrize("chunk", [64, 700, 1 << 22])
def test_numpy_chunked_resolution_is_exact(monkeypatch, make_batch, chunk):
    """Batches split into several draw-order chunks still resolve ties to the first drawn."""
    from py_gpu.backends import numpy_backend

    monkeypatch.setattr(numpy_backend, "_CHUNK", chunk)
    rng = np.random.default_rng(5)
    batch = make_batch(rng, 80, 48, 32, radius=10.0, grid=1.0)  # many exact depth ties
    xyz, rgb = batch.arrays()
    flat = xyz.copy()
    flat[:, :, 2] = np.round(flat[:, :, 2])  # constant-ish depths: ties between chunks
    batch = RasterBatch.from_arrays(flat, rgb)
    cpu = py_gpu.select_backend("cpu")
    vec = py_gpu.select_backend("numpy")
    assert vec.render(batch, 48, 32).pixels == cpu.render(batch, 48, 32).pixels
    ids, depth = vec.rasterize_ids(batch, 48, 32)
    ref_ids, ref_depth = cpu.rasterize_ids(batch, 48, 32)
    assert np.array_equal(ids, ref_ids) and np.array_equal(depth, ref_depth)


def test_compiled_and_vectorised_backends_are_bit_identical(make_batch):
    """numba and numpy against each other on a larger batch full of exact and near ties."""
    available = py_gpu.available_backends()
    if not available["numba"].available:
        pytest.skip(f"numba unavailable: {available['numba'].reason}")
    rng = np.random.default_rng(21)
    batch = make_batch(rng, 1500, 320, 180, radius=25.0)
    xyz, rgb = batch.arrays()
    tied = xyz.copy()
    tied[::2, :, 2] = np.round(tied[::2, :, 2])  # exact ties
    tied[1::4, :, 2] = tied[1::4, :, 2] * (1 + 1e-13)  # near ties
    batch = RasterBatch.from_arrays(tied, rgb)
    numba_backend = py_gpu.select_backend("numba")
    numpy_backend = py_gpu.select_backend("numpy")
    assert (
        numba_backend.render(batch, 320, 180).pixels == numpy_backend.render(batch, 320, 180).pixels
    )
    ids_a, depth_a = numba_backend.rasterize_ids(batch, 320, 180)
    ids_b, depth_b = numpy_backend.rasterize_ids(batch, 320, 180)
    assert np.array_equal(ids_a, ids_b) and np.array_equal(depth_a, depth_b)
