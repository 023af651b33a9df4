"""Headless OpenGL through EGL, with glcontext as the loader."""

from __future__ import annotations

import contextlib
from typing import Any

from .errors import ContextError

# Mesa, NVIDIA and AMD all return their newest core profile for a 3.3+ request.
_REQUESTED_GL_VERSION = 330


def create_headless_context() -> Any:
    """A standalone EGL context, made current. Raises ContextError if none can be made."""
    try:
        from glcontext import egl
    except ImportError as exc:  # pragma: no cover - glcontext is a hard dependency
        raise ContextError(f"glcontext is not installed ({exc}); pip install glcontext") from exc
    try:
        return egl.create_context(mode="standalone", glversion=_REQUESTED_GL_VERSION)
    except Exception as exc:
        raise ContextError(
            f"could not create a headless EGL context: {exc}. On Debian install "
            "libegl1 libgl1-mesa-dri libegl-mesa0 (python3 tools/dev.py does it as root)."
        ) from exc


def release_headless_context(context: Any) -> None:
    """Unbind and destroy a context from `create_headless_context`.

    Unbinding first matters: a released-but-current EGL context makes a later
    GLX context (a GLFW window) fail with BadAccess on glXMakeCurrent.
    """
    context.__enter__()
    context.__exit__(None, None, None)
    context.release()


class HeadlessHost:
    """A standalone EGL context through glcontext."""

    def __init__(self) -> None:
        self._egl = create_headless_context()

    def make_current(self) -> None:
        self._egl.__enter__()

    def load(self, name: str) -> int:
        return self._egl.load_opengl_function(name)

    def close(self) -> None:
        if self._egl is not None:
            egl, self._egl = self._egl, None
            release_headless_context(egl)

    def __del__(self) -> None:
        # The last mapped array is gone (see Context.close): the context can go now.
        with contextlib.suppress(Exception):
            self.close()
