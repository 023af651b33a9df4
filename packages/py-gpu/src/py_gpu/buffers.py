"""Dependency-free frame and depth buffers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidColorError, InvalidSizeError, TargetSizeError
from .png import encode_png

if TYPE_CHECKING:  # NumPy is optional at run time
    import numpy as np
    from numpy.typing import NDArray

ColorLike = tuple[int, int, int]

#: The most pixels (width x height) of a frame py_gpu renders or allocates: 8192 x 8192.
#: Renders, ``MeshRenderer.render`` and ``FrameBuffer.new`` refuse more before allocating
#: anything (a 64 Mi pixel frame costs about 1 GiB of depth, id and colour buffers in the NumPy
#: rasterizer).  A process that has the memory may raise it: ``py_gpu.buffers.MAX_FRAME_PIXELS``.
MAX_FRAME_PIXELS = 8192 * 8192


def as_rgb(value: Sequence[float]) -> ColorLike:
    """Validate an RGB colour: three finite channels in 0..255, rounded to integers.

    Raises :class:`InvalidColorError` (a ``ValueError``) naming the bad value otherwise.
    """
    try:
        channels = tuple(value)
    except TypeError:
        raise InvalidColorError(f"colour must be three channels in 0..255, got {value!r}") from None
    if len(channels) != 3:
        raise InvalidColorError(f"RGB colours must have exactly three channels, got {value!r}")
    out = []
    for channel in channels:
        try:
            number = float(channel)
        except (TypeError, ValueError):
            raise InvalidColorError(
                f"colour channel {channel!r} in {value!r} is not a number"
            ) from None
        if not math.isfinite(number) or number < 0.0 or number > 255.0:
            raise InvalidColorError(f"colour channel {channel!r} in {value!r} is outside 0..255")
        out.append(round(number))
    return (out[0], out[1], out[2])


def validate_size(width: object, height: object) -> tuple[int, int]:
    """Check that width and height are positive integers; return them as ``int``."""
    for label, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int):
            try:
                import numpy as np

                if isinstance(value, np.integer):
                    continue
            except ImportError:  # pragma: no cover - numpy is optional
                pass
            raise InvalidSizeError(f"{label} must be an integer, got {value!r}")
        if value <= 0:
            raise InvalidSizeError(f"{label} must be positive, got {value!r}")
    return int(width), int(height)  # type: ignore[call-overload]


def check_frame_size(width: object, height: object) -> tuple[int, int]:
    """:func:`validate_size`, and at most :data:`MAX_FRAME_PIXELS` pixels (InvalidSizeError)."""
    w, h = validate_size(width, height)
    if w * h > MAX_FRAME_PIXELS:
        raise InvalidSizeError(
            f"a {w}x{h} frame has {w * h} pixels, more than py_gpu's limit of "
            f"{MAX_FRAME_PIXELS} (py_gpu.buffers.MAX_FRAME_PIXELS)"
        )
    return w, h


@dataclass
class FrameBuffer:
    """A row-major RGB byte buffer: row 0 is the top of the image."""

    width: int
    height: int
    pixels: bytearray = field(repr=False)

    def __post_init__(self) -> None:
        self.width, self.height = validate_size(self.width, self.height)
        expected = self.width * self.height * 3
        if len(self.pixels) != expected:
            raise TargetSizeError(
                f"a {self.width}x{self.height} frame buffer needs {expected} bytes, "
                f"got {len(self.pixels)}"
            )

    @classmethod
    def new(cls, width: int, height: int, fill: ColorLike = (0, 0, 0)) -> FrameBuffer:
        width, height = check_frame_size(width, height)
        color = as_rgb(fill)
        return cls(width, height, bytearray(bytes(color) * (width * height)))

    @classmethod
    def from_numpy(cls, array: Any) -> FrameBuffer:
        """Copy an ``(height, width, 3)`` uint8 array into a new frame buffer."""
        import numpy as np

        data = np.ascontiguousarray(array, dtype=np.uint8)
        if data.ndim != 3 or data.shape[2] != 3:
            raise InvalidSizeError(f"expected an (height, width, 3) array, got shape {data.shape}")
        return cls(int(data.shape[1]), int(data.shape[0]), bytearray(data.tobytes()))

    def clear(self, color: ColorLike = (0, 0, 0)) -> None:
        r, g, b = as_rgb(color)
        self.pixels[:] = bytes((r, g, b)) * (self.width * self.height)

    def index(self, x: int, y: int) -> int:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel coordinate out of bounds: {(x, y)}")
        return (y * self.width + x) * 3

    def set_pixel(self, x: int, y: int, color: ColorLike) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            offset = (y * self.width + x) * 3
            self.pixels[offset : offset + 3] = bytes(as_rgb(color))

    def get_pixel(self, x: int, y: int) -> ColorLike:
        offset = self.index(x, y)
        return (self.pixels[offset], self.pixels[offset + 1], self.pixels[offset + 2])

    def check_size(self, width: int, height: int) -> None:
        """Raise :class:`TargetSizeError` unless this buffer is ``width`` x ``height``."""
        if self.width != width or self.height != height:
            raise TargetSizeError(
                f"target frame is {self.width}x{self.height} but the render is {width}x{height}"
            )

    def to_numpy(self) -> NDArray[np.uint8]:
        """A ``(height, width, 3)`` uint8 NumPy view of the pixels (shares memory)."""
        import numpy as np

        return np.frombuffer(self.pixels, dtype=np.uint8).reshape(self.height, self.width, 3)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray[Any]:
        """``np.asarray(frame)``: the ``(height, width, 3)`` uint8 pixels, a view unless a
        copy or another dtype is asked for."""
        array = self.to_numpy()
        if dtype is not None and array.dtype != dtype:
            if copy is False:
                raise ValueError(f"a uint8 frame cannot be viewed as {dtype!r} without a copy")
            return array.astype(dtype)
        return array.copy() if copy else array

    def _repr_png_(self) -> bytes:
        """Jupyter shows a frame as its picture."""
        return self.to_png_bytes()

    def to_rgb_bytes(self) -> bytes:
        return bytes(self.pixels)

    def to_ppm_bytes(self) -> bytes:
        header = f"P6\n{self.width} {self.height}\n255\n".encode("ascii")
        return header + self.to_rgb_bytes()

    def to_ppm(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_ppm_bytes())

    def to_png_bytes(self, *, filter: str = "adaptive", level: int = 6) -> bytes:
        """PNG file contents: 8-bit RGB, rows filtered (see :mod:`py_gpu.png`)."""
        return encode_png(self.pixels, self.width, self.height, 3, filter=filter, level=level)

    def to_png(self, path: str | Path, *, filter: str = "adaptive", level: int = 6) -> None:
        Path(path).write_bytes(self.to_png_bytes(filter=filter, level=level))


@dataclass
class DepthBuffer:
    """A row-major depth buffer where smaller values are closer."""

    width: int
    height: int
    values: list[float] = field(repr=False)

    def __post_init__(self) -> None:
        self.width, self.height = validate_size(self.width, self.height)
        expected = self.width * self.height
        if len(self.values) != expected:
            raise TargetSizeError(
                f"a {self.width}x{self.height} depth buffer needs {expected} values, "
                f"got {len(self.values)}"
            )

    @classmethod
    def new(cls, width: int, height: int, fill: float = float("inf")) -> DepthBuffer:
        width, height = check_frame_size(width, height)
        return cls(width, height, [fill] * (width * height))

    def clear(self, value: float = float("inf")) -> None:
        self.values[:] = [value] * (self.width * self.height)

    def get(self, x: int, y: int) -> float:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel coordinate out of bounds: {(x, y)}")
        return self.values[y * self.width + x]

    def to_numpy(self) -> NDArray[np.float64]:
        """A ``(height, width)`` float64 NumPy copy of the depth values."""
        import numpy as np

        return np.asarray(self.values, dtype=np.float64).reshape(self.height, self.width)
