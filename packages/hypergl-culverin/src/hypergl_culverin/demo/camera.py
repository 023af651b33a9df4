"""A perspective camera whose matrices live in a uniform buffer mapped into NumPy.

The program binds the buffer once; moving the camera is a write into the
mapped array before the next submit: nothing is re-recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import hypergl

import numpy as np

from ..camera import look_at, perspective

# std140 block: mat4 view_proj; vec4 eye; vec4 light_direction.
CAMERA_GLSL = """
layout(std140, binding = 0) uniform Camera {
    mat4 view_proj;
    vec4 eye;
    vec4 light_direction;
};
"""
CAMERA_BYTES = 64 + 16 + 16


class Camera:
    """Orbits `target` at `distance` and `height`; `update(angle)` writes the buffer."""

    def __init__(
        self,
        ctx: hypergl.Context,
        size: tuple[int, int],
        target: tuple[float, float, float] = (0.0, 2.0, 0.0),
        distance: float = 34.0,
        height: float = 18.0,
    ) -> None:
        self.buffer: hypergl.Buffer = ctx.buffer(size=CAMERA_BYTES, usage="uniform", name="camera")
        self._data = self.buffer.map(np.float32, (24,))
        self._projection = perspective(50.0, size[0] / size[1], 0.5, 400.0)
        self.target: np.ndarray = np.asarray(target, float)
        self.distance: float = distance
        self.height: float = height

    def update(self, angle: float) -> np.ndarray:
        eye = self.target + np.array(
            [self.distance * np.sin(angle), self.height, self.distance * np.cos(angle)]
        )
        view_proj = self._projection @ look_at(eye, self.target)
        light = np.array([0.4, 1.0, 0.3])
        self._data[:16] = view_proj.T.ravel()  # GLSL reads matrices column by column
        self._data[16:19], self._data[19] = eye, 1.0
        self._data[20:23], self._data[23] = light / np.linalg.norm(light), 0.0
        return view_proj
