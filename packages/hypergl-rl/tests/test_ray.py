"""RayVectorEnv on a local Ray instance (2 CPUs) started here: seeding, NumPy observations
through the object store, and a worker killed mid-rollout is replaced without a hang."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

pytest.importorskip("gymnasium")
ray = pytest.importorskip(
    "ray", reason="Ray is not installed: pip install 'hypergl-rl[ray]' (tools/dev.py does)"
)

from hypergl_rl import ActionDtypeError, ActionError, RayVectorEnv, RLConfigError  # noqa: E402

# A hung actor or cluster fails its test, never the whole run (the env's own waits are bounded too).
pytestmark = [pytest.mark.gl, pytest.mark.ray, pytest.mark.timeout(180)]

ACTIONS = np.random.default_rng(5).uniform(-1, 1, (4, 4, 2)).astype(np.float32)


@pytest.fixture(scope="module")
def local_ray():
    # The machine is shared: Ray's memory monitor would kill workers when *other*
    # processes fill the node, and its object store needs only a few MB here.
    os.environ.setdefault("RAY_memory_monitor_refresh_ms", "0")
    ray.init(num_cpus=2, num_gpus=0, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 2**20)  # fmt: skip
    yield
    ray.shutdown()


def kill(actor) -> None:
    """ray.kill, then wait until the actor is dead: the kill is asynchronous, and a task
    sent right after it may still run on the old actor."""
    ray.kill(actor)
    for _ in range(300):
        try:
            ray.get(actor.pid.remote(), timeout=30)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.1)
    raise AssertionError("the killed actor still answers after 30 s")


def rollout(env) -> list:
    out = [env.reset(seed=9)[0].copy()]
    out += [env.step(action)[0].copy() for action in ACTIONS]
    return out


def test_seeded_rollouts_repeat_and_come_back_as_numpy(local_ray):
    env = RayVectorEnv(2, 2, max_steps=3, num_cpus_per_worker=0.5)
    assert env.num_envs == 4 and env.observation_space.shape == (4, 84, 84, 3)
    first = rollout(env)
    pids = ray.get([worker.pid.remote() for worker in env.workers])
    assert len(set(pids)) == 2 and os.getpid() not in pids  # each worker its own process
    second = rollout(env)
    for a, b in zip(first, second, strict=True):
        assert isinstance(a, np.ndarray) and a.dtype == np.uint8 and (a == b).all()
    assert not (first[0][:2] == first[0][2:]).all()  # the workers' seeds differ
    _obs, reward, _terminated, _truncated, info = env.step(ACTIONS[0])
    assert reward.shape == (4,) and info["distance"].shape == (4,)
    env.close()


def test_a_worker_killed_mid_rollout_is_replaced_and_reported(local_ray):
    # A replacement worker imports hypergl and makes its GL context before it answers: under
    # ASan on a loaded 2-core machine that took more than 60 s once, so the wait is generous.
    env = RayVectorEnv(2, 2, max_steps=50, num_cpus_per_worker=0.5, timeout=300)
    env.reset(seed=1)
    env.step(ACTIONS[0])
    kill(env.workers[0])  # between steps
    _, reward, _, truncated, info = env.step(ACTIONS[1])
    assert info["worker_failed"].tolist() == [True, True, False, False]
    assert "ActorDiedError" in info["worker_error"][0] and info["worker_error"][2] is None
    assert truncated[:2].all() and not truncated[2:].any() and (reward[:2] == 0).all()
    assert env.restarts == [1, 0]
    _, reward, _, truncated, info = env.step(ACTIONS[2])  # the new episodes start
    assert "worker_failed" not in info, info["worker_error"]  # why the new worker failed
    assert (reward[:2] == 0).all() and not truncated.any()
    env.step_async(ACTIONS[3])  # and while a step is in flight
    ray.kill(env.workers[1])
    info = env.step_wait()[4]
    if "worker_failed" not in info:  # the step was done before the kill landed: the next
        info = env.step(ACTIONS[0])[4]  # one meets the dead worker
    assert info["worker_failed"].tolist() == [False, False, True, True]
    assert env.restarts == [1, 1]
    env.close()


def test_same_step_mode_restarts_a_failed_worker_in_the_same_step(local_ray):
    env = RayVectorEnv(1, 2, num_cpus_per_worker=0.5, autoreset_mode="same_step")
    first, _ = env.reset(seed=2)
    first = first.copy()
    kill(env.workers[0])
    _obs, _reward, _terminated, truncated, info = env.step(ACTIONS[0][:2])
    assert info["worker_failed"].all() and truncated.all()
    assert env.step(ACTIONS[1][:2])[3].any() == False  # noqa: E712  (already restarted)
    env.close()


def test_steps_sent_ahead_come_back_in_order_and_equal_synchronous_steps(local_ray):
    env = RayVectorEnv(1, 4, max_steps=3, num_cpus_per_worker=0.5, max_in_flight=3)
    expected = rollout(env)
    got = [env.reset(seed=9)[0].copy()]
    for k in range(0, 4, 2):  # two steps in flight, then both received
        env.send(ACTIONS[k])
        env.send(ACTIONS[k + 1])
        got += [env.recv()[0].copy(), env.recv()[0].copy()]
    for a, b in zip(expected, got, strict=True):
        assert (a == b).all()
    env.close()


def test_a_worker_killed_with_steps_in_flight_replays_them_on_its_replacement(local_ray):
    env = RayVectorEnv(2, 2, max_steps=50, num_cpus_per_worker=0.5, max_in_flight=3)
    env.reset(seed=3)
    kill(env.workers[0])
    for action in ACTIONS[:3]:
        env.send(action)
    first, second, third = env.recv(), env.recv(), env.recv()
    assert first[4]["worker_failed"].tolist() == [True, True, False, False]
    assert "worker_failed" not in second[4] and (second[1][:2] == 0).all()  # the new episodes
    assert "worker_failed" not in third[4] and (third[1][:2] != 0).all()  # stepped on
    assert env.restarts == [1, 0]
    env.close()


def test_same_step_final_observations_cross_as_arrays(local_ray):
    env = RayVectorEnv(2, 2, max_steps=2, num_cpus_per_worker=0.5, autoreset_mode="same_step",
                       copy=True)  # fmt: skip
    env.reset(seed=4)
    last = env.step(ACTIONS[0])[0]
    _obs, _reward, _terminated, truncated, info = env.step(ACTIONS[1])
    assert truncated.all() and info["_final_obs"].all()
    assert info["final_obs"].dtype == object and info["final_obs"][3].shape == (84, 84, 3)
    assert not (info["final_obs"][3] == last[3]).all()  # the frame after the second step
    env.close()


def test_bad_configuration_and_actions_are_named(local_ray):
    with pytest.raises(RLConfigError, match="num_workers must be >= 1, got 0"):
        RayVectorEnv(0, 4)
    with pytest.raises(RLConfigError, match="max_in_flight must be >= 1, got 0"):
        RayVectorEnv(1, 4, max_in_flight=0)
    with pytest.raises(RLConfigError, match="timeout must be a number of seconds > 0, got 0"):
        RayVectorEnv(1, 4, timeout=0)
    with pytest.raises(RLConfigError, match="num_gpus_per_worker must be a number >= 0"):
        RayVectorEnv(1, 4, num_gpus_per_worker=-1)
    with pytest.raises(RLConfigError, match="context= cannot be sent to a Ray worker"):
        RayVectorEnv(1, 4, context=object())
    with pytest.raises(RLConfigError, match="width must be >= 1, got 0"):
        RayVectorEnv(1, 4, width=0)  # checked in the driver, before any actor starts
    with pytest.raises(RLConfigError, match="num_gpus_per_worker=1 but the Ray cluster has 0"):
        RayVectorEnv(1, 2, num_gpus_per_worker=1).reset(seed=0)  # no GPU here: at once, no wait
    env = RayVectorEnv(1, 2, num_cpus_per_worker=0.5)
    with pytest.raises(RLConfigError, match=r"call reset\(\) before step\(\)"):
        env.step(ACTIONS[0][:2])
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"shape \(2, 2\), got \(4, 2\)"):
        env.step(ACTIONS[0])
    env.send(ACTIONS[0][:2])
    with pytest.raises(RLConfigError, match=r"1 step\(s\) in flight, the most max_in_flight=1"):
        env.send(ACTIONS[1][:2])
    with pytest.raises(RLConfigError, match=r"1 step\(s\) in flight: call step_wait"):
        env.reset(seed=0)
    env.recv()
    with pytest.raises(RLConfigError, match=r"nothing to wait for: call step_async"):
        env.recv()
    env.close()


@pytest.fixture(scope="module")
def reset_ray_env(local_ray):
    env = RayVectorEnv(1, 2, num_cpus_per_worker=0.5)
    env.reset(seed=0)
    yield env
    env.close()


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ("left", ActionDtypeError, "got a str: 'left'"),
        ([[0.1, 0.2], [0.3]], ActionError, "rectangular array of shape"),
        (np.zeros((2, 2)) + 1j, ActionDtypeError, "dtype complex128"),
        (np.full((2, 2), np.nan), ActionError, r"actions\[0, 0\] is nan"),
    ],
    ids=["string", "ragged", "complex", "nan"],
)
def test_bad_actions_are_named_before_they_reach_a_worker(reset_ray_env, bad, error, match):
    with pytest.raises(error, match=match):
        reset_ray_env.step_async(bad)
    assert not reset_ray_env._sent  # nothing was sent
