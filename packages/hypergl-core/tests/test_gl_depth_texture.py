"""A framebuffer's depth attachment (and its colour attachments) as a texture: sampled by a
compute pass, its lifetime, what a saved program records, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl
from hypergl import ResourceError

SIZE = (16, 8)
COPY_DEPTH = """#version 430
layout(local_size_x = 1) in;
layout(binding = 3) uniform sampler2D depth_attachment;
layout(std430, binding = 0) writeonly buffer Out { float depths[]; };
void main() {
    ivec2 p = ivec2(gl_WorkGroupID.xy);
    depths[p.y * 16 + p.x] = texelFetch(depth_attachment, p, 0).r;
}
"""


@pytest.mark.gl
def test_a_compute_pass_reads_the_depth_drawn(gl_ctx):
    fb = gl_ctx.framebuffer(SIZE)
    draw = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D,
                           depth_test=True)  # fmt: skip
    copy = gl_ctx.pipeline(compute_shader=COPY_DEPTH)
    out = gl_ctx.buffer(size=4 * SIZE[0] * SIZE[1])
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1), depth=1.0)
    cmd.bind_pipeline(draw)
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(0.5), usage="vertex"), 0)
    cmd.bind_vertex_buffer(gl_ctx.buffer(instances([-0.5, 0, 1, 1, 1, 1]), usage="vertex"), 1)
    cmd.uniform_const(0, 0.2, "float")  # ndc depth 0.2: window depth 0.6
    cmd.draw(6)
    cmd.barrier()
    cmd.bind_pipeline(copy)
    cmd.bind_texture(fb.depth_texture, 3)
    cmd.bind_storage_buffer(out, 0)
    cmd.dispatch(*SIZE)
    cmd.end()
    cmd.submit()
    gl_ctx.finish()
    sampled = out.read(np.float32).reshape(SIZE[1], SIZE[0])
    expected = fb.read(attachment="depth", origin="bottom")
    assert np.allclose(sampled, expected, atol=1e-6)
    assert np.isclose(sampled.min(), 0.6, atol=1e-5) and sampled.max() == 1.0  # drawn, cleared


@pytest.mark.parametrize("device", ["trace", pytest.param("gl", marks=pytest.mark.gl)])
def test_the_texture_lives_with_its_framebuffer_and_saves_linked(device):
    with hypergl.context(device=device) as ctx:
        fb = ctx.framebuffer(SIZE, name="scene")
        depth = fb.depth_texture
        assert depth is fb.depth_texture  # one handle
        assert isinstance(depth, hypergl.Texture) and depth.size == SIZE
        cmd = ctx.command_buffer()
        cmd.bind_texture(depth, 0)
        cmd.end()
        [entry] = [r for r in cmd.program.resources if r.kind.name == "TEXTURE"]
        assert entry.linked and entry.desc["attachment_of"] == "scene"
        with pytest.raises(ResourceError, match="attachment of framebuffer 'scene': release the"):
            depth.release()
        assert not depth.released
        fb.release()
        assert depth.released


@pytest.mark.parametrize("device", ["trace", pytest.param("gl", marks=pytest.mark.gl)])
def test_a_framebuffer_without_depth_has_no_depth_texture(device):
    with hypergl.context(device=device) as ctx:
        fb = ctx.framebuffer(SIZE, depth=None, name="flat")
        with pytest.raises(ResourceError, match="framebuffer 'flat' has no depth texture"):
            fb.depth_texture  # noqa: B018
        fb.release()
        with pytest.raises(ResourceError, match="has been released"):
            fb.depth_texture  # noqa: B018


def test_a_framebuffer_colour_attachment_is_a_texture_and_a_missing_one_is_named(gl_ctx):
    framebuffer = gl_ctx.framebuffer((8, 8), color=("rgba8",))
    try:
        texture = framebuffer.color_texture(0)
        assert texture is framebuffer.color_texture(0)
        for bad in (1, -1, True, "0", 0.0):
            with pytest.raises(ResourceError, match="no colour attachment"):
                framebuffer.color_texture(bad)
        with pytest.raises(ResourceError, match="release the framebuffer"):
            texture.release()
    finally:
        framebuffer.release()
    assert texture.released
