"""PPO from pixels on MuJoCo's HalfCheetah-v5: a small CNN policy in torch, every
sub-environment of a gymnasium vector env rendered by HyperGL in one submit per step.

The agent sees only ``--size`` x ``--size`` RGB frames from the cheetah's tracking camera
(``hypergl_mujoco.VectorPixelObservations`` over ``gym.make_vec(..., vectorization_mode=
"sync")``, same-step autoreset: an episode's last frame, rendered before the reset, is in
``info["final_obs"]`` and bootstraps the value of a truncated episode).

    python examples/mujoco_pixels_ppo.py [--envs 8] [--steps 1024] [--rollout 64]

Needs torch (``python3 tools/dev.py examples`` makes an environment with it and runs this
for a few iterations). Prints each iteration's reward and where the time went.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from hypergl_mujoco import VectorPixelObservations


class Policy(nn.Module):  # type: ignore[misc]  # torch: not followed by mypy (pyproject)
    """A CNN over (N, H, W, 3) uint8 frames: a Gaussian policy's mean and a value."""

    def __init__(self, size: int, actions: int) -> None:
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 8, stride=4), nn.ReLU(),
            nn.Conv2d(16, 32, 4, stride=2), nn.ReLU(),
            nn.Flatten(),
        )  # fmt: skip
        features = self.encoder(torch.zeros(1, 3, size, size)).shape[1]
        self.mean = nn.Sequential(nn.Linear(features, 128), nn.ReLU(), nn.Linear(128, actions))
        self.value = nn.Sequential(nn.Linear(features, 128), nn.ReLU(), nn.Linear(128, 1))
        self.log_std = nn.Parameter(torch.full((actions,), -0.5))

    def forward(self, frames: torch.Tensor) -> tuple[torch.distributions.Normal, torch.Tensor]:
        x = self.encoder(frames.permute(0, 3, 1, 2).float() / 255.0)
        return torch.distributions.Normal(self.mean(x), self.log_std.exp()), self.value(x)[:, 0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=8, help="sub-environments stepped together")
    p.add_argument("--steps", type=int, default=1024, help="total environment steps")
    p.add_argument("--rollout", type=int, default=64, help="steps per env per iteration")
    p.add_argument("--size", type=int, default=84, help="image width and height")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)

    envs = VectorPixelObservations(
        gym.make_vec("HalfCheetah-v5", args.envs, vectorization_mode="sync",
                     vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}),
        width=args.size, height=args.size, camera="track",
    )  # fmt: skip
    actions = envs.single_action_space
    assert isinstance(actions, gym.spaces.Box)  # HalfCheetah's torques
    low, high = actions.low, actions.high
    policy = Policy(args.size, actions.shape[0])
    optimiser = torch.optim.Adam(policy.parameters(), lr=3e-4)
    gamma, lam, clip = 0.99, 0.95, 0.2

    obs, _ = envs.reset(seed=args.seed)
    iterations = max(args.steps // (args.envs * args.rollout), 1)
    env_seconds = learn_seconds = step_seconds = 0.0  # step: physics and the render
    for iteration in range(iterations):
        frames, acts, logps, values, rewards, dones = [], [], [], [], [], []
        start = time.perf_counter()
        for _ in range(args.rollout):
            with torch.no_grad():
                dist, value = policy(torch.from_numpy(obs))
                action = dist.sample()
            frames.append(obs)
            acts.append(action)
            logps.append(dist.log_prob(action).sum(-1))
            values.append(value)
            stepped = time.perf_counter()
            obs, reward, terminated, truncated, info = envs.step(np.clip(action.numpy(), low, high))
            step_seconds += time.perf_counter() - stepped
            reward = torch.as_tensor(reward, dtype=torch.float32)
            if truncated.any():  # bootstrap a cut episode from its last frame
                ended = np.flatnonzero(truncated & ~terminated)
                last = np.stack([info["final_obs"][i] for i in ended])
                with torch.no_grad():
                    reward[ended] += gamma * policy(torch.from_numpy(last))[1]
            rewards.append(reward)
            dones.append(torch.as_tensor(terminated | truncated, dtype=torch.float32))
        with torch.no_grad():
            next_value = policy(torch.from_numpy(obs))[1]
        env_seconds += time.perf_counter() - start

        start = time.perf_counter()
        advantages = torch.zeros(args.rollout, args.envs)
        running = torch.zeros(args.envs)
        for t in reversed(range(args.rollout)):
            following = next_value if t == args.rollout - 1 else values[t + 1]
            delta = rewards[t] + gamma * following * (1 - dones[t]) - values[t]
            running = delta + gamma * lam * (1 - dones[t]) * running
            advantages[t] = running
        returns = advantages + torch.stack(values)
        batch = (torch.from_numpy(np.concatenate(frames)), torch.cat(acts), torch.cat(logps),
                 advantages.reshape(-1), returns.reshape(-1))  # fmt: skip
        for _ in range(2):  # epochs over shuffled minibatches of 256
            order = torch.randperm(len(batch[0]))
            for chunk in order.split(256):
                x, a, old_logp, adv, ret = (part[chunk] for part in batch)
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                dist, value = policy(x)
                ratio = (dist.log_prob(a).sum(-1) - old_logp).exp()
                surrogate = torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv)
                loss = (-surrogate.mean() + 0.5 * (value - ret).pow(2).mean()
                        - 0.001 * dist.entropy().mean())  # fmt: skip
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        learn_seconds += time.perf_counter() - start
        steps = (iteration + 1) * args.rollout * args.envs
        print(f"iteration {iteration + 1}/{iterations}: mean reward "
              f"{torch.stack(rewards).mean().item():+.3f}, loss {loss.item():.3f}")  # fmt: skip

    envs.close()
    total = env_seconds + learn_seconds
    print(f"mujoco_pixels_ppo: {steps} env-steps of {args.size}x{args.size} pixels in "
          f"{total:.1f} s: rollouts {env_seconds:.1f} s ({steps / env_seconds:,.0f} "
          f"env-steps/s; envs.step, physics and the render, {step_seconds:.1f} s of it, "
          f"{steps / step_seconds:,.0f} env-steps/s), learning {learn_seconds:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
