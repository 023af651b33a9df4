"""Test helpers for suites that use HyperGL (this project's own, and plugins').

Needs pytest. In a ``conftest.py``::

    from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context

    pytest_collection_modifyitems = skip_gl_tests_without_context

Tests marked ``gl`` then run on real OpenGL (headless EGL) and are skipped, with
the reason, where no context can be made; ``gl_ctx`` is a fresh context that must
end with no GL error and nothing left alive; ``ctx`` runs a test twice, on the
``trace`` device (no GPU) and on real OpenGL. :func:`draw_bodies` draws and reads one
frame of a body renderer. :func:`race_close` closes an object while threads use it, and
:func:`run_isolated` runs such a stress in an interpreter of its own (whether it survives
is the test).
"""

from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from .context import Context, context
from .errors import HyperGLError
from .probe import probe

__all__ = ["draw_bodies", "gl_ctx", "gl_unavailable_reason", "race_close", "run_isolated",
           "skip_gl_tests_without_context"]  # fmt: skip


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


def race_close(uses: Sequence[Callable[[], object]], close: Callable[[], object], *,
               after_close: int = 50, timeout: float = 120.0) -> list[BaseException]:  # fmt: skip
    """Close an object while threads use it: each of `uses` runs in a loop on a thread of
    its own, and `close()` runs here once every use has run once (a barrier: the close
    lands among uses in flight, whatever the scheduler does). Each loop ends at its use's
    first exception; a use that still succeeds `after_close` times after the close
    returned silently does nothing, and ends with an AssertionError saying so; a thread
    still running `timeout` seconds after the close hangs (AssertionError raised here).
    Returns the exception that ended each use, in order."""
    started = threading.Barrier(len(uses) + 1, timeout=timeout)
    closed = threading.Event()
    ended: list[BaseException | None] = [None] * len(uses)

    def loop(index: int, use: Callable[[], object]) -> None:
        first = True
        successes = 0
        while True:
            try:
                use()
            except BaseException as exc:
                ended[index] = exc
                started.abort()  # a use that fails before the close: no need to wait for it
                return
            if first:
                first = False
                with contextlib.suppress(threading.BrokenBarrierError):
                    started.wait()
            elif closed.is_set():
                successes += 1
                if successes >= after_close:
                    ended[index] = AssertionError(f"use {index} still succeeds {successes} "
                                                  "times after the close")  # fmt: skip
                    return

    threads = [threading.Thread(target=loop, args=(k, use), daemon=True)
               for k, use in enumerate(uses)]  # fmt: skip
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        started.wait()
    try:
        close()
    finally:
        closed.set()
        for thread in threads:
            thread.join(timeout)
    hung = [k for k, thread in enumerate(threads) if thread.is_alive()]
    if hung:
        raise AssertionError(f"uses {hung} still run {timeout} s after the close")
    return [exc for exc in ended if exc is not None]


def run_isolated(source: str, *args: str, timeout: float = 600.0) -> str:
    """Run Python `source` in a fresh interpreter (this one's executable) and return its
    stdout; an AssertionError with its exit status and stderr if it did not exit 0 (an
    abort or a segfault ends it with a negative status)."""
    try:
        done = subprocess.run([sys.executable, "-c", source, *args], capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the script ran past {timeout} s: {exc.stderr!r}") from None
    if done.returncode != 0:
        raise AssertionError(f"the script exited {done.returncode}:\n{done.stdout[-2000:]}\n"
                             f"{done.stderr[-4000:]}")  # fmt: skip
    return done.stdout
