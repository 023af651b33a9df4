"""What a body looks like: its shape as drawable parts, placed relative to its centre of mass.

Culverin does not report a body's shape (``get_body_stats`` gives position, rotation and
velocity only), so the bridge's creating helpers keep the shape they were given, and
``BodyRenderer.set_look(id, shape)`` accepts one for bodies made straight through Culverin.

Culverin positions are *centres of mass*. Jolt moves a body's reference point to its
centre of mass for convex hulls and compounds (uniform density), so every part is stored
as an offset from that centre: ``parts(com=True)`` subtracts it, computed here the way
Jolt does (the volume centroid; for compounds the volume-weighted mean of the parts').
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from hypergl.bodies.parts import IDENTITY, MODE_CAPSULE, MODE_SCALED, MODE_SOFT, Part  # noqa: F401

from . import meshes, values
from .errors import ShapeError
from .hull import MAX_INPUT_POINTS, convex_hull, reduce_points, volume_and_centroid


def quat_mul(a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def rotate(q: Sequence[float], v: Sequence[float]) -> np.ndarray:
    u, w = np.asarray(q[:3], np.float64), float(q[3])
    v = np.asarray(v, np.float64)
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def _quat(value: Any, what: str = "rotation") -> tuple[float, float, float, float]:
    return values.quaternion(value, what, error=ShapeError)


class Shape:
    """Base class: ``parts()`` (about the body origin), ``volume``, ``centroid``."""

    kind = "shape"

    def local_parts(self) -> list[Part]:
        raise NotImplementedError

    @property
    def volume(self) -> float:
        return 0.0

    @property
    def centroid(self) -> np.ndarray:
        return np.zeros(3)

    def meshes(self) -> dict[str, np.ndarray]:
        """Meshes this shape adds to the renderer's library (key -> vertex rows)."""
        return {}

    def parts(self) -> list[Part]:
        """Parts placed about the centre of mass, as Culverin reports the body's position."""
        com = self.centroid
        if not com.any():
            return self.local_parts()
        return [
            replace(p, offset=tuple(float(x) for x in np.asarray(p.offset) - com))
            for p in self.local_parts()
        ]


@dataclass(frozen=True, eq=False)
class Box(Shape):
    half_extents: Any
    kind = "box"

    def __post_init__(self) -> None:
        object.__setattr__(self, "half_extents", values.positive(self.half_extents, "box size", 3))

    def local_parts(self) -> list[Part]:
        return [Part("box", scale=self.half_extents)]

    @property
    def volume(self) -> float:
        return float(8 * np.prod(self.half_extents))


@dataclass(frozen=True, eq=False)
class Sphere(Shape):
    radius: Any
    kind = "sphere"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", values.positive(self.radius, "sphere radius", 1)[0])

    def local_parts(self) -> list[Part]:
        return [Part("sphere", scale=(self.radius,) * 3)]

    @property
    def volume(self) -> float:
        return 4.0 / 3.0 * np.pi * self.radius**3


@dataclass(frozen=True, eq=False)
class Capsule(Shape):
    """Along y: ``half_height`` of the cylindrical middle, ``radius`` (Culverin's order)."""

    half_height: Any
    radius: Any
    kind = "capsule"

    def __post_init__(self) -> None:
        h, r = values.positive((self.half_height, self.radius), "capsule (half_height, radius)", 2)
        object.__setattr__(self, "half_height", h)
        object.__setattr__(self, "radius", r)

    def local_parts(self) -> list[Part]:
        return [Part("capsule", scale=(self.radius, self.half_height, self.radius),
                     mode=MODE_CAPSULE)]  # fmt: skip

    @property
    def volume(self) -> float:
        r, h = self.radius, self.half_height
        return np.pi * r * r * 2 * h + 4.0 / 3.0 * np.pi * r**3


@dataclass(frozen=True, eq=False)
class Cylinder(Shape):
    """Along y: ``half_height``, ``radius`` (Culverin's order)."""

    half_height: Any
    radius: Any
    kind = "cylinder"

    def __post_init__(self) -> None:
        h, r = values.positive((self.half_height, self.radius), "cylinder (half_height, radius)", 2)
        object.__setattr__(self, "half_height", h)
        object.__setattr__(self, "radius", r)

    def local_parts(self) -> list[Part]:
        return [Part("cylinder", scale=(self.radius, self.half_height, self.radius))]

    @property
    def volume(self) -> float:
        return np.pi * self.radius**2 * 2 * self.half_height


