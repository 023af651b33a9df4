"""BodyRenderer.set_view_matrices: many views' cameras moved in one NumPy call keep their
tiles and rows, and draw what set_views with the same cameras draws (ray-cast parts too:
each view's eye moves with its matrix)."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.bodies import BodyError, BodyRenderer, InstanceRecords
from hypergl.bodies.views import eye_of
from hypergl.testing import draw_bodies
from hypergl.transforms import look_at, perspective

pytestmark = pytest.mark.gl

IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
TILE = (32, 24)


def cameras():
    return [perspective(40.0, 4 / 3, 0.1, 100.0) @ look_at((10.0 * k, 1.0, 5.0 + k),
                                                             (10.0 * k, 0.0, 0.0))
            for k in range(3)]  # fmt: skip


@pytest.mark.parametrize("primitives", ["mesh", "raycast"])
def test_moved_cameras_draw_what_set_views_draws(gl_ctx, primitives):
    records = InstanceRecords(gl_ctx, 3)
    records.write([(10.0 * k, 0.0, 0.0) for k in range(3)], [IDENTITY_Q] * 3, [0, 1, 2])
    renderer = BodyRenderer(records, max_ids=4, views=3, outputs=("color", "id"),
                            primitives=primitives)  # fmt: skip
    for k, shape in enumerate(("sphere", "capsule", "cylinder")):
        renderer.set_look(k, shape, 1.0 if shape == "sphere" else (0.8, 0.5))
    ranges = [(k, 1) for k in range(3)]
    renderer.set_views(cameras(), TILE, ranges=ranges)
    expected = draw_bodies(renderer)
    renderer.set_views([np.eye(4)] * 3, TILE, ranges=ranges)  # elsewhere, then moved back
    renderer.set_view_matrices(np.stack(cameras()))
    moved = draw_bodies(renderer)
    for k in range(3):
        assert (renderer.split_views(expected["id"])[k] == k).sum() > 20
    assert np.array_equal(moved["id"], expected["id"])
    assert np.array_equal(moved["color"], expected["color"])
    renderer.release()
    records.release()


def test_eye_of_is_vectorised():
    matrices = np.stack(cameras())
    eyes = eye_of(matrices)
    assert eyes.shape == (3, 4)
    for k, matrix in enumerate(matrices):
        assert np.allclose(eyes[k], eye_of(matrix), atol=1e-5)
        assert np.allclose(eyes[k], (10.0 * k, 1.0, 5.0 + k, 1.0), atol=1e-4)


def test_bad_view_matrices(gl_ctx):
    records = InstanceRecords(gl_ctx, 2)
    renderer = BodyRenderer(records, max_ids=2, views=2)
    with pytest.raises(BodyError, match="call set_views first"):
        renderer.set_view_matrices(np.zeros((2, 4, 4)))
    renderer.set_views([np.eye(4)] * 2, TILE)
    with pytest.raises(ValueError, match=r"2 finite 4x4 matrices, got shape \(3, 4, 4\)"):
        renderer.set_view_matrices(np.zeros((3, 4, 4)))
    bad = np.stack([np.eye(4)] * 2)
    bad[1, 0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        renderer.set_view_matrices(bad)
    eyes = np.stack([np.eye(4)] * 2)
    with pytest.raises(ValueError, match=r"depth must be 2 finite rows of 4, got shape \(2, 3\)"):
        renderer.set_view_matrices(eyes, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="depth row of view 0 is not finite"):
        renderer.set_view_matrices(eyes, np.full((2, 4), np.inf))
    renderer.release()
    records.release()


def test_eye_of_an_orthographic_view_points_back_at_the_camera():
    ortho = np.diag([1 / 1.6, 1 / 1.6, -2 / 19.9, 1.0])
    ortho[2, 3] = -20.1 / 19.9
    eye = eye_of(ortho @ look_at((0.0, 0.0, 5.0), (0.0, 0.0, 0.0)))
    assert np.allclose(eye, (0.0, 0.0, 1.0, 0.0), atol=1e-6)  # at infinity, toward +z


@pytest.mark.parametrize(("background", "extra_draws"),
                         [((0.0, 0.3, 0.6), 0), ((0.4, 0.3, 0.6), 1)])  # fmt: skip
def test_a_clear_with_red_zero_sets_depth_and_ids_without_a_pass(gl_ctx, background,
                                                                 extra_draws):  # fmt: skip
    """Depth and ids are stored as 1 / metres and id + 1: a clear whose red is 0 leaves
    +inf and -1 where nothing is drawn; another background takes one full-screen draw."""
    records = InstanceRecords(gl_ctx, 1)
    records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [1])
    renderer = BodyRenderer(records, max_ids=2, outputs=("color", "depth", "id"))
    renderer.set_look(1, "box", (1.0, 1.0, 1.0))
    renderer.set_camera(perspective(40.0, 1.0, 0.1, 100.0) @ look_at((0, 0, 10), (0, 0, 0)))
    fb = renderer.framebuffer((32, 32))
    draws = []
    for clear in (False, True):
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        if clear:
            renderer.record_clear(cmd, background)
        else:
            cmd.clear(color=(*background, 1.0), depth=1.0)
        renderer.record(cmd)
        cmd.end()
        draws.append(cmd.submit().draws)
    out = renderer.read(fb)
    assert draws[1] - draws[0] == extra_draws
    assert out["id"][0, 0] == -1 and np.isinf(out["depth"][0, 0])
    assert out["id"][16, 16] == 1 and out["depth"][16, 16] == pytest.approx(9.0, rel=1e-5)
    assert tuple(out["color"][0, 0]) == tuple(round(255 * c) for c in background)
    fb.release()
    renderer.release()
    records.release()
