"""RLlib's env creator for hypergl/Reach-v0, imports nothing from Ray.

RLlib's env runners call an env creator with their ``env_config`` (plus
``num_envs`` when the config vectorises with ``gym_env_vectorize_mode=
"vector_entry_point"``) and wrap what comes back; this one answers through
``gymnasium.make_vec`` with the vector entry point, so each env runner renders
its ``num_envs_per_env_runner`` environments in one ReachVectorEnv:

    from ray.tune.registry import register_env
    from hypergl_rl import rllib_env_creator
    register_env("hypergl-reach", rllib_env_creator)
    config = (PPOConfig().environment("hypergl-reach", env_config={"max_steps": 100})
              .env_runners(num_envs_per_env_runner=64, gym_env_vectorize_mode="vector_entry_point"))

``env_config`` may name another registered id (``"env_id"``) and any keyword
of ``ReachVectorEnv``; keys RLlib adds to its EnvContext are not passed on.
``"float_observations": True`` hands out float32 frames in [0, 1] instead of
uint8: RLlib's default CNN encoder feeds observations to torch as they come.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import RLConfigError

RLLIB_KEYS = ("worker_index", "vector_index", "num_workers", "remote", "recreated_worker")


def rllib_env_creator(env_config: Mapping[str, Any] | None = None) -> Any:
    """A ReachVectorEnv (``num_envs`` in `env_config`) or a single ReachEnv, made by gymnasium."""
    import gymnasium

    from .registration import REACH_ID, register_envs

    if env_config is not None and not isinstance(env_config, Mapping):
        raise RLConfigError(f"env_config must be a mapping, got {env_config!r}")
    config = {k: v for k, v in dict(env_config or {}).items() if k not in RLLIB_KEYS}
    register_envs()  # an env runner is a fresh process: make sure the id is there
    env_id = config.pop("env_id", REACH_ID)
    num_envs = config.pop("num_envs", None)
    as_float = config.pop("float_observations", False)
    if not isinstance(as_float, bool):
        raise RLConfigError(f"float_observations must be True or False, got {as_float!r}")
    if num_envs is None:
        env = gymnasium.make(env_id, **config)
    else:
        env = gymnasium.make_vec(env_id, num_envs=num_envs,
                                 vectorization_mode="vector_entry_point", **config)  # fmt: skip
    return _float_observations(env) if as_float else env


def _to_unit_float(obs: np.ndarray) -> np.ndarray:
    return obs.astype(np.float32) * np.float32(1 / 255)


def _float_observations(env: Any) -> Any:
    """`env` observed as float32 in [0, 1] (gymnasium's TransformObservation wrappers)."""
    from gymnasium import spaces
    from gymnasium.vector import VectorEnv
    from gymnasium.wrappers import TransformObservation
    from gymnasium.wrappers import vector as vector_wrappers

    def unit(space: Any) -> Any:
        return spaces.Box(0.0, 1.0, space.shape, np.float32)

    if isinstance(env, VectorEnv):
        return vector_wrappers.TransformObservation(
            env, _to_unit_float, unit(env.observation_space), unit(env.single_observation_space)
        )
    return TransformObservation(env, _to_unit_float, unit(env.observation_space))
