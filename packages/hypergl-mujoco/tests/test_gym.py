"""Gymnasium pixel observations on real MuJoCo envs (HalfCheetah-v5, Ant-v5): spaces, the
AddRenderObservation layouts, seeding, the camera env.render() uses, the vector env in one
submit under both autoreset modes (SAME_STEP's final pixels are the state before the reset),
close(), and bad input."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from hypergl_mujoco import (
    BatchRenderer,
    CameraError,
    EnvError,
    OutputError,
    PixelObservations,
    RendererClosedError,
    VectorPixelObservations,
)

gym = pytest.importorskip("gymnasium")
pytestmark = pytest.mark.gl

SIZE = 32  # small images: the tests check layout and timing of renders, not detail
STEPS = 3  # episode length where an episode must end


def pixel_env(env_id="HalfCheetah-v5", **options):
    kwargs = {"width": SIZE, "height": SIZE, "camera": "track", **options}
    return PixelObservations(gym.make(env_id, max_episode_steps=STEPS), **kwargs)


def vector_env(mode, num_envs=3, env_id="HalfCheetah-v5", **options):
    envs = gym.make_vec(env_id, num_envs, vectorization_mode="sync", max_episode_steps=STEPS,
                        vector_kwargs={"autoreset_mode": mode})  # fmt: skip
    kwargs = {"width": SIZE, "height": SIZE, "camera": "track", **options}
    return VectorPixelObservations(envs, **kwargs)


def actions(space, count, seed=0):
    space.seed(seed)
    return [space.sample() for _ in range(count)]


def test_pixels_replace_the_state():
    with pixel_env() as env:
        assert env.observation_space == gym.spaces.Box(0, 255, (SIZE, SIZE, 3), np.uint8)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        first = obs.copy()
        obs, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs) and obs.std() > 0
        assert not np.array_equal(obs, first)  # the cheetah moved
        # what a BatchRenderer of the env's data draws
        with BatchRenderer(env.unwrapped.model, 1, ["track"], SIZE, SIZE, ("rgb",)) as renderer:
            np.testing.assert_array_equal(renderer.render(env.unwrapped.data).rgb[0, 0], obs)


def test_pixels_join_the_state_and_seeding_repeats_an_episode():
    runs = []
    for _ in range(2):
        with pixel_env("Ant-v5", render_only=False) as env:
            space = env.observation_space
            assert set(space.spaces) == {"state", "pixels"}
            obs, _ = env.reset(seed=7)
            trace = [obs]
            for action in actions(env.action_space, 2):
                trace.append(env.step(action)[0])
            assert all(space.contains(o) for o in trace)
            runs.append(trace)
    with gym.make("Ant-v5") as plain:
        state, _ = plain.reset(seed=7)
    np.testing.assert_array_equal(runs[0][0]["state"], state)
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a["pixels"], b["pixels"])
        np.testing.assert_array_equal(a["state"], b["state"])


def test_several_outputs_are_a_dict_by_name():
    with pixel_env(outputs=("rgb", "depth", "segmentation")) as env:
        space = env.observation_space
        assert set(space.spaces) == {"rgb", "depth", "segmentation"}
        model = env.unwrapped.model
        assert space["depth"].dtype == np.float32 and space["segmentation"].dtype == np.int32
        assert space["depth"].high.max() == np.float32(model.vis.map.zfar * model.stat.extent)
        assert space["segmentation"].low.min() == -1
        assert space["segmentation"].high.max() == model.ngeom - 1
        obs, _ = env.reset(seed=0)
        assert space.contains(obs)
        ids = obs["segmentation"]
        assert (ids == -1).any() and (ids >= 0).any()
        assert (obs["depth"][ids >= 0] < space["depth"].high[ids >= 0]).all()


def test_default_camera_is_the_one_env_render_uses():
    """camera=None: gymnasium's free camera, set up as its viewer sets it up."""
    env = gym.make("Humanoid-v5", render_mode="rgb_array", width=SIZE, height=SIZE)
    env.reset(seed=0)
    env.render()  # makes gymnasium's viewer, with its camera
    theirs = env.unwrapped.mujoco_renderer.viewer.cam
    with PixelObservations(env, width=SIZE, height=SIZE) as wrapped:
        ours = wrapped.camera
        assert ours.type == theirs.type == mujoco.mjtCamera.mjCAMERA_FREE
        np.testing.assert_allclose(ours.lookat, theirs.lookat)
        for name in ("distance", "azimuth", "elevation", "trackbodyid"):
            assert getattr(ours, name) == getattr(theirs, name), name
    with PixelObservations(gym.make("HalfCheetah-v5", camera_name="track")) as wrapped:
        assert wrapped.camera == 0


