"""Reading pixels back: straight into caller-owned NumPy arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._native import NATIVE_ERRORS, translate, translated_errors
from .checks import check_output, check_rect
from .errors import ResourceError
from .formats import ATTACHMENTS

if TYPE_CHECKING:
    from .context_link import ContextLink

# The framebuffers and readbacks read here are resources.Framebuffer / Readback, typed Any:
# resources.py calls this module and stands above it.
Framebuffer = Readback = Any


class PixelReader:
    """A framebuffer read checked once, into one array: ``reader.read()`` per frame.

    Rows come in OpenGL's order (bottom row first). Made by ``fb.reader(into)``.
    """

    def __init__(self, link: ContextLink, out: np.ndarray, call: tuple[Any, ...]) -> None:
        self._link = link
        self.out = out
        self._call = call

    def read(self) -> np.ndarray:
        link = self._link
        link.enter()
        try:  # not a context manager: this is the hot path
            link.native.read_pixels(*self._call)
        except NATIVE_ERRORS as exc:
            raise translate(exc) from None
        return self.out


def attachment_index(framebuffer: Framebuffer, attachment: Any) -> int:
    """The index (0..3 colour, 4 depth) of an attachment `framebuffer` has; ResourceError
    naming what it has otherwise (a depth-only framebuffer has no colour to read)."""
    if attachment not in ATTACHMENTS:
        raise ResourceError(f"unknown attachment {attachment!r}; expected one of "
                            f"{sorted(ATTACHMENTS)}")  # fmt: skip
    index = ATTACHMENTS[attachment]
    native, desc = framebuffer._native, framebuffer._desc
    # gl's framebuffer says what it has; a window's own (no attachments of its own) and
    # the other devices' have their description
    colors = getattr(native, "color_count", 0) or len(desc.get("color") or ())
    depth = native.has_depth if hasattr(native, "has_depth") else desc.get("depth") is not None
    has = [f"color{k}" for k in range(colors)] + (["depth"] if depth else [])
    if (index == 4 and not depth) or (index < 4 and index >= colors):
        raise ResourceError(f"framebuffer '{framebuffer.name}' has no {attachment} attachment "
                            f"(it has {', '.join(has) or 'none'})")  # fmt: skip
    return index


def pixel_reader(
    link: ContextLink,
    framebuffer: Framebuffer,
    into: Any,
    attachment: str,
    components: int,
    rect: Any,
    dtype: Any,
) -> PixelReader:
    """Check a read once: attachment, rectangle, components and the output array."""
    link.need_gl("reading pixels")
    index = attachment_index(framebuffer, attachment)
    full_width, full_height = framebuffer.size
    rect = check_rect(rect, full_width, full_height)
    width, height = rect[2], rect[3]
    if index == 4:
        shape, dtype = (height, width), np.dtype(np.float32)
    else:
        if components not in (1, 3, 4):
            raise ValueError(f"components must be 1, 3 or 4, got {components!r}")
        if np.dtype(dtype) not in (np.dtype(np.uint8), np.dtype(np.float32)):
            raise ValueError(f"colour reads are uint8 or float32, got {np.dtype(dtype)}")
        shape, dtype = (height, width, components), np.dtype(dtype)
    out = check_output(into, shape, dtype, f"framebuffer '{framebuffer.name}'")
    float_pixels = index < 4 and dtype == np.float32
    call = (framebuffer._native, index, components, float_pixels, rect,
            out.reshape(-1).view(np.uint8))  # fmt: skip
    return PixelReader(link, out, call)


def read_pixels(
    link: ContextLink,
    framebuffer: Framebuffer,
    into: Any,
    attachment: str,
    components: int,
    origin: str,
    rect: Any = None,
    dtype: Any = np.uint8,
) -> np.ndarray:
    if origin not in ("top", "bottom"):
        raise ValueError(f"origin must be 'top' or 'bottom', got {origin!r}")
    out = pixel_reader(link, framebuffer, into, attachment, components, rect, dtype).read()
    if origin == "top":
        out[:] = out[::-1]
    return out


def read_readback(
    link: ContextLink, readback: Readback, lag: Any, into: Any, origin: str
) -> np.ndarray:
    """The frame captured `lag` captures ago, into `into` (or a new array)."""
    link.need_gl("reading a readback ring")
    link.enter()
    desc = readback._desc
    if isinstance(lag, bool) or not isinstance(lag, int) or not 0 <= lag < desc["depth"]:
        raise ValueError(f"lag must be an int in 0..{desc['depth'] - 1}, got {lag!r}")
    written = readback.frames_written
    if written <= lag:
        raise ResourceError(
            f"readback '{readback.name}' has captured {written} frame(s); lag {lag} "
            f"needs at least {lag + 1}"
        )
    if desc["attachment"] == "depth":
        shape, dtype = (desc["height"], desc["width"]), np.dtype(np.float32)
    else:
        shape = (desc["height"], desc["width"], desc["components"])
        dtype = np.dtype(np.uint8)
    if origin not in ("top", "bottom"):
        raise ValueError(f"origin must be 'top' or 'bottom', got {origin!r}")
    out = check_output(into, shape, dtype, f"readback '{readback.name}'")
    with translated_errors():
        # The frame is found under the engine's lock: a submit on another thread since
        # `written` was read has moved the ring on.
        link.native.readback_frame(
            readback._native, lag, 10_000_000_000, out.reshape(-1).view(np.uint8)
        )
    if origin == "top":
        out[:] = out[::-1]
    return out
