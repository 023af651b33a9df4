"""Gymnasium environments of the reach task, observed from pixels.

``ReachEnv`` is one environment (``gymnasium.Env``); ``ReachVectorEnv`` steps E
of them at once (``gymnasium.vector.VectorEnv``), rendered by one
``BatchRenderer`` into (E, H, W, 3) uint8 observations. Gymnasium is optional
(``hypergl-rl[gym]``): it is imported here only, so ``import hypergl_rl``
works without it.

Both make their OpenGL context (and the task, when given as a factory) lazily,
at the first ``reset()``: making an environment in a parent process and
forking afterwards (gymnasium's AsyncVectorEnv does) is safe.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as _missing:  # pragma: no cover - exercised only without gymnasium
    raise ImportError(
        f"hypergl_rl's environments need gymnasium ({_missing}); pip install 'hypergl-rl[gym]'"
    ) from _missing

from hypergl.process_safety import check_same_process, new_context

from .actions import as_actions
from .batch_renderer import BatchRenderer
from .errors import RLConfigError, positive_int
from .reach import ReachTask, StateSource

TaskSpec = StateSource | Callable[..., StateSource] | None


def _spaces(width: int, height: int, action_dim: int) -> tuple[spaces.Box, spaces.Box]:
    observation = spaces.Box(0, 255, (height, width, 3), np.uint8)
    action = spaces.Box(-1.0, 1.0, (action_dim,), np.float32)
    return observation, action


def _task_spec(task: TaskSpec, num_envs: int) -> tuple[StateSource | None, int]:
    """(the task if already made, its action_dim); a factory is called at the first reset."""
    if task is None:
        return None, ReachTask.action_dim
    if callable(task) and not hasattr(task, "num_envs"):  # a class or factory
        action_dim = getattr(task, "action_dim", None)
        if isinstance(action_dim, bool) or not isinstance(action_dim, int) or action_dim < 1:
            raise RLConfigError(f"a task factory must have an int attribute action_dim >= 1 (a "
                                f"StateSource class has it), got {task!r}")  # fmt: skip
        return None, action_dim
    if getattr(task, "num_envs", None) != num_envs:
        raise RLConfigError(f"task has num_envs={getattr(task, 'num_envs', None)!r}, the "
                            f"environment needs {num_envs}")  # fmt: skip
    return task, int(task.action_dim)


def _make_task(task: TaskSpec, num_envs: int, max_steps: int) -> StateSource:
    if task is None:
        return ReachTask(num_envs, max_steps=max_steps)
    made = task(num_envs, max_steps=max_steps)
    if getattr(made, "num_envs", None) != num_envs:
        raise RLConfigError(f"the task factory {task!r} made a task with num_envs="
                            f"{getattr(made, 'num_envs', None)!r}, not {num_envs}")  # fmt: skip
    return made


def _device_index(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise RLConfigError(f"device_index must be None or an int >= 0, got {value!r}")
    return int(value)


def autoreset_mode_of(value: Any) -> AutoresetMode:
    """`value` as an AutoresetMode: the enum, its value ("SameStep") or its name ("same_step")."""
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        for mode in AutoresetMode:
            if value.replace("_", "").lower() == mode.value.lower():
                return mode
    modes = [mode.name.lower() for mode in AutoresetMode]
    raise RLConfigError(
        f"autoreset_mode must be one of {modes} (or a gymnasium AutoresetMode), got {value!r}"
    )


class _LazyScene:
    """The renderer, context and task of an environment, made at first use in its process."""

    def __init__(self, num_envs, width, height, max_steps, task, context, device_index, **render):
        self.num_envs, self.width, self.height = num_envs, width, height
        self.max_steps = positive_int(max_steps, "max_steps")
        self.task_spec = task
        self.task, self.action_dim = _task_spec(task, num_envs)
        if context is not None and device_index is not None:
            raise RLConfigError("give context= or device_index=, not both")
        self.context, self.device_index = context, _device_index(device_index)
        self.render_options = render
        self.renderer: BatchRenderer | None = None
        self.own_context: Any = None
        self.owner_pid: int | None = None

    def ready(self) -> BatchRenderer:
        if self.renderer is not None:
            check_same_process(self.owner_pid, "this environment's renderer")
            return self.renderer
        if self.task is None:
            self.task = _make_task(self.task_spec, self.num_envs, self.max_steps)
        context = self.context if self.context is not None else new_context(self.device_index)
        try:
            renderer = BatchRenderer(self.num_envs, self.width, self.height, max_objects=4,
                                     context=context, **self.render_options)  # fmt: skip
        except BaseException:
            if self.context is None:
                context.close()
            raise
        self.task.setup(renderer)
        self.renderer, self.owner_pid = renderer, os.getpid()
        self.own_context = context if self.context is None else None
        return renderer

    def close(self) -> None:
        # In a forked child the objects belong to the parent's context: leave them be.
        if self.renderer is not None and self.owner_pid == os.getpid():
            self.renderer.close()
            if self.own_context is not None:
                self.own_context.close()
        self.renderer = self.own_context = None


class ReachEnv(gymnasium.Env):
    """Move the blue sphere onto the red one, seeing only 84x84 RGB pixels.

    Action: (2,) float32 in [-1, 1], the hand's velocity in x and z.
    Reward: minus the distance to the target, +10 on touching it (terminates).
    Truncated after `max_steps` steps.

    ``task`` is a StateSource with num_envs=1, or a factory (such as a
    StateSource class) called as ``task(1, max_steps=...)`` at the first reset.
    ``device_index`` picks the EGL device (``hypergl.context(device_index=i)``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        width: int = 84,
        height: int = 84,
        max_steps: int = 100,
        task: TaskSpec = None,
        context: Any = None,
        device_index: int | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RLConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        width, height = positive_int(width, "width"), positive_int(height, "height")
        self._scene = _LazyScene(1, width, height, max_steps, task, context, device_index)
        self.observation_space: spaces.Box
        self.action_space: spaces.Box
        self.observation_space, self.action_space = _spaces(width, height, self._scene.action_dim)
        self._frame: np.ndarray | None = None

    @property
    def task(self) -> StateSource | None:
        return self._scene.task

    @property
    def renderer(self) -> BatchRenderer | None:
        return self._scene.renderer

    def _observe(self) -> np.ndarray:
        renderer = self._scene.ready()
        self.task.write(renderer)
        renderer.render()
        self._frame = renderer.output[0]
        return self._frame.copy()  # 21 KB; callers may keep observations across steps

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self._scene.ready()
        self.task.reset(np.array([0]), self.np_random)
        return self._observe(), {k: float(v[0]) for k, v in self.task.info().items()}

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if self._frame is None:
            raise RLConfigError("call reset() before step()")
        array = as_actions(action, (self._scene.action_dim,), "action")
        actions = self.task.check_actions(array[None])
        reward, terminated, truncated = self.task.step(actions)
        info = {k: float(v[0]) for k, v in self.task.info().items()}
        return self._observe(), float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array" and self._frame is not None:
            return self._frame.copy()
        return None

    def close(self) -> None:
        if getattr(self, "_scene", None) is not None:
            self._scene.close()
            self._frame = None


class ReachVectorEnv(VectorEnv):
    """`num_envs` reach environments stepped together, observed as (E, H, W, 3) uint8.

    One NumPy step of the task and one render per ``step()``. ``autoreset_mode``
    is one of gymnasium's: ``"next_step"`` (the default: an environment that
    ended is reset on the following step, which ignores its action and returns
    reward 0), ``"same_step"`` (it is reset in the step that ended it; the last
    observation and info are in ``infos["final_obs"]`` / ``infos["final_info"]``,
    at the price of a second render in such steps) or ``"disabled"`` (call
    ``reset(options={"reset_mask": mask})`` yourself).

    Observations are written into two alternating arrays: an observation stays
    valid for one more step (enough for ``(obs, next_obs)`` pairs) without a
    copy. ``copy=True`` returns fresh arrays instead. ``readback='ring'``
    returns each observation one step late (the renderer's one frame of
    latency): for throughput experiments, not for learning.

    ``task`` replaces the NumPy reach dynamics with another state source (see
    ``hypergl_rl.reach.StateSource``), or a factory of one (such as its class),
    called as ``task(num_envs, max_steps=...)`` at the first reset. The OpenGL
    context is made then too (on EGL device ``device_index`` when given), not
    in ``__init__``: forking after making the environment is safe.
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
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        task: TaskSpec = None,
        context: Any = None,
        device_index: int | None = None,
    ) -> None:
        self.num_envs: int = positive_int(num_envs, "num_envs")
        if render_mode is not None and render_mode != "rgb_array":
            raise RLConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.autoreset_mode: AutoresetMode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        width, height = positive_int(width, "width"), positive_int(height, "height")
        if readback not in ("direct", "ring"):  # checked again by the renderer, made later
            raise RLConfigError(f"readback must be one of ('direct', 'ring'), got {readback!r}")
        self._scene = _LazyScene(self.num_envs, width, height, max_steps, task, context,
                                 device_index, readback=readback)  # fmt: skip
        self.single_observation_space: spaces.Box
        self.single_action_space: spaces.Box
        self.single_observation_space, self.single_action_space = _spaces(
            width, height, self._scene.action_dim
        )
        batched = self.num_envs
        self.observation_space: gymnasium.Space[Any] = batch_space(
            self.single_observation_space, batched
        )
        self.action_space: gymnasium.Space[Any] = batch_space(self.single_action_space, batched)
        self.copy: bool = bool(copy)
        shape = (self.num_envs, height, width, 3)
        self._buffers = (np.zeros(shape, np.uint8), np.zeros(shape, np.uint8))
        self._current = 0
        self._autoreset = np.zeros(self.num_envs, bool)
        self._started = False

    @property
    def task(self) -> StateSource | None:
        return self._scene.task

    @property
    def renderer(self) -> BatchRenderer | None:
        return self._scene.renderer

    def _render(self) -> np.ndarray:
        renderer = self._scene.ready()
        self.task.write(renderer)
        return renderer.render(self._buffers[self._current])

    def _observe(self) -> np.ndarray:
        self._current ^= 1
        obs = self._render()
        return obs.copy() if self.copy else obs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self._scene.ready()
        envs = np.ones(self.num_envs, bool)
        if options and "reset_mask" in options:
            envs = np.asarray(options["reset_mask"])
            if envs.dtype != bool or envs.shape != (self.num_envs,):
                raise RLConfigError(
                    f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                    f"got {options['reset_mask']!r}"
                )
        self.task.reset(envs, self.np_random)
        self._autoreset[envs] = False
        self._started = True
        return self._observe(), self.task.info()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if not self._started:
            raise RLConfigError("call reset() before step()")
        # Checked here for every task (a custom StateSource's check_actions sees clean arrays).
        actions = self.task.check_actions(as_actions(actions, self.action_space.shape))
        reward, terminated, truncated = self.task.step(actions)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            restart = self._autoreset
            if restart.any():
                self.task.reset(restart, self.np_random)
                reward[restart] = 0.0
                terminated[restart] = False
                truncated[restart] = False
            self._autoreset = terminated | truncated
        elif self.autoreset_mode == AutoresetMode.SAME_STEP:
            return self._step_same_step(reward, terminated, truncated)
        return self._observe(), reward, terminated, truncated, self.task.info()

    def _step_same_step(self, reward, terminated, truncated):
        """Render the episodes' last frames, reset the ended ones and render again."""
        done = terminated | truncated
        obs = self._observe()
        info = self.task.info()
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for env in np.flatnonzero(done):
                final_obs[env] = obs[env].copy()
            final_info = {key: value.copy() for key, value in info.items()}
            final_info.update({f"_{key}": done.copy() for key in info})
            self.task.reset(done, self.np_random)
            fresh = self._render()
            obs = fresh.copy() if self.copy else fresh
            info = self.task.info()
            info.update(final_obs=final_obs, _final_obs=done.copy(), final_info=final_info,
                        _final_info=done.copy())  # fmt: skip
        return obs, reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self._buffers[self._current].copy()
        return None

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "_scene", None) is not None:
            self._scene.close()
