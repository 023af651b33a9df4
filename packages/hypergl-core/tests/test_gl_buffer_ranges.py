"""Per-object blocks in one buffer, a range bound per draw (bind_uniform_range /
bind_storage_range), on real OpenGL and on the trace device."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl

VS = """#version 430
layout(std140, binding = 1) uniform Object { vec4 offset_scale; vec4 color; };
layout(location = 0) out vec4 tint;
void main() {
    vec2 corner = vec2(gl_VertexID & 1, (gl_VertexID >> 1) & 1) * 2.0 - 1.0;
    tint = color;
    gl_Position = vec4(offset_scale.xy + corner * offset_scale.z, 0.0, 1.0);
}
"""
VS_STORAGE = VS.replace("layout(std140, binding = 1) uniform Object",
                        "layout(std430, binding = 2) readonly buffer Object")  # fmt: skip
FS = """#version 430
layout(location = 0) in vec4 tint;
out vec4 frag;
void main() { frag = tint; }
"""
STRIDE = 256  # hypergl_compiler.isa.RANGE_ALIGNMENT


def blocks(ctx, rows):
    """One block of (offset_scale, color) per object, STRIDE bytes apart."""
    data = np.zeros((len(rows), STRIDE // 4), np.float32)
    for k, (offset_scale, color) in enumerate(rows):
        data[k, :4], data[k, 4:8] = offset_scale, color
    return ctx.buffer(data)


def draw_two_quads(ctx, fb, vertex_shader, bind):
    pipe = ctx.pipeline(vertex_shader=vertex_shader, fragment_shader=FS, topology="triangle_strip")
    buffer = blocks(ctx, [((-0.5, 0, 0.5, 0), (1, 0, 0, 1)), ((0.5, 0, 0.5, 0), (0, 0, 1, 1))])
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    for k in range(2):
        bind(cmd, buffer, k * STRIDE)
        cmd.draw(4)
    cmd.end()
    cmd.submit()
    return fb.read(origin="bottom")


@pytest.mark.gl
@pytest.mark.parametrize(
    ("vertex_shader", "bind"),
    [
        (VS, lambda cmd, buffer, offset: cmd.bind_uniform_range(buffer, 1, offset, 32)),
        (VS_STORAGE, lambda cmd, buffer, offset: cmd.bind_storage_range(buffer, 2, offset, 32)),
    ],
    ids=["uniform", "storage"],
)
def test_each_draw_sees_its_own_block(gl_ctx, vertex_shader, bind):
    fb = gl_ctx.framebuffer((16, 8))
    pixels = draw_two_quads(gl_ctx, fb, vertex_shader, bind)
    # Left half red, right half blue, each quad covering its half's middle.
    np.testing.assert_array_equal(pixels[4, 4], [255, 0, 0, 255])
    np.testing.assert_array_equal(pixels[4, 12], [0, 0, 255, 255])
    assert (pixels[0, :, :3] == 0).all()  # the quads are half height: the edge stays clear


@pytest.mark.gl
def test_moving_an_object_is_a_write_not_a_rerecording(gl_ctx):
    fb = gl_ctx.framebuffer((16, 8))
    pipe = gl_ctx.pipeline(vertex_shader=VS, fragment_shader=FS, topology="triangle_strip")
    buffer = blocks(gl_ctx, [((-0.5, 0, 0.5, 0), (0, 1, 0, 1))])
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_uniform_range(buffer, 1, 0, 32)
    cmd.draw(4)
    cmd.end()
    cmd.submit()
    assert fb.read(origin="bottom")[4, 4, 1] == 255
    buffer.map(np.float32)[0] = 0.5  # the block's offset_scale.x: move it right
    cmd.submit()
    pixels = fb.read(origin="bottom")
    assert pixels[4, 4, 1] == 0 and pixels[4, 12, 1] == 255


def test_the_trace_shows_each_range():
    ctx = hypergl.context(device="trace")
    buffer = ctx.buffer(size=1024)
    cmd = ctx.command_buffer()
    cmd.bind_uniform_range(buffer, 1, 512, 80)
    cmd.bind_storage_range(buffer, 2, 0, 1024)
    cmd.end()
    cmd.submit()
    calls = [(entry[0], *entry[2:]) for entry in ctx.trace]
    assert calls == [("bind_uniform_range", 1, 512, 80), ("bind_storage_range", 2, 0, 1024)]
    ctx.close()


def test_a_range_outside_the_buffer_is_refused():
    ctx = hypergl.context(device="null")
    buffer = ctx.buffer(size=512)
    cmd = ctx.command_buffer()
    with pytest.raises(hypergl.CompileError, match="outside buffer"):
        cmd.bind_uniform_range(buffer, 0, 256, 512)
    ctx.close()
