"""hypergl_rl without a GPU: bad configurations, the reach task's dynamics, optional gymnasium."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hypergl_rl import ActionError, BatchRenderer, ReachTask, RLConfigError


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 0}, "num_envs must be >= 1, got 0"),
        ({"num_envs": -4}, "num_envs must be >= 1, got -4"),
        ({"num_envs": 2.5}, "num_envs must be an int, got 2.5"),
        ({"num_envs": True}, "num_envs must be an int, got True"),
        ({"num_envs": 1, "width": 0}, "width must be >= 1, got 0"),
        ({"num_envs": 1, "height": -84}, "height must be >= 1, got -84"),
        ({"num_envs": 1, "height": "84"}, "height must be an int, got '84'"),
        ({"num_envs": 1, "components": 2}, "components must be 3 .* got 2"),
        ({"num_envs": 1, "readback": "async"}, "readback must be one of .* got 'async'"),
        ({"num_envs": 1, "max_objects": 0}, "max_objects must be >= 1, got 0"),
        ({"num_envs": 1, "max_objects": 99}, "max_objects 99 exceeds the limit of 8"),
        ({"num_envs": 1, "readback": "ring", "ring_depth": 1}, "ring_depth must be >= 2"),
        ({"num_envs": 1, "width": 10, "pack_rgb": True}, "width=10"),
        ({"num_envs": 1, "pack_rgb": "yes"}, "pack_rgb must be True, False or None, got 'yes'"),
        ({"num_envs": 1, "context": "gl"}, "context must be a hypergl.Context"),
    ],
)
def test_bad_configuration_names_the_value(kwargs, match):
    with pytest.raises(RLConfigError, match=match) as info:
        BatchRenderer(**kwargs)
    assert isinstance(info.value, ValueError)


def test_task_rejects_bad_sizes():
    with pytest.raises(RLConfigError, match="num_envs must be >= 1, got 0"):
        ReachTask(0)
    with pytest.raises(RLConfigError, match="max_steps must be >= 1, got -1"):
        ReachTask(2, max_steps=-1)


def test_actions_of_the_wrong_shape_or_not_finite():
    task = ReachTask(3)
    for bad in (np.zeros((3, 3)), np.zeros(2), np.zeros((2, 2)), [[0.0, 0.0]]):
        with pytest.raises(ActionError, match=r"shape \(3, 2\), got") as info:
            task.check_actions(bad)
        assert isinstance(info.value, ValueError)
    with pytest.raises(ActionError, match="finite"):
        task.check_actions(np.full((3, 2), np.nan))
    assert task.check_actions(np.full((3, 2), 5.0)).max() == 1.0  # clipped to the action box


def test_reach_dynamics_terminate_and_truncate():
    task = ReachTask(3, max_steps=5)
    task.reset(np.arange(3), np.random.default_rng(0))
    assert np.all(task.distance() > task.hand_radius + task.target_radius)
    task.hand[0] = task.target[0] + [0.1, 0.0]  # env 0 within reach
    reward, terminated, truncated = task.step(np.zeros((3, 2), np.float32))
    assert terminated.tolist() == [True, False, False]
    assert reward[0] > 9 and reward[1] < 0
    for _ in range(4):
        reward, terminated, truncated = task.step(np.zeros((3, 2), np.float32))
    assert truncated[1:].all() and not truncated[0]  # terminated beats truncated


def test_hand_moves_with_the_action_and_stays_in_the_arena():
    task = ReachTask(1, speed=0.1)
    task.reset(np.arange(1), np.random.default_rng(1))
    start = task.hand.copy()
    task.step(np.array([[1.0, -1.0]], np.float32))
    assert np.allclose(task.hand - start, [[0.1, -0.1]], atol=1e-6) or np.any(
        np.abs(task.hand) == task.arena
    )
    for _ in range(50):
        task.step(np.array([[1.0, 1.0]], np.float32))
    assert np.allclose(task.hand, [[task.arena, task.arena]])


def test_import_without_gymnasium():
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "import hypergl_rl\n"
        "assert hypergl_rl.BatchRenderer and hypergl_rl.ReachTask\n"
        "try:\n"
        "    hypergl_rl.ReachVectorEnv\n"
        "except ImportError as exc:\n"
        "    assert 'hypergl-rl[gym]' in str(exc), exc\n"
        "else:\n"
        "    raise SystemExit('expected ImportError')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
