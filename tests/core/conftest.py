"""Fixtures of the hypergl-core tests that need no GPU: trace and null contexts."""

from __future__ import annotations

import pytest

import hypergl


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


@pytest.fixture
def gl_ctx():
    """A headless GL context; after the test: no GL error, and release('all') leaves nothing."""
    ctx = hypergl.context()
    try:
        yield ctx
        ctx.check_errors()
        ctx.release("all")
        assert ctx.live_objects() == []
        ctx.check_errors()
    finally:
        ctx.close()
