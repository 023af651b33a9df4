"""Multi-draw indirect, indirect count, textures, texture sets, compute-driven branching."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

from hypergl import SceneCompiler

pytestmark = pytest.mark.gl

GRID = 4  # 4 x 4 objects


def grid_instances():
    rows = []
    for i in range(GRID * GRID):
        x, y = -0.75 + 0.5 * (i % GRID), -0.75 + 0.5 * (i // GRID)
        rows.append((x, y, 1, 1, 1, 1))
    return instances(rows)


def centre(i, size=32):
    """Pixel (row, col) in GL's bottom-up order of object i's centre."""
    cell = size // GRID
    return (i // GRID) * cell + cell // 2, (i % GRID) * cell + cell // 2


def indirect_scene(ctx):  # not "setup": pytest < 8.1 calls a module-level setup(module)
    fb = ctx.framebuffer((32, 32))
    pipe = ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(ctx.buffer(quad(0.2), usage="vertex"), 0)
    cmd.bind_vertex_buffer(ctx.buffer(grid_instances(), usage="vertex"), 1)
    return fb, cmd


def lit(fb):
    image = fb.read(origin="bottom")
    return [i for i in range(GRID * GRID) if image[centre(i)][0] == 255]


def draw_commands(count):
    """DrawArraysIndirectCommand per object: 6 vertices, 1 instance, base instance i."""
    return np.array([(6, 1, 0, i) for i in range(count)], dtype=np.uint32)


def test_multi_draw_indirect_draws_every_object(gl_ctx):
    fb, cmd = indirect_scene(gl_ctx)
    commands = gl_ctx.buffer(draw_commands(GRID * GRID), usage="indirect")
    cmd.bind_indirect_buffer(commands)
    cmd.multi_draw_indirect(GRID * GRID)
    cmd.end()
    stats = cmd.submit()
    assert stats.draws == 1  # one instruction, sixteen objects
    assert lit(fb) == list(range(GRID * GRID))


def test_indirect_count_reads_the_count_from_gpu_memory(gl_ctx):
    fb, cmd = indirect_scene(gl_ctx)
    commands = gl_ctx.buffer(draw_commands(GRID * GRID), usage="indirect")
    count = gl_ctx.buffer(np.array([5], dtype=np.uint32), usage="parameter")
    cmd.bind_indirect_buffer(commands)
    cmd.bind_parameter_buffer(count)
    cmd.multi_draw_indirect_count(max_count=GRID * GRID)
    cmd.end()
    cmd.submit()
    assert lit(fb) == [0, 1, 2, 3, 4]
    count.map(np.uint32)[0] = 9
    cmd.submit()
    assert lit(fb) == list(range(9))


CULL_CS = """#version 430
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Visibility { uint visible[]; };
layout(location = 0) uniform int parity;
void main() {
    uint i = gl_GlobalInvocationID.x;
    visible[i] = (int(i % 2u) == parity) ? 1u : 0u;
}
"""


def test_compute_written_flags_drive_conditions(gl_ctx):
    """A compute shader culls; `condition` on its output draws only the survivors."""
    fb, cmd = indirect_scene(gl_ctx)
    cull = gl_ctx.pipeline(compute_shader=CULL_CS)
    draw = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    visible = gl_ctx.buffer(size=4 * GRID * GRID, name="visible")
    commands = gl_ctx.buffer(draw_commands(GRID * GRID), usage="indirect")
    sc = SceneCompiler(cmd)
    cmd.bind_pipeline(cull)
    cmd.bind_storage_buffer(visible, 0)
    cmd.uniform_i(7, 0)  # parity from r7
    cmd.dispatch(1)
    cmd.bind_pipeline(draw)
    cmd.bind_indirect_buffer(commands)
    for i in range(GRID * GRID):
        with sc.condition(visible, 4 * i):
            cmd.draw_indirect(16 * i)
    cmd.end()
    stats = cmd.submit(registers={7: 1})
    assert lit(fb) == [i for i in range(GRID * GRID) if i % 2 == 1]
    assert stats.draws == 8
    cmd.submit(registers={7: 0})
    assert lit(fb) == [i for i in range(GRID * GRID) if i % 2 == 0]


TEX_VS = """#version 430
layout(location = 0) in vec2 position;
out vec2 uv;
void main() { uv = position * 0.5 + 0.5; gl_Position = vec4(position, 0.0, 1.0); }
"""
TEX_FS = """#version 430
in vec2 uv;
out vec4 color;
layout(binding = 0) uniform sampler2D image;
void main() { color = texture(image, uv); }
"""
SET_FS = """#version 430
in vec2 uv;
out vec4 color;
layout(location = 1) uniform int layer;
void main() { color = hgl_texture(uint(layer), uv); }
"""
FULL = np.array([-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1], dtype="f4")
LAYOUT_UV = [{"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]}]


def textured(ctx, fs, texture, **state):
    fb = ctx.framebuffer((16, 16))
    pipe = ctx.pipeline(vertex_shader=TEX_VS, fragment_shader=fs, vertex_layout=LAYOUT_UV, **state)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(ctx.buffer(FULL, usage="vertex"), 0)
    cmd.bind_texture(texture, 0)
    return fb, cmd


def test_texture_sampling(gl_ctx):
    pixels = np.array(
        [[[255, 0, 0, 255], [0, 255, 0, 255]], [[0, 0, 255, 255], [255, 255, 255, 255]]], np.uint8
    )
    texture = gl_ctx.texture(pixels, filter="nearest")
    fb, cmd = textured(gl_ctx, TEX_FS, texture)
    cmd.draw(6)
    cmd.end()
    cmd.submit()
    image = fb.read(origin="bottom")  # texture row 0 is sampled at v = 0: the bottom
    assert image[2, 2].tolist() == [255, 0, 0, 255]
    assert image[2, 13].tolist() == [0, 255, 0, 255]
    assert image[13, 2].tolist() == [0, 0, 255, 255]
    assert image[13, 13].tolist() == [255, 255, 255, 255]


def test_texture_set_samples_by_index_with_the_array_fallback(gl_ctx):
    colours = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)]
    images = np.array([np.full((4, 4, 4), c, np.uint8) for c in colours])
    textures = gl_ctx.texture_set(images)
    assert textures.bindless == gl_ctx.capabilities.bindless_textures
    fb, cmd = textured(gl_ctx, SET_FS, textures, texture_set_unit=0)
    cmd.uniform_i(0, 1)  # layer = r0
    cmd.draw(6)
    cmd.end()
    for layer, colour in enumerate(colours):
        cmd.submit(registers=[layer])
        assert (fb.read() == colour).all(), layer