@dataclass(frozen=True, eq=False)
class Plane(Shape):
    """``normal . p + constant = 0``, drawn as a square of ``half_size`` around its foot."""

    normal: Any
    constant: float = 0.0
    half_size: float = 50.0
    kind = "plane"

    def __post_init__(self) -> None:
        n = values.floats(self.normal, "plane normal", error=ShapeError)
        if n.shape != (3,) or not np.isfinite(n).all() or np.linalg.norm(n) < 1e-9:
            raise ShapeError(f"plane normal must be a non-zero (x, y, z), got {self.normal!r}")
        object.__setattr__(self, "normal", tuple(float(x) for x in n / np.linalg.norm(n)))
        object.__setattr__(self, "constant", values.number(
            self.constant, "plane constant", low=-values.MAX_COORDINATE,
            high=values.MAX_COORDINATE, error=ShapeError))  # fmt: skip
        half_size = values.positive(self.half_size, "plane half_size", 1)[0]
        object.__setattr__(self, "half_size", half_size)

    def local_parts(self) -> list[Part]:
        n = np.asarray(self.normal)
        # Rotation taking +y (the quad's normal) to n.
        up = np.array([0.0, 1.0, 0.0])
        axis, dot = np.cross(up, n), float(up @ n)
        if np.linalg.norm(axis) < 1e-9:
            rotation = IDENTITY if dot > 0 else (1.0, 0.0, 0.0, 0.0)
        else:
            q = np.array([*axis, 1.0 + dot])
            rotation = tuple(float(x) for x in q / np.linalg.norm(q))
        foot = tuple(float(x) for x in -self.constant * n)
        return [Part("quad", offset=foot, rotation=rotation, scale=(self.half_size, 1.0,
                                                                      self.half_size))]  # fmt: skip


def _mesh_key(prefix: str, *arrays: np.ndarray) -> str:
    digest = hashlib.blake2b(digest_size=10)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return f"{prefix}:{digest.hexdigest()}"


@dataclass(frozen=True, eq=False)
class ConvexHull(Shape):
    points: Any
    faces: Any = field(default=None, init=False)
    kind = "convex_hull"

    def __post_init__(self) -> None:
        # At most MAX_HULL_POINTS extreme points are kept (bounded time; Jolt keeps 256).
        points = reduce_points(values.points(self.points, "convex hull points", least=4,
                                             most=MAX_INPUT_POINTS))  # fmt: skip
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "faces", convex_hull(points))
        object.__setattr__(self, "_mass", volume_and_centroid(points, self.faces))

    @property
    def key(self) -> str:
        return _mesh_key("hull", self.points)

    def meshes(self) -> dict[str, np.ndarray]:
        return {self.key: meshes.triangles(self.points, self.faces)}

    def local_parts(self) -> list[Part]:
        return [Part(self.key)]

    @property
    def volume(self) -> float:
        return self._mass[0]  # type: ignore[attr-defined]

    @property
    def centroid(self) -> np.ndarray:
        return self._mass[1]  # type: ignore[attr-defined]


@dataclass(frozen=True, eq=False)
class TriangleMesh(Shape):
    """Static triangle mesh (``create_mesh_body``); Jolt keeps its origin."""

    vertices: Any
    indices: Any
    kind = "mesh"

    def __post_init__(self) -> None:
        v = np.asarray(self.vertices, np.float64).reshape(-1, 3)
        i = np.asarray(self.indices).reshape(-1)
        if len(i) == 0 or len(i) % 3 or i.min() < 0 or i.max() >= len(v):
            raise ShapeError(f"mesh indices must be triangles naming vertices 0..{len(v) - 1}")
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "indices", i.astype(np.int64, copy=False))

    @property
    def key(self) -> str:
        return _mesh_key("mesh", self.vertices, self.indices)

    def meshes(self) -> dict[str, np.ndarray]:
        rows = meshes.triangles(self.vertices, self.indices)
        # Static geometry seen from either side: both windings.
        back = rows.reshape(-1, 3, 6)[:, ::-1].copy()
        back[..., 3:] *= -1
        return {self.key: np.concatenate([rows, back.reshape(-1, 6)])}

    def local_parts(self) -> list[Part]:
        return [Part(self.key)]


