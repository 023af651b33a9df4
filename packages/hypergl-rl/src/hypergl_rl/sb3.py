"""Stable-Baselines3's VecEnv interface over a hypergl_rl vector env, importing SB3 only when used.

SB3 steps with ``step_async``/``step_wait``, wants ``reset()`` to return only the
observations, resets an environment in the step that ended it and hands back
the last observation as ``infos[i]["terminal_observation"]`` (with
``infos[i]["TimeLimit.truncated"]``). ``SB3VecEnv`` gives exactly that over a
gymnasium vector env in ``autoreset_mode="same_step"`` (``ReachVectorEnv`` or
``AsyncReachVectorEnv``), with no import of SB3 or torch: it is the contract,
tested without them. ``sb3_vec_env(...)`` returns the same object as a subclass
of ``stable_baselines3.common.vec_env.VecEnv`` (which SB3's algorithms check),
importing SB3 at that call.

    from hypergl_rl import sb3_vec_env
    from stable_baselines3 import PPO
    PPO("CnnPolicy", sb3_vec_env(num_envs=16)).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .errors import RLConfigError

# What SB3 2.x's VecEnv declares abstract; SB3VecEnv implements each (a test holds it to this).
SB3_ABSTRACT_METHODS = (
    "reset", "step_async", "step_wait", "close", "get_attr", "set_attr", "env_method",
    "env_is_wrapped",
)  # fmt: skip


class SB3VecEnv:
    """SB3's VecEnv methods over `env`, a gymnasium VectorEnv with same-step autoreset."""

    def __init__(self, env: Any) -> None:
        mode = getattr(getattr(env, "autoreset_mode", None), "value", None)
        if mode != "SameStep":
            raise RLConfigError(f"SB3 resets an environment in the step that ends it: make the "
                                f"vector env with autoreset_mode='same_step', got "
                                f"{getattr(env, 'autoreset_mode', None)!r}")  # fmt: skip
        self.venv = env
        self.num_envs: int = env.num_envs
        self.observation_space: Any = env.single_observation_space
        self.action_space: Any = env.single_action_space
        self.render_mode: str | None = getattr(env, "render_mode", None)
        self.metadata: dict[str, Any] = getattr(env, "metadata", {})
        # The attributes SB3's VecEnv.__init__ sets, which its base methods use.
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._seeds: list[int | None] = [None] * self.num_envs
        self._options: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._actions: np.ndarray | None = None

    # --- stepping --------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Reset every environment (seeded by seed() if called since): the observations only."""
        seed = self._seeds[0]
        options = self._options[0] or None
        obs, info = self.venv.reset(seed=seed, options=options)
        self.reset_infos = self._split(info, np.zeros(self.num_envs, bool))
        self._seeds = [None] * self.num_envs
        self._options = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        if hasattr(self.venv, "step_async"):
            self.venv.step_async(actions)
        else:
            self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if hasattr(self.venv, "step_async"):
            obs, reward, terminated, truncated, info = self.venv.step_wait()
        else:
            if self._actions is None:
                raise RLConfigError("step_wait() without step_async(actions)")
            actions, self._actions = self._actions, None
            obs, reward, terminated, truncated, info = self.venv.step(actions)
        dones = np.logical_or(terminated, truncated)
        infos = self._split(info, truncated & ~terminated)
        return obs, np.asarray(reward, np.float32), dones, infos

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        self.step_async(actions)
        return self.step_wait()

    def _split(self, info: dict[str, Any], truncated: np.ndarray) -> list[dict[str, Any]]:
        """gymnasium's dict of arrays as SB3's list of dicts, with terminal observations."""
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, value in info.items():
            if key.startswith("_") or key in ("final_obs", "final_info"):
                continue
            for i in range(self.num_envs):
                infos[i][key] = value[i]
        if "final_obs" in info:
            for i in np.flatnonzero(info["_final_obs"]):
                infos[i]["terminal_observation"] = info["final_obs"][i]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i])
                infos[i]["final_info"] = {
                    key: value[i]
                    for key, value in info.get("final_info", {}).items()
                    if not key.startswith("_")
                }
        return infos

    # --- seeding, rendering, closing -------------------------------------------------------
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset(); SB3's convention: environment i gets seed + i."""
        if seed is None:
            seed = int(np.random.randint(0, 2**32 - 1, dtype=np.int64))
        self._seeds = [seed + i for i in range(self.num_envs)]
        return self._seeds

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        if options is None:
            options = {}
        self._options = list(options) if isinstance(options, list) else [options] * self.num_envs

    def get_images(self) -> Sequence[np.ndarray | None]:
        frames = self.venv.render()
        if frames is None:
            return [None] * self.num_envs
        return list(frames)

    def render(self, mode: str | None = None) -> np.ndarray | None:
        frames = self.venv.render()
        if frames is None:
            return None
        columns = int(np.ceil(np.sqrt(self.num_envs)))
        rows = int(np.ceil(self.num_envs / columns))
        height, width, channels = frames.shape[1:]
        tiles = np.zeros((rows * columns, height, width, channels), frames.dtype)
        tiles[: self.num_envs] = frames
        grid = tiles.reshape(rows, columns, height, width, channels).swapaxes(1, 2)
        return grid.reshape(rows * height, columns * width, channels)

    def close(self) -> None:
        self.venv.close()

    # --- attributes (one vector env holds them all) ----------------------------------------
    def _indices(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            indices = [int(indices)]
        chosen = list(indices)
        for i in chosen:
            if not 0 <= i < self.num_envs:
                raise RLConfigError(f"environment index {i} is out of range 0..{self.num_envs - 1}")
        return chosen

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        """The vector env's attribute, once per index (its environments share one object)."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(
        self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None
    ) -> None:
        chosen = self._indices(indices)
        if len(chosen) != self.num_envs:
            raise RLConfigError(f"{attr_name!r} belongs to the whole vector env: set it for every "
                                f"index, not {chosen}")  # fmt: skip
        setattr(self.venv, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: int | Iterable[int] | None = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        chosen = self._indices(indices)
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(
        self, wrapper_class: type, indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        return [isinstance(self.venv, wrapper_class) for _ in self._indices(indices)]

    @property
    def unwrapped(self) -> SB3VecEnv:
        return self

    def getattr_depth_check(self, name: str, already_found: bool) -> str | None:
        """SB3's VecEnvWrapper asks this before delegating an attribute."""
        if hasattr(self, name) and already_found:
            return f"{type(self).__module__}.{type(self).__name__}"
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} over {self.venv!r}>"


