"""Camera math: view and projection matrices in NumPy (row-major, column vectors:
``clip = M @ p``), OpenGL clip space (NDC z in -1..1), the camera looking down its -Z axis.

The one home of the camera math of hypergl and its bridges: the body renderer (the
ray-cast parts' eyes, :func:`eye_of`) and its callers, the Culverin bridge and demo,
hypergl-mujoco's cameras (``mjr_lookAt``, ``glFrustum`` / ``glOrtho``: :func:`look_along`,
:func:`frustum_projection`) and hypergl-rl's batch renderer all make their matrices here.
:func:`look_along`, :func:`frustum_projection` and :func:`eye_of` take stacks of cameras
(``(..., 3)``, ``(..., 6)``, ``(..., 4, 4)``) and check nothing: their callers check their
own inputs and say what is wrong in their own terms; :func:`look_at`, :func:`perspective`
and :func:`orthographic` are the checked one-camera forms (an
:class:`~hypergl.ArgumentError` naming the bad value). py_gpu, which depends on nothing,
keeps a NumPy copy of the one-camera forms (``py_gpu.camera``) held to these numbers by a
test (tests/integration/test_camera_names.py).

Upload one to GLSL with ``matrix.T`` (std140 and uniforms read mat4 column by column;
:func:`hypergl.shader_prelude.camera_record` does it). `project` predicts where a point
lands on screen (tests use it).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from hypergl_compiler.errors import ArgumentError


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i", a, b)


# np.cross and np.linalg.norm on stacks of 3-vectors: a dozen small NumPy calls each, half
# of look_along's time for 64 cameras (it runs every frame of every batch renderer).
def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt(_dot(v, v))[..., None]


def look_along(position: ArrayLike, forward: ArrayLike, up: ArrayLike) -> np.ndarray:
    """View matrices (..., 4, 4) of cameras at `position` looking along `forward` (any
    length) with `up` (re-orthogonalised), as ``mjr_lookAt`` builds them; every argument
    (..., 3), broadcast together. Unchecked (see the module's text)."""
    position, forward, up = (np.asarray(v, dtype=np.float64) for v in (position, forward, up))
    f = _unit(forward)
    s = _unit(_cross(f, up))
    u = _unit(_cross(s, f))
    shape = np.broadcast_shapes(position.shape, f.shape)[:-1]
    view = np.zeros((*shape, 4, 4))
    view[..., 0, :3], view[..., 1, :3], view[..., 2, :3] = s, u, -f
    view[..., 0, 3] = -_dot(s, position)
    view[..., 1, 3] = -_dot(u, position)
    view[..., 2, 3] = _dot(f, position)
    view[..., 3, 3] = 1.0
    return view


def frustum_projection(frustum: ArrayLike, orthographic: ArrayLike = False) -> np.ndarray:
    """``glFrustum`` / ``glOrtho`` matrices (..., 4, 4) from (..., 6) frustums (left, right,
    bottom, top, near, far; perspective: at the near plane), `orthographic` (...,) bool
    choosing ``glOrtho``. Unchecked (see the module's text)."""
    left, right, bottom, top, near, far = np.moveaxis(np.asarray(frustum, np.float64), -1, 0)
    ortho = np.asarray(orthographic, bool)
    width, height, depth = right - left, top - bottom, far - near
    out = np.zeros((*np.broadcast_shapes(left.shape, ortho.shape), 4, 4))
    scale = np.where(ortho, 2.0, 2.0 * near)
    out[..., 0, 0], out[..., 1, 1] = scale / width, scale / height
    # perspective: the offsets multiply z; orthographic: they are the translation
    out[..., 0, 2] = np.where(ortho, 0.0, (right + left) / width)
    out[..., 1, 2] = np.where(ortho, 0.0, (top + bottom) / height)
    out[..., 0, 3] = np.where(ortho, -(right + left) / width, 0.0)
    out[..., 1, 3] = np.where(ortho, -(top + bottom) / height, 0.0)
    out[..., 2, 2] = np.where(ortho, -2.0 / depth, -(far + near) / depth)
    out[..., 2, 3] = np.where(ortho, -(far + near) / depth, -2.0 * far * near / depth)
    out[..., 3, 2] = np.where(ortho, 0.0, -1.0)
    out[..., 3, 3] = np.where(ortho, 1.0, 0.0)
    return out


def _check_planes(near: float, far: float) -> None:
    if not (math.isfinite(near) and math.isfinite(far)) or not 0 < near < far:
        raise ArgumentError(f"need 0 < near < far, got near={near}, far={far}")


def _check_aspect(aspect: float) -> None:
    if not (math.isfinite(aspect) and aspect > 0):
        raise ArgumentError(f"aspect must be a finite width / height > 0, got {aspect!r}")


def perspective(fovy_degrees: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL perspective projection (clip z in -w..w), `fovy_degrees` the vertical field
    of view."""
    _check_planes(near, far)
    _check_aspect(aspect)
    if not 0 < fovy_degrees < 180:
        raise ArgumentError(f"fovy_degrees must be in (0, 180), got {fovy_degrees!r}")
    top = near * math.tan(math.radians(fovy_degrees) / 2.0)
    return frustum_projection((-top * aspect, top * aspect, -top, top, near, far))


def orthographic(height: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL orthographic projection of a view `height` world units tall."""
    _check_planes(near, far)
    _check_aspect(aspect)
    if not (math.isfinite(height) and height > 0):
        raise ArgumentError(f"height must be a finite length > 0, got {height!r}")
    half = height / 2.0
    return frustum_projection((-half * aspect, half * aspect, -half, half, near, far), True)


def look_at(eye: ArrayLike, target: ArrayLike, up: ArrayLike = (0.0, 1.0, 0.0)) -> np.ndarray:
    """A view matrix looking from `eye` at `target` (each three finite numbers)."""
    eye, target, up = (_vec3(v, name) for v, name in ((eye, "eye"), (target, "target"),
                                                      (up, "up")))  # fmt: skip
    forward = target - eye
    if not np.linalg.norm(forward) > 0:
        raise ArgumentError(f"look_at: eye {eye.tolist()} and target must differ")
    if np.linalg.norm(np.cross(forward / np.linalg.norm(forward), up)) < 1e-12:
        raise ArgumentError(f"look_at: up {up.tolist()} is parallel to the view direction")
    return look_along(eye, forward, up)


def _vec3(value: ArrayLike, name: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (3,) or not np.isfinite(array).all():
        raise ArgumentError(f"look_at: {name} must be three finite numbers, got {value!r}")
    return array


def eye_of(view_proj: ArrayLike) -> np.ndarray:
    """The camera's centre of a view-projection matrix, homogeneous: the point it maps to
    clip x = y = w = 0. A perspective camera's (x, y, z, 1); an orthographic one's is at
    infinity, (direction back toward the camera, 0). Ray-cast parts cast rays from it.
    Vectorised: (..., 4, 4) matrices give (..., 4) eyes."""
    matrix = np.asarray(view_proj, np.float64)
    # The null vector of rows x, y, w: the generalised cross product, each component a
    # signed 3x3 minor, expanded along row w from the 2x2 minors of rows x, y (0.6 of
    # four batched determinants' time for 64 views: it runs for every pass every frame).
    a, b, c = (tuple(matrix[..., row, j] for j in range(4)) for row in (0, 1, 3))
    p01, p02, p03 = a[0] * b[1] - a[1] * b[0], a[0] * b[2] - a[2] * b[0], a[0] * b[3] - a[3] * b[0]
    p12, p13, p23 = a[1] * b[2] - a[2] * b[1], a[1] * b[3] - a[3] * b[1], a[2] * b[3] - a[3] * b[2]
    eye = np.stack([c[3] * p12 - c[2] * p13 + c[1] * p23,
                    -(c[3] * p02 - c[2] * p03 + c[0] * p23),
                    c[3] * p01 - c[1] * p03 + c[0] * p13,
                    -(c[2] * p01 - c[1] * p02 + c[0] * p12)], axis=-1)  # fmt: skip
    w = eye[..., 3:]
    finite = np.abs(w) > 1e-9
    direction = eye[..., :3] / np.linalg.norm(eye[..., :3], axis=-1, keepdims=True)
    at_infinity = np.concatenate([direction, np.zeros_like(w)], axis=-1)
    # clip z grows away from the camera: point the direction back at it
    toward = np.einsum("...j,...j->...", matrix[..., 2, :], at_infinity)[..., None] > 0
    at_infinity = np.where(toward, -at_infinity, at_infinity)
    safe_w = np.where(finite, w, 1.0)
    return np.where(finite, eye / safe_w, at_infinity).astype(np.float32)


def project(view_proj: np.ndarray, points: ArrayLike, size: tuple[int, int]) -> np.ndarray:
    """Pixel (x from the left, y from the bottom) of each 3D point, as float (N, 2)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    clip = np.c_[points, np.ones(len(points))] @ np.asarray(view_proj).T
    ndc = clip[:, :2] / clip[:, 3:4]
    width, height = size
    return (ndc * 0.5 + 0.5) * np.array([width, height])
