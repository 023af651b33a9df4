"""A perspective camera whose matrices live in a uniform buffer mapped into NumPy.

The program binds the buffer once; moving the camera is a write into the
mapped array before the next submit: nothing is re-recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import hypergl

import numpy as np

from hypergl.shader_prelude import CAMERA_BYTES, CAMERA_DTYPE, camera_block, camera_record

from ..camera import look_at, perspective

# hypergl's one camera block (view_proj, eye, light, lod) at uniform binding 0
CAMERA_GLSL = camera_block(0)


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
        self._data = self.buffer.map(CAMERA_DTYPE, 1)
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
        self._data[0] = camera_record(view_proj, (*eye, 1.0), light / np.linalg.norm(light))[0]
        return view_proj
