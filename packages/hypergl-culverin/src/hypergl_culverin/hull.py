"""A 3-D convex hull (incremental, NumPy) for drawing Culverin's convex-hull bodies.

Culverin gives no mesh back for ``create_convex_hull`` and this package depends on no
geometry library, so the hull is rebuilt here from the points the body was made of.
Point clouds are small (Jolt caps hulls at 256 points), so O(n * faces) is plenty.
"""

from __future__ import annotations

import numpy as np

from .errors import ShapeError


def convex_hull(points: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    """(F, 3) vertex indices of outward, counter-clockwise triangles enclosing ``points``."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    if len(p) < 4 or not np.isfinite(p).all():
        raise ShapeError(f"a convex hull needs at least 4 finite points, got {len(p)}")
    scale = max(float(np.ptp(p, axis=0).max()), 1e-12)
    tol = eps * scale
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
    faces = [[a, b, c], [a, b, d], [a, c, d], [b, c, d]]
    faces = [f if _outward(p, f, centre) else [f[0], f[2], f[1]] for f in faces]
    for index in range(len(p)):
        if index in (a, b, c, d):
            continue
        visible = [f for f in faces if _height(p, f, p[index]) > tol]
        if not visible:
            continue  # inside (or on) the hull so far
        edges: dict[tuple[int, int], int] = {}
        for f in visible:
            for e in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
                edges[e] = edges.get(e, 0) + 1
        horizon = [e for e in edges if (e[1], e[0]) not in edges]
        faces = [f for f in faces if f not in visible]
        faces += [[e[0], e[1], index] for e in horizon]
    return np.array(faces, np.int64)


def _height(p: np.ndarray, face: list[int], point: np.ndarray) -> float:
    n = np.cross(p[face[1]] - p[face[0]], p[face[2]] - p[face[0]])
    length = np.linalg.norm(n)
    return float((point - p[face[0]]) @ n / length) if length > 0 else 0.0


def _outward(p: np.ndarray, face: list[int], centre: np.ndarray) -> bool:
    return _height(p, face, centre) < 0


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
