"""hypergl/ReachCulverin-v0: the reach env with Culverin's task, through gym.make(_vec)."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("culverin", reason="needs Culverin: pip install 'hypergl-rl[culverin]'")

from hypergl_rl import ReachVectorEnv  # noqa: E402
from hypergl_rl.culverin_reach import CULVERIN_REACH_ID, CulverinReachTask  # noqa: E402

pytestmark = [pytest.mark.culverin, pytest.mark.gl]


def test_make_vec_builds_the_world_at_the_first_reset():
    venv = gymnasium.make_vec(CULVERIN_REACH_ID, num_envs=2, max_steps=20)
    assert isinstance(venv, ReachVectorEnv) and venv.task is None  # nothing made yet
    obs, _ = venv.reset(seed=0)
    assert isinstance(venv.task, CulverinReachTask) and venv.task.max_steps == 20
    assert obs.shape == (2, 84, 84, 3)
    assert venv.step(np.ones((2, 2), np.float32))[1].shape == (2,)
    venv.close()


def test_make_gives_a_single_env_with_the_same_task():
    env = gymnasium.make(f"hypergl_rl.culverin_reach:{CULVERIN_REACH_ID}")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (84, 84, 3) and isinstance(env.unwrapped.task, CulverinReachTask)
    env.close()
