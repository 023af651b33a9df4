"""The application terminates GLFW under a context with a GLFW window (``window=``, or the
hidden-window fallback where EGL gives no context): the context raises ContextError from
then on, and never touches the freed window nor makes the application's new one current.

Each case runs in a process of its own, so that a segfault fails the test (it did, in
five of the six) instead of ending pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]

CHILD = """
import ctypes, os, sys
import glfw
import hypergl

mode, kind = sys.argv[1], sys.argv[2]
if kind == "hidden":
    os.environ["HYPERGL_EGL_LIBRARY"] = "/nonexistent/libEGL.so.1"


def make_context():
    if kind == "hidden":
        return hypergl.context()
    return hypergl.context(window=(32, 32), visible=False)


ctx = make_context()
assert ctx.info["platform"] == {"hidden": "glfw-hidden-window", "window": "glfw-window"}[kind]
fb = ctx.framebuffer((8, 8))
data = ctx.buffer(size=64)
glfw.terminate()
app = None
if mode != "terminate":
    assert glfw.init()
if mode == "init + a window":
    glfw.window_hint(glfw.VISIBLE, False)
    app = glfw.create_window(64, 64, "the application's", None, None)
    glfw.make_context_current(app)
def submit_empty():
    cmd = ctx.command_buffer()
    cmd.end()
    cmd.submit()


uses = {
    "a framebuffer": lambda: ctx.framebuffer((16, 16)),
    "a read": lambda: fb.read(),
    "a buffer write": lambda: data.write(bytes(64)),
    "finish": ctx.finish,
    "a submit": submit_empty,
    "swap": ctx.swap,
    "the screen": lambda: ctx.screen,
}
for name, use in uses.items():
    try:
        use()
        print(f"{name}: no error")
    except hypergl.ContextError as exc:
        print(f"{name}: ContextError: {exc}")
if app is not None:
    def address(window):
        return ctypes.cast(window, ctypes.c_void_p).value

    print("the application's window is current:",
          address(glfw.get_current_context()) == address(app))
ctx.close()
print("closed")
if mode == "terminate + init":  # GLFW again: a new context works, and is watched too
    again = make_context()
    print("a new context reads", again.framebuffer((4, 4)).read().shape)
    glfw.terminate()
    try:
        again.finish()
    except hypergl.ContextError:
        print("and is closed by the next terminate")
"""

MODES = ["terminate", "terminate + init", "init + a window"]
USES = ["a framebuffer", "a read", "a buffer write", "finish", "a submit"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["hidden", "window"])
def test_a_context_whose_window_glfw_destroyed_raises_context_error(mode, kind):
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD), mode, kind],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert child.returncode == 0, child.stderr  # -11: the segfault
    lines = child.stdout.splitlines()
    said = ("ContextError: the application terminated GLFW (glfw.terminate()), which destroyed "
            "this context's window and its OpenGL context: make a new context")  # fmt: skip
    for use in USES:
        assert f"{use}: {said}" in lines, child.stdout
    if kind == "window":
        assert f"swap: {said}" in lines
        assert f"the screen: {said}" in lines
    if mode == "init + a window":
        assert "the application's window is current: True" in lines
    assert "closed" in lines
    if mode == "terminate + init":
        assert lines[-2:] == ["a new context reads (4, 4, 4)",
                              "and is closed by the next terminate"]  # fmt: skip
