"""Unit meshes for the instanced renderer, generated in NumPy: (N, 6) float32 rows of
position xyz + normal xyz, non-indexed triangles, counter-clockwise seen from outside.

Sized the way Culverin sizes its shapes once the vertex shader scales them: the box spans
[-1, 1] (times half extents), the sphere has radius 1, the cylinder radius 1 and half
height 1 along y. The capsule's hemispheres sit at y = +-1 *beyond* the unit sphere
(|y| >= 1 on every vertex): the shader moves them to ``+-half_height`` and scales the
rest by the radius, so one mesh draws capsules of every proportion.
"""

from __future__ import annotations

import numpy as np


def box() -> np.ndarray:
    """36 vertices: 6 faces x 2 triangles, flat normals."""
    rows = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
            u, v = np.zeros(3), np.zeros(3)
            u[u_axis], v[v_axis] = 1.0, 1.0
            if sign < 0:
                u, v = v, u  # keep counter-clockwise winding seen from outside
            corners = [normal + a * u + b * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            for index in (0, 1, 2, 0, 2, 3):
                rows.append((*corners[index], *normal))
    return np.array(rows, dtype=np.float32)


def _grid(theta: np.ndarray, slices: int) -> np.ndarray:
    phi = np.linspace(0.0, 2.0 * np.pi, slices + 1)
    return np.stack(
        [
            np.sin(theta)[:, None] * np.cos(phi)[None, :],
            np.cos(theta)[:, None] * np.ones_like(phi)[None, :],
            np.sin(theta)[:, None] * -np.sin(phi)[None, :],
        ],
        axis=-1,
    )


def _strip(grid: np.ndarray) -> np.ndarray:
    """Triangles between consecutive rows of a (rows, slices + 1, 3) grid."""
    a, b, c, d = grid[:-1, :-1], grid[1:, :-1], grid[1:, 1:], grid[:-1, 1:]
    return np.stack([a, b, c, a, c, d], axis=2).reshape(-1, 3)


def sphere(stacks: int = 12, slices: int = 16) -> np.ndarray:
    """A UV sphere of ``stacks * slices * 6`` vertices with smooth normals."""
    if stacks < 2 or slices < 3:
        raise ValueError(f"a sphere needs stacks >= 2 and slices >= 3, got {stacks}, {slices}")
    triangles = _strip(_grid(np.linspace(0.0, np.pi, stacks + 1), slices))
    return np.concatenate([triangles, triangles], axis=1).astype(np.float32)


def capsule(stacks: int = 12, slices: int = 16) -> np.ndarray:
    """Two hemispheres moved to y = +-1 and the band between them (see the module doc)."""
    half = max(stacks // 2, 1)
    top = _grid(np.linspace(0.0, np.pi / 2, half + 1), slices)
    bottom = _grid(np.linspace(np.pi / 2, np.pi, half + 1), slices)
    parts = []
    for grid, shift in ((top, 1.0), (bottom, -1.0)):
        normals = _strip(grid)
        positions = normals + np.array([0.0, shift, 0.0])
        parts.append(np.concatenate([positions, normals], axis=1))
    ring = top[-1:]  # the equator: y = 0 on the unit sphere
    band_normals = _strip(np.concatenate([ring, ring]))
    up = np.array([0.0, 1.0, 0.0])
    band_positions = _strip(np.concatenate([ring + up, ring - up]))
    parts.append(np.concatenate([band_positions, band_normals], axis=1))
    return np.concatenate(parts).astype(np.float32)


def cylinder(slices: int = 16) -> np.ndarray:
    """Radius 1, y in [-1, 1]: side with smooth normals, flat caps."""
    phi = np.linspace(0.0, 2.0 * np.pi, slices + 1)
    ring = np.stack([np.cos(phi), np.zeros_like(phi), -np.sin(phi)], axis=1)
    rows = []
    for k in range(slices):
        a, b = ring[k], ring[k + 1]
        up = np.array([0.0, 1.0, 0.0])
        quad = [a + up, a - up, b - up, a + up, b - up, b + up]
        normals = [a, a, b, a, b, b]
        rows += [(*p, *n) for p, n in zip(quad, normals, strict=True)]
        rows += [(*p, 0.0, 1.0, 0.0) for p in (up, a + up, b + up)]
        rows += [(*p, 0.0, -1.0, 0.0) for p in (-up, b - up, a - up)]
    return np.array(rows, dtype=np.float32)


def quad() -> np.ndarray:
    """A square x, z in [-1, 1] at y = 0 facing +y (planes)."""
    corners = [(-1, 0, -1), (-1, 0, 1), (1, 0, 1), (-1, 0, -1), (1, 0, 1), (1, 0, -1)]
    return np.array([(*c, 0.0, 1.0, 0.0) for c in corners], dtype=np.float32)


def plane_quads() -> np.ndarray:
    """A plane's quad twice (the ray_plane proxy's mesh): :func:`quad` (y 0), then the same
    square as 2 x 2 cells (y 1; a MuJoCo plane's grid counts its cells from the centre), each
    two triangles about its (-x, -z) - (+x, +z) diagonal (GL_QUADS' split as Mesa draws
    MuJoCo's grid), facing +y. The vertex stage draws one of the two per part (y: which, a
    plane ignores it): the cells where it lights the part per vertex of its quadrants
    (LIT_GRID 3, bodies.shading.lighting_way: the rasterizer interpolates their colours),
    else the quad (four times the triangles cost a fine-gridded floor's main pass ~7% on
    llvmpipe)."""
    rows = [(*c[:3], 0.0, 1.0, 0.0) for c in quad()]
    for x0 in (-1.0, 0.0):
        for z0 in (-1.0, 0.0):
            lo, hi = (x0, 1.0, z0), (x0 + 1.0, 1.0, z0 + 1.0)
            cell = [lo, (x0, 1.0, z0 + 1.0), hi, lo, hi, (x0 + 1.0, 1.0, z0)]
            rows += [(*c, 0.0, 1.0, 0.0) for c in cell]
    return np.array(rows, dtype=np.float32)


def triangles(vertices: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Non-indexed rows with flat normals of an indexed triangle list."""
    corners = np.asarray(vertices, np.float64)[np.asarray(indices).reshape(-1, 3)]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
    rows = np.concatenate([corners, np.repeat(normals[:, None], 3, axis=1)], axis=2)
    return rows.reshape(-1, 6).astype(np.float32)


def indexed_rows(count: int, indices: np.ndarray) -> np.ndarray:
    """Rows whose x is a vertex index into a storage buffer (soft bodies); no normals."""
    rows = np.zeros((len(indices), 6), np.float32)
    rows[:, 0] = np.asarray(indices, np.float64)
    if len(indices) and rows[:, 0].max() >= count:
        raise ValueError(f"a face names vertex {int(rows[:, 0].max())} of {count}")
    return rows


WELD = 1e-5  # rows closer than this (position and normal) are one vertex


def indexed(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique rows in first-use order, u32 indices) of a non-indexed triangle list, without
    degenerate triangles.

    Rows that differ by less than ``WELD`` are one vertex: a UV sphere's seam and poles
    come out of sin/cos a few ulps apart (1e-16 against 0.0, -0.0), and unwelded they
    cost llvmpipe a vertex each per instance and keep the pole's degenerate triangles.
    """
    rows = np.ascontiguousarray(rows, np.float32)
    keys = np.round(rows.astype(np.float64) / WELD) + 0.0  # + 0.0: -0.0 is 0.0
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # keep first-use order: neighbouring triangles share vertices
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    unique = rows[first]
    triangles = rank[inverse.reshape(-1)].astype(np.uint32).reshape(-1, 3)
    # Drop triangles that name a vertex twice (a UV sphere's pole rows): a third of a
    # coarse sphere's triangles, each of which the rasterizer would still set up.
    keep = (
        (triangles[:, 0] != triangles[:, 1])
        & (triangles[:, 1] != triangles[:, 2])
        & (triangles[:, 0] != triangles[:, 2])
    )
    return unique[order], triangles[keep].reshape(-1)
