"""hypergl-mujoco: many MuJoCo worlds rendered in one submit (RGB, depth, segmentation).

:class:`BatchRenderer` draws ``num_worlds`` copies of an ``MjModel`` from any cameras, with
the poses read in C++ from one ``MjData``, a sequence of them or a ``mujoco.batch.Batch``;
``ctx.bridge("mujoco", data)`` is its bridge (:class:`MujocoBridge`): the record source of
every world's geoms, the one contract of ``hypergl.plugins.Bridge``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# first: MuJoCo checked (a clear error for a missing, broken or old one) before any module
# of this package imports it
from . import versions  # noqa: F401
from .bridge import MujocoBridge
from .cameras import Cameras, camera_id, camera_matrices
from .errors import (
    CameraError,
    DataError,
    EnvError,
    LookError,
    ModelMismatchError,
    MujocoBridgeError,
    MujocoVersionError,
    OutputError,
    PoseError,
    RendererClosedError,
    SizeError,
    WorldCountError,
)
from .renderer import OUTPUTS, BatchRenderer, RenderResult

__version__ = "0.1.0"

_GYM = ("PixelObservations", "VectorPixelObservations")  # need gymnasium: imported when used
if TYPE_CHECKING:  # lazy below (gymnasium is optional), visible to type checkers
    from .gym import PixelObservations, VectorPixelObservations


def __getattr__(name: str) -> Any:
    if name in _GYM:
        from . import gym

        return getattr(gym, name)
    raise AttributeError(f"module 'hypergl_mujoco' has no attribute {name!r}")


__all__ = [
    "OUTPUTS",
    "BatchRenderer",
    "CameraError",
    "Cameras",
    "DataError",
    "EnvError",
    "LookError",
    "ModelMismatchError",
    "MujocoBridge",
    "MujocoBridgeError",
    "MujocoVersionError",
    "OutputError",
    "PixelObservations",
    "PoseError",
    "RenderResult",
    "RendererClosedError",
    "SizeError",
    "VectorPixelObservations",
    "WorldCountError",
    "__version__",
    "camera_id",
    "camera_matrices",
]
