"""Unit meshes for the instanced renderer, generated in NumPy: (N, 6) float32 rows of
position xyz + normal xyz, non-indexed triangles, counter-clockwise seen from outside.

The box spans [-1, 1] on each axis (scaled by half extents); the sphere has radius 1
(scaled by the radius), matching how Culverin sizes SHAPE_BOX and SHAPE_SPHERE bodies.
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


def sphere(stacks: int = 12, slices: int = 16) -> np.ndarray:
    """A UV sphere of ``stacks * slices * 6`` vertices with smooth normals."""
    if stacks < 2 or slices < 3:
        raise ValueError(f"a sphere needs stacks >= 2 and slices >= 3, got {stacks}, {slices}")
    theta = np.linspace(0.0, np.pi, stacks + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, slices + 1)
    grid = np.stack(
        [
            np.sin(theta)[:, None] * np.cos(phi)[None, :],
            np.cos(theta)[:, None] * np.ones_like(phi)[None, :],
            np.sin(theta)[:, None] * -np.sin(phi)[None, :],
        ],
        axis=-1,
    )  # (stacks + 1, slices + 1, 3): unit vectors, so position == normal
    a = grid[:-1, :-1]
    b = grid[1:, :-1]
    c = grid[1:, 1:]
    d = grid[:-1, 1:]
    triangles = np.stack([a, b, c, a, c, d], axis=2).reshape(-1, 3)
    return np.concatenate([triangles, triangles], axis=1).astype(np.float32)
