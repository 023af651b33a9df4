"""Show py_3d frames in a GLFW window through ModernGL: the frame's RGB array goes straight
into a texture drawn over the window, no ``PixelBuffer`` of Python colours in between.

Needs ``glfw`` and ``moderngl`` (``py-gpu[opengl]`` plus ``pip install glfw``) and a display
(or Xvfb)::

    renderer = Py3DRasterRenderer()
    with Py3DWindow(640, 360, title="py_3d") as window:
        while not window.should_close:
            window.show(renderer.render_rgb(scene, camera, settings))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import BackendUnavailableError, InvalidSizeError

_VERTEX = """
#version 330
in vec2 in_corner;
out vec2 v_uv;
void main() {
    v_uv = vec2(in_corner.x * 0.5 + 0.5, 0.5 - in_corner.y * 0.5);  // row 0 at the top
    gl_Position = vec4(in_corner, 0.0, 1.0);
}
"""
_FRAGMENT = """
#version 330
uniform sampler2D frame;
in vec2 v_uv;
out vec4 color;
void main() { color = vec4(texture(frame, v_uv).rgb, 1.0); }
"""


def _window_context(moderngl, glfw):
    """A ModernGL context on the window's current GL context, loaded through GLFW.

    Not ``moderngl.create_context()``: that returns moderngl's process-wide default context,
    which is the last standalone one made (the moderngl backend's) once one exists.
    """
    from collections import deque

    class Loader:
        def load_opengl_function(self, name: str) -> int:
            return glfw.get_proc_address(name) or 0

        def release(self) -> None:  # the window owns the GL context
            pass

    ctx = moderngl.Context.__new__(moderngl.Context)
    # moderngl.init_context's steps, without making this the process-wide default.
    ctx.mglo, ctx.version_code = moderngl.mgl.create_context(context=Loader())
    ctx._info = ctx._extensions = ctx.extra = ctx._gc_mode = None
    ctx._objects = deque()
    ctx._screen = ctx.detect_framebuffer(0)
    ctx.fbo = ctx.detect_framebuffer()
    ctx.mglo.fbo = ctx.fbo.mglo
    return ctx


class Py3DWindow:
    """A GLFW window that presents uint8 ``(H, W, 3)`` frames (row 0 at the top)."""

    def __init__(
        self,
        width: int,
        height: int,
        *,
        title: str = "py_3d",
        visible: bool = True,
        vsync: bool = False,
    ) -> None:
        if not (isinstance(width, int) and isinstance(height, int)) or width <= 0 or height <= 0:
            raise InvalidSizeError(f"window size must be positive integers, got {width}x{height}")
        try:
            import glfw
            import moderngl
        except ImportError as exc:
            raise BackendUnavailableError(f"windows need glfw and moderngl: {exc}") from exc
        if not glfw.init():
            raise BackendUnavailableError("GLFW could not initialise: no display (use xvfb-run)?")
        self._glfw, self._moderngl = glfw, moderngl
        glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 3)
        glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
        glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
        glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
        glfw.window_hint(glfw.VISIBLE, visible)
        glfw.window_hint(glfw.RESIZABLE, False)
        # EGL like the headless backends: a GLX window context and EGL contexts on one thread
        # do not switch cleanly (the backend would draw into the window).
        glfw.window_hint(glfw.CONTEXT_CREATION_API, glfw.EGL_CONTEXT_API)
        self._window = glfw.create_window(width, height, title, None, None)
        if not self._window:
            glfw.terminate()
            raise BackendUnavailableError("GLFW could not create an OpenGL 3.3 window")
        glfw.make_context_current(self._window)
        glfw.swap_interval(1 if vsync else 0)
        self.ctx: Any = _window_context(moderngl, glfw)
        self.size: tuple[int, int] = (width, height)
        program = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
        corners = np.array([-1, -1, 1, -1, -1, 1, 1, 1], dtype="f4")
        self._quad = self.ctx.vertex_array(
            program,
            [(self.ctx.buffer(corners.tobytes()), "2f", "in_corner")],
            mode=moderngl.TRIANGLE_STRIP,
        )
        self._texture = None

    def show(self, rgb: Any) -> None:
        """Present ``rgb``: :meth:`draw` it, swap, poll the window's events."""
        self.draw(rgb)
        self._glfw.swap_buffers(self._window)
        self._glfw.poll_events()

    def draw(self, rgb: Any) -> None:
        """Upload ``rgb`` (uint8 ``(H, W, 3)``, any size: scaled to the window) and draw it
        into the back buffer."""
        frame = np.ascontiguousarray(rgb, dtype=np.uint8)
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise InvalidSizeError(f"a frame must be (height, width, 3), got {frame.shape}")
        self._glfw.make_context_current(self._window)
        height, width = frame.shape[:2]
        if self._texture is None or self._texture.size != (width, height):
            if self._texture is not None:
                self._texture.release()
            self._texture = self.ctx.texture((width, height), 3, alignment=1)
            self._texture.filter = (self._moderngl.NEAREST, self._moderngl.NEAREST)
        self._texture.write(frame.tobytes())
        self.ctx.screen.use()
        self.ctx.viewport = (0, 0, *self._glfw.get_framebuffer_size(self._window))
        self._texture.use(0)
        self._quad.render()

    def read(self) -> np.ndarray:
        """The window's back buffer as uint8 ``(H, W, 3)``, row 0 at the top."""
        width, height = self._glfw.get_framebuffer_size(self._window)
        data = self.ctx.screen.read(viewport=(0, 0, width, height), components=3, alignment=1)
        return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)[::-1]

    @property
    def should_close(self) -> bool:
        return bool(self._glfw.window_should_close(self._window))

    def close(self) -> None:
        if self._window is not None:
            self.ctx.release()
            self._glfw.destroy_window(self._window)
            self._window = None

    def __enter__(self) -> Py3DWindow:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
