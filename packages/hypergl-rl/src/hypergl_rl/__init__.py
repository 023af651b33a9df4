"""Reinforcement learning on HyperGL: batched pixel observations and environments.

``BatchRenderer`` needs only NumPy and the engine. The environments need
gymnasium (``pip install hypergl-rl[gym]``) and are imported lazily, so
``import hypergl_rl`` works without it; with it, importing registers
``hypergl/Reach-v0`` for ``gymnasium.make`` and ``gymnasium.make_vec``.

* ``ReachEnv`` / ``ReachVectorEnv``: one / E environments in one process;
* ``AsyncReachVectorEnv``: EnvPool-style ``send``/``recv``, rendering in a thread;
* ``RayVectorEnv``: sub-batches in Ray actors (``hypergl-rl[ray]``);
* ``SB3VecEnv`` / ``sb3_vec_env``: Stable-Baselines3's VecEnv interface (``[sb3]``);
* ``rllib_env_creator``: RLlib's env creator (``config.environment(rllib_env_creator)``,
  ``[rllib]``);
* ``hypergl_rl.culverin_reach``: the reach task advanced by Culverin, registered as
  ``hypergl/ReachCulverin-v0`` when imported (``[culverin]``).
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from hypergl.process_safety import ForkedContextError, LLVMConflictError

from .batch_renderer import BatchRenderer
from .errors import (
    ActionDtypeError,
    ActionError,
    ObservationArrayError,
    ObservationDtypeError,
    RLConfigError,
)
from .reach import ReachTask, StateSource

if TYPE_CHECKING:  # lazy below (gymnasium is optional), visible to type checkers
    from .async_env import AsyncReachVectorEnv, AsyncStateError
    from .env import ReachEnv, ReachVectorEnv
    from .ray_env import RayVectorEnv
    from .registration import REACH_ID, make_reach_vector_env
    from .rllib import rllib_env_creator
    from .sb3 import SB3VecEnv, sb3_vec_env

__version__ = "0.1.0"

_LAZY = {
    "ReachEnv": "env",
    "ReachVectorEnv": "env",
    "make_reach_vector_env": "registration",
    "AsyncReachVectorEnv": "async_env",
    "AsyncStateError": "async_env",
    "RayVectorEnv": "ray_env",
    "SB3VecEnv": "sb3",
    "sb3_vec_env": "sb3",
    "rllib_env_creator": "rllib",
    "REACH_ID": "registration",
}

__all__ = [
    "REACH_ID",
    "ActionDtypeError",
    "ActionError",
    "AsyncReachVectorEnv",
    "AsyncStateError",
    "BatchRenderer",
    "ForkedContextError",
    "LLVMConflictError",
    "ObservationArrayError",
    "ObservationDtypeError",
    "RLConfigError",
    "RayVectorEnv",
    "ReachEnv",
    "ReachTask",
    "ReachVectorEnv",
    "SB3VecEnv",
    "StateSource",
    "__version__",
    "make_reach_vector_env",
    "rllib_env_creator",
    "sb3_vec_env",
]

if find_spec("gymnasium") is not None:
    from .registration import register_envs

    register_envs()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
