"""Reading pixels back: straight into caller-owned NumPy arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._native import NATIVE_ERRORS, translate

if TYPE_CHECKING:
    from .context import Context


class PixelReader:
    """A framebuffer read checked once, into one array: ``reader.read()`` per frame.

    Rows come in OpenGL's order (bottom row first). Made by ``fb.reader(into)``.
    """

    def __init__(self, context: Context, out: np.ndarray, call: tuple) -> None:
        self._context = context
        self.out = out
        self._call = call

    def read(self) -> np.ndarray:
        self._context._enter()
        try:  # not a context manager: this is the hot path
            self._context._native.read_pixels(*self._call)
        except NATIVE_ERRORS as exc:
            raise translate(exc) from None
        return self.out
