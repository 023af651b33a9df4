"""The reach task of `hypergl_rl`, advanced by Culverin (Jolt) instead of NumPy.

Same observations, actions and rewards as `hypergl_rl.ReachTask`, but the hand
is a physical sphere driven by its velocity, and it shoves the two grey spheres
around instead of passing through them. The E environments live side by side
in one world (ENV_SPACING apart, walls of each arena keep the spheres in), so
one `world.step()` advances all of them.

Use it as the `task=` of `hypergl_rl.ReachVectorEnv` / `ReachEnv`. Needs Culverin:
``pip install 'hypergl-rl[culverin]'``.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

import culverin
import numpy as np

from .reach import GREY_A, GREY_B, HAND, OBJECTS, TARGET, ReachTask

ENV_SPACING = 4.0  # metres between arenas, so they never touch
SUBSTEPS = 2  # physics steps per environment step
DT = 1.0 / 60.0


class CulverinReachTask(ReachTask):
    """E reach episodes in one Culverin world; `step` is a physics step, not arithmetic."""

    steps: np.ndarray  # as ReachTask's (counted here too)

    def __init__(self, num_envs: int, **options: Any) -> None:
        super().__init__(num_envs, **options)
        n = self.num_envs
        settings = {"max_bodies": n * (OBJECTS + 4) + 8}
        self.world: culverin.PhysicsWorld = culverin.PhysicsWorld(settings=settings)
        self.origin: np.ndarray = np.zeros((n, 2), np.float32)
        self.origin[:, 0] = np.arange(n) * ENV_SPACING
        half = self.arena + 0.1
        width = n * ENV_SPACING
        self.world.create_body(pos=(width / 2, -0.5, 0), size=(width, 0.5, 4.0),
                               shape=culverin.SHAPE_BOX, motion=culverin.MOTION_STATIC)  # fmt: skip
        self.handles: np.ndarray = np.zeros((n, OBJECTS), np.uint64)
        for env in range(n):
            x = float(self.origin[env, 0])
            for dx, dz, sx, sz in ((half, 0, 0.05, half), (-half, 0, 0.05, half),
                                   (0, half, half, 0.05), (0, -half, half, 0.05)):  # fmt: skip
                self.world.create_body(pos=(x + dx, 0.3, dz), size=(sx, 0.3, sz),
                                       shape=culverin.SHAPE_BOX,
                                       motion=culverin.MOTION_STATIC)  # fmt: skip
            for obj in range(OBJECTS):
                motion = culverin.MOTION_STATIC if obj == TARGET else culverin.MOTION_DYNAMIC
                self.handles[env, obj] = self.world.create_body(
                    pos=(x, float(self.radii[obj]), 0.0), size=float(self.radii[obj]),
                    shape=culverin.SHAPE_SPHERE, motion=motion,
                )  # fmt: skip
        self.world.step(DT)  # bodies join the world at the next step
        self._rows = np.array([[self.world.get_index(int(h)) for h in row] for row in self.handles])

    def _place(self, env: int, obj: int, xz: np.ndarray) -> None:
        handle = int(self.handles[env, obj])
        x, z = float(xz[0] + self.origin[env, 0]), float(xz[1])
        self.world.set_position(handle, x, float(self.radii[obj]), z)
        if obj != TARGET:
            self.world.set_linear_velocity(handle, 0.0, 0.0, 0.0)

    def reset(self, envs: np.ndarray, rng: np.random.Generator) -> None:
        """New episodes: the NumPy task draws the places, the bodies are moved there."""
        super().reset(envs, rng)
        for env in np.arange(self.num_envs)[envs]:
            self._place(env, HAND, self.hand[env])
            self._place(env, TARGET, self.target[env])
            self._place(env, GREY_A, self.grey[env, 0])
            self._place(env, GREY_B, self.grey[env, 1])
        self._read_positions()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The hand's velocity follows the action; Culverin moves everything."""
        velocity = actions * (self.speed / (SUBSTEPS * DT))
        for env in range(self.num_envs):
            vx, vz = float(velocity[env, 0]), float(velocity[env, 1])
            self.world.set_linear_velocity(int(self.handles[env, HAND]), vx, 0.0, vz)
        for _ in range(SUBSTEPS):
            self.world.step(DT)
        self._read_positions()
        self.steps += 1
        distance = self.distance()
        terminated = distance < self.hand_radius + self.target_radius + 0.02
        reward = (-distance + self.success_bonus * terminated).astype(np.float32)
        truncated = (self.steps >= self.max_steps) & ~terminated
        return reward, terminated, truncated

    def _read_positions(self) -> None:
        """Arena-relative x, z of every sphere, from one view of Culverin's positions."""
        positions = np.frombuffer(self.world.positions, np.float64).reshape(-1, 4)
        xz = positions[self._rows][..., 0::2].astype(np.float32)  # (E, OBJECTS, 2)
        xz -= self.origin[:, None, :]
        self.hand[:] = xz[:, HAND]
        self.target[:] = xz[:, TARGET]
        self.grey[:] = xz[:, GREY_A : GREY_B + 1]


CULVERIN_REACH_ID = "hypergl/ReachCulverin-v0"


def register_envs() -> None:
    """Register hypergl/ReachCulverin-v0: hypergl/Reach-v0 with this task (idempotent).

    Done on import of this module, so ``gym.make("hypergl_rl.culverin_reach:hypergl/
    ReachCulverin-v0")`` works in any process; the world is made at the first reset.
    """
    from gymnasium.envs.registration import register, registry

    from .registration import ENTRY_POINT, VECTOR_ENTRY_POINT

    if CULVERIN_REACH_ID not in registry:
        register(id=CULVERIN_REACH_ID, entry_point=ENTRY_POINT,
                 vector_entry_point=VECTOR_ENTRY_POINT,
                 kwargs={"task": CulverinReachTask})  # fmt: skip


if find_spec("gymnasium") is not None:
    register_envs()
