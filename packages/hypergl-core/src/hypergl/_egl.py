"""Headless OpenGL through EGL, with glcontext as the loader."""

from __future__ import annotations

import contextlib
import ctypes
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


def _egl_library() -> Any:
    """libEGL (the glvnd dispatcher glcontext also uses), or None."""
    try:
        library = ctypes.CDLL("libEGL.so.1")
    except OSError:
        return None
    for name in ("eglGetCurrentContext", "eglGetCurrentDisplay", "eglGetCurrentSurface"):
        getattr(library, name).restype = ctypes.c_void_p
    library.eglGetCurrentSurface.argtypes = [ctypes.c_int]
    library.eglMakeCurrent.argtypes = [ctypes.c_void_p] * 4
    return library


_EGL = _egl_library()
_EGL_DRAW, _EGL_READ = 0x3059, 0x305A


def release_headless_context(context: Any) -> None:
    """Unbind and destroy a context from `create_headless_context`, and leave the
    thread's current context as it was.

    Unbinding first matters: a released-but-current EGL context makes a later
    GLX context (a GLFW window) fail with BadAccess on glXMakeCurrent. Restoring
    matters too: glcontext's __exit__ leaves no context current, and a release
    can run in the middle of another context's work (from a garbage-collected
    array that kept this one alive).
    """
    previous = None
    if _EGL is not None:
        previous = (_EGL.eglGetCurrentDisplay(), _EGL.eglGetCurrentSurface(_EGL_DRAW),
                    _EGL.eglGetCurrentSurface(_EGL_READ), _EGL.eglGetCurrentContext())  # fmt: skip
    context.__enter__()
    mine = _EGL.eglGetCurrentContext() if _EGL is not None else None
    context.__exit__(None, None, None)
    context.release()
    if previous is not None and previous[3] and previous[3] != mine:
        _EGL.eglMakeCurrent(*previous)


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
