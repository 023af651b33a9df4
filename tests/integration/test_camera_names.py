"""py_gpu and hypergl name their camera helpers' parameters alike (and agree on the matrices)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

pytest.importorskip("numpy")


@pytest.mark.parametrize("name", ["look_at", "perspective"])
def test_same_parameter_names(name):
    import hypergl.transforms
    import py_gpu

    ours = inspect.signature(getattr(py_gpu, name)).parameters
    theirs = inspect.signature(getattr(hypergl.transforms, name)).parameters
    assert list(ours) == list(theirs)
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


def test_same_matrices_by_keyword():
    import hypergl.transforms
    import py_gpu

    kwargs = {"fovy_degrees": 50.0, "aspect": 1.5, "near": 0.5, "far": 40.0}
    assert np.allclose(py_gpu.perspective(**kwargs), hypergl.transforms.perspective(**kwargs))
    view = {"eye": (1.0, 2.0, 3.0), "target": (0.0, 0.5, 0.0), "up": (0.0, 1.0, 0.0)}
    assert np.allclose(py_gpu.look_at(**view), hypergl.transforms.look_at(**view))


def test_same_orthographic_matrices():
    import hypergl.transforms
    import py_gpu.camera

    args = (3.0, 1.25, 0.5, 40.0)
    assert np.allclose(py_gpu.camera.orthographic(*args), hypergl.transforms.orthographic(*args))


def test_mujoco_cameras_use_hypergl_camera_math(monkeypatch):
    """hypergl-mujoco's mjr_lookAt and glFrustum / glOrtho are hypergl.transforms': one
    home for the camera math (a change there reaches MuJoCo's pictures)."""
    cameras = pytest.importorskip("hypergl_mujoco.cameras")
    import hypergl.transforms

    called = []
    for name in ("look_along", "frustum_projection"):
        real = getattr(hypergl.transforms, name)

        def spy(*args, _real=real, _name=name):
            called.append(_name)
            return _real(*args)

        monkeypatch.setattr(hypergl.transforms, name, spy)
    rng = np.random.default_rng(1)
    position, forward = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))
    up = np.cross(forward, rng.normal(size=(2, 3, 3)))
    view = cameras.look_at(position, forward, up)
    assert np.allclose(view[..., :3, :3] @ np.swapaxes(view[..., :3, :3], -1, -2), np.eye(3))
    frustum = np.array([[-1.0, 1.0, -0.5, 0.5, 0.1, 10.0], [-2.0, 1.0, -1.0, 2.0, 1.0, 5.0]])
    cameras.projection(frustum, np.array([False, True]))
    assert called == ["look_along", "frustum_projection"]
