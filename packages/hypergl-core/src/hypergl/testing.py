"""Test helpers for suites that use HyperGL (this project's own, and plugins').

Needs pytest. In a ``conftest.py``::

    from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context

    pytest_collection_modifyitems = skip_gl_tests_without_context

Tests marked ``gl`` then run on real OpenGL (headless EGL) and are skipped, with
the reason, where no context can be made; ``gl_ctx`` is a fresh context that must
end with no GL error and nothing left alive; ``ctx`` runs a test twice, on the
``trace`` device (no GPU) and on real OpenGL. :func:`draw_bodies` draws and reads one
frame of a body renderer.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest

from .context import Context, context
from .errors import HyperGLError
from .probe import probe

__all__ = ["gl_ctx", "gl_unavailable_reason", "skip_gl_tests_without_context"]


@functools.cache
def gl_unavailable_reason() -> str | None:
    """None when a headless OpenGL context can be made here, else why not."""
    try:
        probe()
    except HyperGLError as exc:
        return f"no headless OpenGL context on this machine: {exc}"
    return None


def skip_gl_tests_without_context(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``pytest_collection_modifyitems`` hook: skip ``gl`` tests where GL is missing."""
    for item in items:
        if item.get_closest_marker("gl") is not None and gl_unavailable_reason():
            item.add_marker(pytest.mark.skip(reason=gl_unavailable_reason()))


@pytest.fixture
def gl_ctx() -> Iterator[Context]:
    """A headless GL context; after the test: no GL error, and release('all') leaves nothing."""
    ctx = context()
    try:
        yield ctx
        ctx.check_errors()
        ctx.release("all")
        assert ctx.live_objects() == [], f"objects left alive: {ctx.live_objects()}"
        ctx.check_errors()
    finally:
        ctx.close()


@pytest.fixture(params=["trace", pytest.param("gl", marks=pytest.mark.gl)])
def ctx(request: pytest.FixtureRequest) -> Iterator[Context]:
    """The same test on the trace device (no GPU) and on real OpenGL."""
    made = context(device=request.param)
    try:
        yield made
    finally:
        made.close()


def draw_bodies(renderer: Any, framebuffer: Any = None) -> dict[str, Any]:
    """One frame of a :class:`hypergl.bodies.BodyRenderer`: `framebuffer` (None: one of the
    renderer's :meth:`~hypergl.bodies.BodyRenderer.framebuffer`, released after) cleared,
    drawn into by a program recorded and submitted once, and its outputs read back."""
    own = framebuffer is None
    target = renderer.framebuffer() if own else framebuffer
    try:
        cmd = target.context.command_buffer()
        cmd.bind_framebuffer(target)
        renderer.record_clear(cmd)
        renderer.record(cmd)
        cmd.end()
        cmd.submit()
        return renderer.read(target)
    finally:
        if own:
            target.release()
