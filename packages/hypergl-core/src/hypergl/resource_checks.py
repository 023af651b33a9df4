"""The arguments of each resource factory of a context, checked before anything is made.

One function per kind; each returns the description a self-contained .hgb stores
(plus what the engine needs besides) or raises an error naming the bad value, always the
project's own: :func:`argument_check` turns the ValueError / TypeError of a check (here
or in the helpers it calls) into ResourceError / ResourceTypeError, so every factory of a
context refuses bad input the same way. ``limits`` are the driver's
(``ctx.capabilities.limits``), None off the gl device.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from hypergl_compiler.errors import ArgumentError
from hypergl_compiler.isa import U32_MAX

from .checks import check_count, check_size
from .errors import HyperGLError, ResourceError, ResourceTypeError
from .format_table import TEXTURE_FORMATS as FORMAT_TABLE
from .formats import (
    ATTACHMENTS,
    COLOR_FORMATS,
    DEPTH_FORMATS,
    FILTERS,
    TEXTURE_FORMATS,
    WRAP_MODES,
    check_field,
    check_fields,
    check_pixels,
)
from .limits import PORTABLE_LIMITS, check_framebuffer, check_samples, check_texture
from .pipeline_state import PipelineState, PipelineStateError, pipeline_state
from .resources import BUFFER_USAGES, Buffer, as_bytes

Limits = Mapping[str, int] | None
Check = TypeVar("Check", bound=Callable[..., Any])


def argument_check(check: Check) -> Check:
    """`check` raising only the project's errors: a plain ValueError becomes ResourceError,
    a plain TypeError ResourceTypeError (both still the builtin they were); the compiler's
    ArgumentError (a bad size, the same from ``ctx``, ``cmd`` and ``sc``) stays."""

    @functools.wraps(check)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return check(*args, **kwargs)
        except (HyperGLError, ArgumentError):
            raise
        except TypeError as exc:
            raise ResourceTypeError(str(exc)) from None
        except ValueError as exc:
            raise ResourceError(str(exc)) from None

    return checked  # type: ignore[return-value]


@argument_check
def buffer_args(data: Any, size: Any, usage: Any) -> tuple[dict[str, Any], np.ndarray | None]:
    """(description, the data as bytes or None)."""
    if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
        raise TypeError(
            f"buffer data must be bytes or a NumPy array, got the int {data}: "
            f"ctx.buffer(size={data}) makes an empty buffer of that many bytes"
        )
    if usage not in BUFFER_USAGES:
        raise ValueError(f"unknown buffer usage {usage!r}; expected one of {BUFFER_USAGES}")
    raw = None if data is None else as_bytes(data, "buffer")
    if size is None:
        if raw is None:
            raise ValueError("buffer needs data or size")
        size = raw.nbytes
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"buffer size must be an int, got {size!r}")
    if not 0 < size < 1 << 32:
        raise ValueError(f"buffer size must be in 1..2**32-1 bytes, got {size}")
    if raw is not None and raw.nbytes > size:
        raise ValueError(f"buffer data of {raw.nbytes} bytes exceeds size {size}")
    return {"size": int(size), "usage": usage}, raw


def _sampler(filter: Any, wrap: Any) -> None:
    if filter not in FILTERS:
        raise ValueError(f"unknown filter {filter!r}; expected one of {FILTERS}")
    if wrap not in WRAP_MODES:
        raise ValueError(f"unknown wrap mode {wrap!r}; expected one of {sorted(WRAP_MODES)}")


def texture_size_within(limits: Limits, width: int, height: int, layers: int) -> None:
    check_texture(limits, width, height, layers)


@argument_check
def texture_args(
    data: Any,
    size: Any,
    format: Any,
    layers: Any,
    filter: Any,
    wrap: Any,
    limits: Limits,
    mipmaps: Any = False,
    cube: Any = False,
) -> tuple[dict[str, Any], np.ndarray | None, list[np.ndarray]]:
    """(description, the pixels as bytes or None, the caller's mip levels 1.. as bytes).
    A cube texture's 6 faces are its layers; `mipmaps` (True, or the levels after 0 as
    a list of arrays) needs a colour format that filters (not depth, not integer)."""
    if format not in TEXTURE_FORMATS:
        raise ValueError(f"unknown texture format {format!r}; expected one of "
                         f"{sorted(TEXTURE_FORMATS)}")  # fmt: skip
    _sampler(filter, wrap)
    given = mipmaps if isinstance(mipmaps, (list, tuple)) else None
    if given is None and not isinstance(mipmaps, (bool, np.bool_)):
        raise TypeError("texture mipmaps must be True, False or a list of the levels "
                        f"after level 0, got {mipmaps!r}")  # fmt: skip
    if not isinstance(cube, (bool, np.bool_)):
        raise TypeError(f"texture cube must be True or False, got {cube!r}")
    mipmaps, cube = given is not None or bool(mipmaps), bool(cube)
    layers = check_count(layers, "layers", minimum=0)
    integer = any(f.name == format and f.gl[1].endswith("_INTEGER") for f in FORMAT_TABLE)
    if mipmaps and (format in DEPTH_FORMATS or integer):
        raise ValueError(f"texture format {format!r} cannot be mipmapped (depth and "
                         "integer formats do not filter)")  # fmt: skip
    if cube:
        if format in DEPTH_FORMATS:
            raise ValueError(f"a cube texture takes a colour format, got {format!r}")
        if layers not in (0, 6):
            raise ValueError(f"a cube texture has 6 faces, not layers={layers}")
        layers = 6
    pixels = None
    if data is not None:
        pixels, (width, height) = check_pixels(data, format, layers)
        if size is not None and tuple(size) != (width, height):
            raise ValueError(f"texture size {size!r} disagrees with data of {width}x{height}")
    elif given is not None:
        raise ValueError("texture mipmaps given as levels need the data of level 0")
    elif size is None:
        raise ValueError("texture needs data or size")
    else:
        width, height = check_size(size, "texture size")
    if cube and width != height:
        raise ValueError(f"a cube texture's faces must be square, got {width}x{height}")
    texture_size_within(limits, width, height, layers)
    levels = [] if given is None else mip_levels(given, format, layers, width, height)
    desc = {"width": width, "height": height, "format": format, "layers": layers,
            "filter": filter, "wrap": wrap}  # fmt: skip
    if mipmaps:
        desc["mipmaps"] = True
    if cube:
        desc["cube"] = True
    if pixels is not None:
        desc["data"] = pixels.tobytes()
    if levels:
        desc["mip_levels"] = [level.tobytes() for level in levels]
    return desc, pixels, levels


def mip_levels(
    given: list | tuple, format: str, layers: int, width: int, height: int
) -> list[np.ndarray]:
    """The caller's levels 1, 2, ... of a `width` x `height` level 0 checked, as bytes:
    each half the last (rounded down, at least 1) down to 1x1, of level 0's layers,
    dtype and channels."""
    sizes = []
    while width > 1 or height > 1:
        width, height = max(width // 2, 1), max(height // 2, 1)
        sizes.append((width, height))
    if len(given) != len(sizes):
        raise ValueError(f"texture mipmaps need {len(sizes)} levels after level 0 (down to "
                         f"1x1), got {len(given)}")  # fmt: skip
    levels = []
    for number, (level, expected) in enumerate(zip(given, sizes, strict=True), start=1):
        if not isinstance(level, np.ndarray):
            raise TypeError(f"texture mipmaps level {number} must be a NumPy array, "
                            f"got {type(level).__name__}")  # fmt: skip
        try:
            pixels, got = check_pixels(level, format, layers)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"texture mipmaps level {number}: {exc}") from None
        if got != expected:
            raise ValueError(f"texture mipmaps level {number} must be {expected[0]}x"
                             f"{expected[1]}, got {got[0]}x{got[1]}")  # fmt: skip
        levels.append(pixels)
    return levels


@argument_check
def texture_set_args(
    images: Any, filter: Any, wrap: Any, limits: Limits
) -> tuple[dict[str, Any], np.ndarray]:
    """(description, the images as bytes)."""
    _sampler(filter, wrap)
    images = np.asarray(images)
    if images.ndim != 4 or images.shape[0] < 1:
        raise ValueError(f"texture_set needs images of shape (N, H, W, 4), got {images.shape}")
    pixels, (width, height) = check_pixels(images, "rgba8", images.shape[0])
    count = images.shape[0]
    texture_size_within(limits, width, height, count)
    desc = {"width": width, "height": height, "format": "rgba8", "layers": count,
            "filter": filter, "wrap": wrap, "texture_set": True,
            "data": pixels.tobytes()}  # fmt: skip
    return desc, pixels


@argument_check
def pipeline_args(
    vertex_shader: Any,
    fragment_shader: Any,
    compute_shader: Any,
    vertex_count: Any,
    state: Mapping[str, Any],
) -> tuple[dict[str, Any], PipelineState]:
    """(description, the parsed state)."""
    for label, source in (
        ("vertex_shader", vertex_shader),
        ("fragment_shader", fragment_shader),
        ("compute_shader", compute_shader),
    ):
        if source is not None and (not isinstance(source, str) or not source.strip()):
            raise TypeError(f"{label} must be GLSL source text, got {source!r}")
    if compute_shader is not None and (vertex_shader or fragment_shader):
        raise ValueError("a pipeline is either compute (compute_shader) or graphics "
                         "(vertex_shader, fragment_shader), not both")  # fmt: skip
    if compute_shader is None and vertex_shader is None:
        raise ValueError("pipeline needs a vertex_shader or a compute_shader")
    try:
        parsed = pipeline_state(state)
    except PipelineStateError as exc:
        raise ValueError(str(exc)) from None
    desc = {"vertex_shader": vertex_shader, "fragment_shader": fragment_shader,
            "compute_shader": compute_shader, **parsed.describe()}  # fmt: skip
    if vertex_count is not None:
        vertex_count = check_count(vertex_count, "vertex_count", minimum=0)
        if vertex_count >= 1 << 32:
            raise ValueError(f"vertex_count must be below 2**32, got {vertex_count}")
        desc["vertex_count"] = vertex_count
    return desc, parsed


@argument_check
def framebuffer_args(
    size: Any, color: Any, depth: Any, limits: Limits, samples: Any = 0
) -> dict[str, Any]:
    """`color` None or () is no colour attachment, as `depth` None is no depth; `samples`
    0 is single-sampled."""
    width, height = check_size(size, "framebuffer size")
    if color is None:
        color = ()
    if isinstance(color, str):
        color = (color,)
    if not isinstance(color, (list, tuple)):
        raise TypeError(f"color must be a format name or a sequence of them (None: no colour "
                        f"attachment), got {color!r}")  # fmt: skip
    color = list(color)
    if len(color) > 4:
        raise ValueError(f"at most 4 colour attachments, got {len(color)}")
    for fmt in color:
        if fmt not in COLOR_FORMATS:
            raise ValueError(f"unknown colour format {fmt!r}; expected one of {COLOR_FORMATS}")
    if depth is not None and depth not in DEPTH_FORMATS:
        raise ValueError(f"unknown depth format {depth!r}; expected one of {DEPTH_FORMATS}")
    if not color and depth is None:
        raise ValueError("a framebuffer needs a colour or a depth attachment")
    check_framebuffer(limits, width, height, "framebuffer")
    if isinstance(samples, bool) or not isinstance(samples, int):
        raise TypeError(f"samples must be an int (0: single-sampled), got {samples!r}")
    if samples < 0:
        raise ValueError(f"samples must be 0 (single-sampled) or more, got {samples}")
    integer = any(f.gl[1].endswith("_INTEGER") for f in FORMAT_TABLE if f.name in color)
    check_samples(limits or PORTABLE_LIMITS, samples, integer)
    desc = {"width": width, "height": height, "color": color, "depth": depth}
    if samples:
        desc["samples"] = samples
    return desc


@argument_check
def readback_args(
    size: Any, attachment: Any, components: Any, depth: Any, limits: Limits | None
) -> dict[str, Any]:
    """`size` is a framebuffer's size (`limits` None) or a (width, height) to check."""
    width, height = check_size(size, "readback size")
    if limits is not None:
        check_framebuffer(limits, width, height, "readback")
    if attachment not in ATTACHMENTS:
        raise ValueError(f"unknown attachment {attachment!r}; expected one of "
                         f"{sorted(ATTACHMENTS)}")  # fmt: skip
    if components not in (1, 3, 4) or (attachment == "depth" and components != 1):
        raise ValueError(f"components must be 1, 3 or 4 (1 for depth), got {components!r}")
    depth = check_count(depth, "depth", minimum=1)
    if depth > 16:
        raise ValueError(f"readback depth {depth} is more than 16 frames")
    return {"width": width, "height": height, "components": components,
            "attachment": attachment, "depth": depth}  # fmt: skip


