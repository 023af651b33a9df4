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
