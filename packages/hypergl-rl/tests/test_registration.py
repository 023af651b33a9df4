"""gym.make / gym.make_vec of hypergl/Reach-v0 (and the Culverin variant's id), autoreset modes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from hypergl_rl import REACH_ID, ReachEnv, ReachTask, ReachVectorEnv, RLConfigError  # noqa: E402

pytestmark = pytest.mark.gl


def test_make_and_make_vec_find_the_registered_id():
    env = gymnasium.make(REACH_ID, max_steps=20)
    assert isinstance(env.unwrapped, ReachEnv) and env.spec.id == "hypergl/Reach-v0"
    obs, info = env.reset(seed=0)
    assert obs.shape == (84, 84, 3) and obs.dtype == np.uint8 and "distance" in info
    env.close()
    venv = gymnasium.make_vec(REACH_ID, num_envs=3, width=64, height=48)
    assert isinstance(venv, ReachVectorEnv)  # the vector entry point: one renderer for all
    assert venv.reset(seed=0)[0].shape == (3, 48, 64, 3)
    venv.close()


def test_sync_vectorisation_of_single_envs_works_too():
    venv = gymnasium.make_vec(REACH_ID, num_envs=2, vectorization_mode="sync")
    obs, _ = venv.reset(seed=5)
    assert obs.shape == (2, 84, 84, 3)
    assert venv.step(np.zeros((2, 2), np.float32))[0].shape == (2, 84, 84, 3)
    venv.close()


def test_environments_make_no_context_before_the_first_reset():
    venv = gymnasium.make_vec(REACH_ID, num_envs=2)
    single = gymnasium.make(REACH_ID)
    assert venv.renderer is None and single.unwrapped.renderer is None
    venv.reset(seed=0)
    assert venv.renderer is not None
    venv.close()
    single.close()


def test_same_step_autoreset_returns_the_final_observation_in_infos():
    venv = gymnasium.make_vec(REACH_ID, num_envs=3, autoreset_mode="same_step", max_steps=2)
    venv.reset(seed=1)
    venv.task.target[:] = 5.0  # unreachable: every episode is truncated after 2 steps
    before = venv.step(np.zeros((3, 2), np.float32))[0].copy()
    obs, _reward, terminated, truncated, info = venv.step(np.zeros((3, 2), np.float32))
    assert truncated.all() and not terminated.any()
    assert info["_final_obs"].all() and info["final_obs"].dtype == object
    for env in range(3):
        final = info["final_obs"][env]
        assert final.shape == (84, 84, 3)
        assert (final == before[env]).all()  # zero actions: the last frame did not move
        assert not (obs[env] == final).all()  # already the new episode's first frame
    assert venv.task.steps.tolist() == [0, 0, 0]
    assert info["final_info"]["distance"].shape == (3,) and info["final_info"]["_distance"].all()
    venv.close()


def test_next_step_autoreset_is_the_default_and_disabled_needs_a_masked_reset():
    venv = gymnasium.make_vec(REACH_ID, num_envs=2, max_steps=1)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    venv.close()
    venv = gymnasium.make_vec(REACH_ID, num_envs=2, max_steps=1, autoreset_mode="disabled")
    venv.reset(seed=0)
    venv.task.target[:] = 5.0
    assert venv.step(np.zeros((2, 2), np.float32))[3].all()
    venv.step(np.zeros((2, 2), np.float32))  # nothing is reset for the caller
    assert venv.task.steps.tolist() == [2, 2]
    venv.reset(options={"reset_mask": np.array([True, False])})
    assert venv.task.steps.tolist() == [0, 2]
    with pytest.raises(RLConfigError, match=r"reset_mask.*shape \(2,\)"):
        venv.reset(options={"reset_mask": np.array([1, 0])})
    venv.close()


def test_bad_configuration_is_named():
    with pytest.raises(RLConfigError, match=r"autoreset_mode must be one of .* got 'sometimes'"):
        ReachVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(RLConfigError, match="device_index must be None or an int >= 0, got -1"):
        ReachVectorEnv(2, device_index=-1)
    with pytest.raises(RLConfigError, match="device_index must be None or an int >= 0, got '0'"):
        ReachEnv(device_index="0")
    with pytest.raises(RLConfigError, match="asynchronous must be True or False, got 1"):
        gymnasium.make_vec(REACH_ID, num_envs=2, asynchronous=1)
    with pytest.raises(RLConfigError, match="readback must be one of"):
        ReachVectorEnv(2, readback="later")
    with pytest.raises(RLConfigError, match="action_dim"):
        ReachVectorEnv(2, task=lambda n, **kw: ReachTask(n, **kw))
    with pytest.raises(RLConfigError, match="reset"):
        ReachVectorEnv(2).step(np.zeros((2, 2), np.float32))


def test_a_task_factory_is_called_at_the_first_reset():
    venv = ReachVectorEnv(2, task=ReachTask, max_steps=7)
    assert venv.task is None
    venv.reset(seed=0)
    assert isinstance(venv.task, ReachTask) and venv.task.max_steps == 7
    venv.close()


def test_a_fresh_process_makes_the_env_through_the_module_form_of_the_id():
    code = (
        "import gymnasium, sys\n"
        "env = gymnasium.make_vec('hypergl_rl:hypergl/Reach-v0', num_envs=2)\n"
        "assert 'hypergl_rl' in sys.modules\n"
        "print(env.reset(seed=0)[0].shape)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(2, 84, 84, 3)"
