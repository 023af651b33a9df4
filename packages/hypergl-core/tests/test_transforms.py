"""Camera matrices in NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.transforms import look_at, perspective, project


def test_a_point_in_front_of_the_camera_projects_to_the_centre():
    view_proj = perspective(60.0, 2.0, 0.1, 100.0) @ look_at((0, 0, 5), (0, 0, 0))
    assert np.allclose(project(view_proj, [(0, 0, 0)], (200, 100)), [(100, 50)])
    right = project(view_proj, [(1, 0, 0)], (200, 100))[0]
    assert right[0] > 100 and right[1] == pytest.approx(50)


def test_bad_clip_planes():
    with pytest.raises(ValueError, match="0 < near < far"):
        perspective(60.0, 1.0, 5.0, 1.0)
