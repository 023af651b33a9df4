"""The one validation layer between the bridge's helpers and Culverin.

Culverin 0.15 checks a few values itself (finite sizes and positions) and lets the rest
through: a NaN soft-body vertex segfaults its constraint creation, a tracked vehicle's
track naming a wheel that does not exist or a ragdoll with a joint without a part
segfaults the next step, ``num_iterations=10**9`` or a NaN hinge limit hangs ``step()``,
a negative character radius raises a bare ``MemoryError``. So every value a helper hands
on goes through a checker here first, and a bad one raises the bridge's own error
(``BadValueError``, ``ShapeError`` for geometry, ``UnknownOptionError``) naming it.

Helpers declare which Culverin keyword options they pass on; :func:`options` checks each
by its name against :data:`OPTIONS`, so the same option is checked the same way everywhere.
:func:`calling` maps what Culverin still raises to the bridge's errors.
"""

from __future__ import annotations

import contextlib
import math
import reprlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from .errors import (
    BadValueError,
    BridgeError,
    CapacityError,
    CulverinError,
    ShapeError,
    UnknownOptionError,
)

# Jolt computes in float32: beyond a kilometre-scale range steps lose their precision,
# and beyond ~1e38 values become inf inside it. Positions and extents stay within this.
MAX_COORDINATE = 1e6
MAX_MASS = 1e12  # kg
MAX_ITERATIONS = 1000  # solver iterations per step (10**9 hangs step())
MIN_HULL_EXTENT = 1e-3  # Culverin's hull builder fails on smaller point clouds (1e-6 m)

_short = reprlib.Repr(maxstring=60, maxother=60, maxlist=6, maxtuple=6)


def show(value: Any) -> str:
    """A short repr for messages (a huge array is not printed whole)."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}"
    return _short.repr(value)


def floats(value: Any, what: str, *, error: type = BadValueError) -> np.ndarray:
    """`value` as a float64 array: real numbers only (no strings, bools, complex, ragged)."""
    try:
        array = np.asarray(value)
        if array.dtype.kind not in "iuf":
            raise TypeError(array.dtype)
        array = array.astype(np.float64, copy=False)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{what} must be real numbers, got {show(value)}") from None
    return array


def number(value: Any, what: str, *, low: float | None = None, high: float | None = None,
           above: float | None = None, error: type = BadValueError) -> float:  # fmt: skip
    """One finite real in ``[low, high]`` (and ``> above``)."""
    array = floats(value, what, error=error)
    if array.shape != ():
        raise error(f"{what} must be one number, got {show(value)}")
    x = float(array)
    if not math.isfinite(x):
        raise error(f"{what} must be finite, got {x!r}")
    if (low is not None and x < low) or (high is not None and x > high) or \
            (above is not None and x <= above):  # fmt: skip
        bounds = [f"> {above:g}" if above is not None else None,
                  f">= {low:g}" if low is not None else None,
                  f"<= {high:g}" if high is not None else None]  # fmt: skip
        raise error(f"{what} must be {' and '.join(b for b in bounds if b)}, got {x!r}")
    return x


def positive(value: Any, what: str, count: int = 1, *, error: type = ShapeError,
             high: float = MAX_COORDINATE) -> tuple[float, ...]:  # fmt: skip
    """`count` finite numbers in ``(0, high]`` (a scalar is repeated): sizes, radii."""
    array = floats(value, what, error=error)
    try:
        array = np.broadcast_to(array, (count,))
    except ValueError:
        raise error(f"{what} must be {count} positive number(s), got {show(value)}") from None
    if not np.isfinite(array).all() or (array <= 0).any() or (array > high).any():
        raise error(f"{what} must be {count} positive finite number(s) up to {high:g}, "
                    f"got {show(value)}")  # fmt: skip
    return tuple(float(v) for v in array)


def integer(value: Any, what: str, *, low: int, high: int, error: type = BadValueError) -> int:
    """An int (not a bool, not a float) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise error(f"{what} must be an int, got {show(value)}")
    if not low <= int(value) <= high:
        raise error(f"{what} must be in {low}..{high}, got {int(value)}")
    return int(value)


def flag(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise BadValueError(f"{what} must be True or False, got {show(value)}")
    return bool(value)


def vector(value: Any, what: str, *, error: type = BadValueError,
           limit: float = MAX_COORDINATE) -> tuple[float, float, float]:  # fmt: skip
    """A finite (x, y, z) within ``limit`` of the origin per component."""
    v = floats(value, what, error=error)
    if v.shape != (3,):
        raise error(f"{what} must be (x, y, z), got {show(value)}")
    if not np.isfinite(v).all() or (np.abs(v) > limit).any():
        raise error(f"{what} must be finite, each component within +-{limit:g}, got "
                    f"{show(value)}")  # fmt: skip
    return (float(v[0]), float(v[1]), float(v[2]))


def direction(value: Any, what: str, *, error: type = BadValueError) -> tuple[float, ...]:
    """A finite non-zero (x, y, z), normalised."""
    v = np.asarray(vector(value, what, error=error))
    length = float(np.linalg.norm(v))
    if length < 1e-9:
        raise error(f"{what} must be a non-zero direction, got {show(value)}")
    return tuple(float(x) for x in v / length)


def quaternion(value: Any, what: str = "rotation", *,
               error: type = BadValueError) -> tuple[float, float, float, float]:  # fmt: skip
    """A finite non-zero quaternion (x, y, z, w), normalised."""
    q = floats(value, what, error=error)
    if q.shape != (4,) or not np.isfinite(q).all() or not 1e-9 < np.linalg.norm(q) < 1e18:
        raise error(f"{what} must be a non-zero finite quaternion (x, y, z, w), got "
                    f"{show(value)}")  # fmt: skip
    q = q / np.linalg.norm(q)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))


