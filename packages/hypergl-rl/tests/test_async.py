"""AsyncReachVectorEnv: send/recv in a worker thread, the same frames as the synchronous env."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from hypergl_rl import (  # noqa: E402
    REACH_ID,
    ActionError,
    AsyncReachVectorEnv,
    AsyncStateError,
    ReachVectorEnv,
    RLConfigError,
)

pytestmark = pytest.mark.gl

ACTIONS = np.random.default_rng(3).uniform(-1, 1, (12, 4, 2)).astype(np.float32)


def run_sync(mode: str) -> list:
    env = ReachVectorEnv(4, max_steps=5, autoreset_mode=mode, copy=True)
    out = [env.reset(seed=21)]
    out += [env.step(action) for action in ACTIONS]
    env.close()
    return out


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_send_recv_gives_what_the_synchronous_env_gives(mode):
    expected = run_sync(mode)
    env = AsyncReachVectorEnv(4, max_steps=5, autoreset_mode=mode, copy=True)
    env.async_reset(seed=21)
    got = [env.recv()]
    for action in ACTIONS:
        env.send(action)
        got.append(env.recv())
    env.close()
    assert (got[0][0] == expected[0][0]).all()
    for (obs, reward, terminated, truncated, info), want in zip(got[1:], expected[1:], strict=True):
        assert (obs == want[0]).all()
        assert (reward == want[1]).all() and (terminated == want[2]).all()
        assert (truncated == want[3]).all()
        assert (info["distance"] == want[4]["distance"]).all()
        if "final_obs" in want[4]:
            for mine, theirs in zip(info["final_obs"], want[4]["final_obs"], strict=True):
                assert (mine is None) == (theirs is None)
                assert mine is None or (mine == theirs).all()
    assert any(step[3].any() for step in got[1:])  # episodes did end and restart


def test_gymnasium_names_and_make_vec():
    env = gymnasium.make_vec(REACH_ID, num_envs=2, asynchronous=True)
    assert isinstance(env, AsyncReachVectorEnv) and env.env.renderer is None
    env.reset_async(seed=0)
    obs, info = env.reset_wait()
    assert obs.shape == (2, 84, 84, 3) and info["distance"].shape == (2,)
    env.step_async(np.zeros((2, 2), np.float32))
    assert env.step_wait()[1].shape == (2,)
    assert env.step(np.zeros((2, 2), np.float32))[0].shape == (2, 84, 84, 3)
    env.close()


def test_calls_out_of_order_and_bad_input_say_what_is_wrong():
    env = AsyncReachVectorEnv(2)
    with pytest.raises(AsyncStateError, match=r"nothing to receive: call send\(\) first"):
        env.recv()
    env.async_reset(seed=0)
    with pytest.raises(AsyncStateError, match="a reset is in flight"):
        env.send(np.zeros((2, 2), np.float32))
    with pytest.raises(AsyncStateError, match=r"nothing to receive: call step_async\(\) first"):
        env.step_wait()
    env.recv()
    with pytest.raises(ActionError, match=r"shape \(2, 2\), got \(3, 2\)"):
        env.send(np.zeros((3, 2), np.float32))  # checked before it reaches the worker
    env.close()
    with pytest.raises(AsyncStateError, match="closed"):
        env.send(np.zeros((2, 2), np.float32))
    with pytest.raises(RLConfigError, match="timeout must be None or a number of seconds > 0"):
        AsyncReachVectorEnv(2, timeout=0)


def test_an_error_in_the_worker_is_raised_by_recv():
    env = AsyncReachVectorEnv(2)
    env.send(np.zeros((2, 2), np.float32))  # no reset yet: the worker's step refuses
    with pytest.raises(RLConfigError, match=r"call reset\(\) before step\(\)"):
        env.recv()
    env.reset(seed=0)  # and the env is usable afterwards
    env.close()


LEFT_OPEN = """
import numpy as np
from hypergl_rl import AsyncReachVectorEnv
env = AsyncReachVectorEnv(2)
env.reset(seed=0)
env.step(np.zeros((2, 2), np.float32))
env.send(np.zeros((2, 2), np.float32))  # a step still in flight at exit
{after}
print("done", flush=True)
"""


@pytest.mark.parametrize("after", ["", "del env; import gc; gc.collect()"], ids=["exit", "dropped"])
def test_an_env_left_open_is_closed_without_leaks_or_a_hang(after):
    # The worker thread closes the env's context at exit (or when the env is collected):
    # nanobind reports no leaked OpenGL objects, and the interpreter exits.
    result = subprocess.run([sys.executable, "-c", LEFT_OPEN.format(after=after)],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
    assert "leaked" not in result.stderr and "Traceback" not in result.stderr, result.stderr