def assert_same_pixels(ours, alone, err_msg=""):
    """A sub-env's tile against one env's own image: ray-cast parts interpolate their proxy
    at other tile offsets, so a shade may round one step apart (never more)."""
    np.testing.assert_allclose(ours.astype(int), alone.astype(int), atol=1, rtol=0,
                               err_msg=err_msg)  # fmt: skip


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_vector_env_renders_every_sub_env_as_it_steps(mode):
    """Each sub-environment's pixels are what one env alone (same seed, same actions) shows;
    across the end of an episode as each autoreset mode defines it."""
    count = 3
    with vector_env(gym.vector.AutoresetMode[mode], count) as envs:
        assert envs.observation_space == gym.spaces.Box(0, 255, (count, SIZE, SIZE, 3), np.uint8)
        assert envs.single_observation_space == gym.spaces.Box(0, 255, (SIZE, SIZE, 3), np.uint8)
        alone = [pixel_env() for _ in range(count)]
        try:
            obs, _ = envs.reset(seed=10)
            assert envs.observation_space.contains(obs)
            for i, env in enumerate(alone):
                assert_same_pixels(obs[i], env.reset(seed=10 + i)[0])
            plan = actions(envs.action_space, STEPS + 2)
            for step, batch in enumerate(plan, start=1):
                obs, _, terminated, truncated, info = envs.step(batch)
                ended = truncated | terminated
                assert ended.all() == (step == STEPS)
                for i, env in enumerate(alone):
                    if mode == "NEXT_STEP" and step == STEPS + 1:
                        expected = env.reset()[0]  # this step was the sub-env's reset
                    else:
                        expected, _, done, cut, _ = env.step(batch[i])
                        if mode == "SAME_STEP" and (done or cut):
                            # the final pixels: before the reset; the obs: after it
                            assert_same_pixels(info["final_obs"][i], expected)
                            expected = env.reset()[0]
                            assert not np.array_equal(info["final_obs"][i], expected)
                    assert_same_pixels(obs[i], expected, err_msg=f"step {step} env {i}")
        finally:
            for env in alone:
                env.close()


def observations_in_parts(mode, overlapped, count=3):
    """Observations (and SAME_STEP's final pixels) of a vector env rendered in parts, one
    sub-environment a part, over the end of an episode."""
    seen = []
    with vector_env(gym.vector.AutoresetMode[mode], count, parts=count,
                    overlapped=overlapped) as envs:  # fmt: skip
        seen.append(envs.reset(seed=4)[0])
        steps = STEPS if mode == "DISABLED" else STEPS + 1  # DISABLED: the caller resets
        for batch in actions(envs.action_space, steps):
            obs, _, _, _, info = envs.step(batch)
            seen.append(obs)
            if "final_obs" in info:
                seen.extend(final for final in info["final_obs"] if final is not None)
        times = envs._stepper.times
        if mode == "DISABLED":
            seen.append(envs.reset(options={"reset_mask": np.array([True, False, True])})[0])
    return seen, times, steps


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP", "DISABLED"])
def test_vector_env_in_parts_overlapped_sees_what_the_sequential_parts_see(mode):
    overlapped, times, steps = observations_in_parts(mode, True)
    sequential, _, _ = observations_in_parts(mode, False)
    assert len(overlapped) == len(sequential) > STEPS
    for n, (one, other) in enumerate(zip(overlapped, sequential, strict=True)):
        np.testing.assert_array_equal(one, other, err_msg=f"observation {n}")
    assert times.frames == steps and times.inline == 0.0  # every step on the thread


class Diverges(gym.Wrapper):
    """A sub-environment whose step raises once it is told to (the physics side failing)."""

    armed = False  # set on the class: the next sub-environment stepped raises

    def step(self, action):
        if Diverges.armed:
            Diverges.armed = False
            raise FloatingPointError("the simulation diverged")
        return self.env.step(action)


