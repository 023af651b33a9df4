"""Real Culverin, real OpenGL: drop bodies, step, render instanced, and check the pixels."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl_culverin import BodyRenderer
from hypergl_culverin.camera import look_at, perspective, project

pytestmark = [pytest.mark.gl, pytest.mark.culverin]

SIZE = (128, 128)
COLORS = [(1.0, 0.1, 0.1), (0.1, 1.0, 0.1), (0.1, 0.1, 1.0)]


def scene(ctx, world, drop_grid, precision):
    bridge = ctx.bridge("culverin", world, capacity=64, precision=precision)
    handles = drop_grid(bridge, 3, 4)
    renderer = BodyRenderer(bridge, max_ids=256)
    for i, handle in enumerate(handles):
        shape = "sphere" if i % 2 == 0 else "box"
        renderer.set_look(world.get_user_data(handle), shape, 0.5, COLORS[i % 3])
    view_proj = perspective(50.0, 1.0, 0.5, 100.0) @ look_at((0, 14, 9), (0, 0, 0))
    renderer.set_camera(view_proj)
    fb = ctx.framebuffer(SIZE)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    renderer.record(cmd)
    cmd.end()
    return bridge, renderer, handles, view_proj, fb, cmd


def pixels_of(world, handles, view_proj):
    centres = [world.get_position(h) for h in handles]
    return np.rint(project(view_proj, centres, SIZE)).astype(int)  # (x, y from the bottom)


def lit(image, x, y, radius=1):
    patch = image[y - radius : y + radius + 1, x - radius : x + radius + 1, :3]
    return int(patch.max())


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_bodies_render_where_physics_put_them(gl_ctx, make_world, drop_grid, precision):
    world = make_world()
    bridge, _, handles, view_proj, fb, cmd = scene(gl_ctx, world, drop_grid, precision)
    for _ in range(90):
        world.step(1 / 60)
    heights = [world.get_position(h)[1] for h in handles]
    assert max(heights) < 0.6 and min(heights) > 0.4  # resting on the floor (top at y = 0)
    cmd.submit()
    image = fb.read(origin="bottom")
    centres = pixels_of(world, handles, view_proj)
    for i, (x, y) in enumerate(centres):
        colour = image[y, x, :3]
        assert colour.max() > 60, (i, colour)
        assert int(np.argmax(colour)) == i % 3, (i, colour)  # its own colour: id -> look
    # Dark everywhere farther than a body's footprint from every projected centre.
    yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]]
    near = np.zeros(SIZE[::-1], bool)
    for x, y in centres:
        near |= (xx - x) ** 2 + (yy - y) ** 2 < 14**2
    assert image[~near, :3].max() == 0
    assert image[near, :3].max() > 0
    assert bridge.count == 13  # the floor has no look, so it is not drawn


def test_destroyed_bodies_disappear_and_the_rest_keep_their_look(gl_ctx, make_world, drop_grid):
    world = make_world()
    bridge, renderer, handles, view_proj, fb, cmd = scene(gl_ctx, world, drop_grid, "f32")
    for _ in range(90):
        world.step(1 / 60)
    cmd.submit()
    before = fb.read(origin="bottom")
    centres = pixels_of(world, handles, view_proj)
    assert all(lit(before, x, y) > 60 for x, y in centres)
    gone = [0, 3, 5, 10]
    for i in gone:
        world.destroy_body(handles[i])
    world.step(1 / 60)  # swap-removes the rows
    assert world.count == 13 - len(gone)
    cmd.submit()
    after = fb.read(origin="bottom")
    assert bridge.count == 9
    for i, (x, y) in enumerate(centres):
        if i in gone:
            assert lit(after, x, y, radius=3) == 0, i
        else:
            colour = after[y, x, :3]
            assert int(np.argmax(colour)) == i % 3 and colour.max() > 60, (i, colour)
    # The instance count followed the world through the GPU copy, with no Python per body.
    assert sum(renderer.instance_counts().values()) == 8  # the floor (id 0) has no look


LAYOUT_CS = """#version 430
layout(local_size_x = 1) in;
{bodies}
layout(std430, binding = 5) writeonly buffer Out {{ vec4 values[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    CulverinBody body = culverin_bodies[i];
    values[4u * i] = vec4(vec3(body.position), float(body.id));
    values[4u * i + 1u] = body.rotation;
    values[4u * i + 2u] = {velocity};
    values[4u * i + 3u] = vec4(float(culverin_count));
}}
"""


@pytest.mark.parametrize(
    ("precision", "velocities"), [("f32", False), ("f32", True), ("f64", False), ("f64", True)]
)
def test_glsl_struct_matches_the_records(gl_ctx, make_world, drop_grid, precision, velocities):
    """A compute shader declared with ``bridge.glsl()`` reads exactly what the bridge wrote."""
    world = make_world()
    bridge = gl_ctx.bridge("culverin", world, capacity=16, precision=precision,
                           velocities=velocities)  # fmt: skip
    drop_grid(bridge, 2, 3)
    for _ in range(5):
        world.step(1 / 60)
    velocity = "body.velocity" if velocities else "vec4(0.0)"
    pipeline = gl_ctx.pipeline(
        compute_shader=LAYOUT_CS.format(bodies=bridge.glsl(), velocity=velocity)
    )
    out = gl_ctx.buffer(size=7 * 64)
    cmd = gl_ctx.command_buffer()
    bridge.record(cmd)
    cmd.bind_pipeline(pipeline)
    bridge.bind(cmd)
    cmd.bind_storage_buffer(out, 5)
    cmd.dispatch(7)
    cmd.end()
    cmd.submit()
    values = out.read(np.float32).reshape(7, 4, 4)
    positions = np.frombuffer(world.positions, np.float64).reshape(-1, 4)[:, :3]
    assert np.array_equal(values[:, 0, :3], positions.astype(np.float32))
    assert values[:, 0, 3].tolist() == [float(i) for i in range(7)]
    assert np.array_equal(values[:, 1], np.frombuffer(world.rotations, np.float32).reshape(-1, 4))
    if velocities:
        expected = np.frombuffer(world.velocities, np.float32).reshape(-1, 4)
        assert np.array_equal(values[:, 2], expected)
    assert (values[:, 3] == 7.0).all()
