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
    """The world holds more bodies than the records the bridge's buffer was created with,
    or a helper would make more bodies than the world's ``max_bodies`` leaves room for."""


class BridgeReleasedError(BridgeError, ResourceError):
    """The bridge (or its buffers) has been released."""


class ShapeError(BridgeError, ValueError):
    """A shape the renderer cannot draw: unknown kind, bad size, flat hull, bad mesh."""


class BadValueError(BridgeError, ValueError):
    """A value for Culverin (position, rotation, mass, limit, option...) that is not a
    finite number of the right shape and range; checked before Culverin sees it."""


class UnknownOptionError(BridgeError, TypeError):
    """A keyword option the Culverin call behind a helper does not take."""


class CulverinError(BridgeError, RuntimeError):
    """Culverin refused or failed a request the bridge's checks let through (its raw
    ``RuntimeError``, ``MemoryError`` or ``OverflowError``, with what was asked)."""


class UrdfError(BridgeError, ValueError):
    """A URDF file that does not parse, holds a bad value, names a missing, refused or
    unreadable mesh, or needs more than its ``memory_limit``."""


__all__ = [
    "BadValueError",
    "BridgeError",
    "BridgeReleasedError",
    "CapacityError",
    "CulverinError",
    "EmptyWorldError",
    "NotAWorldError",
    "ShapeError",
    "UnknownOptionError",
    "UrdfError",
]
