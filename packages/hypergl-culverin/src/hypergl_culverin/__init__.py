"""hypergl-culverin: Culverin (Jolt Physics) body state into HyperGL storage buffers.

``ctx.bridge("culverin", world)`` returns a :class:`CulverinBridge`; :class:`BodyRenderer`
draws every body kind (boxes, spheres, capsules, cylinders, hulls, meshes, compounds,
heightfields, planes, characters, vehicles, soft bodies, ragdolls, URDF robots) GPU-driven.
"""

from __future__ import annotations

from .bridge import CulverinBridge
from .errors import (
    BadValueError,
    BridgeError,
    BridgeReleasedError,
    CapacityError,
    CulverinError,
    EmptyWorldError,
    NotAWorldError,
    ShapeError,
    UnknownOptionError,
    UrdfError,
)
from .layout import RecordLayout
from .renderer import BodyRenderer

__version__ = "0.2.0"

__all__ = [
    "BadValueError",
    "BodyRenderer",
    "BridgeError",
    "BridgeReleasedError",
    "CapacityError",
    "CulverinBridge",
    "CulverinError",
    "EmptyWorldError",
    "NotAWorldError",
    "RecordLayout",
    "ShapeError",
    "UnknownOptionError",
    "UrdfError",
    "__version__",
]
