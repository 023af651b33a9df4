"""A GLFW window under a (virtual) display: render into ctx.screen, read it, swap."""

from __future__ import annotations

import os

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]


def render_to_screen(ctx):
    pipe = ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.screen)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.bind_vertex_buffer(ctx.buffer(instances([0, 0, 1, 0.5, 0, 1]), usage="vertex"), 1)
    cmd.draw(6)
    cmd.end()
    return cmd


def test_glfw_window_renders_and_swaps():
    with hypergl.context(window=(64, 48), title="HyperGL test") as ctx:
        assert ctx.capabilities.at_least(4, 3)
        assert ctx.screen.size == (64, 48)
        cmd = render_to_screen(ctx)
        for _ in range(3):
            cmd.submit()
            image = ctx.screen.read()
            assert image.shape == (48, 64, 4)
            assert image[10, 10].tolist() == [255, 128, 0, 255]
            ctx.swap()
            ctx.poll()
        assert not ctx.should_close


def test_sdl_window_renders():
    pytest.importorskip("sdl2", reason="PySDL2 is an optional extra (hypergl-core[sdl])")
    with hypergl.context(window=(32, 32), backend="sdl") as ctx:
        cmd = render_to_screen(ctx)
        cmd.submit()
        assert ctx.screen.read()[5, 5].tolist() == [255, 128, 0, 255]
        ctx.swap()


def test_window_bad_input():
    with pytest.raises(ValueError, match="unknown window backend 'qt'"):
        hypergl.context(window=(8, 8), backend="qt")
    with pytest.raises(ValueError, match="positive"):
        hypergl.context(window=(0, 8))
    with pytest.raises(ValueError, match="cannot open a window"):
        hypergl.context(device="trace", window=(8, 8))


def test_headless_contexts_have_no_screen():
    with hypergl.context() as ctx:
        with pytest.raises(hypergl.ContextError, match="needs a window"):
            _ = ctx.screen
        with pytest.raises(hypergl.ContextError, match="no window"):
            ctx.swap()
        np.testing.assert_equal(ctx.device, "gl")


@pytest.mark.parametrize("backend", ["glfw", "sdl"])
def test_close_on_escape_makes_escape_close_the_window(backend):
    from test_play_window import press_escape

    if backend == "sdl":
        pytest.importorskip("sdl2", reason="PySDL2 is an optional extra (hypergl-core[sdl])")
    with hypergl.context(window=(32, 32), backend=backend) as ctx:
        ctx.close_on_escape()
        for _ in range(100):  # the press travels through the X server: poll until it arrives
            ctx.swap()
            ctx.poll()
            if ctx.should_close:
                break
            press_escape()
        assert ctx.should_close
