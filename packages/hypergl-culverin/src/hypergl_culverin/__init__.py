"""hypergl-culverin: Culverin (Jolt Physics) body state into HyperGL storage buffers.

``ctx.bridge("culverin", world)`` returns a :class:`CulverinBridge`; :class:`BodyRenderer`
draws every body kind (boxes, spheres, capsules, cylinders, hulls, meshes, compounds,
heightfields, planes, characters, vehicles, soft bodies, ragdolls, URDF robots) GPU-driven.
"""

from __future__ import annotations

from .bridge import CulverinBridge
from .errors import (
    BridgeError,
    BridgeReleasedError,
    CapacityError,
    EmptyWorldError,
    NotAWorldError,
    ShapeError,
    UrdfError,
)
from .layout import RecordLayout
from .renderer import BodyRenderer

__version__ = "0.1.0"

__all__ = [
    "BodyRenderer",
    "BridgeError",
    "BridgeReleasedError",
    "CapacityError",
    "CulverinBridge",
    "EmptyWorldError",
    "NotAWorldError",
    "RecordLayout",
    "ShapeError",
    "UrdfError",
    "__version__",
]
