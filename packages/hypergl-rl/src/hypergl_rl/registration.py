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

REACH_ID = "hypergl/Reach-v0"
ENTRY_POINT = "hypergl_rl.env:ReachEnv"
VECTOR_ENTRY_POINT = "hypergl_rl.env:make_reach_vector_env"


def register_envs() -> None:
    """Register hypergl/Reach-v0 with gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    if REACH_ID not in registry:
        register(id=REACH_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT)