def points(value: Any, what: str, *, least: int = 1, most: int | None = None) -> np.ndarray:
    """(N, 3) finite float64 rows within ``MAX_COORDINATE``, ``least <= N <= most``."""
    p = floats(value, what, error=ShapeError)
    if p.ndim != 2 or p.shape[1] != 3:
        if p.ndim == 1 and p.size % 3 == 0:
            p = p.reshape(-1, 3)  # a flat x, y, z, x, y, z... list
        else:
            raise ShapeError(f"{what} must be (N, 3) rows of x, y, z, got shape {p.shape}")
    if len(p) < least or (most is not None and len(p) > most):
        limit = f"at most {most}" if len(p) >= least else f"at least {least}"
        raise ShapeError(f"{what}: {limit} points are needed, got {len(p)}")
    # Whole-array reductions first: no float temporaries the size of the points.
    if not np.isfinite(p).all() or p.max() > MAX_COORDINATE or p.min() < -MAX_COORDINATE:
        bad = ~np.isfinite(p).all(axis=1) | (np.abs(p) > MAX_COORDINATE).any(axis=1)
        row = int(np.argmax(bad))
        raise ShapeError(f"{what}: point {row} is {tuple(p[row].tolist())}; every coordinate "
                         f"must be finite and within +-{MAX_COORDINATE:g}")  # fmt: skip
    return np.ascontiguousarray(p)


def triangles(value: Any, what: str, vertices: np.ndarray, *,
              area: bool = True) -> np.ndarray:  # fmt: skip
    """(3M,) int64 corner indices naming rows of `vertices`, three distinct per triangle,
    and (``area``) none of zero area: Culverin's mesh builder fails on those."""
    i = np.asarray(value)
    whole = i.dtype.kind == "f" and np.array_equal(i, np.round(i))  # 3.0 names vertex 3
    if i.size and i.dtype.kind not in "iu" and not whole:
        raise ShapeError(f"{what} must be ints, got {show(value)}")
    i = i.astype(np.int64).reshape(-1)
    n = len(vertices)
    if len(i) == 0 or len(i) % 3:
        raise ShapeError(f"{what} must be triangles (a multiple of 3 indices, at least 3), "
                         f"got {len(i)} indices")  # fmt: skip
    if i.min() < 0 or i.max() >= n:
        bad = int(np.argmax((i < 0) | (i >= n)))
        raise ShapeError(f"{what}: index {int(i[bad])} (triangle {bad // 3}) is outside the "
                         f"triangles naming vertices 0..{n - 1}")  # fmt: skip
    t = i.reshape(-1, 3)
    repeated = (t[:, 0] == t[:, 1]) | (t[:, 1] == t[:, 2]) | (t[:, 0] == t[:, 2])
    if repeated.any():
        k = int(np.argmax(repeated))
        raise ShapeError(f"{what}: triangle {k} {tuple(t[k].tolist())} repeats a vertex")
    if area:
        v = np.asarray(vertices, np.float64)
        doubled = np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)
        flat = doubled <= 1e-12 * max(float(np.ptp(v, axis=0).max()) ** 2, 1e-30)
        if flat.any():
            k = int(np.argmax(flat))
            raise ShapeError(f"{what}: triangle {k} {tuple(t[k].tolist())} has no area (its "
                             "corners are on one line)")  # fmt: skip
    return i


# --- keyword options, by name ------------------------------------------------------------
def _angle(low: float, high: float) -> Callable[[Any, str], float]:
    return lambda v, w: number(v, w, low=low, high=high)


def _choice(*allowed: Any) -> Callable[[Any, str], Any]:
    def check(value: Any, what: str) -> Any:
        if isinstance(value, bool) or value not in allowed:
            raise BadValueError(f"{what} must be one of {list(allowed)}, got {show(value)}")
        return value

    return check


def _u32(value: Any, what: str) -> int:
    return integer(value, what, low=0, high=0xFFFFFFFF)


def _non_negative(value: Any, what: str) -> float:
    return number(value, what, low=0.0, high=MAX_COORDINATE)


def _positive1(value: Any, what: str) -> float:
    return positive(value, what, error=BadValueError)[0]


