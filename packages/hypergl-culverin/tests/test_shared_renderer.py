"""The Culverin renderer is hypergl-core's shared one: its id output names Culverin's stable
ids, and its views tile one framebuffer (real Culverin, real OpenGL)."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl.bodies
from hypergl.testing import draw_bodies
from hypergl_culverin import BodyRenderer
from hypergl_culverin.camera import look_at, perspective, project

pytestmark = [pytest.mark.gl, pytest.mark.culverin]


def test_culverin_draws_through_the_shared_renderer_with_ids_and_views(
    gl_ctx, make_world, drop_grid
):
    world = make_world()
    bridge = gl_ctx.bridge("culverin", world, capacity=64)
    handles = drop_grid(bridge, 2, 2)
    renderer = BodyRenderer(bridge, max_ids=256, views=2, outputs=("color", "id"))
    assert isinstance(renderer, hypergl.bodies.BodyRenderer)
    for handle in handles:
        renderer.set_look(world.get_user_data(handle), "box", 0.5)
    for _ in range(90):
        world.step(1 / 60)
    tile = (64, 64)
    cameras = [perspective(50.0, 1.0, 0.5, 100.0) @ look_at((0, 14, 9), (0, 0, 0)),
               perspective(50.0, 1.0, 0.5, 100.0) @ look_at((0, 14, -9), (0, 0, 0))]  # fmt: skip
    renderer.set_views(cameras, tile, columns=2)
    ids = renderer.split_views(draw_bodies(renderer)["id"])
    for view, view_proj in enumerate(cameras):
        for handle in handles:
            x, y = np.rint(project(view_proj, [world.get_position(handle)], tile)[0]).astype(int)
            assert ids[view][tile[1] - 1 - y, x] == world.get_user_data(handle), (view, handle)
    renderer.release()
