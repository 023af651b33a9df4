"""Gymnasium environments of the reach task, observed from pixels.

``ReachEnv`` is one environment (``gymnasium.Env``); ``ReachVectorEnv`` steps E
of them at once (``gymnasium.vector.VectorEnv``), rendered by one
``BatchRenderer`` into (E, H, W, 3) uint8 observations. Gymnasium is optional
(``hypergl-core[rl]``): it is imported here only, so ``import hypergl.rl``
works without it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as exc:  # pragma: no cover - exercised only without gymnasium
    raise ImportError(
        f"hypergl.rl's environments need gymnasium ({exc}); pip install 'hypergl-core[rl]'"
    ) from exc

from .batch_renderer import BatchRenderer
from .errors import ActionError, RLConfigError, positive_int
from .reach import ReachTask, StateSource


def _spaces(width: int, height: int, action_dim: int) -> tuple[spaces.Box, spaces.Box]:
    observation = spaces.Box(0, 255, (height, width, 3), np.uint8)
    action = spaces.Box(-1.0, 1.0, (action_dim,), np.float32)
    return observation, action


def _task(task: StateSource | None, num_envs: int, max_steps: int) -> StateSource:
    """The state source: the NumPy reach task by default, or the caller's own."""
    if task is None:
        return ReachTask(num_envs, max_steps=max_steps)
    if getattr(task, "num_envs", None) != num_envs:
        raise RLConfigError(f"task has num_envs={getattr(task, 'num_envs', None)!r}, the "
                            f"environment needs {num_envs}")  # fmt: skip
    return task


class ReachEnv(gymnasium.Env):
    """Move the blue sphere onto the red one, seeing only 84x84 RGB pixels.

    Action: (2,) float32 in [-1, 1], the hand's velocity in x and z.
    Reward: minus the distance to the target, +10 on touching it (terminates).
    Truncated after `max_steps` steps.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        width: int = 84,
        height: int = 84,
        max_steps: int = 100,
        task: StateSource | None = None,
        context: Any = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RLConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.task = _task(task, 1, max_steps)
        self.renderer = BatchRenderer(1, width, height, max_objects=4, context=context)
        self.task.setup(self.renderer)
        self.observation_space, self.action_space = _spaces(width, height, self.task.action_dim)
        self._frame = self.renderer.output[0]

    def _observe(self) -> np.ndarray:
        self.task.write(self.renderer)
        self.renderer.render()
        return self._frame.copy()  # 21 KB; callers may keep observations across steps

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task.reset(np.array([0]), self.np_random)
        return self._observe(), {k: float(v[0]) for k, v in self.task.info().items()}

    def step(self, action: Any):
        array = np.asarray(action, dtype=np.float32)
        if array.shape != (self.task.action_dim,):
            raise ActionError(f"action must have shape ({self.task.action_dim},), got "
                              f"{np.shape(action)}")  # fmt: skip
        actions = self.task.check_actions(array[None])
        reward, terminated, truncated = self.task.step(actions)
        info = {k: float(v[0]) for k, v in self.task.info().items()}
        return self._observe(), float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self._frame.copy()
        return None

    def close(self) -> None:
        if getattr(self, "renderer", None) is not None:
            self.renderer.close()
            self.renderer = None


class ReachVectorEnv(VectorEnv):
    """`num_envs` reach environments stepped together, observed as (E, H, W, 3) uint8.

    One NumPy step of the task and one render per ``step()``; environments that
    ended are reset on the following step (gymnasium's NEXT_STEP autoreset: that
    step ignores their action and returns reward 0).

    Observations are written into two alternating arrays: an observation stays
    valid for one more step (enough for ``(obs, next_obs)`` pairs) without a
    copy. ``copy=True`` returns fresh arrays instead. ``readback='ring'``
    returns each observation one step late (the renderer's one frame of
    latency): for throughput experiments, not for learning.

    ``task`` replaces the NumPy reach dynamics with another state source (see
    ``hypergl.rl.reach.StateSource``) that writes into the same renderer.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["rgb_array"],
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int,
        *,
        width: int = 84,
        height: int = 84,
        max_steps: int = 100,
        readback: str = "direct",
        copy: bool = False,
        render_mode: str | None = None,
        task: StateSource | None = None,
        context: Any = None,
    ) -> None:
        self.num_envs = positive_int(num_envs, "num_envs")
        if render_mode is not None and render_mode != "rgb_array":
            raise RLConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.task = _task(task, self.num_envs, max_steps)
        self.renderer = BatchRenderer(
            self.num_envs, width, height, max_objects=4, readback=readback, context=context
        )
        self.task.setup(self.renderer)
        self.single_observation_space, self.single_action_space = _spaces(
            width, height, self.task.action_dim
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.copy = bool(copy)
        shape = (self.num_envs, height, width, 3)
        self._buffers = (np.zeros(shape, np.uint8), np.zeros(shape, np.uint8))
        self._current = 0
        self._autoreset = np.zeros(self.num_envs, bool)

    def _observe(self) -> np.ndarray:
        self.task.write(self.renderer)
        self._current ^= 1
        obs = self.renderer.render(self._buffers[self._current])
        return obs.copy() if self.copy else obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self.task.reset(np.arange(self.num_envs), self.np_random)
        self._autoreset[:] = False
        return self._observe(), self.task.info()

    def step(self, actions: Any):
        actions = self.task.check_actions(actions)
        reward, terminated, truncated = self.task.step(actions)
        restart = self._autoreset
        if restart.any():
            self.task.reset(restart, self.np_random)
            reward[restart] = 0.0
            terminated[restart] = False
            truncated[restart] = False
        self._autoreset = terminated | truncated
        return self._observe(), reward, terminated, truncated, self.task.info()

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self._buffers[self._current].copy()
        return None

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "renderer", None) is not None:
            self.renderer.close()
            self.renderer = None
