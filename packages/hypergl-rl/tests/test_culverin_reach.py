"""The reach task advanced by Culverin: the hand is physical and shoves the grey spheres."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("culverin", reason="needs Culverin: pip install 'hypergl-rl[culverin]'")

from hypergl_rl.culverin_reach import CulverinReachTask

pytestmark = pytest.mark.culverin


def test_the_hand_moves_with_its_action_and_stays_in_its_arena():
    task = CulverinReachTask(3)
    task.reset(np.arange(3), np.random.default_rng(0))
    start = task.hand.copy()
    for _ in range(5):
        task.step(np.float32([[1, 0], [0, 1], [0, 0]]))
    moved = task.hand - start
    assert moved[0, 0] > 0.2 and abs(moved[0, 1]) < 0.05
    assert moved[1, 1] > 0.2 and abs(moved[1, 0]) < 0.05
    assert np.abs(moved[2]).max() < 0.05
    for _ in range(60):
        task.step(np.float32([[1, 1]] * 3))
    assert (np.abs(task.hand) <= task.arena + 0.01).all()


def test_the_hand_shoves_a_grey_sphere():
    task = CulverinReachTask(1)
    rng = np.random.default_rng(1)
    task.reset(np.arange(1), rng)
    task.hand[0] = (-0.6, 0.0)
    task.grey[0] = ((-0.2, 0.0), (0.7, 0.7))
    task.target[0] = (0.6, -0.7)
    for obj, where in ((0, task.hand[0]), (1, task.target[0]), (2, task.grey[0, 0]),
                       (3, task.grey[0, 1])):  # fmt: skip
        task._place(0, obj, where)
    for _ in range(20):
        task.step(np.float32([[1, 0]]))
    assert task.grey[0, 0, 0] > -0.1  # pushed along x by the hand


@pytest.mark.gl
def test_in_the_vector_env_from_pixels():
    gymnasium = pytest.importorskip("gymnasium")  # noqa: F841
    from hypergl_rl import ReachVectorEnv

    env = ReachVectorEnv(4, task=CulverinReachTask(4))
    try:
        observations, _ = env.reset(seed=3)
        assert observations.shape == (4, 84, 84, 3)
        first = observations.copy()
        observations, reward, terminated, _, _ = env.step(np.ones((4, 2), np.float32))
        assert terminated.dtype == bool
        assert reward.shape == (4,) and reward.dtype == np.float32
        assert not (observations == first).all()  # the hands moved on screen
    finally:
        env.close()
