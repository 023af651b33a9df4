"""A 3-D convex hull (incremental, NumPy) for drawing Culverin's convex-hull bodies.

Culverin gives no mesh back for ``create_convex_hull`` and this package depends on no
geometry library, so the hull is rebuilt here from the points the body was made of.
Jolt keeps at most 256 hull vertices, so a large cloud is first reduced by
:func:`reduce_points` to the points extreme along ``DIRECTIONS`` fixed directions (each is
a vertex of the true hull; one NumPy product, O(n)); the exact hull then runs on at most
that many, its per-point work vectorised over the faces, so its time is bounded.
"""

from __future__ import annotations

import numpy as np

from .errors import ShapeError

MAX_INPUT_POINTS = 1 << 20  # what a caller may hand in (8 MB of float64 rows)
MAX_HULL_POINTS = 256  # what the exact hull (and Culverin) gets at most
MIN_EXTENT = 1e-3  # metres; Culverin's hull builder fails on smaller clouds


def _directions(count: int) -> np.ndarray:
    """`count` unit vectors spread evenly over the sphere (a Fibonacci lattice)."""
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    r = np.sqrt(1.0 - z * z)
    phi = k * np.pi * (3.0 - np.sqrt(5.0))
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


DIRECTIONS = _directions(MAX_HULL_POINTS)


def reduce_points(points: np.ndarray, most: int = MAX_HULL_POINTS) -> np.ndarray:
    """`points` itself when it has at most `most` rows, else the (<= `most`) distinct points
    extreme along ``DIRECTIONS`` (about the centroid): vertices of the hull, in input order."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    if len(p) <= most:
        return p
    centred = p - p.mean(axis=0)
    extreme = np.unique(np.argmax(centred @ DIRECTIONS[:most].T, axis=0))
    return p[extreme]


def convex_hull(points: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    """(F, 3) vertex indices of outward, counter-clockwise triangles enclosing ``points``."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    if len(p) < 4 or not np.isfinite(p).all():
        raise ShapeError(f"a convex hull needs at least 4 finite points, got {len(p)}")
    if len(p) > 4 * MAX_HULL_POINTS:
        raise ShapeError(f"a convex hull of {len(p)} points: reduce them first "
                         f"(hull.reduce_points keeps at most {MAX_HULL_POINTS})")  # fmt: skip
    extent = float(np.ptp(p, axis=0).max())
    if extent < MIN_EXTENT:
        raise ShapeError(f"the convex hull's points span {extent:g} m, less than the "
                         f"{MIN_EXTENT:g} m Culverin can build a hull of")  # fmt: skip
    tol = eps * extent
    # A first tetrahedron from extreme points: the two farthest apart, then farthest
    # from their line, then farthest from their plane.
    a = int(np.argmin(p[:, 0]))
    b = int(np.argmax(np.linalg.norm(p - p[a], axis=1)))
    line = p[b] - p[a]
    c = int(np.argmax(np.linalg.norm(np.cross(p - p[a], line), axis=1)))
    normal = np.cross(line, p[c] - p[a])
    d = int(np.argmax(np.abs((p - p[a]) @ normal)))
    if abs((p[d] - p[a]) @ normal) <= tol * np.linalg.norm(normal) or len({a, b, c, d}) < 4:
        raise ShapeError("the convex hull's points are flat (all on one plane or line)")
    centre = p[[a, b, c, d]].mean(axis=0)
    faces = np.array([[a, b, c], [a, b, d], [a, c, d], [b, c, d]], np.int64)
    flip = _heights(p, faces, centre) > 0
    faces[flip] = faces[flip][:, [0, 2, 1]]
    for index in range(len(p)):
        if index in (a, b, c, d):
            continue
        visible = _heights(p, faces, p[index]) > tol
        if not visible.any():
            continue  # inside (or on) the hull so far
        edges = set()
        for f in faces[visible].tolist():
            edges.update(((f[0], f[1]), (f[1], f[2]), (f[2], f[0])))
        horizon = [e for e in edges if (e[1], e[0]) not in edges]
        new = np.array([[e[0], e[1], index] for e in horizon], np.int64).reshape(-1, 3)
        faces = np.concatenate([faces[~visible], new])
    return faces


def _heights(p: np.ndarray, faces: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Signed distance of `point` above each face's plane (0 for a degenerate face)."""
    o = p[faces[:, 0]]
    n = np.cross(p[faces[:, 1]] - o, p[faces[:, 2]] - o)
    length = np.linalg.norm(n, axis=1)
    h = np.einsum("ij,ij->i", point - o, n)
    return np.divide(h, length, out=np.zeros_like(h), where=length > 0)


def volume_and_centroid(points: np.ndarray, faces: np.ndarray) -> tuple[float, np.ndarray]:
    """Volume and centre of mass (uniform density) of a closed, outward triangle mesh."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    origin = p.mean(axis=0)
    tri = p[faces] - origin
    six_volumes = np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2]))
    volume = six_volumes.sum() / 6.0
    if volume <= 0:
        raise ShapeError("the convex hull has no volume")
    centroids = tri.sum(axis=1) / 4.0  # of each tetrahedron with the origin
    return float(volume), origin + (six_volumes[:, None] * centroids).sum(axis=0) / (6 * volume)
