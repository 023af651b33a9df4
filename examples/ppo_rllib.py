"""PPO with a CNN policy (RLlib, on Ray) on the pixel reach task.

RLlib's env runner (a Ray actor) builds its environments through
``hypergl_rl.rllib_env_creator``, which goes through ``gymnasium.make_vec`` with
the vector entry point: the runner's ``num_envs_per_env_runner`` environments are
one ReachVectorEnv, rendered in one call per step in the runner's own process
(its own OpenGL context). RLlib picks its default CNN encoder for 84x84 frames.

    python examples/ppo_rllib.py [--envs 8] [--steps 512] [--runners 1]

Needs torch and ray[rllib] (``python3 tools/dev.py examples`` makes an
environment with both and runs this for a few hundred steps).
"""

from __future__ import annotations

import argparse
import os
import time

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.tune.registry import register_env

from hypergl_rl import rllib_env_creator


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=8, help="environments per env runner")
    p.add_argument("--steps", type=int, default=512, help="environment steps to train on")
    p.add_argument("--runners", type=int, default=1, help="env runners (Ray actors); 0: local")
    p.add_argument("--max-steps", type=int, default=50, help="steps per episode")
    args = p.parse_args()
    os.environ.setdefault("RAY_memory_monitor_refresh_ms", "0")  # a shared machine
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=True,
             object_store_memory=256 * 2**20)  # fmt: skip
    register_env("hypergl-reach", rllib_env_creator)  # RLlib takes a creator by name
    batch = max(args.steps // max(args.runners, 1), args.envs)
    config = (
        PPOConfig()
        .environment(
            "hypergl-reach",
            env_config={"max_steps": args.max_steps, "float_observations": True},
        )
        .env_runners(
            num_env_runners=args.runners,
            num_envs_per_env_runner=args.envs,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=max(batch // args.envs, 1),
        )
        .training(train_batch_size_per_learner=args.steps, minibatch_size=64, num_epochs=2, lr=3e-4)
    )
    algo = config.build_algo()
    start = time.perf_counter()
    done = 0
    while done < args.steps:
        result = algo.train()
        runners = result.get("env_runners", {})
        done = int(
            result.get("num_env_steps_sampled_lifetime")
            or runners.get("num_env_steps_sampled_lifetime", args.steps)
        )
        print(
            f"ppo_rllib: iteration {result.get('training_iteration')}: {done} env steps, "
            f"episode return mean {runners.get('episode_return_mean', float('nan')):.2f}"
        )
    seconds = time.perf_counter() - start
    print(f"ppo_rllib: {done} env steps in {seconds:.1f} s (learning included)")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