def test_vector_env_in_parts_an_error_of_the_physics_reaches_the_caller():
    envs = gym.make_vec("HalfCheetah-v5", 2, vectorization_mode="sync", wrappers=[Diverges])
    with VectorPixelObservations(envs, width=SIZE, height=SIZE, camera="track",
                                 parts=2) as envs:  # fmt: skip
        envs.reset(seed=0)
        plan = actions(envs.action_space, 3)
        envs.step(plan[0])
        Diverges.armed = True
        with pytest.raises(FloatingPointError, match="diverged") as caught:
            envs.step(plan[1])
        assert any("physics thread" in note for note in caught.value.__notes__)
        envs.reset(seed=0)  # a reset starts afresh
        obs, *_ = envs.step(plan[2])
        assert obs.shape == (2, SIZE, SIZE, 3)


@pytest.mark.parametrize("parts", [0, -1, 1.5, True])
def test_vector_env_parts_must_be_a_positive_integer(parts):
    envs = gym.make_vec("HalfCheetah-v5", 2, vectorization_mode="sync")
    try:
        with pytest.raises(EnvError, match=f"parts must be a positive integer, got {parts!r}"):
            VectorPixelObservations(envs, parts=parts)
    finally:
        envs.close()


def test_disabled_autoreset_renders_what_the_reset_mask_reset():
    with vector_env(gym.vector.AutoresetMode.DISABLED, 2) as envs:
        envs.reset(seed=0)
        for batch in actions(envs.action_space, STEPS):
            obs, _, terminated, truncated, _ = envs.step(batch)
        assert (terminated | truncated).all()
        again, _ = envs.reset(options={"reset_mask": np.array([True, False])})
        assert not np.array_equal(again[0], obs[0])  # env 0 reset: the frame changed
        np.testing.assert_array_equal(again[1], obs[1])  # env 1 left as it was


def test_the_spec_records_the_wrapper():
    with pixel_env(outputs=("rgb", "depth")) as env:
        recorded = env.spec.additional_wrappers[-1]
        assert recorded.name == "PixelObservations"
        assert recorded.kwargs["camera"] == "track"
        assert recorded.kwargs["outputs"] == ("rgb", "depth")


def test_same_step_final_obs_keeps_the_state():
    with vector_env(gym.vector.AutoresetMode.SAME_STEP, 2, "Ant-v5", render_only=False,
                    outputs=("rgb", "segmentation")) as envs:  # fmt: skip
        envs.reset(seed=0)
        for batch in actions(envs.action_space, STEPS):
            obs, *_, info = envs.step(batch)
        final = info["final_obs"]
        assert info["_final_obs"].all()
        for i in range(2):
            assert set(final[i]) == {"state", "rgb", "segmentation"}
            assert envs.single_observation_space.contains(final[i])
            assert not np.array_equal(final[i]["state"], obs["state"][i])


def test_close_releases_the_renderers():
    envs = vector_env(gym.vector.AutoresetMode.SAME_STEP, 2)
    envs.reset(seed=0)
    for batch in actions(envs.action_space, STEPS):
        envs.step(batch)  # an episode end: the final renderer exists
    envs.close()
    assert envs.renderer.context.closed
    with pytest.raises(RendererClosedError):
        envs.renderer.render(envs.datas)
    env = pixel_env()
    env.close()
    with pytest.raises(RendererClosedError):
        env.observation(None)


# --- bad input: each its own error naming the bad value -------------------------------------


def test_not_a_mujoco_env():
    with pytest.raises(EnvError, match="CartPoleEnv is not a gymnasium MuJoCo env"):
        PixelObservations(gym.make("CartPole-v1"))


def test_vector_env_in_other_processes():
    envs = gym.make_vec(
        "CartPole-v1", 1, vectorization_mode="async", vector_kwargs={"context": "spawn"}
    )  # no fork of a process with GL threads
    try:
        with pytest.raises(EnvError, match="AsyncVectorEnv: the sub-environments must be"):
            VectorPixelObservations(envs)
    finally:
        envs.close()


def test_render_key_already_in_the_observation():
    with (
        pixel_env(render_only=False) as env,
        pytest.raises(EnvError, match=r"already has the key\(s\) \['pixels'\]"),
    ):
        PixelObservations(env, width=SIZE, height=SIZE, camera="track", render_only=False)


def test_obs_key_that_is_an_image_key():
    with pytest.raises(EnvError, match="obs_key 'rgb' is also an image key"):
        pixel_env(render_only=False, outputs=("rgb", "depth"), obs_key="rgb")


def test_unknown_output():
    with pytest.raises(OutputError, match="unknown outputs \\['normals'\\]"):
        pixel_env(outputs=("rgb", "normals"))


def test_unknown_camera():
    with pytest.raises(CameraError, match="'side'"):
        pixel_env(camera="side")
