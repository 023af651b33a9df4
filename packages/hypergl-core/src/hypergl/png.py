"""A minimal PNG encoder (zlib, no filters) so framebuffers show in Jupyter without Pillow."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of a uint8 ``(H, W)`` (grey), ``(H, W, 3)`` (RGB) or ``(H, W, 4)`` (RGBA)
    image whose first row is the top of the picture."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError(f"encode_png needs a uint8 NumPy array, got {image!r:.80}")
    channels = 1 if image.ndim == 2 else image.shape[2] if image.ndim == 3 else 0
    color_type = {1: 0, 3: 2, 4: 6}.get(channels)
    if color_type is None or image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError(f"encode_png needs an (H, W), (H, W, 3) or (H, W, 4) image, "
                         f"got shape {image.shape}")  # fmt: skip
    height, width = image.shape[:2]
    rows = np.ascontiguousarray(image).reshape(height, width * channels)
    raw = np.zeros((height, width * channels + 1), np.uint8)  # filter byte 0 (none) per row
    raw[:, 1:] = rows
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"".join((
        b"\x89PNG\r\n\x1a\n",
        _chunk(b"IHDR", header),
        _chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)),
        _chunk(b"IEND", b""),
    ))  # fmt: skip
