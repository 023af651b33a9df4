"""SB3VecEnv holds Stable-Baselines3's VecEnv contract without SB3 or torch installed."""

from __future__ import annotations

import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from hypergl_rl import (  # noqa: E402
    REACH_ID,
    AsyncReachVectorEnv,
    ReachVectorEnv,
    RLConfigError,
    SB3VecEnv,
    sb3_vec_env,
)
from hypergl_rl.sb3 import SB3_ABSTRACT_METHODS  # noqa: E402

pytestmark = pytest.mark.gl


def make(num_envs=3, **kwargs):
    venv = gymnasium.make_vec(REACH_ID, num_envs=num_envs, autoreset_mode="same_step", **kwargs)
    return SB3VecEnv(venv)


def test_the_methods_sb3_declares_abstract_are_all_here():
    for name in (*SB3_ABSTRACT_METHODS, "step", "seed", "set_options", "render", "get_images"):
        assert callable(getattr(SB3VecEnv, name)), name
    assert "stable_baselines3" not in sys.modules and "torch" not in sys.modules


def test_reset_and_step_have_sb3s_shapes_and_types():
    env = make(3)
    assert env.num_envs == 3
    assert env.observation_space.shape == (84, 84, 3) and env.observation_space.dtype == np.uint8
    assert env.action_space.shape == (2,)
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (3, 84, 84, 3)
    assert len(env.reset_infos) == 3 and "distance" in env.reset_infos[0]
    env.step_async(np.zeros((3, 2), np.float32))
    obs, rewards, dones, infos = env.step_wait()
    assert obs.shape == (3, 84, 84, 3) and obs.dtype == np.uint8
    assert rewards.shape == (3,) and rewards.dtype == np.float32
    assert dones.shape == (3,) and dones.dtype == bool
    assert isinstance(infos, list) and len(infos) == 3 and all(isinstance(i, dict) for i in infos)
    env.close()


def test_an_ended_episode_hands_back_its_terminal_observation():
    env = make(2, max_steps=2)
    env.reset()
    env.venv.task.target[0] = 5.0  # env 0 cannot reach: truncated after 2 steps
    env.step(np.zeros((2, 2), np.float32))
    env.venv.task.hand[1] = env.venv.task.target[1]  # env 1 touches its target: terminated
    obs, rewards, dones, infos = env.step(np.zeros((2, 2), np.float32))
    assert dones.tolist() == [True, True]
    assert infos[0]["TimeLimit.truncated"] is True and infos[1]["TimeLimit.truncated"] is False
    for i in range(2):
        terminal = infos[i]["terminal_observation"]
        assert terminal.shape == (84, 84, 3) and not (terminal == obs[i]).all()
    assert rewards[1] > 9
    env.close()


def test_seed_makes_the_next_reset_reproducible():
    first, second = make(2), make(2)
    assert first.seed(5) == [5, 6]
    second.seed(5)
    assert (first.reset() == second.reset()).all()
    first.close()
    second.close()


def test_attributes_methods_and_images():
    env = make(2)
    env.reset()
    assert env.get_attr("num_envs") == [2, 2] and env.get_attr("num_envs", indices=1) == [2]
    assert env.env_method("render") == [None, None]
    assert env.env_is_wrapped(ReachVectorEnv) == [True, True]
    env.set_attr("copy", True)
    assert env.venv.copy is True
    with pytest.raises(RLConfigError, match=r"index 2 is out of range 0\.\.1"):
        env.get_attr("num_envs", indices=[2])
    with pytest.raises(RLConfigError, match="set it for every index"):
        env.set_attr("copy", False, indices=[0])
    assert env.get_images() == [None, None]
    env.close()
    shown = make(3, render_mode="rgb_array")
    shown.reset()
    assert shown.render().shape == (2 * 84, 2 * 84, 3)  # a 2x2 grid of the 3 frames
    assert len(shown.get_images()) == 3
    shown.close()


def test_the_async_env_steps_through_step_async():
    env = SB3VecEnv(AsyncReachVectorEnv(2, autoreset_mode="same_step"))
    env.reset()
    env.step_async(np.zeros((2, 2), np.float32))
    assert env.venv._waiting == "step"  # in flight while the caller works
    assert env.step_wait()[0].shape == (2, 84, 84, 3)
    env.close()


def test_next_step_autoreset_and_a_missing_sb3_are_refused_with_advice():
    with pytest.raises(RLConfigError, match="autoreset_mode='same_step'"):
        SB3VecEnv(ReachVectorEnv(2))
    with pytest.raises(RLConfigError, match=r"step_wait\(\) without step_async"):
        make(2).step_wait()
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install stable-baselines3"):
            sb3_vec_env(num_envs=2)
    else:
        pytest.skip("stable-baselines3 is installed: the examples environment covers it")
