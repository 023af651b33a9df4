"""View and projection matrices in NumPy (row-major, column vectors: clip = M @ p).

Upload one to GLSL with ``matrix.T`` (std140 and uniforms read mat4 column by
column). `project` predicts where a point lands on screen (tests use it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def perspective(fovy_degrees: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL perspective projection (clip z in -w..w)."""
    if not 0 < near < far:
        raise ValueError(f"need 0 < near < far, got near={near}, far={far}")
    f = 1.0 / np.tan(np.radians(fovy_degrees) / 2.0)
    return np.array(
        [
            [f / aspect, 0, 0, 0],
            [0, f, 0, 0],
            [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
            [0, 0, -1, 0],
        ],
        dtype=np.float64,
    )


def look_at(eye: ArrayLike, target: ArrayLike, up: ArrayLike = (0.0, 1.0, 0.0)) -> np.ndarray:
    """A view matrix looking from `eye` at `target`."""
    eye, target, up = (np.asarray(v, dtype=np.float64) for v in (eye, target, up))
    forward = target - eye
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, up)
    side /= np.linalg.norm(side)
    true_up = np.cross(side, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = side, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ eye
    return view


def project(view_proj: np.ndarray, points: ArrayLike, size: tuple[int, int]) -> np.ndarray:
    """Pixel (x from the left, y from the bottom) of each 3D point, as float (N, 2)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    clip = np.c_[points, np.ones(len(points))] @ np.asarray(view_proj).T
    ndc = clip[:, :2] / clip[:, 3:4]
    width, height = size
    return (ndc * 0.5 + 0.5) * np.array([width, height])
