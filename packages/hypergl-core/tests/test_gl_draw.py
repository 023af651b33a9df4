"""Pixel-checked drawing on real OpenGL (llvmpipe here)."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl
from hypergl import SceneCompiler

pytestmark = pytest.mark.gl

RED, GREEN, BLUE = (1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1)


def scene(ctx, size=(32, 32), **state):
    fb = ctx.framebuffer(size)
    pipe = ctx.pipeline(
        vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D, **state
    )
    return fb, pipe


def begin(ctx, fb, pipe, vertices, per_instance):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(ctx.buffer(vertices, usage="vertex"), 0)
    cmd.bind_vertex_buffer(ctx.buffer(per_instance, usage="vertex"), 1)
    return cmd


def test_full_screen_triangle(gl_ctx):
    fb, pipe = scene(gl_ctx)
    tri = np.array([-1, -1, 3, -1, -1, 3], dtype="f4")
    cmd = begin(gl_ctx, fb, pipe, tri, instances([0, 0, *RED]))
    cmd.draw(3)
    cmd.end()
    assert cmd.submit().draws == 1
    image = fb.read()
    assert image.shape == (32, 32, 4)
    assert (image == [255, 0, 0, 255]).all()


CLIPPED_VS = """#version 430
layout(location = 0) in vec2 a_position;
void main() {
    gl_ClipDistance[0] = 0.5 - a_position.x;  // x <= 0.5 kept
    gl_Position = vec4(a_position, 0.0, 1.0);
}
"""
RED_FS = "#version 430\nout vec4 c;\nvoid main() { c = vec4(1.0, 0.0, 0.0, 1.0); }\n"


def test_clip_distances_clip_the_triangle(gl_ctx, tmp_path):
    # Mesa's llvmpipe clips by a written gl_ClipDistance even when GL_CLIP_DISTANCE0 is
    # off; the GL spec (and other drivers) clip only by enabled ones: clip_distances=n.
    fb = gl_ctx.framebuffer((32, 32), name="target")
    layout = [{"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]}]
    pipe = gl_ctx.pipeline(vertex_shader=CLIPPED_VS, fragment_shader=RED_FS,
                           vertex_layout=layout, clip_distances=1)  # fmt: skip
    assert pipe.describe()["clip_distances"] == 1  # what a self-contained .hgb records
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(gl_ctx.buffer(np.array([-1, -1, 3, -1, -1, 3], "f4"), usage="vertex"), 0)
    cmd.draw(3)
    cmd.end()
    cmd.submit()
    for image in (fb.read(), None):
        if image is None:  # the program saved with the state, loaded into a fresh context
            hypergl.save(cmd, tmp_path / "clipped.hgb")
            with hypergl.context() as fresh:
                scene = fresh.load(tmp_path / "clipped.hgb")
                scene.submit()
                image = scene["target"].read()
        red = image[:, :, 0] == 255
        assert red[:, :24].all() and not red[:, 24:].any()  # x <= 0.5: pixel columns 0..23


def test_indexed_draw_with_u16_and_u32_indices(gl_ctx):
    fb, pipe = scene(gl_ctx)
    corners = np.array([-1, -1, 0, -1, 0, 0, -1, 0], dtype="f4")  # lower-left quarter
    for index_type, dtype in (("u16", np.uint16), ("u32", np.uint32)):
        cmd = begin(gl_ctx, fb, pipe, corners, instances([0, 0, *GREEN]))
        cmd.bind_index_buffer(gl_ctx.buffer(np.array([0, 1, 2, 0, 2, 3], dtype), usage="index"))
        cmd.draw_indexed(6, index_type=index_type)
        cmd.end()
        cmd.submit()
        image = fb.read(origin="bottom")  # GL rows: row 0 is the bottom
        assert (image[:16, :16] == [0, 255, 0, 255]).all(), index_type
        assert (image[16:, :] == [0, 0, 0, 255]).all() and (image[:, 16:] == [0, 0, 0, 255]).all()


def test_instancing_places_each_instance(gl_ctx):
    fb, pipe = scene(gl_ctx)
    offsets = [(-0.5, -0.5, *RED), (0.5, -0.5, *GREEN), (-0.5, 0.5, *BLUE), (0.5, 0.5, 1, 1, 1, 1)]
    cmd = begin(gl_ctx, fb, pipe, quad(0.25), instances(offsets))
    cmd.draw(6, instances=4)
    cmd.end()
    cmd.submit()
    image = fb.read(origin="bottom")
    assert image[8, 8].tolist() == [255, 0, 0, 255]
    assert image[8, 24].tolist() == [0, 255, 0, 255]
    assert image[24, 8].tolist() == [0, 0, 255, 255]
    assert image[24, 24].tolist() == [255, 255, 255, 255]
    assert image[16, 16].tolist() == [0, 0, 0, 255]


@pytest.mark.parametrize("near_first", [True, False])
def test_depth_test_keeps_the_nearer_quad(gl_ctx, near_first):
    fb, pipe = scene(gl_ctx, depth_test=True)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1), depth=1.0)
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(1.0), usage="vertex"), 0)
    near = gl_ctx.buffer(instances([0, 0, *RED]), usage="vertex")
    far = gl_ctx.buffer(instances([0, 0, *BLUE]), usage="vertex")
    draws = [(near, -0.5), (far, 0.5)]
    for buffer, z in draws if near_first else reversed(draws):
        cmd.lf(0, z)
        cmd.uniform_f(0, 0)  # depth uniform at location 0
        cmd.bind_vertex_buffer(buffer, 1)
        cmd.draw(6)
    cmd.end()
    cmd.submit()
    assert (fb.read() == [255, 0, 0, 255]).all()
    depth = fb.read(attachment="depth")
    assert depth.dtype == np.float32 and depth.shape == (32, 32)
    assert np.allclose(depth, 0.25, atol=1e-3)  # z = -0.5 -> window depth 0.25


def test_alpha_blending(gl_ctx):
    fb, pipe = scene(gl_ctx, blend="alpha")
    cmd = begin(gl_ctx, fb, pipe, quad(1.0), instances([0, 0, 1, 1, 1, 0.5]))
    cmd.draw(6)
    cmd.end()
    cmd.submit()
    pixel = fb.read()[5, 5]  # white at alpha 0.5 over black
    assert abs(int(pixel[0]) - 128) <= 1 and abs(int(pixel[1]) - 128) <= 1


def test_loops_conditions_switch_and_subroutines_on_gl(gl_ctx):
    from hypergl import subroutine

    fb, pipe = scene(gl_ctx)
    positions = [(-0.75 + 0.5 * (i % 4), -0.75 + 0.5 * (i // 4), *GREEN) for i in range(16)]
    per_instance = gl_ctx.buffer(instances(positions), usage="vertex")
    visible = gl_ctx.buffer(size=4, name="visible")
    flags = visible.map(np.uint32)

    @subroutine
    def grid(sc, pipeline, count):
        sc.cmd.bind_pipeline(pipeline)
        sc.cmd.li(1, 0)
        sc.cmd.li(2, 1)
        with sc.loop(0, count):  # draw instance r1 of the grid, one draw each
            sc.cmd.draw_reg(3, 4, 2)
            sc.cmd.iadd(4, 4, 2)

    cmd = gl_ctx.command_buffer()
    sc = SceneCompiler(cmd)
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(0.2), usage="vertex"), 0)
    cmd.bind_vertex_buffer(per_instance, 1)
    cmd.li(3, 6)  # vertices per draw
    cmd.li(4, 0)  # first vertex: always 0 (instances come from the per-instance buffer)
    with sc.condition(visible, 0):
        grid(sc, pipe, 1)
    cmd.end()

    flags[0] = 0
    assert cmd.submit().draws == 0
    flags[0] = 1
    stats = cmd.submit()
    assert stats.draws == 1
    assert fb.read(origin="bottom")[4, 4].tolist() == [0, 255, 0, 255]
