"""`hypergl play --window`: a .hgb scene drawn into a GLFW window on the wall clock."""

from __future__ import annotations

import ctypes
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from test_play import scene_file

from hypergl.errors import ResourceError
from hypergl.play import play, play_window

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]


def press_escape() -> None:
    """A real Escape key press and release, sent to the X server through XTest."""
    try:
        x11, xtst = ctypes.CDLL("libX11.so.6"), ctypes.CDLL("libXtst.so.6")
    except OSError as exc:
        pytest.skip(f"no XTest here: {exc}")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XKeysymToKeycode.restype = ctypes.c_ubyte
    display = ctypes.c_void_p(x11.XOpenDisplay(None))
    escape = x11.XKeysymToKeycode(display, ctypes.c_ulong(0xFF1B))  # XK_Escape
    for pressed in (1, 0):
        xtst.XTestFakeKeyEvent(display, escape, pressed, 0)
    x11.XFlush(display)
    x11.XCloseDisplay(display)


def test_frames_bounds_a_window_run(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    assert play_window(path, 3) == 3


def test_escape_closes_the_window(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    assert play_window(path, 500, on_open=press_escape) < 500


def ctrl_c_after(path, delay, sigint):
    """`hypergl play --window` of `path`, SIGINT `delay` s after the window is up; the child
    starts with SIGINT at `sigint` (SIG_IGN: a background job of a script, as a test suite
    is where it is run by one); (status, stdout, stderr)."""
    command = [sys.executable, "-m", "hypergl", "play", str(path), "--window"]
    player = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))  # fmt: skip
    try:
        assert player.stdout.readline().startswith("playing ")  # the window is up
        time.sleep(delay)
        player.send_signal(signal.SIGINT)
        out, err = player.communicate(timeout=60)
    finally:
        player.kill()
        player.wait()
    return player.returncode, out, err


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["default", "ignored"])
def test_ctrl_c_stops_a_window_run_cleanly(gl_ctx, tmp_path, sigint):
    """The suite's flaky test: run from a script, the player inherited SIGINT ignored and
    never stopped. Now Ctrl+C stops it wherever it lands: during a submit, a swap, an
    event poll, a Python callback (16 moments, at random)."""
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    moments = random.Random(36)
    for _ in range(8):
        status, out, err = ctrl_c_after(path, moments.uniform(0.0, 0.3), sigint)
        assert status == 130, err
        assert out.splitlines() == ["stopped (Ctrl+C)"]
        assert err == ""


def test_a_window_frame_that_never_halts_is_stopped_by_the_budget(gl_ctx, tmp_path):
    from test_play import looping_file

    from hypergl.errors import PlayError

    path = looping_file(gl_ctx, tmp_path / "loop.hgb")
    with pytest.raises(PlayError, match="budget of 1000 exhausted"):
        play_window(path, 1, budget=1000)


def test_a_window_run_is_bounded_as_ctx_load_bounds_the_file(gl_ctx, tmp_path):
    # The shown framebuffer becomes the window: it still counts against the memory limit.
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    with pytest.raises(ResourceError, match="over the memory limit of 64 bytes") as headless:
        play(path, 1, tmp_path / "out", memory_limit=64)
    with pytest.raises(ResourceError) as windowed:
        play_window(path, 1, memory_limit=64)
    assert str(windowed.value) == str(headless.value)
