"""Frames to py_3d's ``PixelBuffer`` without a Python object per pixel."""

from __future__ import annotations

from typing import Any

from ...buffers import FrameBuffer
from ...errors import TargetSizeError


def frame_to_py3d_pixel_buffer(frame: FrameBuffer, target: Any = None) -> Any:
    """``frame`` as a py_3d ``PixelBuffer`` backed by its RGB bytes (py_3d decodes lazily).

    With ``target`` (a ``PixelBuffer`` of the frame's size) the bytes replace its pixels and the
    target is returned; another size raises :class:`~py_gpu.errors.TargetSizeError`.
    """
    return rgb_to_py3d_pixel_buffer(frame.width, frame.height, frame.pixels, target)


def rgb_to_py3d_pixel_buffer(width: int, height: int, rgb: Any, target: Any = None) -> Any:
    """Row-major RGB bytes (or a C-contiguous ``uint8`` array) as a py_3d ``PixelBuffer``."""
    from py_3d import PixelBuffer

    data = bytearray(rgb)
    if target is not None:
        if target.width != width or target.height != height:
            raise TargetSizeError(
                f"target buffer is {target.width}x{target.height}, the frame is {width}x{height}"
            )
        target.pixels = PixelBuffer.from_rgb_bytes(width, height, data).pixels
        return target
    return PixelBuffer.from_rgb_bytes(width, height, data)
