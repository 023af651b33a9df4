"""The headless fallback where EGL gives no context: a hidden GLFW window's GL context.

Windows' desktop drivers and some Linux desktops have no EGL for desktop OpenGL; a hidden
window with a 4.3+ core context works there (moderngl and zengl do the same). The engine
drives it as it drives its EGL context: each call makes it current on the calling thread,
under the context's lock, through GLFW's own C functions (glfwMakeContextCurrent may be
called from any thread), and lets go afterwards, so any thread may use the context, one
at a time. Only making the window is for the main thread (GLFW's rule, enforced on macOS):
create the context there.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from .errors import ContextError
from .windows import open_glfw_window

PLATFORM = "glfw-hidden-window"


class HiddenWindowHost:
    """An invisible 16x16 GLFW window whose context the engine makes current per call."""

    platform = PLATFORM

    def __init__(self, egl_error: str) -> None:
        self.egl_error = egl_error  # why EGL gave no context: ctx.info says it
        if threading.current_thread() is not threading.main_thread():
            raise ContextError("it must be created on the main thread (GLFW makes windows only "
                               "there): create the context on the main thread, then use it "
                               "from any thread")  # fmt: skip
        try:
            import glfw  # noqa: F401 (here for this message, naming the extra)
        except ImportError as exc:
            raise ContextError("it needs glfw: pip install 'hypergl-core[window]' "
                               f"({exc})") from exc  # fmt: skip
        self._glfw, self._window, self.engine_context = open_glfw_window(
            (16, 16), "HyperGL", visible=False
        )

    @property
    def glfw(self) -> Any:
        """The glfw module that made the window (its context closes before glfw.terminate)."""
        return self._glfw

    def make_current(self) -> None:
        """Nothing to do: every engine call makes the context current on its own thread."""

    def info(self) -> dict[str, Any]:
        return {"platform": PLATFORM, "egl_error": self.egl_error}

    def probe(self) -> dict[str, Any]:
        return self.engine_context.probe()

    def close(self) -> None:
        if self._window:
            self.engine_context.destroy()  # waits for a call in progress: current nowhere now
            self._glfw.destroy_window(self._window)
            self._window = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()
