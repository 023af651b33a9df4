"""Window contexts used by several threads (issue 36, item 1: windows own native and GPU
state too): renders, swaps, polls (which resize ``ctx.screen``) and ``should_close`` from
threads at once run one at a time, each drawing what it asked for; a close racing them
ends each with our error, and a use after the close is refused. Each case runs in an
interpreter of its own (``hypergl.testing.run_isolated``: an X error that exits the
process, an abort or a segfault is a failed test, not a dead run); barriers make the
threads overlap."""

from __future__ import annotations

import os

import pytest

from hypergl.testing import run_isolated

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]

COMMON = r'''
import sys
import threading
import numpy as np
import hypergl
from hypergl import ContextError, ResourceError

backend, rounds = sys.argv[1], int(sys.argv[2])
if backend == "sdl":
    import warnings
    warnings.simplefilter("ignore")  # PySDL2's note about its bundled binaries


def window():
    return hypergl.context(window=(32, 32), backend=backend, visible=False)


def painter(ctx, colour):
    """A use that clears a framebuffer of its own to `colour` and reads it back: the
    picture a thread gets is the one it asked for."""
    fb = ctx.framebuffer((8, 8))
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=tuple(c / 255 for c in colour))
    cmd.end()
    expected = np.array(colour, np.uint8)

    def paint():
        cmd.submit()
        image = fb.read()
        assert (image == expected).all(), (colour, image[0, 0])
    return paint


def screen_painter(ctx):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.screen)
    cmd.clear(color=(0.0, 0.0, 1.0, 1.0))
    cmd.end()

    def present():
        cmd.submit()
        ctx.screen.read()
        ctx.swap()
    return present
'''

RACE_CLOSE = (
    COMMON
    + r"""
from hypergl.testing import race_close

seen = set()
for _ in range(rounds):
    ctx = window()
    uses = [painter(ctx, (255, 0, 0, 255)), painter(ctx, (0, 255, 0, 255)),
            screen_painter(ctx), ctx.swap, ctx.poll, lambda: ctx.should_close]
    ended = race_close(uses, ctx.close)
    foreign = [repr(e) for e in ended if not isinstance(e, (ContextError, ResourceError))]
    assert not foreign, foreign
    seen.update(type(e).__name__ for e in ended)
    for after in (ctx.swap, ctx.poll, lambda: ctx.should_close, lambda: ctx.screen):
        try:
            after()
        except ContextError:
            pass
        else:
            raise AssertionError(f"{after} after the close succeeded")
    ctx.close()  # a second close does nothing
print(sorted(seen))
"""
)

SHARED = (
    COMMON
    + r"""
# No close: threads rendering, presenting and polling at once each see their own picture.
for _ in range(rounds):
    with window() as ctx:
        uses = [painter(ctx, (255, 0, 0, 255)), painter(ctx, (0, 255, 0, 255)),
                screen_painter(ctx), ctx.poll]
        start = threading.Barrier(len(uses))
        failures = []

        def loop(use):
            try:
                start.wait()
                for _ in range(40):
                    use()
            except BaseException as exc:
                failures.append(repr(exc))

        threads = [threading.Thread(target=loop, args=(use,)) for use in uses]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not any(t.is_alive() for t in threads), "a thread hangs"
        assert not failures, failures
print("ok")
"""
)


def need(backend: str) -> None:
    if backend == "sdl":
        pytest.importorskip("sdl2", reason="PySDL2 is an optional extra (hypergl-core[sdl])")


@pytest.mark.parametrize("backend", ["glfw", "sdl"])
def test_a_close_racing_threads_on_a_window_ends_their_uses_with_our_error(backend):
    need(backend)
    out = run_isolated(RACE_CLOSE, backend, "10", timeout=300)
    assert "Error" in out


@pytest.mark.parametrize("backend", ["glfw", "sdl"])
def test_threads_rendering_presenting_and_polling_one_window_each_get_their_picture(backend):
    need(backend)
    assert run_isolated(SHARED, backend, "3", timeout=300).strip() == "ok"
