"""RLlib's env creator for hypergl/Reach-v0, imports nothing from Ray.

RLlib's env runners call an env creator with their ``env_config`` (plus
``num_envs`` when the config vectorises with ``gym_env_vectorize_mode=
"vector_entry_point"``) and wrap what comes back; this one answers through
``gymnasium.make_vec`` with the vector entry point, so each env runner renders
its ``num_envs_per_env_runner`` environments in one ReachVectorEnv:

    from hypergl.rl import rllib_env_creator
    config = (PPOConfig().environment(rllib_env_creator, env_config={"max_steps": 100})
              .env_runners(num_envs_per_env_runner=64, gym_env_vectorize_mode="vector_entry_point"))

``env_config`` may name another registered id (``"env_id"``) and any keyword
of ``ReachVectorEnv``; keys RLlib adds to its EnvContext are not passed on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    if num_envs is None:
        return gymnasium.make(env_id, **config)
    return gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                              **config)  # fmt: skip
