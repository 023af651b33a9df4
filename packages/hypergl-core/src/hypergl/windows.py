"""Windows with an OpenGL 4.x core context: GLFW (default) and SDL2 (optional extra).

A window is only the OS side: its GL context, loader, swap and events. The
HyperGL context drives it through the same device as headless EGL, and as the engine does
for EGL, makes its GL context current on the calling thread at each call, under the
context's lock, and lets go afterwards (``engine_context``, a ForeignGLContext): so any
thread may use a window context, one at a time, and the context is never current on two
threads at once (an X error that ends the process, under GLX). The window's own calls
(swap, events, its size) run under that lock too, through ``ContextLink.current``; the
window is destroyed only once no thread is inside such a call (ForeignGLContext.destroy
waits), so a close racing a use ends the use with ContextError.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import warnings
from typing import Any

from . import _core
from .errors import ContextError
from .serialised import Guard, closing

CLOSED = "this window has been closed"


def _address(pointer: Any) -> int:
    return ctypes.cast(pointer, ctypes.c_void_p).value or 0


def open_glfw_window(
    size: tuple[int, int], title: str, *, visible: bool, vsync: bool = False
) -> tuple[Any, Any, Any]:
    """(the glfw module, a window with an OpenGL 4.3+ core context, the engine's
    ForeignGLContext over it); the context is current nowhere, free for the engine to make
    current on whichever thread enters.

    GLFW creates windows on the main thread only (macOS enforces it). Raises ContextError
    saying why it could not.
    """
    try:
        import glfw
    except ImportError as exc:
        raise ContextError(f"windows need glfw: pip install glfw ({exc})") from exc
    with warnings.catch_warnings():  # GLFW's complaint goes into the ContextError's text
        warnings.simplefilter("ignore", glfw.GLFWError)
        window = _create_glfw_window(glfw, size, title, visible)
    glfw.swap_interval(1 if vsync else 0)  # of the current context: before letting go
    glfw.make_context_current(None)  # free for whichever thread enters first
    library = glfw._glfw  # pyglfw's ctypes handle of libglfw: its C functions' addresses
    try:
        engine_context = _core.ForeignGLContext(
            _address(library.glfwMakeContextCurrent), _address(library.glfwGetCurrentContext),
            _address(library.glfwGetProcAddress), _address(window),
        )  # fmt: skip
    except BaseException:
        glfw.destroy_window(window)
        raise
    return glfw, window, engine_context


def _create_glfw_window(glfw: Any, size: tuple[int, int], title: str, visible: bool) -> Any:
    if not glfw.init():
        raise ContextError("GLFW could not initialise" + _glfw_error(glfw) +
                           ": no display? (set DISPLAY, or run under xvfb-run)")  # fmt: skip
    glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 4)
    glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
    glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
    glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
    glfw.window_hint(glfw.VISIBLE, visible)
    # No flush when the engine lets go after each call: the next entry, on any thread,
    # continues the same command stream (as EGL_KHR_context_flush_control).
    glfw.window_hint(glfw.CONTEXT_RELEASE_BEHAVIOR, glfw.RELEASE_BEHAVIOR_NONE)
    window = glfw.create_window(size[0], size[1], title, None, None)
    glfw.default_window_hints()  # the next window starts from GLFW's defaults again
    if not window:
        raise ContextError("GLFW could not create a window with an OpenGL 4.3 core context"
                           + _glfw_error(glfw))  # fmt: skip
    glfw.make_context_current(window)
    return window


def _glfw_error(glfw: Any) -> str:
    """' (GLFW's description of its last error)', or '' where it has none."""
    with contextlib.suppress(Exception):
        _code, description = glfw.get_error()
        if description:
            return f" ({description.decode(errors='replace')})"
    return ""


class GLFWWindow:
    """A GLFW window and its GL 4.3+ core context (needs a display, e.g. Xvfb).

    ``swap``, ``poll``, ``framebuffer_size``, ``should_close`` and ``close_on_escape`` run
    inside the engine's entry (``ContextLink.current``): the context's lock held, the GL
    context current, the window alive."""

    platform = "glfw-window"

    def __init__(self, size: tuple[int, int], title: str, vsync: bool, visible: bool) -> None:
        self._guard = Guard(ContextError, CLOSED)
        self._glfw, self._window, self.engine_context = open_glfw_window(
            size, title, visible=visible, vsync=vsync
        )

    @property
    def glfw(self) -> Any:
        """The glfw module that made the window (its context closes before glfw.terminate)."""
        return self._glfw

    def make_current(self) -> None:
        """Nothing to do: every engine call makes the context current on its own thread."""

    def probe(self) -> dict[str, Any]:
        return self.engine_context.probe()

    def framebuffer_size(self) -> tuple[int, int]:
        return tuple(self._glfw.get_framebuffer_size(self._window))

    def swap(self) -> None:
        self._glfw.swap_buffers(self._window)

    def poll(self) -> None:
        self._glfw.poll_events()

    @property
    def should_close(self) -> bool:
        return bool(self._glfw.window_should_close(self._window))

    def close_on_escape(self) -> None:
        glfw = self._glfw

        def on_key(window: Any, key: int, _scancode: int, action: int, _mods: int) -> None:
            if key == glfw.KEY_ESCAPE and action == glfw.PRESS:
                glfw.set_window_should_close(window, True)

        self._on_key = on_key  # GLFW holds only a C pointer: keep the callback alive
        glfw.set_key_callback(self._window, on_key)

    @closing
    def close(self) -> None:
        self.engine_context.destroy()  # waits for a call in progress: current nowhere now
        self._glfw.destroy_window(self._window)
        self._window = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


