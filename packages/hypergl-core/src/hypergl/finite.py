"""One check that numbers bound for the GPU stay finite there: poses and cameras.

Every pose (a body record's position and rotation) and every camera (a view-projection
matrix) is stored as float32, and the vertex stage multiplies them together. A number that
is NaN or infinite, or finite but so large that those products overflow float32 (a body
1e38 away, a camera 1e300 away), draws nothing, or garbage, without a word. This check runs
before the numbers are stored and names the first item (body row, view, camera, geom) whose
values pass :data:`GPU_LIMIT`, with its values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# The largest magnitude a pose coordinate or a camera matrix entry may have: a product of
# two such numbers (a camera times a position) still fits float32 (3.4e38).
GPU_LIMIT = 1e18


def first_beyond(values: Any, items: int = 1, limit: float = GPU_LIMIT) -> tuple[int, ...] | None:
    """The index (over the first `items` axes) of the first item holding a value that is
    NaN or of magnitude above `limit`; None when every one is within it."""
    array = np.asarray(values)
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    if array.size == 0 or np.abs(array).max() <= limit:  # the common case: one reduction
        return None
    bad = ~(np.abs(array) <= limit)  # NaN compares false (and max() is NaN): bad too
    if array.ndim > items:
        bad = bad.any(axis=tuple(range(items, array.ndim)))
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


def check_within(values: Any, name: Callable[[tuple[int, ...]], str], error: type[Exception],
                 items: int = 1, *, show: bool = True) -> np.ndarray:  # fmt: skip
    """`values` as an array once every item (over the first `items` axes) is finite and
    within :data:`GPU_LIMIT`; else `error` "<name(index)> is not finite on the GPU
    (beyond 1e+18)[: <its values>]"."""
    array = np.asarray(values)
    index = first_beyond(array, items)
    if index is not None:
        shown = ""
        if show:
            shown = ": " + np.array2string(np.ravel(array[index]), precision=6,
                                           max_line_width=200, threshold=20)  # fmt: skip
        raise error(f"{name(index)} is not finite on the GPU (NaN, or beyond {GPU_LIMIT:g})"
                    f"{shown}")  # fmt: skip
    return array


__all__ = ["GPU_LIMIT", "check_within", "first_beyond"]