@dataclass(frozen=True, eq=False)
class Heightfield(Shape):
    """``heights[row * grid_size + col]`` at local ``(col * sx, h * sy, row * sz)``."""

    heights: Any
    grid_size: int
    scale: Any = (1.0, 1.0, 1.0)
    kind = "heightfield"

    def __post_init__(self) -> None:
        n = self.grid_size
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise ShapeError(f"heightfield grid_size must be an int >= 2, got {n!r}")
        heights = values.floats(self.heights, "heightfield heights", error=ShapeError).reshape(-1)
        if heights.size != n * n:
            raise ShapeError(f"a heightfield of grid_size {n} needs {n * n} finite heights, "
                             f"got {heights.size}")  # fmt: skip
        bad = ~np.isfinite(heights) | (np.abs(heights) > values.MAX_COORDINATE)
        if bad.any():
            k = int(np.argmax(bad))
            raise ShapeError(f"heightfield height {k} is {float(heights[k])!r}: heights must "
                             f"be finite, within +-{values.MAX_COORDINATE:g}")  # fmt: skip
        object.__setattr__(self, "heights", heights)
        object.__setattr__(self, "scale", values.positive(self.scale, "heightfield scale", 3))

    @property
    def key(self) -> str:
        return _mesh_key("heightfield", self.heights, np.asarray(self.scale))

    def meshes(self) -> dict[str, np.ndarray]:
        n = self.grid_size
        sx, sy, sz = self.scale
        row, col = np.divmod(np.arange(n * n), n)
        vertices = np.stack([col * sx, self.heights * sy, row * sz], axis=1)
        a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).reshape(-1)
        quads = np.stack([a, a + n, a + 1, a + 1, a + n, a + n + 1], axis=1)
        return {self.key: meshes.triangles(vertices, quads.reshape(-1))}

    def local_parts(self) -> list[Part]:
        return [Part(self.key)]