_sb3_class: type | None = None


def sb3_vec_env(env: Any = None, /, **make_vec_kwargs: Any) -> Any:
    """An SB3 ``VecEnv`` (imports stable_baselines3 now): over `env`, or over
    ``gymnasium.make_vec("hypergl/Reach-v0", autoreset_mode="same_step", **make_vec_kwargs)``."""
    global _sb3_class
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError as exc:
        raise ImportError(f"sb3_vec_env needs stable-baselines3 ({exc}): pip install "
                          "stable-baselines3, or use hypergl_rl.SB3VecEnv (the same methods, "
                          "no SB3 base class)") from exc  # fmt: skip
    if _sb3_class is None:
        _sb3_class = type("HyperGLSB3VecEnv", (SB3VecEnv, VecEnv), {"__module__": __name__})
    if env is None:
        import gymnasium

        from .registration import REACH_ID

        make_vec_kwargs.setdefault("autoreset_mode", "same_step")
        env = gymnasium.make_vec(REACH_ID, vectorization_mode="vector_entry_point",
                                 **make_vec_kwargs)  # fmt: skip
    elif make_vec_kwargs:
        raise RLConfigError(f"give an env or make_vec keyword arguments, not both: "
                            f"{sorted(make_vec_kwargs)}")  # fmt: skip
    return _sb3_class(env)
