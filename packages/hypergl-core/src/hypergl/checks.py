"""Argument checks shared by the context's factories: each error names the bad value."""

from __future__ import annotations

from typing import Any

import numpy as np

from hypergl_compiler import operands


def check_count(value: Any, what: str, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{what} must be an int in {minimum}..{maximum}, got {value!r}")
    return int(value)


def check_size(size: Any, what: str) -> tuple[int, int]:
    """(width, height) of positive ints: the compiler's check, so that ``ctx`` and ``cmd``
    raise the same ArgumentError for the same bad size."""
    return operands.check_size(size, what)


def check_rect(rect: Any, width: int, height: int) -> tuple[int, int, int, int]:
    """A read rectangle checked against a width x height framebuffer."""
    if rect is None:
        return (0, 0, width, height)
    try:
        x, y, w, h = rect
    except (TypeError, ValueError):
        raise TypeError(f"rect must be (x, y, width, height), got {rect!r}") from None
    values = (x, y, w, h)
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values):
        raise TypeError(f"rect must be integers, got {rect!r}")
    if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > width or y + h > height:
        raise ValueError(f"rect {rect!r} is not inside the {width}x{height} framebuffer")
    return (int(x), int(y), int(w), int(h))


def check_output(into: Any, shape: tuple[int, ...], dtype: np.dtype, what: str) -> np.ndarray:
    """`into` checked to receive pixels of `shape`/`dtype` in place, or a new array."""
    if into is None:
        return np.empty(shape, dtype)
    if not isinstance(into, np.ndarray):
        raise TypeError(f"into must be a NumPy array, got {type(into).__name__}")
    if into.dtype != dtype or into.shape != shape:
        raise ValueError(f"{what} reads into a {dtype} array of shape {shape}, "
                         f"got {into.dtype} {into.shape}")  # fmt: skip
    if not into.flags.c_contiguous or not into.flags.writeable:
        raise ValueError("into must be a writable C-contiguous array")
    return into
