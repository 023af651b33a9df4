"""The application's ``glfw.terminate()``: our contexts with a GLFW window close first.

glfwTerminate frees every window GLFW made, ours too (``window=`` contexts and the
hidden-window fallback), and a later glfwInit may give the application's new windows the
same addresses: a window handle kept past it is freed memory, or someone else's window.
GLFW tells nobody, and no query can tell a freed handle from a new one at the same
address. So the one C function that ``glfw.terminate()`` calls, however the application
imported it (``glfw._glfw.glfwTerminate``, pyglfw's handle of libglfw), is wrapped, once:
before GLFW goes, each context with a GLFW window is closed while its window and GL
context still exist (every GL object released in its own context, the window destroyed),
then GLFW terminates. Such a context raises ContextError from then on, saying why.

Only callers of that libglfw through pyglfw are seen: another binding loads its own
libglfw, whose terminate leaves ours alone.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any

TERMINATED = ("the application terminated GLFW (glfw.terminate()), which destroyed this "
              "context's window and its OpenGL context: make a new context")  # fmt: skip

_watchers: list[weakref.WeakMethod] = []  # each context's close-before-terminate method
_lock = threading.Lock()


class _Terminate:
    """glfwTerminate, after closing the watched contexts."""

    def __init__(self, terminate: Any) -> None:
        self.terminate = terminate

    def __call__(self) -> None:
        with _lock:
            watchers = _watchers[:]
            _watchers.clear()
        for watcher in watchers:
            close = watcher()
            if close is not None:
                with contextlib.suppress(Exception):  # the application's terminate goes on
                    close(TERMINATED)
        self.terminate()


def watch(glfw: Any, close: Any) -> None:
    """Call `close(reason)`, a context's bound method, before the application terminates
    `glfw` (held weakly: a context that is gone is not kept)."""
    library = glfw._glfw
    with _lock:
        if not isinstance(library.glfwTerminate, _Terminate):
            library.glfwTerminate = _Terminate(library.glfwTerminate)
        _watchers[:] = [w for w in _watchers if w() is not None]
        _watchers.append(weakref.WeakMethod(close))
