"""A standard-library PNG encoder with per-row filtering (RFC 2083 / PNG spec section 9).

Rows are filtered with the five standard filters.  The ``adaptive`` strategy picks, per row,
the filter among None, Sub, Up and Average whose output has the smallest sum of absolute
(signed) byte values, the heuristic the PNG specification recommends.  Those four filters are
computed on whole rows at once with big-integer SIMD-within-a-register arithmetic, so encoding
stays fast without NumPy; Paeth (per-byte Python) is available on request.
"""

from __future__ import annotations

import struct
import zlib

from .errors import InvalidSizeError

FILTERS = ("none", "sub", "up", "average", "paeth", "adaptive")
_FILTER_CODES = {"none": 0, "sub": 1, "up": 2, "average": 3, "paeth": 4}
# |signed byte|: how "small" a filtered byte is for the adaptive heuristic.
_ABS_TABLE = bytes(min(value, 256 - value) for value in range(256))


class _Swar:
    """Byte-lane arithmetic on big integers holding a whole row."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.high = int.from_bytes(b"\x80" * length, "big")
        self.low = int.from_bytes(b"\x7f" * length, "big")
        self.fe = int.from_bytes(b"\xfe" * length, "big")

    def sub(self, a: int, b: int) -> int:
        """(a - b) mod 256 in every byte lane, no borrows between lanes."""
        return ((a | self.high) - (b & self.low)) ^ ((a ^ ~b) & self.high)

    def avg(self, a: int, b: int) -> int:
        """floor((a + b) / 2) in every byte lane."""
        return (a & b) + (((a ^ b) & self.fe) >> 1)


def _paeth_row(row: bytes, prior: bytes, bpp: int) -> bytes:
    out = bytearray(len(row))
    for i, value in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        if pa <= pb and pa <= pc:
            predictor = a
        elif pb <= pc:
            predictor = b
        else:
            predictor = c
        out[i] = (value - predictor) & 0xFF
    return bytes(out)


def filter_rows(raw: bytes, width: int, height: int, channels: int, strategy: str) -> bytes:
    """Return the filtered scanlines (filter byte + filtered row) of an 8-bit image."""
    if strategy not in FILTERS:
        raise ValueError(f"unknown PNG filter {strategy!r}; expected one of {FILTERS}")
    stride = width * channels
    bpp = channels
    lanes = _Swar(stride)
    mask = (1 << (8 * stride)) - 1
    out = bytearray()
    prior = bytes(stride)
    prior_int = 0
    for y in range(height):
        row = raw[y * stride : (y + 1) * stride]
        row_int = int.from_bytes(row, "big")
        left_int = row_int >> (8 * bpp)  # the byte bpp to the left; zero for the first pixel
        candidates: list[tuple[int, bytes]] = []
        if strategy in ("none", "adaptive"):
            candidates.append((0, row))
        if strategy in ("sub", "adaptive"):
            candidates.append((1, (lanes.sub(row_int, left_int) & mask).to_bytes(stride, "big")))
        if strategy in ("up", "adaptive"):
            candidates.append((2, (lanes.sub(row_int, prior_int) & mask).to_bytes(stride, "big")))
        if strategy in ("average", "adaptive"):
            average = lanes.avg(left_int, prior_int)
            candidates.append((3, (lanes.sub(row_int, average) & mask).to_bytes(stride, "big")))
        if strategy == "paeth":
            candidates.append((4, _paeth_row(row, prior, bpp)))
        if len(candidates) == 1:
            code, data = candidates[0]
        else:
            code, data = min(candidates, key=lambda item: sum(item[1].translate(_ABS_TABLE)))
        out.append(code)
        out += data
        prior, prior_int = row, row_int
    return bytes(out)


def _chunk(kind: bytes, data: bytes) -> bytes:
    checksum = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", checksum)


def encode_png(
    raw: bytes,
    width: int,
    height: int,
    channels: int = 3,
    *,
    filter: str = "adaptive",
    level: int = 6,
) -> bytes:
    """Encode 8-bit grey (1), RGB (3) or RGBA (4) rows as a PNG file."""
    if width <= 0 or height <= 0:
        raise InvalidSizeError(f"PNG dimensions must be positive, got {width}x{height}")
    color_types = {1: 0, 3: 2, 4: 6}
    if channels not in color_types:
        raise ValueError(f"PNG channels must be 1, 3 or 4, got {channels}")
    if len(raw) != width * height * channels:
        raise ValueError(
            f"PNG data for {width}x{height}x{channels} needs {width * height * channels} bytes, "
            f"got {len(raw)}"
        )
    header = struct.pack(">IIBBBBB", width, height, 8, color_types[channels], 0, 0, 0)
    body = filter_rows(bytes(raw), width, height, channels, filter)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(body, level)),
            _chunk(b"IEND", b""),
        ]
    )