@dataclass(frozen=True, eq=False)
class Compound(Shape):
    """``[(offset, rotation, shape), ...]`` about the body origin; every part is drawn."""

    children: Any
    kind = "compound"

    def __post_init__(self) -> None:
        checked = []
        for item in self.children:
            try:
                offset, rotation, shape = item
            except (TypeError, ValueError):
                raise ShapeError(f"a compound part must be (offset, rotation, shape), "
                                 f"got {item!r}") from None  # fmt: skip
            if not isinstance(shape, Shape) or isinstance(shape, (Compound, Plane)):
                raise ShapeError(f"a compound part's shape must be a convex Shape, got {shape!r}")
            offset = np.asarray(offset, np.float64)
            if offset.shape != (3,) or not np.isfinite(offset).all():
                raise ShapeError(f"a compound part's offset must be (x, y, z), got {item[0]!r}")
            checked.append((offset, _quat(rotation, "compound part rotation"), shape))
        if not checked:
            raise ShapeError("a compound needs at least one part")
        object.__setattr__(self, "children", checked)

    def meshes(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for _, _, shape in self.children:
            out.update(shape.meshes())
        return out

    def local_parts(self) -> list[Part]:
        parts = []
        for offset, rotation, shape in self.children:
            for p in shape.parts():  # about the child's own centre of mass
                centre = offset + rotate(rotation, shape.centroid)
                placed = centre + rotate(rotation, p.offset)
                parts.append(replace(p, offset=tuple(float(x) for x in placed),
                                     rotation=quat_mul(rotation, p.rotation)))  # fmt: skip
        return parts

    @property
    def volume(self) -> float:
        return float(sum(shape.volume for _, _, shape in self.children))

    @property
    def centroid(self) -> np.ndarray:
        weighted = sum(shape.volume * (offset + rotate(rotation, shape.centroid))
                       for offset, rotation, shape in self.children)  # fmt: skip
        return np.asarray(weighted, np.float64) / self.volume


@dataclass(frozen=True, eq=False)
class SoftBody(Shape):
    """A soft body's faces; its vertices come from Culverin every frame (world space)."""

    vertex_count: int
    faces: Any
    kind = "soft_body"

    def __post_init__(self) -> None:
        faces = np.asarray(self.faces, np.int64).reshape(-1)
        if len(faces) == 0 or len(faces) % 3 or faces.min() < 0 or \
                faces.max() >= self.vertex_count:  # fmt: skip
            raise ShapeError(f"soft body faces must be triangles naming vertices "
                             f"0..{self.vertex_count - 1}")  # fmt: skip
        object.__setattr__(self, "faces", faces)

    @property
    def key(self) -> str:
        return _mesh_key("soft", self.faces, np.array([self.vertex_count]))

    def meshes(self) -> dict[str, np.ndarray]:
        both = np.concatenate([self.faces, self.faces.reshape(-1, 3)[:, ::-1].reshape(-1)])
        return {self.key: meshes.indexed_rows(self.vertex_count, both)}

    def local_parts(self) -> list[Part]:
        return [Part(self.key, mode=MODE_SOFT)]


class Shaded(Shape):
    """Another shape with some of its parts darker: ``{part index: shade}``."""

    def __init__(self, shape: Shape, shades: dict[int, float]) -> None:
        self.shape: Shape = shape
        self.shades: dict[int, float] = dict(shades)
        self.kind: str = shape.kind

    @property
    def volume(self) -> float:
        return self.shape.volume

    @property
    def centroid(self) -> np.ndarray:
        return self.shape.centroid

    def meshes(self) -> dict[str, np.ndarray]:
        return self.shape.meshes()

    def local_parts(self) -> list[Part]:
        return [replace(p, shade=self.shades.get(k, p.shade))
                for k, p in enumerate(self.shape.local_parts())]  # fmt: skip


# Culverin's SHAPE_* constants and the size each takes.
def from_culverin(shape: int, size: Any) -> Shape:
    """The Shape of ``world.create_body(shape=shape, size=size)``."""
    import culverin

    if shape == culverin.SHAPE_BOX:
        return Box(size)
    if shape == culverin.SHAPE_SPHERE:
        return Sphere(size[0] if isinstance(size, (list, tuple)) else size)
    if shape == culverin.SHAPE_CAPSULE:
        return Capsule(*_pair(size, "capsule"))
    if shape == culverin.SHAPE_CYLINDER:
        return Cylinder(*_pair(size, "cylinder"))
    if shape == culverin.SHAPE_PLANE:
        try:
            nx, ny, nz, c = size
        except (TypeError, ValueError):
            raise ShapeError(f"a plane's size is (nx, ny, nz, constant), got {size!r}") from None
        return Plane((nx, ny, nz), c)
    names = {culverin.SHAPE_MESH: "create_mesh_body", culverin.SHAPE_HEIGHTFIELD:
             "create_heightfield", culverin.SHAPE_CONVEX_HULL: "create_convex_hull"}  # fmt: skip
    if shape in names:
        raise ShapeError(f"shape {shape} needs its own data: use bridge.{names[shape]}(...)")
    raise ShapeError(f"unknown Culverin shape {shape!r}; expected one of culverin.SHAPE_BOX, "
                     "SHAPE_SPHERE, SHAPE_CAPSULE, SHAPE_CYLINDER, SHAPE_PLANE")  # fmt: skip


def _pair(size: Any, what: str) -> tuple[float, float]:
    try:
        half_height, radius = size
    except (TypeError, ValueError):
        raise ShapeError(f"a {what}'s size is (half_height, radius), got {size!r}") from None
    return half_height, radius


BY_NAME = {"box": Box, "sphere": Sphere, "capsule": Capsule, "cylinder": Cylinder}


def from_name(name: str, size: Any) -> Shape:
    """``set_look(id, "box", 0.5)``-style shapes by name."""
    if name not in BY_NAME:
        raise ShapeError(f"unknown shape {name!r}; expected one of {sorted(BY_NAME)} or a "
                         "hypergl_culverin.shapes.Shape")  # fmt: skip
    if name in ("capsule", "cylinder"):
        return BY_NAME[name](*_pair(size, name))
    return BY_NAME[name](size)
