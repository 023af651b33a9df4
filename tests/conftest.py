"""Shared test set-up: GL tests run on real OpenGL, and are skipped with a reason without it."""

from __future__ import annotations

import functools

import pytest


@functools.cache
def egl_unavailable_reason() -> str | None:
    """None when a headless EGL context can be created here, else why not."""
    try:
        from glcontext import egl
    except ImportError as exc:
        return f"glcontext is not installed: {exc}"
    try:
        context = egl.create_context(mode="standalone", glversion=330)
    except Exception as exc:
        return f"no headless EGL context on this machine: {exc}"
    # Unbind before releasing: a current EGL context breaks later GLX windows.
    context.__enter__()
    context.__exit__(None, None, None)
    context.release()
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if item.get_closest_marker("gl") is None:
            continue
        if reason is None:
            reason = egl_unavailable_reason() or ""
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def gl_ctx():
    """A headless GL context; after the test: no GL error, and release('all') leaves nothing."""
    import hypergl

    ctx = hypergl.context()
    try:
        yield ctx
        ctx.check_errors()
        ctx.release("all")
        assert ctx.live_objects() == []
        ctx.check_errors()
    finally:
        ctx.close()
