"""Screen-space geometry contracts for raster backends.

Coordinates are pixels (``x`` right, ``y`` down, row 0 at the top) plus a depth ``z`` where
smaller is nearer; see :mod:`py_gpu.convention`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .buffers import ColorLike, as_rgb
from .convention import MAX_SCREEN_COORD
from .errors import InvalidColorError, InvalidGeometryError
from .frozen import frozen

if TYPE_CHECKING:  # NumPy is optional at run time
    import numpy as np
    from numpy.typing import NDArray

RawTriangle = tuple[float, float, float, float, float, float, float, float, float, int, int, int]


def _check_coordinate(label: str, value: float, limit: float | None) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidGeometryError(f"{label} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InvalidGeometryError(f"{label} must be finite, got {value!r}")
    if limit is not None and abs(number) > limit:
        raise InvalidGeometryError(
            f"{label}={value!r} is outside the supported screen range ±{limit:g} pixels"
        )
    return number


@dataclass(frozen=True)
class ScreenVertex:
    """A projected vertex in pixel coordinates plus depth (smaller ``z`` is nearer)."""

    x: float
    y: float
    z: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", _check_coordinate("x", self.x, MAX_SCREEN_COORD))
        object.__setattr__(self, "y", _check_coordinate("y", self.y, MAX_SCREEN_COORD))
        object.__setattr__(self, "z", _check_coordinate("z", self.z, None))


@dataclass(frozen=True)
class ScreenTriangle:
    """A projected triangle with one flat RGB colour (channels 0..255)."""

    a: ScreenVertex
    b: ScreenVertex
    c: ScreenVertex
    color: ColorLike = (255, 255, 255)

    def __post_init__(self) -> None:
        for label in ("a", "b", "c"):
            if not isinstance(getattr(self, label), ScreenVertex):
                raise InvalidGeometryError(
                    f"triangle vertex {label} must be a ScreenVertex, got {getattr(self, label)!r}"
                )
        object.__setattr__(self, "color", as_rgb(self.color))


class RasterBatch:
    """An immutable batch of projected triangles, drawn in order.

    Build it from :class:`ScreenTriangle` objects (``RasterBatch([...])``, as in py_gpu 0.0.1) or,
    much faster, from flat arrays with :meth:`from_arrays`.  Backends read it through
    :meth:`arrays` (cached NumPy arrays) or :meth:`raw_triangles` (plain tuples).
    """

    __slots__ = ("__weakref__", "_rgb", "_triangles", "_xyz")

    def __init__(self, triangles: Iterable[ScreenTriangle] = ()) -> None:
        items = tuple(triangles)
        for index, triangle in enumerate(items):
            if not isinstance(triangle, ScreenTriangle):
                raise InvalidGeometryError(
                    f"RasterBatch item {index} must be a ScreenTriangle, got {triangle!r}"
                )
        self._triangles: tuple[ScreenTriangle, ...] | None = items
        self._xyz = None
        self._rgb = None

    @classmethod
    def from_arrays(cls, positions: Any, colors: Any = None, *, indices: Any = None) -> RasterBatch:
        """Build a batch from arrays without creating per-triangle objects.

        ``positions``: screen-space ``(x, y, z)`` per vertex, shape ``(N, 3, 3)`` (triangle,
        corner, xyz), ``(3N, 3)`` or flat ``(9N,)``; with ``indices`` (``(N, 3)`` integers) it is a
        ``(V, 3)`` vertex table instead.  ``colors``: ``(N, 3)`` per triangle (uint8, or numbers
        in 0..255 that are rounded), a single RGB triple, or ``None`` for white.
        """
        import numpy as np

        try:
            pos = np.asarray(positions, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidGeometryError(f"positions are not numeric: {exc}") from None
        if indices is not None:
            idx = np.asarray(indices)
            if idx.dtype.kind not in "iu":
                raise InvalidGeometryError(f"indices must be integers, got dtype {idx.dtype}")
            idx = idx.reshape(-1, 3) if idx.size % 3 == 0 else idx
            if idx.ndim != 2 or idx.shape[1] != 3:
                raise InvalidGeometryError(f"indices must have shape (N, 3), got {idx.shape}")
            pos = pos.reshape(-1, 3) if pos.ndim == 1 and pos.size % 3 == 0 else pos
            if pos.ndim != 2 or pos.shape[1] != 3:
                raise InvalidGeometryError(
                    f"with indices, positions must have shape (V, 3), got {pos.shape}"
                )
            if idx.size and (idx.min() < 0 or idx.max() >= len(pos)):
                raise InvalidGeometryError(
                    f"indices must lie in 0..{len(pos) - 1}, got {idx.min()}..{idx.max()}"
                )
            pos = pos[idx]
        if pos.size % 9 != 0:
            raise InvalidGeometryError(
                f"positions must hold 9 numbers per triangle, got shape {pos.shape}"
            )
        if pos.ndim != 3 or pos.shape[1:] != (3, 3):  # (N, 3, 3) stays the caller's array
            pos = pos.reshape(-1, 3, 3)
        xyz = np.ascontiguousarray(pos)
        count = xyz.shape[0]
        if not np.isfinite(xyz).all():
            bad = np.argwhere(~np.isfinite(xyz))[0]
            raise InvalidGeometryError(
                f"positions must be finite: triangle {bad[0]} corner {bad[1]} has "
                f"{'xyz'[bad[2]]}={xyz[tuple(bad)]!r}"
            )
        xy = xyz[:, :, :2]
        if count and np.abs(xy).max() > MAX_SCREEN_COORD:
            raise InvalidGeometryError(
                f"screen coordinate {np.abs(xy).max():g} is outside the supported screen range "
                f"±{MAX_SCREEN_COORD:g} pixels"
            )
        rgb = _colors_array(colors, count)
        batch = cls.__new__(cls)
        batch._triangles = None
        # Zero-copy for the caller's own (N, 3, 3) float64 / (N, 3) uint8 arrays, frozen in
        # place (batches are built every frame); a view of writable memory is copied.
        batch._xyz = frozen(xyz, positions, keep_callers=True)
        batch._rgb = frozen(rgb, colors, keep_callers=True)
        return batch

    @property
    def triangles(self) -> tuple[ScreenTriangle, ...]:
        """The triangles as objects (built on first use for array batches)."""
        if self._triangles is None:
            self._triangles = tuple(
                ScreenTriangle(
                    ScreenVertex(r[0], r[1], r[2]),
                    ScreenVertex(r[3], r[4], r[5]),
                    ScreenVertex(r[6], r[7], r[8]),
                    (r[9], r[10], r[11]),
                )
                for r in self.raw_triangles()
            )
        return self._triangles

    def __len__(self) -> int:
        if self._triangles is not None:
            return len(self._triangles)
        return int(self._xyz.shape[0])

    def __iter__(self) -> Iterator[ScreenTriangle]:
        return iter(self.triangles)

    def __repr__(self) -> str:
        return f"RasterBatch(<{len(self)} triangles>)"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RasterBatch):
            return NotImplemented
        if self is other:
            return True
        if len(self) != len(other):
            return False
        return list(self.raw_triangles()) == list(other.raw_triangles())

    def __hash__(self) -> int:
        return hash(tuple(self.raw_triangles()))

    def raw_triangles(self) -> Iterator[RawTriangle]:
        """Plain ``(ax, ay, az, bx, by, bz, cx, cy, cz, r, g, b)`` tuples, in draw order."""
        if self._xyz is not None:
            coords = self._xyz.reshape(-1, 9).tolist()
            colors = self._rgb.tolist()
            for xyz, rgb in zip(coords, colors, strict=True):
                yield (*xyz, *rgb)  # type: ignore[misc]
            return
        for t in self._triangles:  # type: ignore[union-attr]
            a, b, c = t.a, t.b, t.c
            yield (a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, *t.color)

    def arrays(self) -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
        """``(xyz, rgb)``: float64 ``(N, 3, 3)`` positions and uint8 ``(N, 3)`` colours (cached,
        read-only)."""
        if self._xyz is None:
            import numpy as np

            count = len(self._triangles)  # type: ignore[arg-type]
            flat = np.array(
                [
                    (t.a.x, t.a.y, t.a.z, t.b.x, t.b.y, t.b.z, t.c.x, t.c.y, t.c.z)
                    for t in self._triangles  # type: ignore[union-attr]
                ],
                dtype=np.float64,
            ).reshape(count, 3, 3)
            rgb = np.array(
                [t.color for t in self._triangles],  # type: ignore[union-attr]
                dtype=np.uint8,
            ).reshape(count, 3)
            flat.flags.writeable = False
            rgb.flags.writeable = False
            self._xyz, self._rgb = flat, rgb
        return self._xyz, self._rgb


def _colors_array(colors, count: int):
    import numpy as np

    if colors is None:
        return np.full((count, 3), 255, dtype=np.uint8)
    array = np.asarray(colors)
    if array.dtype.kind not in "biuf":
        raise InvalidColorError(f"colours must be numeric, got dtype {array.dtype}")
    if array.shape == (3,):
        array = np.broadcast_to(array, (count, 3))
    if array.shape != (count, 3):
        raise InvalidColorError(
            f"colours must have shape ({count}, 3) or (3,), got {np.asarray(colors).shape}"
        )
    if array.dtype == np.uint8:
        return np.ascontiguousarray(array)
    values = array.astype(np.float64)
    bad = ~np.isfinite(values) | (values < 0.0) | (values > 255.0)
    if bad.any():
        row, channel = np.argwhere(bad)[0]
        raise InvalidColorError(
            f"colour of triangle {row} channel {channel} is {values[row, channel]!r}, "
            "outside 0..255"
        )
    return np.rint(values).astype(np.uint8)
