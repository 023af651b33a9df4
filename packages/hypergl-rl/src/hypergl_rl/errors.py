"""Exceptions of hypergl_rl: bad sizes, observation arrays and actions.

They subclass both HyperGLError and the built-in a user would catch (ValueError
or TypeError), and every message names the value that was wrong.
"""

from __future__ import annotations

import numpy as np

from hypergl import HyperGLError


class RLConfigError(HyperGLError, ValueError):
    """A count or size that cannot work: zero, negative, not an int, over a GPU limit."""


class ObservationArrayError(HyperGLError, ValueError):
    """An output array of the wrong shape, or not writable and C-contiguous."""


class ObservationDtypeError(HyperGLError, TypeError):
    """An output array that is not a uint8 NumPy array."""


class ActionError(HyperGLError, ValueError):
    """Actions of the wrong shape, ragged, or not finite numbers."""


class ActionDtypeError(ActionError, TypeError):
    """Actions that are not real numbers: strings, dicts, complex or object arrays."""


def positive_int(value: object, what: str, maximum: int | None = None) -> int:
    """`value` as an int >= 1 (and <= maximum), else RLConfigError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RLConfigError(f"{what} must be an int, got {value!r}")
    if value < 1:
        raise RLConfigError(f"{what} must be >= 1, got {value!r}")
    if maximum is not None and value > maximum:
        raise RLConfigError(f"{what} {value} exceeds the limit of {maximum}")
    return int(value)
