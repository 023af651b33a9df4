"""gymnasium ids of hypergl_rl: ``gym.make("hypergl/Reach-v0")`` and ``gym.make_vec(...)``.

``import hypergl_rl`` registers them (when gymnasium is installed); gymnasium's
``"module:id"`` form does it for a process that has not imported hypergl yet
(a Ray worker, a spawned subprocess): ``gym.make("hypergl_rl:hypergl/Reach-v0")``.

``gym.make_vec(REACH_ID, num_envs)`` uses the vector entry point: one
ReachVectorEnv rendering all environments in one call (``asynchronous=True``
for the send/recv variant). ``vectorization_mode="sync"``/``"async"`` build it
from single ReachEnvs instead (one context each; "async" runs them in processes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import RLConfigError

if TYPE_CHECKING:
    from gymnasium.vector import VectorEnv

REACH_ID = "hypergl/Reach-v0"
ENTRY_POINT = "hypergl_rl.env:ReachEnv"
VECTOR_ENTRY_POINT = "hypergl_rl.registration:make_reach_vector_env"


def make_reach_vector_env(num_envs: int, *, asynchronous: bool = False, **kwargs: Any) -> VectorEnv:
    """The vector entry point of ``hypergl/Reach-v0``: a ReachVectorEnv, or with
    ``asynchronous=True`` an AsyncReachVectorEnv (send/recv; rendering overlaps learning).

    Here, above both environment modules, so that neither imports the other's maker."""
    kwargs.pop("max_episode_steps", None)  # gymnasium passes the spec's; max_steps rules here
    if not isinstance(asynchronous, bool):
        raise RLConfigError(f"asynchronous must be True or False, got {asynchronous!r}")
    if asynchronous:
        from .async_env import AsyncReachVectorEnv

        return AsyncReachVectorEnv(num_envs, **kwargs)
    from .env import ReachVectorEnv

    return ReachVectorEnv(num_envs, **kwargs)


def register_envs() -> None:
    """Register hypergl/Reach-v0 with gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    if REACH_ID not in registry:
        register(id=REACH_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT)