def _instance(kind: str) -> Callable[[Any, str], Any]:
    """A Culverin object of class `kind` (culverin.Engine, culverin.Transmission) or None."""

    def check(value: Any, what: str) -> Any:
        import culverin

        if value is not None and not isinstance(value, getattr(culverin, kind)):
            raise BadValueError(f"{what} must be a culverin.{kind}, got {show(value)}")
        return value

    return check


def _motion(value: Any, what: str) -> int:
    import culverin

    return _choice(culverin.MOTION_STATIC, culverin.MOTION_KINEMATIC,
                   culverin.MOTION_DYNAMIC)(value, what)  # fmt: skip


# Every Culverin keyword option the helpers pass on, and how it is checked.
OPTIONS: dict[str, Callable[[Any, str], Any]] = {
    "pos": vector,
    "rot": quaternion,
    "mass": lambda v, w: number(v, w, above=0.0, high=MAX_MASS),
    "motion": _motion,
    "is_sensor": flag,
    "ccd": flag,
    "category": _u32,
    "mask": _u32,
    "material_id": _u32,
    "allowed_dofs": lambda v, w: integer(v, w, low=0, high=63),
    "friction": lambda v, w: number(v, w, low=0.0, high=1e3),
    "restitution": lambda v, w: number(v, w, low=0.0, high=1.0),
    # soft bodies
    "pressure": _non_negative,
    "vertex_radius": _non_negative,
    "linear_damping": lambda v, w: number(v, w, low=0.0, high=1e3),
    "num_iterations": lambda v, w: integer(v, w, low=1, high=MAX_ITERATIONS),
    "max_linear_velocity": lambda v, w: number(v, w, above=0.0, high=1e6),
    "gravity_factor": lambda v, w: number(v, w, low=-1e3, high=1e3),
    "make_rotation_identity": flag,
    "update_position": flag,
    "faces_double_sided": flag,
    "compliance": lambda v, w: number(v, w, low=0.0, high=1e6),
    # characters
    "height": _positive1,
    "radius": _positive1,
    "step_height": _non_negative,
    "max_slope": _angle(0.0, 90.0),
    # vehicles
    "drive": _choice("RWD", "FWD", "AWD"),
    "engine": _instance("Engine"),
    "transmission": _instance("Transmission"),
    "max_torque": lambda v, w: number(v, w, above=0.0, high=1e9),
    "max_rpm": lambda v, w: number(v, w, above=0.0, high=1e6),
    # ragdoll parts (radians)
    "twist_min": _angle(-math.pi, math.pi),
    "twist_max": _angle(-math.pi, math.pi),
    "cone_angle": _angle(0.0, math.pi),
    "axis": direction,
    "normal": direction,
}


def options(given: dict[str, Any], allowed: Iterable[str], caller: str) -> dict[str, Any]:
    """`given` with every value checked by its name; a name `caller` does not take is an
    ``UnknownOptionError``."""
    allowed = tuple(allowed)
    out = {}
    for name, value in given.items():
        if name == "user_data":
            raise BadValueError(f"{caller} assigns user_data itself (the stable id); use "
                                "world.* and bridge.set_shape to choose your own")  # fmt: skip
        if name not in allowed:
            raise UnknownOptionError(f"{caller} takes no option {name!r}; it takes "
                                     f"{', '.join(sorted(allowed))}")  # fmt: skip
        out[name] = OPTIONS[name](value, f"{caller} {name}")
    return out


# --- what Culverin still raises ----------------------------------------------------------
def room_for(world: Any, bodies: int, what: str) -> None:
    """A `CapacityError` unless the world has room for `bodies` more (before creating any)."""
    left = world.remaining_capacity
    if bodies > left:
        larger = max(2 * world.max_bodies, world.max_bodies + bodies)
        raise CapacityError(f"{what}: {bodies} more bodies are needed but the world has room "
                            f"for {left} (max_bodies={world.max_bodies}): create the world "
                            f"with a larger max_bodies, e.g. culverin.PhysicsWorld(settings="
                            f"{{'max_bodies': {larger}}})")  # fmt: skip


@contextlib.contextmanager
def calling(what: str) -> Iterator[None]:
    """Culverin's raw errors inside the block as the bridge's, saying what was asked."""
    try:
        yield
    except MemoryError as exc:
        raise CulverinError(f"Culverin ran out of memory for {what} ({str(exc) or 'no message'}): "
                            "make it smaller, or raise the world's temp_allocator_size "
                            "setting") from None  # fmt: skip
    except OverflowError as exc:
        raise BadValueError(f"{what}: a number does not fit Culverin's types ({exc})") from None
    except RuntimeError as exc:
        if "limit reached" in str(exc):
            raise CapacityError(f"{what}: the world is full ({exc}): create it with a larger "
                                "max_bodies setting") from None  # fmt: skip
        raise CulverinError(f"Culverin could not make {what}: {exc}") from None
    except (ValueError, IndexError) as exc:
        if isinstance(exc, BridgeError):
            raise
        raise BadValueError(f"Culverin refused {what}: {exc}") from None
