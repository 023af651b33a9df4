"""Camera matrices in NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl import ArgumentError
from hypergl.transforms import (
    frustum_projection,
    look_along,
    look_at,
    orthographic,
    perspective,
    project,
)


def test_a_point_in_front_of_the_camera_projects_to_the_centre():
    view_proj = perspective(60.0, 2.0, 0.1, 100.0) @ look_at((0, 0, 5), (0, 0, 0))
    assert np.allclose(project(view_proj, [(0, 0, 0)], (200, 100)), [(100, 50)])
    right = project(view_proj, [(1, 0, 0)], (200, 100))[0]
    assert right[0] > 100 and right[1] == pytest.approx(50)


def test_bad_clip_planes():
    with pytest.raises(ValueError, match="0 < near < far"):
        perspective(60.0, 1.0, 5.0, 1.0)


def test_look_along_takes_many_cameras_and_agrees_with_look_at():
    rng = np.random.default_rng(3)
    eyes, targets = rng.normal(size=(5, 4, 3)), rng.normal(size=(5, 4, 3))
    views = look_along(eyes, targets - eyes, (0.0, 1.0, 0.0))
    assert views.shape == (5, 4, 4, 4)
    for index in np.ndindex(5, 4):
        assert np.allclose(views[index], look_at(eyes[index], targets[index]))
    # rows: right, up, backward; the eye maps to the origin
    assert np.allclose(views[0, 0, :3, :3] @ views[0, 0, :3, :3].T, np.eye(3))
    assert np.allclose(views[0, 0] @ np.r_[eyes[0, 0], 1.0], [0, 0, 0, 1])


def test_frustum_projection_is_perspective_and_orthographic():
    near, far, fovy, aspect = 0.5, 40.0, 50.0, 1.5
    top = near * np.tan(np.radians(fovy) / 2)
    frustum = [-top * aspect, top * aspect, -top, top, near, far]
    assert np.allclose(frustum_projection(frustum), perspective(fovy, aspect, near, far))
    box = frustum_projection([[-3, 3, -2, 2, near, far]] * 2, [True, False])
    assert np.allclose(box[0], orthographic(4.0, 1.5, near, far))
    # an orthographic camera maps its box's corners to the NDC cube's
    corner = box[0] @ np.array([3.0, 2.0, -far, 1.0])
    assert np.allclose(corner, [1, 1, 1, 1])
    # an off-centre frustum moves the image, not the depth
    shifted = frustum_projection([-1, 3, -2, 2, 1.0, 10.0])
    assert shifted[0, 2] == pytest.approx(0.5) and shifted[2, 2] == pytest.approx(-11 / 9)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: perspective(0.0, 1.0, 0.1, 10.0), "fovy_degrees"),
        (lambda: perspective(60.0, -1.0, 0.1, 10.0), "aspect"),
        (lambda: orthographic(0.0, 1.0, 0.1, 10.0), "height"),
        (lambda: orthographic(1.0, 1.0, float("nan"), 10.0), "near < far"),
        (lambda: look_at((0, 0, 0), (0, 0, 0)), "differ"),
        (lambda: look_at((0, 0, 0), (0, 1, 0)), "parallel"),
        (lambda: look_at((0, 0), (0, 1, 0)), "eye must be three finite numbers"),
        (lambda: look_at((0, 0, 0), (0, 0, float("inf"))), "target"),
    ],
)
def test_bad_cameras_name_the_bad_value(call, match):
    with pytest.raises(ArgumentError, match=match) as caught:
        call()
    assert isinstance(caught.value, ValueError)  # what perspective raised before
