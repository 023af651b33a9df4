"""The size limits every device applies, so a program checked on one runs on all.

``trace`` and ``null`` have no GPU to ask, so they apply what OpenGL 4.5 requires
every driver to support (the minimum maximums of the spec's implementation
tables); ``gl`` applies the same table and, where its driver reports less, the
driver's own value. A texture or framebuffer that ``trace`` accepts is
therefore one that ``gl`` accepts, as WebGPU's default limits work.
"""

from __future__ import annotations

from collections.abc import Mapping

# name -> the OpenGL 4.5 required minimum of that maximum.
PORTABLE_LIMITS: dict[str, int] = {
    "max_texture_size": 16384,  # width and height of a texture
    "max_array_texture_layers": 2048,  # layers of an array texture or texture set
    "max_renderbuffer_size": 16384,  # width and height of a framebuffer (and readback)
    "max_samples": 4,  # samples a pixel of a multisampled framebuffer
    "max_integer_samples": 1,  # the same, with an integer colour attachment
}


def device_limits(probed: Mapping[str, int] | None) -> dict[str, int]:
    """The limits a context applies: the portable table, lowered where a driver reports less."""
    limits = dict(PORTABLE_LIMITS)
    for name, value in (probed or {}).items():
        if name in limits and 0 < value < limits[name]:
            limits[name] = value
    return limits


def check_texture(limits: Mapping[str, int], width: int, height: int, layers: int) -> None:
    limit = limits["max_texture_size"]
    if width > limit or height > limit:
        raise ValueError(f"texture of {width}x{height} exceeds the limit of {limit}x{limit}")
    layer_limit = limits["max_array_texture_layers"]
    if layers > layer_limit:
        raise ValueError(f"{layers} layers exceed the limit of {layer_limit}")


def check_samples(limits: Mapping[str, int], samples: int, integer: bool) -> None:
    """A multisampled framebuffer's `samples` (0: single-sampled) within what the device
    offers; `integer`: it has an integer colour attachment."""
    name = "max_integer_samples" if integer and samples > 1 else "max_samples"
    if samples > limits[name]:
        raise ValueError(f"{samples} samples a pixel exceed this device's {name} of "
                         f"{limits[name]}")  # fmt: skip


def check_framebuffer(limits: Mapping[str, int], width: int, height: int, what: str) -> None:
    limit = limits["max_renderbuffer_size"]
    if width > limit or height > limit:
        raise ValueError(f"{what} of {width}x{height} exceeds the limit of {limit}x{limit}")
