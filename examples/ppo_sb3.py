"""PPO with a CNN policy (Stable-Baselines3) on the pixel reach task.

The agent sees only 84x84 RGB frames: ``hypergl_rl.sb3_vec_env`` gives SB3 a
VecEnv whose E environments are rendered by one ReachVectorEnv per step (same-step
autoreset, ``terminal_observation`` in the infos, as SB3 expects). SB3's PPO
transposes the frames for its NatureCNN policy by itself.

    python examples/ppo_sb3.py [--envs 8] [--steps 512] [--asynchronous]

Needs torch and stable-baselines3 (``python3 tools/dev.py examples`` makes an
environment with both and runs this for a few hundred steps).
"""

from __future__ import annotations

import argparse
import time

from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecMonitor

from hypergl_rl import sb3_vec_env


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=8, help="environments stepped together")
    p.add_argument("--steps", type=int, default=512, help="total environment steps")
    p.add_argument("--max-steps", type=int, default=50, help="steps per episode")
    p.add_argument("--asynchronous", action="store_true",
                   help="render the next batch in a worker thread while PPO works")  # fmt: skip
    args = p.parse_args()
    env = VecMonitor(sb3_vec_env(num_envs=args.envs, max_steps=args.max_steps,
                                 asynchronous=args.asynchronous))  # fmt: skip
    n_steps = max(args.steps // args.envs, 8)
    model = PPO("CnnPolicy", env, n_steps=n_steps, batch_size=min(64, n_steps * args.envs),
                n_epochs=2, learning_rate=3e-4, seed=0, verbose=1)  # fmt: skip
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - start
    print(f"ppo_sb3: {model.num_timesteps} env steps in {seconds:.1f} s "
          f"({model.num_timesteps / seconds:,.0f} steps/s, learning included)")  # fmt: skip
    env.close()


if __name__ == "__main__":
    main()
