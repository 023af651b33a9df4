"""The path RLlib's env runners take to the reach env, without Ray installed.

RLlib (2.4x, new API stack) registers the env creator under its own id with a
vector entry point and calls ``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")``, then wraps the result in ``DictInfoToList``; this test
takes the same steps.
"""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.wrappers.vector import DictInfoToList  # noqa: E402

from hypergl_rl import ReachEnv, ReachVectorEnv, RLConfigError, rllib_env_creator  # noqa: E402

pytestmark = pytest.mark.gl


def test_the_env_runner_path_gives_one_vector_env():
    env_ctx = {"max_steps": 10, "worker_index": 1, "vector_index": 0, "num_workers": 2}
    gymnasium.register(
        "rllib-single-agent-env-v0",
        entry_point=lambda: rllib_env_creator(env_ctx),
        vector_entry_point=lambda num_envs: rllib_env_creator(env_ctx | {"num_envs": num_envs}),
    )
    try:
        made = gymnasium.make_vec(
            "rllib-single-agent-env-v0", num_envs=4, vectorization_mode="vector_entry_point"
        )
        env = DictInfoToList(made)
        assert isinstance(env.unwrapped, ReachVectorEnv) and env.num_envs == 4
        obs, infos = env.reset(seed=0)
        assert env.unwrapped.task.max_steps == 10
        assert obs.shape == (4, 84, 84, 3) and len(infos) == 4
        obs, reward, _terminated, _truncated, infos = env.step(env.action_space.sample())
        assert reward.shape == (4,) and isinstance(infos, list) and "distance" in infos[0]
        env.close()
        single = gymnasium.make("rllib-single-agent-env-v0")
        assert isinstance(single.unwrapped, ReachEnv)
        single.close()
    finally:
        gymnasium.registry.pop("rllib-single-agent-env-v0", None)


def test_the_creator_names_bad_config():
    with pytest.raises(RLConfigError, match="env_config must be a mapping, got 3"):
        rllib_env_creator(3)
    with pytest.raises(RLConfigError, match="num_envs must be >= 1, got 0"):
        rllib_env_creator({"num_envs": 0})
    with pytest.raises(RLConfigError, match="float_observations must be True or False, got 1"):
        rllib_env_creator({"num_envs": 2, "float_observations": 1})
    env = rllib_env_creator({"num_envs": 2, "width": 32, "height": 32})
    assert env.reset(seed=0)[0].shape == (2, 32, 32, 3)
    assert np.isfinite(env.step(np.zeros((2, 2), np.float32))[1]).all()
    env.close()


def test_float_observations_for_rllibs_default_encoder():
    venv = rllib_env_creator({"num_envs": 2, "float_observations": True})
    obs, _ = venv.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (2, 84, 84, 3)
    assert 0 <= obs.min() <= obs.max() <= 1
    assert venv.single_observation_space.dtype == np.float32 and obs in venv.observation_space
    uint8 = rllib_env_creator({"num_envs": 2})
    assert np.allclose(obs * 255, uint8.reset(seed=0)[0], atol=0.01)
    single = rllib_env_creator({"float_observations": True})
    assert single.reset(seed=0)[0].dtype == np.float32
    for env in (venv, uint8, single):
        env.close()
