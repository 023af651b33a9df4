"""Occlusion culling (``record(cmd, occlusion=framebuffer)``): bodies hidden behind what is
already drawn are not drawn, the picture stays the one without culling, and bodies that
come into view are drawn in the frame they appear."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl_culverin import BodyRenderer
from hypergl_culverin.camera import look_at, perspective

culverin = pytest.importorskip("culverin")
pytestmark = [pytest.mark.gl, pytest.mark.culverin]

SIZE = (160, 96)
HIDDEN = [(-2.0, 0.5, -2.0), (0.0, 0.5, -2.0), (2.0, 0.5, -2.0)]  # behind the wall
SHOWN = [(-6.0, 0.5, 0.0), (6.0, 0.5, 0.0)]  # beside it


def view(height):
    """From the front at `height` 2.5 the wall hides HIDDEN; from high up it does not."""
    eye = (0.0, height, 14.0 - 0.3 * height)
    return perspective(60.0, SIZE[0] / SIZE[1], 0.5, 100.0) @ look_at(eye, (0, 0.5, 0))


@pytest.fixture
def walled(gl_ctx, make_world):
    world = make_world()
    bridge = gl_ctx.bridge("culverin", world, capacity=64)
    bridge.create_body(pos=(0, 2, 3), size=(4, 2, 0.25), shape=culverin.SHAPE_BOX,
                       motion=culverin.MOTION_STATIC, color=(0.5, 0.5, 0.5))  # fmt: skip
    for x, y, z in HIDDEN + SHOWN:
        bridge.create_body(pos=(x, y, z), size=0.5, shape=culverin.SHAPE_SPHERE,
                           motion=culverin.MOTION_STATIC, color=(0.9, 0.2, 0.2))  # fmt: skip
    frames = {}
    for name, occlusion in (("culled", True), ("plain", False)):
        renderer = BodyRenderer(bridge, max_ids=64)
        fb = gl_ctx.framebuffer(SIZE)
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 0, 0, 1), depth=1.0)
        renderer.record(cmd, occlusion=fb if occlusion else None)
        cmd.end()
        frames[name] = (renderer, fb, cmd)

    def frame(height):
        images, drawn = {}, {}
        for name, (renderer, fb, cmd) in frames.items():
            renderer.set_camera(view(height))
            cmd.submit()
            images[name] = fb.read(components=3).astype(int)
            drawn[name] = sum(renderer.instance_counts().values())
        return images, drawn

    return frame


def test_hidden_bodies_are_not_drawn_and_the_picture_is_the_same(walled):
    for number in range(4):
        images, drawn = walled(2.5)
        assert np.abs(images["culled"] - images["plain"]).max() <= 1, number
        assert drawn["plain"] == 1 + len(HIDDEN) + len(SHOWN)
    # From the third frame on only the wall and the bodies beside it are drawn: the first
    # frame knows nothing seen before, the second learns what the wall hides.
    assert drawn["culled"] == 1 + len(SHOWN)
    red = images["plain"][..., 0] > 150
    assert red.sum() > 0


def test_bodies_that_come_into_view_are_drawn_in_that_frame(walled):
    for _ in range(3):
        walled(2.5)
    images, drawn = walled(16.0)  # from high up: the row behind the wall is in view now
    assert np.abs(images["culled"] - images["plain"]).max() <= 1
    assert drawn["culled"] == drawn["plain"] == 1 + len(HIDDEN) + len(SHOWN)
    # and hidden again from the front: drawn in the frame after (the culled set is learnt)
    walled(2.5)
    images, drawn = walled(2.5)
    assert np.abs(images["culled"] - images["plain"]).max() <= 1
    assert drawn["culled"] == 1 + len(SHOWN)


def test_bad_occlusion_targets(gl_ctx, make_world):
    bridge = gl_ctx.bridge("culverin", make_world(), capacity=16)
    renderer = BodyRenderer(bridge, max_ids=32)
    cmd = gl_ctx.command_buffer()
    with pytest.raises(TypeError, match=r"occlusion must be the hypergl\.Framebuffer drawn into"):
        renderer.record(cmd, occlusion="frame")
    flat = gl_ctx.framebuffer(SIZE, depth=None, name="flat")
    with pytest.raises(hypergl.ResourceError, match="framebuffer 'flat' has no depth texture"):
        renderer.record(cmd, occlusion=flat)
    renderer.record(cmd, occlusion=gl_ctx.framebuffer(SIZE))
    with pytest.raises(ValueError, match=r"reads 160x96 framebuffers .* got 80x48"):
        renderer.record(cmd, occlusion=gl_ctx.framebuffer((80, 48)))
