"""hypergl_mujoco.dm_pixels against dm_control's own pixels wrapper, on dm_control's suite.

The same observation keys, order, shapes and dtypes for every ``pixels_only`` and
``render_kwargs`` choice; depth and segmentation as ``physics.render`` gives them (pixels
agreeing but at objects' edges); many environments in one submit each as alone. dm_control
installs on CPython 3.12 with the ``mujoco`` distribution: ``tools/dev.py mujoco-matrix``
runs these (its ``floor`` leg); elsewhere they skip."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

suite = pytest.importorskip("dm_control.suite")
pixels = pytest.importorskip("dm_control.suite.wrappers.pixels")

from hypergl_mujoco import EnvError, dm_pixels  # noqa: E402

from . import parity  # noqa: E402
from .models import KINDS  # noqa: E402

pytestmark = pytest.mark.gl

TASKS = [
    ("cartpole", "swingup"),
    ("reacher", "easy"),
    ("cheetah", "run"),
    ("walker", "walk"),
    ("point_mass", "easy"),
    ("finger", "spin"),
    ("hopper", "stand"),
    ("fish", "swim"),
    ("ball_in_cup", "catch"),
    ("acrobot", "swingup"),
]
SMALL = {"height": 84, "width": 84, "camera_id": 0}
GEOM, SITE = 5, 6  # mjtObj


def load(domain, task, seed=0):
    return suite.load(domain, task, task_kwargs={"random": seed})


def spec_layout(spec):
    return [(key, value.shape, np.dtype(value.dtype)) for key, value in spec.items()]


@pytest.mark.parametrize("pixels_only", [True, False])
@pytest.mark.parametrize("render_kwargs", [None, SMALL, {**SMALL, "depth": True},
                                           {**SMALL, "segmentation": True}])  # fmt: skip
def test_observations_are_dm_controls(render_kwargs, pixels_only, gl_ctx):
    theirs = pixels.Wrapper(load("cartpole", "swingup"), pixels_only, render_kwargs)
    env = load("cartpole", "swingup")
    ours = dm_pixels.Wrapper(env, pixels_only, render_kwargs, context=gl_ctx)
    assert spec_layout(ours.observation_spec()) == spec_layout(theirs.observation_spec())
    for a, b in ((ours.reset(), theirs.reset()), (ours.step(0.3), theirs.step(0.3))):
        assert list(a.observation) == list(b.observation)
        for key in b.observation:
            got, want = np.asarray(a.observation[key]), np.asarray(b.observation[key])
            assert got.shape == want.shape and got.dtype == want.dtype, key
        assert (a.step_type, a.reward) == (b.step_type, b.reward)
    assert ours.physics is env.physics  # the rest from the wrapped env
    ours.close()


def test_a_custom_observation_key(gl_ctx):
    ours = dm_pixels.Wrapper(load("reacher", "easy"), False, SMALL, observation_key="image",
                             context=gl_ctx)  # fmt: skip
    theirs = pixels.Wrapper(load("reacher", "easy"), False, SMALL, observation_key="image")
    assert list(ours.reset().observation) == list(theirs.reset().observation)
    with pytest.raises(EnvError, match="duplicate or reserved observation key 'position'"):
        dm_pixels.Wrapper(load("reacher", "easy"), False, SMALL, observation_key="position",
                          context=gl_ctx)  # fmt: skip
    ours.close()


def dm_segmentation(env, size, camera, scene_option=None):
    """dm_control's segmentation in our id space (geoms, then sites, tendons, skins and
    flexes; -1 for nothing), and the depth of the same scene from ``mujoco.Renderer``
    (dm_control's own depth, from the depth buffer through near / (1 - d (1 - near /
    far)), is 1-2% off on MuJoCo 3.5: 5.64 m for MuJoCo's 5.755)."""
    seg = env.physics.render(size, size, camera_id=camera, segmentation=True,
                             scene_option=scene_option)  # fmt: skip
    with mujoco.Renderer(env.physics.model.ptr, size, size) as renderer:
        renderer.enable_depth_rendering()
        renderer.update_scene(env.physics.data.ptr, camera,
                              scene_option=getattr(scene_option, "ptr", None))  # fmt: skip
        depth = renderer.render()
    model = env.physics.model
    ids = np.full(seg.shape[:2], -1, np.int32)
    first = 0
    for kind, count in zip(KINDS, (model.ngeom, model.nsite, model.ntendon, model.nskin,
                                   model.nflex, model.nsensor), strict=True):  # fmt: skip
        mine = seg[..., 1] == kind
        ids[mine] = first + seg[..., 0][mine]
        first += count
    return ids, depth


def our_ids(env, pairs):
    """Our object_ids pairs back in the one id space."""
    model = env.physics.model
    firsts = dict(zip((int(k) for k in KINDS), np.cumsum([0, model.ngeom, model.nsite,
                                                          model.ntendon, model.nskin,
                                                          model.nflex]),
                      strict=True))  # fmt: skip
    ids = np.full(pairs.shape[:2], -1, np.int32)
    for kind, first in firsts.items():
        mine = pairs[..., 1] == kind
        ids[mine] = first + pairs[..., 0][mine]
    return ids