class SDLWindow:
    """An SDL2 window (pip install "hypergl-core[sdl]"); its methods as GLFWWindow's, run
    inside the engine's entry."""

    platform = "sdl-window"

    def __init__(self, size: tuple[int, int], title: str, vsync: bool, visible: bool) -> None:
        self._guard = Guard(ContextError, CLOSED)
        try:
            import sdl2
            import sdl2.video
        except ImportError as exc:
            raise ContextError(
                f"SDL windows need PySDL2: pip install 'hypergl-core[sdl]' ({exc})"
            ) from exc
        self._sdl = sdl2
        if sdl2.SDL_Init(sdl2.SDL_INIT_VIDEO) != 0:
            raise ContextError(f"SDL could not initialise: {sdl2.SDL_GetError().decode()}")
        _warn_if_offscreen(sdl2, visible)
        video = sdl2.video
        video.SDL_GL_SetAttribute(video.SDL_GL_CONTEXT_MAJOR_VERSION, 4)
        video.SDL_GL_SetAttribute(video.SDL_GL_CONTEXT_MINOR_VERSION, 3)
        video.SDL_GL_SetAttribute(video.SDL_GL_CONTEXT_PROFILE_MASK,
                                  video.SDL_GL_CONTEXT_PROFILE_CORE)  # fmt: skip
        flags = video.SDL_WINDOW_OPENGL | (
            video.SDL_WINDOW_SHOWN if visible else video.SDL_WINDOW_HIDDEN
        )
        self._window = video.SDL_CreateWindow(title.encode(), 0, 0, size[0], size[1], flags)
        if not self._window:
            raise ContextError(f"SDL could not create a window: {sdl2.SDL_GetError().decode()}")
        self._gl = video.SDL_GL_CreateContext(self._window)
        if not self._gl:
            raise ContextError(f"SDL could not create a GL context: {sdl2.SDL_GetError().decode()}")
        video.SDL_GL_SetSwapInterval(1 if vsync else 0)
        video.SDL_GL_MakeCurrent(self._window, None)  # free for whichever thread enters first
        self._closed = False
        self._escape_closes = False
        # SDL_GL_MakeCurrent takes the window too; the engine passes only the context:
        # this C-callable function adds it (and puts back the window of what it replaces).
        window, previous_window = self._window, [None]  # (not self: no cycle through it)

        def make_current(context: int | None) -> None:
            if context == ours:
                previous_window[0] = video.SDL_GL_GetCurrentWindow()
                video.SDL_GL_MakeCurrent(window, context)
            else:
                video.SDL_GL_MakeCurrent(previous_window[0] if context else None, context)

        ours = _address(self._gl)
        self._make_current = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(make_current)
        self.engine_context = _core.ForeignGLContext(
            _address(self._make_current), _address(video.SDL_GL_GetCurrentContext),
            _address(video.SDL_GL_GetProcAddress), ours,
        )  # fmt: skip

    def make_current(self) -> None:
        """Nothing to do: every engine call makes the context current on its own thread."""

    def probe(self) -> dict[str, Any]:
        return self.engine_context.probe()

    def framebuffer_size(self) -> tuple[int, int]:
        w, h = ctypes.c_int(), ctypes.c_int()
        self._sdl.video.SDL_GL_GetDrawableSize(self._window, ctypes.byref(w), ctypes.byref(h))
        return (w.value, h.value)

    def swap(self) -> None:
        self._sdl.video.SDL_GL_SwapWindow(self._window)

    def poll(self) -> None:
        event = self._sdl.SDL_Event()
        while self._sdl.SDL_PollEvent(event):
            escape = (self._escape_closes and event.type == self._sdl.SDL_KEYDOWN
                      and event.key.keysym.sym == self._sdl.SDLK_ESCAPE)  # fmt: skip
            if event.type == self._sdl.SDL_QUIT or escape:
                self._closed = True

    @property
    def should_close(self) -> bool:
        return self._closed

    def close_on_escape(self) -> None:
        self._escape_closes = True

    @closing
    def close(self) -> None:
        engine_context = getattr(self, "engine_context", None)
        if engine_context is not None:
            engine_context.destroy()  # waits for a call in progress: current nowhere now
        if getattr(self, "_window", None):
            self._sdl.video.SDL_GL_DeleteContext(self._gl)
            self._sdl.video.SDL_DestroyWindow(self._window)
            self._window = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


# SDL's video drivers that draw into no window a person can see.
_INVISIBLE_SDL_DRIVERS = ("offscreen", "dummy", "evdev")


def _warn_if_offscreen(sdl2: Any, visible: bool) -> None:
    """Say so when SDL found no display and chose a driver without windows: else a
    visible window silently becomes an invisible one."""
    driver = (sdl2.SDL_GetCurrentVideoDriver() or b"").decode()
    asked = os.environ.get("SDL_VIDEODRIVER", "")
    if visible and driver in _INVISIBLE_SDL_DRIVERS and driver not in asked.split(","):
        warnings.warn(
            f"SDL found no display and fell back to its {driver!r} video driver: the window "
            "is invisible (rendering and reading pixels still work). Set DISPLAY or run under "
            "xvfb-run to see it, use hypergl.context() for headless rendering, or set "
            f"SDL_VIDEODRIVER={driver} to ask for this without the warning.",
            RuntimeWarning,
            stacklevel=4,
        )


WINDOW_BACKENDS: dict[str, Any] = {"glfw": GLFWWindow, "sdl": SDLWindow}
