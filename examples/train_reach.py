"""Train a tiny NumPy policy on the pixel reach task, E environments at a time.

The agent sees only 84x84 RGB frames from ``hypergl_rl.ReachVectorEnv``. Its
features are read from the pixels (the image centroids of the red target and
the blue hand); a linear Gaussian policy maps them to a velocity and is
trained with REINFORCE (discounted rewards-to-go over short rollouts, a mean
baseline). ``--policy random`` just samples actions: the rendering throughput.

    python examples/train_reach.py [--envs 64] [--steps 50000] [--policy reinforce|random]

Needs gymnasium (``pip install 'hypergl-rl[gym]'``) and OpenGL (headless EGL).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from hypergl_rl import ReachVectorEnv


def features(obs: np.ndarray) -> np.ndarray:
    """(E, 2): image offset from the hand to the target, each axis in about [-1, 1].

    Centroids of clearly red and clearly blue pixels; an object out of view
    counts as the image centre.
    """
    frames = obs[:, ::2, ::2].astype(np.int16)  # every other pixel is plenty for centroids
    r, g, b = frames[..., 0], frames[..., 1], frames[..., 2]
    red = (r > g + 50) & (r > b + 50)
    blue = (b > r + 50) & (b > g + 30)
    height, width = frames.shape[1:3]
    ys = (np.arange(height, dtype=np.float32) / (height - 1) * 2 - 1)[None, :, None]
    xs = (np.arange(width, dtype=np.float32) / (width - 1) * 2 - 1)[None, None, :]

    def centroid(mask: np.ndarray) -> np.ndarray:
        count = np.maximum(mask.sum(axis=(1, 2)), 1)
        sums = np.stack([(mask * xs).sum(axis=(1, 2)), (mask * ys).sum(axis=(1, 2))], 1)
        return np.asarray(sums / count[:, None])

    return np.asarray(centroid(red) - centroid(blue), dtype=np.float32)


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.width, self.start, self.last = total, width, time.perf_counter(), 0.0

    def update(self, done: int, note: str = "", force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        filled = int(self.width * done / self.total)
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "." * (self.width - filled)
        sys.stderr.write(f"\r[{bar}] {done:>8}/{self.total} env-steps  {rate:9,.0f}/s  {note}")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=64, help="environments stepped together")
    p.add_argument("--steps", type=int, default=50_000, help="total environment steps")
    p.add_argument("--policy", choices=("reinforce", "random"), default="reinforce")
    p.add_argument("--rollout", type=int, default=16, help="steps per REINFORCE update")
    p.add_argument("--lr", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    env = ReachVectorEnv(args.envs)
    rng = np.random.default_rng(args.seed)
    weights = np.zeros((2, 2), np.float32)  # action mean = features @ weights
    sigma, gamma = 0.5, 0.95
    obs, _ = env.reset(seed=args.seed)
    restarting = np.zeros(args.envs, bool)  # NEXT_STEP autoreset: that step's action is ignored
    per_rollout = args.rollout * args.envs
    total = -(-args.steps // per_rollout) * per_rollout  # whole rollouts: --steps rounded up
    progress = Progress(total)
    done_steps, episodes, successes, recent = 0, 0, 0, []
    start = time.perf_counter()
    while done_steps < total:
        trajectory = []
        for _ in range(args.rollout):
            if args.policy == "random":
                feats = None
                actions = rng.uniform(-1, 1, (args.envs, 2)).astype(np.float32)
            else:
                feats = features(obs)
                mean = feats @ weights
                actions = (mean + sigma * rng.standard_normal(mean.shape)).astype(np.float32)
            obs, reward, terminated, truncated, _ = env.step(actions)
            trajectory.append((feats, actions, reward, ~restarting, terminated | truncated))
            episodes += int(np.count_nonzero(terminated | truncated))
            successes += int(np.count_nonzero(terminated))
            restarting = terminated | truncated
            recent.append(float(reward.mean()))
            done_steps += args.envs
        if args.policy == "reinforce":
            # Rewards-to-go within the rollout, cut at episode ends.
            returns, future = [], np.zeros(args.envs, np.float32)
            for _, _, reward, _, ended in reversed(trajectory):
                future = reward + gamma * future * ~ended
                returns.append(future)
            returns.reverse()
            valid = np.stack([t[3] for t in trajectory])
            advantage = np.stack(returns)
            advantage = (advantage - advantage[valid].mean()) / (advantage[valid].std() + 1e-6)
            grad = np.zeros_like(weights)
            for (feats, actions, *_), adv, ok in zip(trajectory, advantage, valid, strict=True):
                assert feats is not None  # the REINFORCE policy always computes features
                score = (actions - feats @ weights) / sigma**2  # d log pi / d mean
                grad += feats.T @ (score * (adv * ok)[:, None])
            weights += args.lr * grad / max(int(valid.sum()), 1)
        recent = recent[-200:]
        progress.update(
            done_steps,
            f"reward {np.mean(recent):+.3f}  success {successes}/{max(episodes, 1)}",
        )
    elapsed = time.perf_counter() - start
    progress.update(done_steps, f"reward {np.mean(recent):+.3f}", force=True)
    progress.close()
    env.close()
    print(f"{done_steps} env-steps in {elapsed:.2f} s: {done_steps / elapsed:,.0f} env-steps/s "
          f"({args.envs} environments, {args.policy} policy, 84x84 RGB observations)")  # fmt: skip
    print(f"episodes {episodes}, reached the target in {successes} "
          f"({successes / max(episodes, 1):.0%}); mean reward of the last steps "
          f"{np.mean(recent):+.3f}")  # fmt: skip
    if args.policy == "reinforce":
        print(f"policy weights (features -> action): {weights.astype(float).round(2).tolist()}")


if __name__ == "__main__":
    main()
