"""Fixtures of the hypergl-core tests.

GL tests (marker ``gl``) run on real OpenGL through headless EGL and are skipped,
with the reason, where no context can be made; ``trace`` and ``null`` contexts
need no GPU.
"""

from __future__ import annotations

import pytest

import hypergl
from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context

__all__ = ["ctx", "gl_ctx"]  # fixtures, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context


@pytest.fixture
def trace_ctx():
    ctx = hypergl.context(device="trace")
    yield ctx
    ctx.release("all")


@pytest.fixture
def null_ctx():
    ctx = hypergl.context(device="null")
    yield ctx
    ctx.release("all")


VERTEX = "#version 430\nvoid main() { gl_Position = vec4(0.0); }\n"
FRAGMENT = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1.0); }\n"


@pytest.fixture
def pipeline(trace_ctx):
    return trace_ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, name="main")