@argument_check
def external_source_args(
    context: Any, acquire: Any, fields: Any, record_size: Any, release: Any, count: Any
) -> tuple[list[Any], int, Buffer | None, int]:
    """(field tuples for the engine, record size, count buffer or None, its offset)."""
    if not callable(acquire):
        raise TypeError(f"acquire must be callable, got {acquire!r}")
    if release is not None and not callable(release):
        raise TypeError(f"release must be callable or None, got {release!r}")
    record_size = check_count(record_size, "record_size", minimum=1, maximum=U32_MAX)
    parts = [check_field(field, record_size) for field in check_fields(fields)]
    return (parts, record_size, *count_target(context, count))


@argument_check
def attribute_source_args(
    context: Any,
    owner: Any,
    owners: Any,
    names: Any,
    fields: Any,
    record_size: Any,
    count_attribute: Any,
    lock: Any,
    keep_views: Any,
    count: Any,
) -> tuple[list[Any], bool, list[Any], list[Any], int, Buffer | None, int]:
    """(owners, whether many, attribute names, field tuples, record size, count buffer or
    None, its offset)."""
    if owners is None:
        if owner is None:
            raise TypeError("attribute_source needs an owner (or owners=[...])")
        owners, many = [owner], False
    elif owner is not None:
        raise TypeError("attribute_source takes owner or owners=, not both")
    elif isinstance(owners, (str, bytes)) or not isinstance(owners, Sequence):
        raise TypeError(f"owners must be a sequence of objects, got {owners!r}")
    elif not owners:
        raise ValueError("owners must hold at least one object, got an empty sequence")
    else:
        owners, many = list(owners), True
    names = list(names) if isinstance(names, (list, tuple)) else names
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and n.isidentifier() for n in names)
    ):
        raise ValueError(f"names must be a list of attribute names, got {names!r}")
    if count_attribute is not None and not (
        isinstance(count_attribute, str) and count_attribute.isidentifier()
    ):
        raise ValueError(f"count_attribute must be an attribute name, got {count_attribute!r}")
    if lock is not None and not (hasattr(lock, "acquire") and hasattr(lock, "release")):
        raise TypeError(f"lock needs acquire() and release(), got {lock!r}")
    record_size = check_count(record_size, "record_size", minimum=1, maximum=U32_MAX)
    parts = [check_field(field, record_size) for field in check_fields(fields)]
    return (owners, many, names, parts, record_size, *count_target(context, count))


@argument_check
def count_target(context: Any, count: Any) -> tuple[Buffer | None, int]:
    """``count=(buffer, offset)`` checked: a live buffer of `context`, an aligned u32 in it."""
    if count is None:
        return None, 0
    try:
        count_buffer, count_offset = count
    except (TypeError, ValueError):
        raise TypeError(f"count must be (buffer, offset), got {count!r}") from None
    if not isinstance(count_buffer, Buffer) or count_buffer.context is not context:
        raise TypeError(f"count needs a buffer of this context, got {count_buffer!r}")
    count_offset = check_count(count_offset, "count offset", minimum=0, maximum=U32_MAX)
    if count_offset % 4 or count_offset + 4 > count_buffer.size:
        raise ValueError(f"count offset {count_offset} is not an aligned u32 inside "
                         f"buffer '{count_buffer.name}'")  # fmt: skip
    if count_buffer.released:
        raise ResourceError(f"buffer '{count_buffer.name}' has been released")
    return count_buffer, count_offset
