"""Env-frames/s of the pixel reach task at E = 256 per worker, 84x84 RGB: in process, async, Ray.

Variants, run interleaved (A B C ... per round, medians of per-round ratios):

* ``inprocess``: ``ReachVectorEnv(256).step`` in a loop (synchronous: in one process
  there is nothing to overlap a step with but the learner, below);
* ``ray1`` / ``ray2``: ``RayVectorEnv`` with 1 and 2 Ray actors of 256 environments
  each, driven for throughput with ``send``/``recv`` and ``--in-flight`` (2) steps in
  flight (``max_in_flight``): the actor renders step k+1 while the driver takes step k.
  The actions are random, so sending one ahead is allowed (EnvPool's benchmarks drive
  their async mode the same way); a policy would need its own groups of envs for that.
  The workers send observations in pieces of at most 1 MiB (see hypergl_rl.ray_env),
  copied into the driver's batch. ``ray1_sync``: the same actor with ``step`` (one in
  flight);
* ``ray1_runner``: RLlib's way (its env runners make the env in the actor through
  ``gymnasium.make_vec``): one actor steps a ``ReachVectorEnv(256)`` of its own
  ``--fragment`` (5) steps per call and sends the fragment's observations as one object,
  2 calls in flight; random actions stand in for the policy RLlib runs in the actor;
* ``transfer``: what Ray alone costs per batch: an actor that returns a ready
  (256, 84, 84, 3) uint8 array without stepping, with the same steps in flight;
* ``ray1+learn``: one actor stepped with ``send``/learn/``recv``, against ``sync+learn``;
* ``sync+learn`` / ``async+learn``: a learner step after every env step, taking as long
  as one env step; synchronous (``step`` then learn) against ``AsyncReachVectorEnv``
  (``send`` the next actions, learn on the batch just received, ``recv``).
  ``--learner sleep`` (the default) stands for a learner on an accelerator, which
  leaves the CPU to the renderer; ``--learner numpy`` is a CPU-bound learner (a BLAS
  matmul, which releases the GIL) that competes with llvmpipe for the same cores.

    python benchmarks/rl_scale.py [--envs 256] [--steps 20] [--repeat 5] [--in-flight 2]
                                  [--learner sleep|numpy] [--no-ray] [--json FILE]

Goals (issue 18): ray1 >= 0.8x inprocess at the same E; async >= 1.2x sync when the
learner step takes as long as a render. Ray needs ``pip install 'hypergl-rl[ray]'``;
without it the Ray variants are left out (and their keys are absent from the JSON).

Why ray1 stays under 0.8x on this 2-core machine (measured 2026-12-01, load 4-6 from
other jobs): every step's observations are one 5.4 MB object, and Ray's object store
costs 2.3-2.6 ms of CPU per such object (driver 0.8-0.95, actor 0.9-1.05, raylet
0.6-0.8; the memcpy into shared memory is 0.2 of it) against 4.0-4.7 ms of CPU for an
in-process step, on the same two cores llvmpipe renders on (``transfer_ms`` against
``step_ms``). In the actor a step takes 6-7.6 ms but one starts every 9.5-12.5 ms.
Tried and not kept: one worker's observations as one array, handed to the driver
zero-copy from the object store (Ray copies a buffer over 1 MiB in with threads it starts
per copy: 0.50x against 0.56x for pieces and a copy, medians of 12 rounds); 3 steps in
flight (no better than 2); a threaded actor that renders
step k+1 while Ray stores step k (0.59x either way: no idle core to overlap into);
Ray's compiled graphs (``experimental_compile``, shared-memory channels: the transfer
alone drops to 0.4-0.9 ms, but the reader polls, the driver's CPU time rose, a step
through the graph was slower than in process, and a dead actor tears the graph down).
A GPU renders without those cores; there the transfer runs beside the render, and one
worker per GPU (``num_gpus_per_worker``) adds a device, not a share of the same cores.
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import interleaved, median, pairwise_ratio, parser, write_json

from hypergl_rl import AsyncReachVectorEnv, ReachVectorEnv


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


def pipelined(env, actions, in_flight: int):
    """send() up to `in_flight` steps ahead, recv() the oldest: EnvPool-style throughput."""

    def run() -> None:
        for k, action in enumerate(actions):
            if k >= in_flight:
                env.recv()
            env.send(action)
        for _ in range(min(in_flight, len(actions))):
            env.recv()

    return run


def transfer_only(ray, e: int, in_flight: int, steps: int):
    """Ray alone: an actor that returns a ready (e, 84, 84, 3) uint8 array per call, in
    pieces of 1 MiB or less as RayVectorEnv's workers send it (see hypergl_rl.ray_env)."""

    @ray.remote(num_cpus=0.25)  # beside the 3 RayVectorEnv actors' 1.5
    class Frames:
        def __init__(self) -> None:
            obs = np.full((e, 84, 84, 3), 7, np.uint8)
            rows = max(1, 2**20 // obs[0].nbytes)
            self.pieces = [obs[i : i + rows] for i in range(0, e, rows)]

        def step(self, _actions):
            return self.pieces

    actor = Frames.remote()
    actions = np.zeros((e, 2), np.float32)

    def run() -> None:
        refs = [actor.step.remote(actions) for _ in range(min(in_flight, steps))]
        for k in range(steps):
            ray.get(refs.pop(0), timeout=120)
            if k + in_flight < steps:
                refs.append(actor.step.remote(actions))

    return run


def env_runner(ray, e: int, steps: int, fragment: int, in_flight: int):
    """RLlib's way: an actor steps a ReachVectorEnv of its own `fragment` steps at a time
    (random actions stand in for the policy RLlib runs there) and sends each fragment's
    observations as one object, in pieces of 1 MiB or less, `in_flight` fragments ahead."""

    @ray.remote(num_cpus=0.25)  # beside the 3 RayVectorEnv actors' 1.5
    class Runner:
        def __init__(self) -> None:
            self.env = ReachVectorEnv(e)
            self.env.reset(seed=0)
            self.obs = np.empty((fragment * e, 84, 84, 3), np.uint8)
            self.rng = np.random.default_rng(0)
            self.rows = max(1, 2**20 // self.obs[0].nbytes)

        def sample(self):
            for t in range(fragment):
                action = self.rng.uniform(-1, 1, (e, 2)).astype(np.float32)
                self.obs[t * e : (t + 1) * e] = self.env.step(action)[0]
            return [self.obs[i : i + self.rows] for i in range(0, len(self.obs), self.rows)]

    runner = Runner.remote()
    calls = max(1, steps // fragment)
    batch = np.empty((fragment * e, 84, 84, 3), np.uint8)

    def run() -> None:
        refs = [runner.sample.remote() for _ in range(min(in_flight, calls))]
        for k in range(calls):
            row = 0
            for piece in ray.get(refs.pop(0), timeout=120):  # into the learner's batch
                batch[row : row + len(piece)] = piece
                row += len(piece)
            if k + in_flight < calls:
                refs.append(runner.sample.remote())

    return run, calls * fragment * e


def start_ray():
    try:
        import ray
    except ImportError:
        print("Ray is not installed: ray1/ray2 left out (pip install 'hypergl-rl[ray]')")
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
    p.add_argument("--in-flight", type=int, default=2, help="Ray steps sent ahead (ray1, ray2)")
    p.add_argument("--fragment", type=int, default=5, help="steps per ray1_runner sample call")
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
        from hypergl_rl import RayVectorEnv

        k = args.in_flight
        for workers in (1, 2):  # 0.5 CPU each: 3 actors, and 2 x 0.25 below, on 2 CPUs
            env = RayVectorEnv(workers, e, num_cpus_per_worker=0.5, max_in_flight=k)
            env.reset(seed=0)
            ray_envs.append(env)
            both = np.concatenate([actions] * workers, axis=1)
            variants[f"ray{workers}"] = pipelined(env, both, k)
            frames[f"ray{workers}"] = workers * e * steps
        variants["ray1_sync"] = stepper(ray_envs[0], actions)
        variants["transfer"] = transfer_only(ray, e, k, steps)
        # Ray's step_async/step_wait: the actor renders batch k+1 while the learner works.
        variants["ray1+learn"] = async_with_learner(ray_envs[0], actions, learn)
        variants["ray1_runner"], frames["ray1_runner"] = env_runner(ray, e, steps, args.fragment, k)
        frames.update({"ray1_sync": e * steps, "transfer": e * steps, "ray1+learn": e * steps})

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
        results["transfer_ms"] = median(samples["transfer"]) / steps * 1e3
        results["ray1_vs_inprocess"] = pairwise_ratio(rate["ray1"], rate["inprocess"])
        results["ray1_sync_vs_inprocess"] = pairwise_ratio(rate["ray1_sync"], rate["inprocess"])
        results["ray2_vs_inprocess"] = pairwise_ratio(rate["ray2"], rate["inprocess"])
        results["ray2_vs_ray1"] = pairwise_ratio(rate["ray2"], rate["ray1"])
        results["ray1_runner_vs_inprocess"] = pairwise_ratio(rate["ray1_runner"],
                                                             rate["inprocess"])  # fmt: skip
        results["ray1_async_vs_sync"] = pairwise_ratio(rate["ray1+learn"], rate["sync+learn"])
        print(f"ray, 1 worker ({k} steps in flight) vs in process (sync): "
              f"{results['ray1_vs_inprocess']:.2f}x   (target >= 0.8x); with step(): "
              f"{results['ray1_sync_vs_inprocess']:.2f}x")  # fmt: skip
        print(f"ray, 1 RLlib-style env runner ({args.fragment} steps per sample, {k} in "
              f"flight) vs in process: {results['ray1_runner_vs_inprocess']:.2f}x")  # fmt: skip
        print(f"Ray alone moves a batch in {results['transfer_ms']:.1f} ms ({k} in flight), "
              f"an in-process step takes {results['step_ms']:.1f} ms")  # fmt: skip
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
