"""``PixelObservations``: any gymnasium MuJoCo env observed through HyperGL's renderer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym

import hypergl

from ..errors import EnvError
from ..renderer import BatchRenderer
from .pixels import PixelLayout, image_spaces, mujoco_parts, render_camera


class PixelObservations(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observations rendered from the env's ``MjData`` (no ``render_mode`` needed).

    ``camera``: a camera name, id or ``mujoco.MjvCamera`` (None: the camera ``env.render()``
    uses). ``outputs``: of ``"rgb"`` (H, W, 3) uint8, ``"depth"`` (H, W) float32 metres,
    ``"segmentation"`` (H, W) int32 geom id or -1. One output replaces the observation
    (``render_only=True``) or joins it as ``{obs_key: state, render_key: image}``; several
    are a Dict by output name (with ``obs_key`` when the state is kept), as gymnasium's
    ``AddRenderObservation``. ``context``: a ``hypergl.Context`` to draw in (None: its own).
    """

    def __init__(
        self,
        env: gym.Env,
        width: int = 84,
        height: int = 84,
        camera: Any = None,
        outputs: Sequence[str] = ("rgb",),
        *,
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
        context: hypergl.Context | None = None,
    ) -> None:
        if not isinstance(env, gym.Env):
            vector = isinstance(env, gym.vector.VectorEnv)
            raise EnvError(f"PixelObservations wraps one gymnasium env, got "
                           f"{type(env).__name__}" + (": for a vector env, use "
                           "VectorPixelObservations" if vector else ""))  # fmt: skip
        # the spec's wrapper arguments (an MjvCamera is not one: it does not serialise)
        named = camera if camera is None or isinstance(camera, (str, int)) else None
        gym.utils.RecordConstructorArgs.__init__(
            self, width=width, height=height, camera=named, outputs=tuple(outputs),
            render_only=render_only, render_key=render_key, obs_key=obs_key,
        )  # fmt: skip
        gym.ObservationWrapper.__init__(self, env)
        model, self._data = mujoco_parts(env)
        # a camera name, id or mujoco.MjvCamera, as BatchRenderer takes it
        self.camera: Any = render_camera(env, camera)
        self.renderer: BatchRenderer = BatchRenderer(model, 1, cameras=[self.camera], width=width,
                                      height=height, outputs=outputs, context=context)  # fmt: skip
        try:
            images = image_spaces(model, width, height, self.renderer.outputs)
            self._layout = PixelLayout(env.observation_space, images, render_only, render_key,
                                       obs_key)  # fmt: skip
        except BaseException:
            self.renderer.close()
            raise
        self.observation_space = self._layout.space

    def observation(self, observation: Any) -> Any:
        result = self.renderer.render(self._data)
        return self._layout.observation(
            observation, {name: result[name][0, 0] for name in self.renderer.outputs}
        )

    def close(self) -> None:
        self.renderer.close()
        super().close()
