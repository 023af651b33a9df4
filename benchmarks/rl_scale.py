"""Env-frames/s of the pixel reach task at E = 256 per worker, 84x84 RGB: in process, async, Ray.

Variants, run interleaved (A B C ... per round, medians of per-round ratios):

* ``inprocess``: ``ReachVectorEnv(256).step`` in a loop;
* ``ray1`` / ``ray2``: ``RayVectorEnv`` with 1 and 2 Ray actors of 256 environments
  each (observations come back through Ray's object store into the driver's batch);
  ``ray1+learn``: one actor stepped with ``send``/learn/``recv``, against ``sync+learn``;
* ``sync+learn`` / ``async+learn``: a learner step after every env step, taking as long
  as one env step; synchronous (``step`` then learn) against ``AsyncReachVectorEnv``
  (``send`` the next actions, learn on the batch just received, ``recv``).
  ``--learner sleep`` (the default) stands for a learner on an accelerator, which
  leaves the CPU to the renderer; ``--learner numpy`` is a CPU-bound learner (a BLAS
  matmul, which releases the GIL) that competes with llvmpipe for the same cores.

    python benchmarks/rl_scale.py [--envs 256] [--steps 20] [--repeat 5]
                                  [--learner sleep|numpy] [--no-ray] [--json FILE]

Goals (issue 18): ray1 >= 0.8x inprocess at the same E; async >= 1.2x sync when the
learner step takes as long as a render. Ray needs ``pip install 'hypergl-core[ray]'``;
without it the Ray variants are left out (and their keys are absent from the JSON).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import interleaved, median, pairwise_ratio, parser, write_json

from hypergl.rl import AsyncReachVectorEnv, ReachVectorEnv


def stepper(env, actions):
    def run() -> None:
        for action in actions:
            env.step(action)

    return run


def learner(kind: str, seconds: float):
    """A learner step of about `seconds`: a sleep (accelerator) or a NumPy matmul (CPU)."""
    if kind == "sleep":
        return lambda: time.sleep(seconds)
    size = 64
    a = np.random.default_rng(0).standard_normal((size, size), np.float32)
    while True:  # grow the matmul until one takes `seconds`
        start = time.perf_counter()
        a @ a
        if time.perf_counter() - start >= seconds or size >= 4096:
            break
        size = int(size * 1.25)
        a = np.random.default_rng(0).standard_normal((size, size), np.float32)
    return lambda: a @ a


def sync_with_learner(env, actions, learn):
    def run() -> None:
        for action in actions:
            env.step(action)
            learn()

    return run


def async_with_learner(env, actions, learn):
    def run() -> None:
        env.send(actions[0])
        for action in actions[1:]:
            env.recv()
            env.send(action)  # batch k+1 renders while the learner works on batch k
            learn()
        env.recv()
        learn()

    return run


def start_ray():
    try:
        import ray
    except ImportError:
        print("Ray is not installed: ray1/ray2 left out (pip install 'hypergl-core[ray]')")
        return None
    os.environ.setdefault("RAY_memory_monitor_refresh_ms", "0")  # a shared machine
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=512 * 2**20)  # fmt: skip
    return ray


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--envs", type=int, default=256, help="environments per worker")
    p.add_argument("--steps", type=int, default=20, help="env steps per timed call")
    p.add_argument("--learner", choices=("sleep", "numpy"), default="sleep")
    p.add_argument("--no-ray", action="store_true", help="leave the Ray variants out")
    args = p.parse_args()
    e, steps = args.envs, args.steps
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (steps, e, 2)).astype(np.float32)

    sync = ReachVectorEnv(e)
    sync.reset(seed=0)
    for action in actions[:10]:  # warm up: the first frames also render the backgrounds
        sync.step(action)
    render = median([time_step(sync, actions[i % steps]) for i in range(15)])
    learn = learner(args.learner, render)
    print(f"E={e} per worker, 84x84 RGB, {steps} steps per call; one sync step takes "
          f"{render * 1e3:.1f} ms, so does the learner step ({args.learner})")  # fmt: skip
    async_env = AsyncReachVectorEnv(e)
    async_env.reset(seed=0)
    variants = {
        "inprocess": stepper(sync, actions),
        "sync+learn": sync_with_learner(sync, actions, learn),
        "async+learn": async_with_learner(async_env, actions, learn),
    }
    frames = {name: e * steps for name in variants}
    ray = None if args.no_ray else start_ray()
    ray_envs = []
    if ray is not None:
        from hypergl.rl import RayVectorEnv

        for workers in (1, 2):
            env = RayVectorEnv(workers, e, num_cpus_per_worker=0.5)  # 3 actors on 2 CPUs
            env.reset(seed=0)
            ray_envs.append(env)
            both = np.concatenate([actions] * workers, axis=1)
            variants[f"ray{workers}"] = stepper(env, both)
            frames[f"ray{workers}"] = workers * e * steps
        # Ray's step_async/step_wait: the actor renders batch k+1 while the learner works.
        variants["ray1+learn"] = async_with_learner(ray_envs[0], actions, learn)
        frames["ray1+learn"] = e * steps

    samples = interleaved(variants, args.repeat)
    fps = {name: frames[name] / median(times) for name, times in samples.items()}
    results: dict = {"envs": e, "steps": steps, "learner": args.learner,
                     "step_ms": render * 1e3}  # fmt: skip
    for name, value in fps.items():
        results[f"{name}_fps"] = value
        print(f"{name:>12}: {value:>9,.0f} env-frames/s")
    # Per-round ratios of frames per second (the variants move different frame counts).
    rate = {name: [frames[name] / t for t in times] for name, times in samples.items()}
    results["async_vs_sync"] = pairwise_ratio(rate["async+learn"], rate["sync+learn"])
    print(f"async vs sync with a learner step as long as a render ({args.learner}): "
          f"{results['async_vs_sync']:.2f}x   (target >= 1.2x)")  # fmt: skip
    if ray is not None:
        results["ray1_vs_inprocess"] = pairwise_ratio(rate["ray1"], rate["inprocess"])
        results["ray2_vs_inprocess"] = pairwise_ratio(rate["ray2"], rate["inprocess"])
        results["ray2_vs_ray1"] = pairwise_ratio(rate["ray2"], rate["ray1"])
        results["ray1_async_vs_sync"] = pairwise_ratio(rate["ray1+learn"], rate["sync+learn"])
        print(f"ray, 1 worker vs in process: {results['ray1_vs_inprocess']:.2f}x   "
              f"(target >= 0.8x)")  # fmt: skip
        print(f"ray, 2 workers vs 1: {results['ray2_vs_ray1']:.2f}x   (2 cores, and llvmpipe "
              f"already renders on both)")  # fmt: skip
        print(f"ray, 1 worker, send/learn/recv vs in-process sync+learn: "
              f"{results['ray1_async_vs_sync']:.2f}x")  # fmt: skip
        for env in ray_envs:
            env.close()
        ray.shutdown()
    async_env.close()
    sync.close()
    write_json(args.json, results)


def time_step(env, action) -> float:
    start = time.perf_counter()
    env.step(action)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
