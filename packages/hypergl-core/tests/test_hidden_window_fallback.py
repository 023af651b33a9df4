"""Where EGL gives no context, hypergl.context() falls back to a hidden GLFW window.

EGL is made unavailable by pointing HYPERGL_EGL_LIBRARY at a library that does not exist;
the fallback then needs a display (Xvfb here).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

import hypergl

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]

MISSING_EGL = "/nonexistent/libEGL.so.1"
TRIANGLE_VS = """#version 430
void main() {
    vec2 corners[3] = vec2[](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0));
    gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0);
}
"""
TRIANGLE_FS = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1, 0, 0, 1); }\n"


@pytest.fixture
def no_egl(monkeypatch):
    monkeypatch.setenv("HYPERGL_EGL_LIBRARY", MISSING_EGL)


def draw_triangle(ctx, fb, pipe):
    """The lower-left half of `fb` red, the rest blue; returns its pixels."""
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 1, 1))
    cmd.bind_pipeline(pipe)
    cmd.draw(3)
    cmd.end()
    cmd.submit()
    return fb.read()


def assert_triangle(pixels):
    assert pixels.shape == (32, 32, 4)
    assert pixels[28, 4].tolist() == [255, 0, 0, 255]  # the bottom left (row 0 is the top)
    assert pixels[4, 28].tolist() == [0, 0, 255, 255]  # the top right


def test_without_egl_the_context_comes_up_through_a_hidden_glfw_window(no_egl):
    with hypergl.context() as ctx:
        assert ctx.info["platform"] == "glfw-hidden-window"
        assert MISSING_EGL in ctx.info["egl_error"]
        assert ctx.info["renderer"] == ctx.capabilities.renderer
        assert ctx.capabilities.core_profile and ctx.capabilities.at_least(4, 3)
        fb = ctx.framebuffer((32, 32))
        pipe = ctx.pipeline(vertex_shader=TRIANGLE_VS, fragment_shader=TRIANGLE_FS,
                            vertex_count=3)  # fmt: skip
        assert_triangle(draw_triangle(ctx, fb, pipe))
        ctx.check_errors()


def test_the_fallback_context_works_from_a_second_thread(no_egl):
    with hypergl.context() as ctx:
        fb = ctx.framebuffer((32, 32))
        pipe = ctx.pipeline(vertex_shader=TRIANGLE_VS, fragment_shader=TRIANGLE_FS,
                            vertex_count=3)  # fmt: skip
        results, errors = [], []

        def worker():
            try:
                results.append(draw_triangle(ctx, fb, pipe))
            except BaseException as exc:  # reported in the main thread
                errors.append(exc)

        for _ in range(2):  # the worker, the main thread, the worker again
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join(timeout=60)
            assert not errors, errors
            results.append(draw_triangle(ctx, fb, pipe))
        assert len(results) == 4
        for pixels in results:
            assert_triangle(pixels)


def test_probe_takes_the_fallback_too(no_egl):
    assert hypergl.probe().at_least(4, 3)


def test_an_egl_device_index_never_falls_back(no_egl):
    with pytest.raises(hypergl.ContextError, match="device_index=0: no EGL devices"):
        hypergl.context(device_index=0)


def test_the_fallback_must_be_created_on_the_main_thread(no_egl):
    errors = []

    def worker():
        try:
            hypergl.context().close()
        except hypergl.ContextError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=60)
    assert len(errors) == 1
    assert MISSING_EGL in errors[0]
    assert "must be created on the main thread" in errors[0]


def test_egl_contexts_say_so_in_info_and_draw_the_same_triangle():
    with hypergl.context() as ctx:
        assert ctx.info["platform"] == "egl"
        assert "egl_error" not in ctx.info
        fb = ctx.framebuffer((32, 32))
        pipe = ctx.pipeline(vertex_shader=TRIANGLE_VS, fragment_shader=TRIANGLE_FS,
                            vertex_count=3)  # fmt: skip
        assert_triangle(draw_triangle(ctx, fb, pipe))


def run_without_egl(args, display: bool) -> subprocess.CompletedProcess:
    hidden = () if display else ("DISPLAY", "WAYLAND_DISPLAY")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    env["HYPERGL_EGL_LIBRARY"] = MISSING_EGL
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          env=env)  # fmt: skip


def test_hypergl_info_prints_the_path_taken():
    result = run_without_egl(["-m", "hypergl", "info"], display=True)
    assert result.returncode == 0, result.stderr
    assert "platform  glfw-hidden-window (the fallback: EGL gave no context: could not load " \
           "the EGL library /nonexistent/libEGL.so.1" in result.stdout  # fmt: skip
    assert "OpenGL    4." in result.stdout


def test_neither_egl_nor_a_display_says_what_failed_and_what_to_do():
    result = run_without_egl(["-c", "import hypergl; hypergl.context()"], display=False)
    assert result.returncode == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("hypergl.errors.ContextError: could not load the EGL library "
                            "/nonexistent/libEGL.so.1")  # fmt: skip
    assert "The fallback, a hidden GLFW window, failed too: GLFW could not initialise" in error
    assert "DISPLAY" in error
    assert "Install an EGL driver" in error and "or give the process a display" in error
    assert "GLFWError" not in result.stderr  # GLFW's own warning is in the message, not beside


def test_a_window_context_on_the_same_thread_stays_usable_beside_the_fallback(no_egl):
    with hypergl.context() as hidden, hypergl.context(window=(32, 32), visible=False) as window:
        assert window.info["platform"] == "glfw-window"
        pipes = {}
        for ctx in (hidden, window, hidden, window):  # each call switches to its own context
            fb = ctx.framebuffer((32, 32))
            pipe = pipes.get(id(ctx)) or ctx.pipeline(
                vertex_shader=TRIANGLE_VS, fragment_shader=TRIANGLE_FS, vertex_count=3
            )
            pipes[id(ctx)] = pipe
            assert_triangle(draw_triangle(ctx, fb, pipe))
            ctx.release(fb)


def test_a_foreign_context_refuses_null_functions():
    with pytest.raises(hypergl.ContextError, match="a null address was given"):
        hypergl._core.ForeignGLContext(0, 0, 0, 0)


def test_a_foreign_context_refuses_a_null_handle():
    from hypergl.windows import _address

    glfw = pytest.importorskip("glfw")
    lib = glfw._glfw
    functions = [_address(f) for f in (lib.glfwMakeContextCurrent, lib.glfwGetCurrentContext,
                                       lib.glfwGetProcAddress)]  # fmt: skip
    with pytest.raises(hypergl.ContextError, match="needs a non-null handle"):
        hypergl._core.ForeignGLContext(*functions, 0)


def test_a_destroyed_foreign_context_cannot_be_entered():
    from hypergl.hidden_window import HiddenWindowHost

    host = HiddenWindowHost("for the test")
    host.engine_context.destroy()
    assert host.engine_context.destroyed
    with pytest.raises(hypergl.ContextError, match="this context has been closed"):
        host.probe()
    host.close()
