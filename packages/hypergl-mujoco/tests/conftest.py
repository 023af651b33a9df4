"""Fixtures of the hypergl-mujoco tests: contexts, the models, MuJoCo's own renderer on EGL."""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco picks its GL backend

import pytest

mujoco = pytest.importorskip("mujoco")

import hypergl  # noqa: E402
from hypergl.testing import gl_ctx, skip_gl_tests_without_context  # noqa: E402

__all__ = ["gl_ctx"]  # a fixture, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context


@pytest.fixture(params=["trace", pytest.param("gl", marks=pytest.mark.gl)])
def ctx(request):
    """The same test on the trace device (no GPU) and on real OpenGL."""
    context = hypergl.context(device=request.param)
    try:
        yield context
    finally:
        context.close()
