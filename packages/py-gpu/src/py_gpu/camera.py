"""Camera helpers: view and projection matrices (NumPy, column vectors: ``clip = M @ p``).

Right-handed world, the camera looks down its -Z axis, OpenGL clip space (NDC ``z`` in
[-1, 1]).  ``look_at`` and ``perspective`` take the same parameters as hypergl's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .buffers import validate_size
from .errors import InvalidGeometryError


def vec3(value: ArrayLike, label: str) -> np.ndarray:
    """``value`` as three finite float64s, else InvalidGeometryError naming ``label``."""
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (3,) or not np.isfinite(array).all():
        raise InvalidGeometryError(f"{label} must be three finite numbers, got {value!r}")
    return array


def look_at(eye: ArrayLike, target: ArrayLike, up: ArrayLike = (0.0, 1.0, 0.0)) -> np.ndarray:
    """World-to-view 4x4 matrix of a camera at ``eye`` looking at ``target``.

    Same parameter names as ``hypergl.transforms.look_at``.
    """
    eye, target, up = vec3(eye, "eye"), vec3(target, "target"), vec3(up, "up")
    forward = target - eye
    if np.linalg.norm(forward) == 0:
        raise InvalidGeometryError("camera eye and target must differ")
    forward = forward / np.linalg.norm(forward)
    right = np.cross(forward, up)
    if np.linalg.norm(right) < 1e-12:
        raise InvalidGeometryError(f"camera up {tuple(up)} is parallel to the view direction")
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = right, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ eye
    return view


def _check_planes(near: float, far: float) -> None:
    if not (math.isfinite(near) and math.isfinite(far)) or near <= 0 or far <= near:
        raise InvalidGeometryError(f"need 0 < near < far, got near={near!r}, far={far!r}")


def perspective(fovy_degrees: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL-style perspective projection (NDC z in [-1, 1]).

    Same parameter names as ``hypergl.transforms.perspective``.
    """
    _check_planes(near, far)
    if not (0 < fovy_degrees < 180) or not (aspect > 0 and math.isfinite(aspect)):
        raise InvalidGeometryError(
            f"need 0 < fovy_degrees < 180 and aspect > 0, got {fovy_degrees!r}, {aspect!r}"
        )
    f = 1.0 / math.tan(math.radians(fovy_degrees) / 2.0)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = f / aspect, f
    m[2, 2], m[2, 3] = (far + near) / (near - far), 2 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def orthographic(height: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL-style orthographic projection of a view ``height`` world units tall."""
    _check_planes(near, far)
    if not (height > 0 and aspect > 0):
        raise InvalidGeometryError(f"need height > 0 and aspect > 0, got {height!r}, {aspect!r}")
    m = np.eye(4)
    m[0, 0], m[1, 1] = 2.0 / (height * aspect), 2.0 / height
    m[2, 2], m[2, 3] = -2.0 / (far - near), -(far + near) / (far - near)
    return m


@dataclass
class Camera:
    """A look-at camera with a perspective (default) or orthographic projection."""

    position: Sequence[float] = (0.0, 0.0, 5.0)
    target: Sequence[float] = (0.0, 0.0, 0.0)
    up: Sequence[float] = (0.0, 1.0, 0.0)
    fov_y: float = 60.0
    near: float = 0.1
    far: float = 100.0
    orthographic: bool = False
    ortho_height: float = 2.0

    def view_matrix(self) -> np.ndarray:
        return look_at(self.position, self.target, self.up)

    def projection_matrix(self, aspect: float) -> np.ndarray:
        if self.orthographic:
            return orthographic(self.ortho_height, aspect, self.near, self.far)
        return perspective(self.fov_y, aspect, self.near, self.far)

    def view_projection(self, width: int, height: int) -> np.ndarray:
        width, height = validate_size(width, height)
        return self.projection_matrix(width / height) @ self.view_matrix()
