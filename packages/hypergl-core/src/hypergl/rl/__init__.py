"""Reinforcement learning on HyperGL: batched pixel observations and environments.

``BatchRenderer`` needs only NumPy and the engine. The environments come from
``hypergl.rl.env`` and need gymnasium (``pip install hypergl-core[rl]``); they
are imported lazily so ``import hypergl.rl`` works without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .batch_renderer import BatchRenderer
from .errors import ActionError, ObservationArrayError, ObservationDtypeError, RLConfigError
from .reach import ReachTask, StateSource

if TYPE_CHECKING:  # lazy below (gymnasium is optional), visible to type checkers
    from .env import ReachEnv, ReachVectorEnv

_LAZY = {"ReachEnv": "env", "ReachVectorEnv": "env"}

__all__ = [
    "ActionError",
    "BatchRenderer",
    "ObservationArrayError",
    "ObservationDtypeError",
    "RLConfigError",
    "ReachEnv",
    "ReachTask",
    "ReachVectorEnv",
    "StateSource",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
