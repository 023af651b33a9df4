"""BatchRenderer on real OpenGL: frame layout, packing, stacks, readback modes, bad arrays."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl.bodies.views import Tiling
from hypergl_rl import BatchRenderer, ObservationArrayError, ObservationDtypeError, ReachTask

pytestmark = pytest.mark.gl

RED = (1.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def ctx():
    context = hypergl.context()
    yield context
    context.close()


def reach_scene(renderer, seed=0):
    task = ReachTask(renderer.num_envs)
    task.setup(renderer)
    task.reset(np.arange(renderer.num_envs), np.random.default_rng(seed))
    task.write(renderer)
    return task


def one_sphere(renderer, env, x, y, z, colour=RED, radius=0.3):
    renderer.radius[env] = 0.0
    renderer.position[env, 0] = (x, y, z)
    renderer.radius[env, 0] = radius
    renderer.color[env, 0] = colour


def reddish(image):
    """Mask of pixels that are clearly red."""
    image = image.astype(int)
    return (image[..., 0] > 60) & (image[..., 1] < 30) & (image[..., 2] < 30)


def test_frame_is_E_H_W_C_uint8_into_the_callers_array(ctx):
    with BatchRenderer(3, 84, 84, context=ctx) as renderer:
        reach_scene(renderer)
        out = np.zeros((3, 84, 84, 3), np.uint8)
        assert renderer.render(out) is out
        assert renderer.packed and renderer.framebuffer_width == 63
        assert out.any(axis=(1, 2, 3)).all()  # every environment drawn
        assert renderer.render() is renderer.output
        assert (renderer.output == out).all()


def test_packed_rgb_is_exactly_rgba_without_alpha(ctx):
    packed = BatchRenderer(4, 84, 84, context=ctx)
    rgba = BatchRenderer(4, 84, 84, components=4, context=ctx)
    driver = BatchRenderer(4, 84, 84, pack_rgb=False, context=ctx)
    for renderer in (packed, rgba, driver):
        reach_scene(renderer, seed=5)
    reference = rgba.render()
    assert (reference[..., 3] == 255).all()
    assert (packed.render() == reference[..., :3]).all()
    assert (driver.render() == reference[..., :3]).all()
    for renderer in (packed, rgba, driver):
        renderer.close()


def test_width_that_cannot_pack_falls_back_to_the_driver(ctx):
    with BatchRenderer(2, 30, 20, context=ctx) as renderer:
        assert not renderer.packed  # 3 * 30 % 4 != 0
        reach_scene(renderer)
        image = renderer.render()
        assert image.shape == (2, 20, 30, 3)
        assert image.any()


def test_images_are_upright_and_left_is_left(ctx):
    with BatchRenderer(2, 32, 32, context=ctx) as renderer:
        renderer.look_at(eye=(0.0, 1.0, -3.0), target=(0.0, 1.0, 0.0), fov=60.0)
        one_sphere(renderer, 0, 0.0, 2.0, 0.0)  # above the line of sight: top half
        one_sphere(renderer, 1, -1.2, 1.0, 0.0)  # camera looks along +z: -x is on the right
        image = renderer.render()
        top, bottom = reddish(image[0, :16]).sum(), reddish(image[0, 16:]).sum()
        assert top > 10 and bottom == 0
        left, right = reddish(image[1, :, :16]).sum(), reddish(image[1, :, 16:]).sum()
        assert right > 10 and left == 0


def test_each_environment_sees_only_its_own_state(ctx):
    with BatchRenderer(5, 24, 24, context=ctx) as renderer:
        renderer.look_at(eye=(0.0, 1.0, -3.0), target=(0.0, 1.0, 0.0), fov=60.0)
        for env in range(5):
            one_sphere(renderer, env, 0.0, 1.0, 0.0, radius=0.0 if env % 2 else 0.5)
        image = renderer.render()
        counts = reddish(image).sum(axis=(1, 2))
        assert (counts[[0, 2, 4]] > 20).all() and (counts[[1, 3]] == 0).all()


def test_stacks_split_at_the_framebuffer_limit_and_keep_the_layout(ctx):
    limit = ctx.limits["max_renderbuffer_size"]
    height = limit // 2  # two tiles per stack at most
    with BatchRenderer(5, 8, height, context=ctx) as many:
        assert len(many.stacks) == 3 and sum(n for _, n in many.stacks) == 5
        # the stacks are the body renderer's tiling: one column from the bottom
        fits = min(limit, ctx.limits["max_texture_size"])
        assert many.tilings == Tiling.stacks(5, (many.framebuffer_width, height), fits)
        reach_scene(many, seed=2)
        frames = many.render()
        with BatchRenderer(1, 8, height, context=ctx) as single:
            for env in range(5):
                single.state[0] = many.state[env]
                assert (single.render()[0] == frames[env]).all(), env


def test_state_written_through_the_mapping_shows_in_the_next_frame(ctx):
    with BatchRenderer(1, 32, 32, context=ctx) as renderer:
        renderer.look_at(eye=(0.0, 1.0, -3.0), target=(0.0, 1.0, 0.0), fov=60.0)
        one_sphere(renderer, 0, 0.0, 1.0, 0.0, radius=0.0)
        assert reddish(renderer.render()).sum() == 0
        renderer.radius[0, 0] = 0.5
        assert reddish(renderer.render()).sum() > 20


def test_ring_readback_returns_the_previous_frame(ctx):
    with BatchRenderer(2, 32, 32, readback="ring", context=ctx) as ring:
        ring.look_at(eye=(0.0, 1.0, -3.0), target=(0.0, 1.0, 0.0), fov=60.0)
        for env in range(2):
            one_sphere(ring, env, 0.0, 1.0, 0.0, radius=0.0)
        first = ring.render().copy()  # the first call returns its own frame
        assert reddish(first).sum() == 0
        ring.radius[:, 0] = 0.5
        assert reddish(ring.render()).sum() == 0  # still the frame before the change
        assert reddish(ring.render()).sum() > 40  # now it shows, one frame late


def test_bad_output_arrays(ctx):
    with BatchRenderer(2, 16, 8, context=ctx) as renderer:
        with pytest.raises(
            ObservationArrayError, match=r"shape \(2, 8, 16, 3\), got \(2, 16, 8, 3\)"
        ):
            renderer.render(np.zeros((2, 16, 8, 3), np.uint8))
        with pytest.raises(ObservationArrayError, match=r"got \(1, 8, 16, 3\)"):
            renderer.render(np.zeros((1, 8, 16, 3), np.uint8))
        with pytest.raises(ObservationDtypeError, match="dtype uint8, got float32") as info:
            renderer.render(np.zeros((2, 8, 16, 3), np.float32))
        assert isinstance(info.value, TypeError)
        with pytest.raises(ObservationDtypeError, match="got list"):
            renderer.render([[0]])
        strided = np.zeros((2, 8, 32, 3), np.uint8)[:, :, ::2]
        with pytest.raises(ObservationArrayError, match="C-contiguous"):
            renderer.render(strided)
        frozen = np.zeros((2, 8, 16, 3), np.uint8)
        frozen.flags.writeable = False
        with pytest.raises(ObservationArrayError, match="writable"):
            renderer.render(frozen)


def test_bad_camera(ctx):
    with BatchRenderer(1, 8, 8, context=ctx) as renderer:
        with pytest.raises(ValueError, match="distinct"):
            renderer.look_at(eye=(0, 1, 0), target=(0, 1, 0))
        with pytest.raises(ValueError, match="fov"):
            renderer.look_at(eye=(0, 1, -1), target=(0, 0, 0), fov=0.0)


def test_tile_larger_than_the_gpu_allows(ctx):
    limit = ctx.limits["max_renderbuffer_size"]
    with pytest.raises(ValueError, match=f"exceeds this GPU's limit of {limit}"):
        BatchRenderer(1, 8, limit + 1, context=ctx)


def test_close_releases_what_it_made_on_a_shared_context(ctx):
    before = len(ctx.live_objects())
    renderer = BatchRenderer(2, 8, 8, readback="ring", context=ctx)
    assert len(ctx.live_objects()) > before
    renderer.close()
    assert len(ctx.live_objects()) == before


@pytest.mark.parametrize("readback", ["direct", "ring"])
def test_cached_background_renders_exactly_the_full_frame(ctx, readback):
    """Background cache and incremental repaint agree to the bit with full shading."""
    fast = BatchRenderer(6, 84, 84, readback=readback, context=ctx)
    full = BatchRenderer(6, 84, 84, readback=readback, cache_background=False, context=ctx)
    assert fast.incremental == (readback == "direct") and not full.incremental
    rng = np.random.default_rng(7)
    for renderer in (fast, full):
        reach_scene(renderer, seed=7)
    for frame in range(8):
        step = rng.uniform(-0.4, 0.4, (6, 4, 3)).astype(np.float32)
        step[..., 1] = 0.0
        if frame == 2:
            step[0] = 5.0  # a jump off screen and back
        if frame == 3:
            step[0] = -5.0
        for renderer in (fast, full):
            renderer.position[:] += step
            if frame == 4:
                renderer.radius[1, 0] = 0.0  # hide one sphere
                renderer.color[2, 1] = (0.1, 0.9, 0.1)
            if frame == 5:  # cameras and floors move: the cache is rebuilt
                renderer.look_at(eye=(0.4, 1.6, -2.2), target=(0.0, 0.0, 0.2), fov=70.0)
                renderer.floor_color[3] = (0.3, 0.3, 0.8)
        assert (fast.render() == full.render()).all(), frame
    fast.close()
    full.close()


def test_render_into_alternating_arrays(ctx):
    with BatchRenderer(2, 16, 16, context=ctx) as renderer:
        reach_scene(renderer)
        a, b = np.zeros((2, 2, 16, 16, 3), np.uint8)
        assert renderer.render(a) is a and renderer.render(b) is b
        assert (a == b).all() and a.any()


def test_a_failed_construction_leaves_a_shared_context_as_it_was(ctx, monkeypatch):
    import hypergl_rl.batch_renderer as module

    monkeypatch.setattr(module, "sphere_fragment", lambda *args: "#version 430\nnot glsl")
    before = len(ctx.live_objects())
    with pytest.raises(hypergl.ShaderError):
        BatchRenderer(2, 8, 8, context=ctx)
    assert len(ctx.live_objects()) == before
