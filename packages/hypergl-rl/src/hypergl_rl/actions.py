"""The one check of actions every environment uses (single, vector, async, Ray).

Actions come from learners, often from code that is still being written: a string, a dict, a
ragged list, complex numbers or a NaN must be refused with hypergl_rl's own error naming what
was wrong, never a NumPy ValueError or a silent cast.  A well-formed float32 array costs two
cheap checks and no copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ActionDtypeError, ActionError

#: Kinds of NumPy dtype accepted: signed and unsigned integers, floats (cast to float32).
_NUMERIC = "iuf"


def _show(value: Any) -> str:
    text = np.array2string(value, threshold=8) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def as_actions(actions: Any, shape: tuple[int, ...], what: str = "actions") -> np.ndarray:
    """`actions` as a float32 array of `shape`, or ActionError / ActionDtypeError naming them."""
    if isinstance(actions, (str, bytes, dict, set)):
        raise ActionDtypeError(f"{what} must be numbers of shape {shape}, got a "
                               f"{type(actions).__name__}: {_show(actions)}")  # fmt: skip
    try:
        array = np.asarray(actions)
    except (ValueError, TypeError):  # ragged nesting, objects NumPy cannot hold
        raise ActionError(f"{what} must be a rectangular array of shape {shape}, got "
                          f"{_show(actions)}") from None  # fmt: skip
    if array.dtype.kind not in _NUMERIC:
        raise ActionDtypeError(f"{what} must be real numbers (int or float) of shape {shape}, "
                               f"got dtype {array.dtype}: {_show(actions)}")  # fmt: skip
    if array.shape != shape:
        raise ActionError(f"{what} must have shape {shape}, got {array.shape}: "
                          f"{_show(actions)}")  # fmt: skip
    with np.errstate(over="ignore"):  # a float64 beyond float32's range: inf, refused below
        array = array.astype(np.float32, copy=False)
    finite = np.isfinite(array)
    if not finite.all():  # NaN, inf, or a float64 beyond float32's range
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ActionError(f"{what} must be finite: {what}[{', '.join(map(str, where))}] is "
                          f"{np.asarray(actions)[where].item()!r}")  # fmt: skip
    return array
