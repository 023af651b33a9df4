"""Fixtures of the hypergl-mujoco tests: contexts, the models, MuJoCo's own renderer on EGL."""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco picks its GL backend

import pytest

mujoco = pytest.importorskip("mujoco")

from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context  # noqa: E402

__all__ = ["ctx", "gl_ctx"]  # fixtures, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context
