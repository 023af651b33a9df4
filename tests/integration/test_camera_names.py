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
