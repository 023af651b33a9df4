"""The pixel and scalar formats HyperGL accepts, and the checks of data in them."""

from __future__ import annotations

from typing import Any

import numpy as np

from hypergl_compiler.isa import READ_ATTACHMENTS, U32_MAX

from . import format_table
from .checks import check_count

# Framebuffer attachments by name -> the index read_framebuffer and reads use.
ATTACHMENTS = {name: index for index, name in READ_ATTACHMENTS.items()}
# Scalar types of external-source fields: name -> the engine's number, bytes.
SCALAR_TYPES = {t.name: t.code for t in format_table.SCALAR_TYPES}
SCALAR_SIZES = {t.name: t.size for t in format_table.SCALAR_TYPES}
# format -> (NumPy dtype of its pixels, channels); depth formats take no pixels.
TEXTURE_FORMATS = {
    f.name: (None if f.dtype is None else np.dtype(f.dtype).type, f.channels)
    for f in format_table.TEXTURE_FORMATS
}
COLOR_FORMATS = tuple(f.name for f in format_table.TEXTURE_FORMATS if not f.depth)
DEPTH_FORMATS = tuple(f.name for f in format_table.TEXTURE_FORMATS if f.depth)
WRAP_MODES = {"repeat": 0x2901, "clamp": 0x812F, "mirror": 0x8370}
FILTERS = ("linear", "nearest")


def check_fields(fields: Any) -> list[Any]:
    if isinstance(fields, (str, bytes)) or not isinstance(fields, (list, tuple)) or not fields:
        raise TypeError(f"fields must be a non-empty list of field dicts, got {fields!r}")
    return list(fields)


def check_field(field: Any, record_size: int) -> tuple[Any, ...]:
    """One external-source field, validated, as the engine's tuple."""
    if not isinstance(field, dict):
        raise TypeError(f"field {field!r} is not a dict")
    unknown = set(field) - {"source", "type", "stride", "offset", "components", "to", "at"}
    if unknown:
        raise ValueError(f"field has unknown keys {sorted(unknown)}")
    from_type, to_type = field.get("type"), field.get("to", "f32")
    for label, value in (("type", from_type), ("to", to_type)):
        if value not in SCALAR_TYPES:
            raise ValueError(f"field {label} {value!r} is not one of {sorted(SCALAR_TYPES)}")
    u32 = U32_MAX  # the engine keeps each of these in 32 bits
    source = check_count(field.get("source", 0), "field source", minimum=0, maximum=u32)
    components = check_count(field.get("components", 1), "field components", 1, u32)
    offset = check_count(field.get("offset", 0), "field offset", minimum=0, maximum=u32)
    stride = check_count(field.get("stride"), "field stride", minimum=1, maximum=u32)
    at = check_count(field.get("at", 0), "field at", minimum=0, maximum=u32)
    if offset + components * SCALAR_SIZES[from_type] > stride:
        raise ValueError(f"field of {components} {from_type} at offset {offset} does not fit "
                         f"a {stride}-byte source row")  # fmt: skip
    if at + components * SCALAR_SIZES[to_type] > record_size:
        raise ValueError(f"field of {components} {to_type} at byte {at} does not fit a "
                         f"{record_size}-byte record")  # fmt: skip
    return (source, SCALAR_TYPES[from_type], stride, offset, components, SCALAR_TYPES[to_type], at)


def check_pixels(data: Any, format: str, layers: int) -> tuple[np.ndarray, tuple[int, int]]:
    """Validate texture pixels; returns them as flat bytes and (width, height)."""
    dtype, channels = TEXTURE_FORMATS[format]
    if dtype is None:
        raise ValueError(f"depth format {format!r} takes no pixel data")
    array = np.asarray(data)
    if array.dtype != dtype:
        raise TypeError(f"{format} pixels must be {np.dtype(dtype)}, got {array.dtype}")
    expected_ndim = 4 if layers else 3
    if array.ndim == expected_ndim - 1 and channels == 1:
        array = array[..., None]
    if array.ndim != expected_ndim or array.shape[-1] != channels:
        want = "(layers, H, W, C)" if layers else "(H, W, C)"
        raise ValueError(f"{format} pixels must have shape {want} with C={channels}, "
                         f"got {array.shape}")  # fmt: skip
    if layers and array.shape[0] != layers:
        raise ValueError(f"data has {array.shape[0]} layers, expected {layers}")
    height, width = array.shape[-3], array.shape[-2]
    if width == 0 or height == 0:
        raise ValueError(f"texture data of shape {array.shape} is empty")
    if np.issubdtype(array.dtype, np.floating) and not np.isfinite(array).all():
        raise ValueError("texture data contains NaN or infinity")
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8), (int(width), int(height))
