"""The reach environments on real OpenGL: gymnasium's checker, vector stepping, autoreset."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hypergl
from hypergl_rl import ActionError, ReachTask, RLConfigError

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from hypergl_rl import ReachEnv, ReachVectorEnv  # noqa: E402

pytestmark = pytest.mark.gl


@pytest.fixture(scope="module")
def ctx():
    context = hypergl.context()
    yield context
    context.close()


def test_single_env_passes_gymnasiums_checker(ctx):
    env = ReachEnv(render_mode="rgb_array", context=ctx)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*spec.*")  # only: made without gym.make
        check_env(env)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (84, 84, 3) and obs.dtype == np.uint8
    assert (env.render() == obs).all()
    env.close()


def test_single_env_bad_actions_and_render_mode(ctx):
    env = ReachEnv(context=ctx)
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"shape \(2,\), got \(3,\)"):
        env.step(np.zeros(3, np.float32))
    with pytest.raises(ActionError, match="finite"):
        env.step(np.array([np.inf, 0.0]))
    env.close()
    with pytest.raises(RLConfigError, match="'human'"):
        ReachEnv(render_mode="human", context=ctx)


def test_vector_env_observations_and_spaces(ctx):
    env = ReachVectorEnv(4, context=ctx)
    obs, info = env.reset(seed=0)
    assert obs.shape == (4, 84, 84, 3) and obs.dtype == np.uint8
    assert env.observation_space.shape == (4, 84, 84, 3)
    assert env.action_space.shape == (4, 2)
    assert obs in env.observation_space and info["distance"].shape == (4,)
    obs2, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert obs2.shape == (4, 84, 84, 3) and reward.shape == (4,) and reward.dtype == np.float32
    assert terminated.dtype == bool and truncated.dtype == bool
    assert obs2 is not obs  # double-buffered: the previous observation is still intact
    assert not (obs2 == obs).all()  # the hands moved
    env.close()


def test_vector_env_is_deterministic_under_a_seed(ctx):
    runs = []
    for _ in range(2):
        env = ReachVectorEnv(3, context=ctx, copy=True)
        frames = [env.reset(seed=42)[0]]
        actions = np.random.default_rng(0).uniform(-1, 1, (5, 3, 2)).astype(np.float32)
        for action in actions:
            frames.append(env.step(action)[0])
        runs.append(np.stack(frames))
        env.close()
    assert (runs[0] == runs[1]).all()


def test_vector_env_autoresets_on_the_next_step(ctx):
    env = ReachVectorEnv(2, max_steps=50, context=ctx)
    env.reset(seed=3)
    env.task.hand[0] = env.task.target[0]  # env 0 is about to touch its target
    _, reward, terminated, _, _ = env.step(np.zeros((2, 2), np.float32))
    assert terminated.tolist() == [True, False] and reward[0] > 9
    _, reward, terminated, truncated, info = env.step(np.zeros((2, 2), np.float32))
    assert not truncated.any()
    assert reward[0] == 0.0 and not terminated[0]  # the reset step
    assert env.task.steps.tolist() == [0, 2]
    assert info["distance"][0] > env.task.hand_radius + env.task.target_radius
    env.close()


def test_vector_env_truncates_after_max_steps(ctx):
    env = ReachVectorEnv(2, max_steps=3, context=ctx)
    env.reset(seed=0)
    env.task.target[:] = 5.0  # unreachable: nothing terminates
    for _ in range(2):
        assert not env.step(np.zeros((2, 2), np.float32))[3].any()
    assert env.step(np.zeros((2, 2), np.float32))[3].all()
    env.close()


def test_vector_env_bad_input(ctx):
    env = ReachVectorEnv(3, context=ctx)
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"shape \(3, 2\), got \(2, 2\)"):
        env.step(np.zeros((2, 2), np.float32))
    with pytest.raises(ActionError, match=r"got \(3,\)"):
        env.step(np.zeros(3, np.float32))
    env.close()
    with pytest.raises(RLConfigError, match="num_envs must be >= 1, got 0"):
        ReachVectorEnv(0, context=ctx)
    with pytest.raises(RLConfigError, match="width must be >= 1, got -84"):
        ReachVectorEnv(2, width=-84, context=ctx)


class DriftTask(ReachTask):
    """Another state source: the hand drifts right whatever the action (one action axis)."""

    action_dim = 1

    def check_actions(self, actions):
        array = np.asarray(actions, np.float32)
        if array.shape != (self.num_envs, 1):
            raise ActionError(f"actions must have shape ({self.num_envs}, 1), got {array.shape}")
        return array

    def step(self, actions):
        return super().step(np.tile([[1.0, 0.0]], (self.num_envs, 1)).astype(np.float32))


def test_the_state_source_is_pluggable(ctx):
    env = ReachVectorEnv(2, task=DriftTask(2), context=ctx)
    assert env.single_action_space.shape == (1,)
    env.reset(seed=0)
    start = env.task.hand.copy()
    env.step(np.zeros((2, 1), np.float32))
    assert np.allclose(env.task.hand[:, 0] - start[:, 0], env.task.speed) or np.any(
        env.task.hand[:, 0] == env.task.arena
    )
    env.close()
    with pytest.raises(RLConfigError, match="task has num_envs=3, the environment needs 2"):
        ReachVectorEnv(2, task=DriftTask(3), context=ctx)


def test_ring_readback_observations_come_one_step_late(ctx):
    direct = ReachVectorEnv(2, context=ctx, copy=True)
    ring = ReachVectorEnv(2, readback="ring", context=ctx, copy=True)
    seen = {}
    for name, env in (("direct", direct), ("ring", ring)):
        frames = [env.reset(seed=4)[0]]
        for action in np.random.default_rng(1).uniform(-1, 1, (3, 2, 2)).astype(np.float32):
            frames.append(env.step(action)[0])
        seen[name] = frames
        env.close()
    assert (seen["ring"][0] == seen["direct"][0]).all()  # the first frame is its own
    for step in range(1, 4):
        assert (seen["ring"][step] == seen["direct"][step - 1]).all(), step
