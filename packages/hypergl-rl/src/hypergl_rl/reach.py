"""The reach task's dynamics, batched over environments in NumPy.

A blue sphere (the agent's hand) rolls on a checkered floor; it must touch a
red sphere placed at random. Two grey spheres are distractors the agent must
learn to ignore. Everything is arrays of shape (E, ...): one step is a few vectorised
NumPy operations whatever E is.

The task is a *state source*: something with ``num_envs``, ``reset(envs, rng)``,
``step(actions)`` and ``write(renderer)``. The renderer only sees what
``write`` puts in its mapped views, so a physics engine (the Culverin bridge,
later) can replace this class without touching the renderer or the gymnasium
wrappers.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from .actions import as_actions
from .errors import positive_int

HAND, TARGET, GREY_A, GREY_B = range(4)
OBJECTS = 4


class StateSource(Protocol):
    """What the environments need from a simulation (NumPy now, a physics bridge later).

    Every array is batched over ``num_envs``; ``envs`` is an index or bool array.
    """

    num_envs: int
    action_dim: int

    def setup(self, renderer: Any) -> None:
        """Write the static scene (radii, colours, floor, camera) into the renderer."""

    def reset(self, envs: np.ndarray, rng: np.random.Generator) -> None:
        """Start new episodes in `envs`."""

    def check_actions(self, actions: Any) -> np.ndarray:
        """Actions as float32 (num_envs, action_dim), or ActionError naming what is wrong."""

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance every episode: (reward float32, terminated bool, truncated bool)."""

    def write(self, renderer: Any) -> None:
        """Write the moving state (positions) into the renderer's mapped views."""

    def info(self) -> dict[str, np.ndarray]:
        """Per-environment extras for the step's info dict."""


class ReachTask:
    """E reach episodes: actions (E, 2) in [-1, 1] move the hand in x and z.

    Reward per step: minus the hand-target distance, plus `success_bonus` when
    they touch (the episode then terminates). Episodes are truncated after
    `max_steps` steps.
    """

    action_dim = 2
    # Public attributes, declared for type checkers (set in __init__).
    num_envs: int
    max_steps: int
    steps: np.ndarray  # each environment's steps since its reset
    arena: float
    speed: float
    success_bonus: float
    hand_radius: float
    target_radius: float
    radii: np.ndarray
    hand: np.ndarray
    target: np.ndarray

    def __init__(
        self,
        num_envs: int,
        *,
        arena: float = 1.0,
        speed: float = 0.08,
        max_steps: int = 100,
        success_bonus: float = 10.0,
    ) -> None:
        self.num_envs = positive_int(num_envs, "num_envs")
        self.max_steps = positive_int(max_steps, "max_steps")
        self.arena, self.speed, self.success_bonus = float(arena), float(speed), success_bonus
        self.hand_radius, self.target_radius = 0.16, 0.14
        self.radii = np.float32([self.hand_radius, self.target_radius, 0.12, 0.12])
        self.hand = np.zeros((self.num_envs, 2), np.float32)  # x, z
        self.target = np.zeros((self.num_envs, 2), np.float32)
        self.grey: np.ndarray = np.zeros((self.num_envs, 2, 2), np.float32)
        self.steps = np.zeros(self.num_envs, np.int64)

    def reset(self, envs: np.ndarray, rng: np.random.Generator) -> None:
        """New episodes in `envs` (an index or bool array): random hand, target, boxes."""
        n = int(np.count_nonzero(envs)) if np.asarray(envs).dtype == bool else len(envs)
        if n == 0:
            return
        lim = self.arena * 0.8
        self.hand[envs] = rng.uniform(-lim, lim, (n, 2))
        target = rng.uniform(-lim, lim, (n, 2))
        # Keep the target away from the hand, so no episode starts solved.
        close = np.linalg.norm(target - self.hand[envs], axis=1) < 0.5
        target[close] = -np.sign(self.hand[envs][close]) * lim * 0.8
        self.target[envs] = target
        self.grey[envs] = rng.uniform(-self.arena, self.arena, (n, 2, 2))
        self.steps[envs] = 0

    def check_actions(self, actions: Any) -> np.ndarray:
        """Actions as float32 (E, 2), clipped to [-1, 1]; ActionError names bad ones."""
        return np.clip(as_actions(actions, (self.num_envs, self.action_dim)), -1.0, 1.0)

    def distance(self) -> np.ndarray:
        return np.linalg.norm(self.hand - self.target, axis=1)

    def info(self) -> dict[str, np.ndarray]:
        return {"distance": self.distance().astype(np.float32)}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance every episode one step: (reward, terminated, truncated), each (E,)."""
        self.hand += actions * self.speed
        np.clip(self.hand, -self.arena, self.arena, out=self.hand)
        self.steps += 1
        distance = self.distance()
        terminated = distance < self.hand_radius + self.target_radius
        reward = (-distance + self.success_bonus * terminated).astype(np.float32)
        truncated = (self.steps >= self.max_steps) & ~terminated
        return reward, terminated, truncated

    # --- what the renderer sees ---------------------------------------------------------
    def setup(self, renderer: Any) -> None:
        """Static scene: radii, colours, floor and camera (once)."""
        if renderer.max_objects < OBJECTS:
            raise ValueError(f"the reach task needs max_objects >= {OBJECTS}, "
                             f"got {renderer.max_objects}")  # fmt: skip
        renderer.radius[:, :OBJECTS] = self.radii
        renderer.radius[:, OBJECTS:] = 0.0
        renderer.position[:, :, 1] = renderer.radius  # resting on the floor
        renderer.color[:, HAND] = (0.15, 0.35, 0.95)
        renderer.color[:, TARGET] = (0.95, 0.2, 0.15)
        renderer.color[:, GREY_A : GREY_B + 1] = (0.6, 0.6, 0.6)
        renderer.floor_color[:] = (0.6, 0.62, 0.55)
        renderer.checker[:] = 2.5
        renderer.look_at(eye=(0.0, 2.3, -1.5), target=(0.0, 0.0, 0.05), fov=50.0)

    def write(self, renderer: Any) -> None:
        """Copy x, z positions into the renderer's mapped state (GPU memory, no upload)."""
        pos = renderer.position
        pos[:, HAND, 0::2] = self.hand
        pos[:, TARGET, 0::2] = self.target
        pos[:, GREY_A : GREY_B + 1, 0::2] = self.grey
