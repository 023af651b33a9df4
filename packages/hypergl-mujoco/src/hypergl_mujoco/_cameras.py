"""MuJoCo's camera matrices, vectorised over worlds and cameras (a minimal version the
renderer uses until :mod:`hypergl_mujoco.cameras` lands).

A MuJoCo camera looks along minus the third column of its frame (``cam_xmat``), up is the
second; the projection is a symmetric frustum of vertical field of view ``fovy`` degrees,
near and far ``vis.map.znear`` / ``zfar`` times ``stat.extent``. The free camera
(``MjvCamera``) sits ``distance`` from ``lookat`` along azimuth and elevation (degrees)."""

from __future__ import annotations

import numpy as np


def view_matrices(positions: np.ndarray, rotations: np.ndarray) -> np.ndarray:
    """(..., 4, 4) world-to-camera matrices of camera frames: (..., 3) positions and
    (..., 3, 3) rotations whose columns are the camera's x, y, z axes in the world."""
    positions = np.asarray(positions, np.float64)
    inverse = np.swapaxes(np.asarray(rotations, np.float64), -1, -2)
    out = np.zeros((*positions.shape[:-1], 4, 4))
    out[..., :3, :3] = inverse
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", inverse, positions)
    out[..., 3, 3] = 1.0
    return out


def projection(fovy_degrees: np.ndarray, aspect: float, near: float, far: float) -> np.ndarray:
    """(..., 4, 4) OpenGL perspective projections, one per vertical field of view."""
    fovy = np.asarray(fovy_degrees, np.float64)
    f = 1.0 / np.tan(np.radians(fovy) / 2.0)
    out = np.zeros((*fovy.shape, 4, 4))
    out[..., 0, 0] = f / aspect
    out[..., 1, 1] = f
    out[..., 2, 2] = (far + near) / (near - far)
    out[..., 2, 3] = 2.0 * far * near / (near - far)
    out[..., 3, 2] = -1.0
    return out


def free_camera_frame(lookat, distance: float, azimuth: float, elevation: float
                      ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(position, rotation) of an MjvCamera of type free, as ``mjv_updateCamera`` makes it."""
    az, el = np.radians(azimuth), np.radians(elevation)
    forward = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    up = np.array([-np.sin(el) * np.cos(az), -np.sin(el) * np.sin(az), np.cos(el)])
    right = np.cross(forward, up)
    position = np.asarray(lookat, np.float64) - distance * forward
    return position, np.stack([right, up, -forward], axis=1)