@pytest.mark.parametrize(("domain", "task"), TASKS)
def test_depth_and_segmentation_match_physics_render(domain, task, gl_ctx):
    """Geoms, sites and tendons (ball_in_cup's string) as dm_control shows them."""
    env = load(domain, task)
    env.reset()
    for _ in range(5):
        env.step(np.zeros(env.action_spec().shape))
    camera = 0 if env.physics.model.ncam else -1
    kwargs = {"height": 84, "width": 84, "camera_id": camera}
    with dm_pixels.BatchedPixels([env], render_kwargs={**kwargs, "segmentation": True},
                                 context=gl_ctx) as batch:  # fmt: skip
        pairs = batch.render()[0]
    with dm_pixels.BatchedPixels([env], render_kwargs={**kwargs, "depth": True},
                                 context=gl_ctx) as batch:  # fmt: skip
        ours_depth = batch.render()[0]
    theirs_ids, theirs_depth = dm_segmentation(env, 84, camera)
    ours_ids = our_ids(env, pairs)
    stats = parity.compare(ours_ids, ours_depth, theirs_ids, theirs_depth)
    print(f"{domain}-{task}: {stats}")  # -s
    if stats["agree"] < 0.99:
        path = parity.write_picture(f"dm_{domain}_{task}", ours_ids, theirs_ids)
        raise AssertionError(f"{domain}-{task}: {stats} (picture: {path})")
    assert stats["depth_median"] < 1e-3, stats


@pytest.mark.parametrize(("domain", "task", "flag"), [("ball_in_cup", "catch", "mjVIS_TENDON"),
                                                      ("dog", "walk", "mjVIS_SKIN")])  # fmt: skip
def test_scene_option_as_physics_render(domain, task, flag, gl_ctx):
    """render_kwargs' scene_option (dm_control's MjvOption), an element's flag off: the
    picture Physics.render gives with it, and without the element."""
    from dm_control.mujoco import wrapper

    env = load(domain, task)
    env.reset()
    option = wrapper.core.MjvOption()
    option.flags[getattr(mujoco.mjtVisFlag, flag)] = False
    kwargs = {"height": 84, "width": 84, "camera_id": 0, "segmentation": True,
              "scene_option": option}  # fmt: skip
    with dm_pixels.BatchedPixels([env], render_kwargs=kwargs, context=gl_ctx) as batch:
        pairs = batch.render()[0]
    theirs_ids, _ = dm_segmentation(env, 84, 0, option)
    ours_ids = our_ids(env, pairs)
    kind = mujoco.mjtObj.mjOBJ_TENDON if flag == "mjVIS_TENDON" else mujoco.mjtObj.mjOBJ_SKIN
    assert not (pairs[..., 1] == kind).any()
    agreement = float((ours_ids == theirs_ids).mean())
    if agreement < 0.99:
        path = parity.write_picture(f"dm_option_{domain}", ours_ids, theirs_ids)
        raise AssertionError(f"{domain}: {agreement:.4f} agree (picture: {path})")


def test_many_environments_in_one_submit_each_as_alone(gl_ctx):
    envs = [load("walker", "walk", seed) for seed in range(4)]
    with dm_pixels.BatchedPixels(envs, False, {**SMALL, "depth": True},
                                 context=gl_ctx) as batch:  # fmt: skip
        steps = batch.reset()
        for _ in range(3):
            steps = batch.step([np.full(batch.action_spec().shape, 0.2 * k) for k in range(4)])
        assert len(steps) == 4 and all(list(s.observation)[-1] == "pixels" for s in steps)
        for env, step in zip(envs, steps, strict=True):
            with dm_pixels.BatchedPixels([env], render_kwargs={**SMALL, "depth": True},
                                         context=gl_ctx) as alone:  # fmt: skip
                # the same up to the last bits (a tile of 4 against a lone view)
                np.testing.assert_allclose(step.observation["pixels"], alone.render()[0],
                                           rtol=1e-3)  # fmt: skip
        # the worlds differ: each view is its own environment's
        assert not np.array_equal(steps[0].observation["pixels"], steps[3].observation["pixels"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"overlays": ["x"]}, r"\['overlays'\]: hypergl-mujoco draws MuJoCo's default scene"),
    ({"scene_option": "tendons off"}, "scene_option must be an MjvOption"),
    ({"hieght": 84}, r"\['hieght'\] are not Physics.render's"),
    ({"depth": True, "segmentation": True}, "depth and segmentation together"),
])  # fmt: skip
def test_render_kwargs_it_cannot_honour_are_refused(kwargs, message):
    with pytest.raises(EnvError, match=message):
        dm_pixels.render_options(kwargs)


def test_not_a_dm_control_environment(gl_ctx):
    with pytest.raises(EnvError, match="is not a dm_control environment"):
        dm_pixels.Wrapper(object(), context=gl_ctx)
    with pytest.raises(EnvError, match="non-empty sequence"):
        dm_pixels.BatchedPixels([], context=gl_ctx)
