"""The GL ops not covered elsewhere, on real OpenGL: copies, indirect dispatch, indexed
indirect draws, viewports, uniforms, barriers and fences."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

pytestmark = pytest.mark.gl

FILL_CS = """#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint values[]; };
void main() {
    uint i = gl_GlobalInvocationID.x + 4u * gl_WorkGroupID.y;
    values[i] = i + 100u;
}
"""


def test_copy_buffer_on_the_gpu(gl_ctx):
    source = gl_ctx.buffer(np.arange(8, dtype=np.uint32))
    target = gl_ctx.buffer(size=32)
    cmd = gl_ctx.command_buffer()
    cmd.copy_buffer(source, target, 12, src_offset=4, dst_offset=16)
    cmd.end()
    cmd.submit()
    assert target.read(np.uint32).tolist() == [0, 0, 0, 0, 1, 2, 3, 0]


def test_dispatch_indirect_barrier_and_fence(gl_ctx):
    fill = gl_ctx.pipeline(compute_shader=FILL_CS)
    out = gl_ctx.buffer(size=4 * 12)
    groups = gl_ctx.buffer(np.array([1, 3, 1], np.uint32), usage="indirect")
    fence = gl_ctx.fence()
    cmd = gl_ctx.command_buffer()
    cmd.bind_pipeline(fill)
    cmd.bind_storage_buffer(out, 0)
    cmd.bind_indirect_buffer(groups)
    cmd.dispatch_indirect(0)
    cmd.barrier()
    cmd.fence_signal(fence)
    cmd.fence_wait(fence, 5_000_000)
    cmd.end()
    stats = cmd.submit()
    assert stats.dispatches == 1
    assert fence.wait(1.0)
    assert out.read(np.uint32).tolist() == [100 + i for i in range(12)]


def test_indexed_indirect_draws(gl_ctx):
    fb = gl_ctx.framebuffer((16, 16))
    pipe = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    corners = np.array([-1, -1, 1, -1, 1, 1, -1, 1], "f4")
    indices = gl_ctx.buffer(np.array([0, 1, 2, 0, 2, 3], np.uint32), usage="index")
    # DrawElementsIndirectCommand: count, instances, first index, base vertex, base instance
    commands = gl_ctx.buffer(np.array([[3, 1, 0, 0, 0], [3, 1, 3, 0, 1]], np.uint32),
                             usage="indirect")  # fmt: skip
    count = gl_ctx.buffer(np.array([1], np.uint32), usage="parameter")
    tints = instances([(0, 0, 1, 0, 0, 1), (0, 0, 0, 1, 0, 1)])
    outcomes = {}
    for variant in ("one", "multi", "count"):
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 0, 0, 1))
        cmd.bind_pipeline(pipe)
        cmd.bind_vertex_buffer(gl_ctx.buffer(corners, usage="vertex"), 0)
        cmd.bind_vertex_buffer(gl_ctx.buffer(tints, usage="vertex"), 1)
        cmd.bind_index_buffer(indices)
        cmd.bind_indirect_buffer(commands)
        cmd.bind_parameter_buffer(count)
        if variant == "one":
            cmd.draw_indexed_indirect(20)
        elif variant == "multi":
            cmd.multi_draw_indexed_indirect(2)
        else:
            cmd.multi_draw_indexed_indirect_count(max_count=2)
        cmd.end()
        cmd.submit()
        image = fb.read(origin="bottom")
        outcomes[variant] = (image[2, 13].tolist(), image[13, 2].tolist())
    red, green, black = [255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 0, 255]
    assert outcomes["one"] == (black, green)  # only the second triangle, tinted green
    assert outcomes["multi"] == (red, green)
    assert outcomes["count"] == (red, black)  # count = 1: the first command only


def test_viewports_from_constants_and_registers(gl_ctx):
    fb = gl_ctx.framebuffer((16, 16))
    pipe = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.bind_vertex_buffer(gl_ctx.buffer(instances([0, 0, 1, 1, 1, 1]), usage="vertex"), 1)
    cmd.viewport(0, 0, 8, 8)
    cmd.draw(6)
    for reg, value in enumerate((8, 8, 8, 8), start=4):
        cmd.li(reg, value)
    cmd.viewport_reg(4)
    cmd.draw(6)
    cmd.end()
    cmd.submit()
    lit = fb.read(origin="bottom")[..., 0] == 255
    assert lit[:8, :8].all() and lit[8:, 8:].all()
    assert not lit[:8, 8:].any() and not lit[8:, :8].any()


def test_uniform_const_of_each_kind(gl_ctx):
    vs = """#version 430
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position, 0.0, 1.0); }
"""
    fs = """#version 430
layout(location = 0) uniform vec4 tint;
layout(location = 1) uniform mat4 transform;
layout(location = 2) uniform int selector;
out vec4 color;
void main() { color = selector == 3 ? transform * tint : vec4(0.0); }
"""
    fb = gl_ctx.framebuffer((4, 4))
    layout = [{"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]}]
    pipe = gl_ctx.pipeline(vertex_shader=vs, fragment_shader=fs, vertex_layout=layout)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.uniform_const(0, (1.0, 0.5, 0.0, 1.0), "vec4")
    cmd.uniform_const(1, tuple(np.diag([0.5, 1.0, 1.0, 1.0]).ravel()), "mat4")
    cmd.uniform_const(2, (3,), "int")
    cmd.draw(6)
    cmd.end()
    cmd.submit(debug=True)
    assert fb.read()[1, 1].tolist() == [128, 128, 0, 255]
