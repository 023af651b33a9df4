"""Exceptions of the Culverin bridge: one class per kind of bad input, each under HyperGLError.

A closed context raises hypergl's own ``ContextError`` (the bridge adds nothing to it).
"""

from __future__ import annotations

from hypergl import HyperGLError, ResourceError


class BridgeError(HyperGLError):
    """Base class of the errors the Culverin bridge raises on purpose."""


class NotAWorldError(BridgeError, TypeError):
    """The source handed to the bridge is not a ``culverin.PhysicsWorld``."""


class EmptyWorldError(BridgeError, ValueError):
    """The world has no bodies and no ``capacity=`` says how many rows to make room for."""


class CapacityError(BridgeError, ValueError):
    """The world holds more bodies than the records the bridge's buffer was created with."""


class BridgeReleasedError(BridgeError, ResourceError):
    """The bridge (or its buffers) has been released."""


class ShapeError(BridgeError, ValueError):
    """A shape the renderer cannot draw: unknown kind, bad size, flat hull, bad mesh."""


class UrdfError(BridgeError, ValueError):
    """A URDF file that does not parse, or that names a missing or unreadable mesh."""


__all__ = [
    "BridgeError",
    "BridgeReleasedError",
    "CapacityError",
    "EmptyWorldError",
    "NotAWorldError",
    "ShapeError",
    "UrdfError",
]
