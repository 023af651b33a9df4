"""``VectorPixelObservations``: every sub-environment of a synchronous vector env rendered in
one submit per step.

Autoreset (gymnasium 1.x): with ``NEXT_STEP`` and ``DISABLED`` each step's render shows what
the step returns (a reset happens inside a later ``step``/``reset`` call, which renders
again). With ``SAME_STEP`` the vector env resets a finished sub-environment inside the same
``step`` call, before we can render: so each sub-environment is wrapped to copy its
``MjData`` into a standing copy (``mj_copyData``: fixed addresses, so the renderer's sync
stays recorded) when its episode ends, and on a step where any ended, one more submit
renders those copies into ``info["final_obs"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

import hypergl

from ..errors import EnvError
from ..renderer import BatchRenderer
from .pixels import PixelLayout, image_spaces, mujoco_parts, render_camera


class _KeepFinalState(gym.Wrapper):
    """Copies the env's MjData into `final` when an episode ends (before the vector env's
    same-step reset)."""

    def __init__(self, env: gym.Env, final: mujoco.MjData) -> None:
        super().__init__(env)
        self._model, self._data = mujoco_parts(env)
        self.final = final

    def step(self, action: Any) -> Any:
        result = self.env.step(action)
        if result[2] or result[3]:
            mujoco.mj_copyData(self.final, self._model, self._data)
        return result


class VectorPixelObservations(VectorWrapper):
    """Pixel observations for a ``SyncVectorEnv`` of MuJoCo envs (``gym.make_vec(...,
    vectorization_mode="sync")``), all sub-environments in one submit; the options are
    :class:`~hypergl_mujoco.PixelObservations`' and the observation is batched over the
    sub-environments. The camera (None: what the first sub-environment's ``render()``
    uses) and the geometry are the first sub-environment's model's."""

    def __init__(
        self,
        env: gym.vector.VectorEnv,
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
        if not isinstance(env, gym.vector.VectorEnv):
            raise EnvError(f"VectorPixelObservations wraps a vector env (gym.make_vec(..., "
                           f"vectorization_mode='sync')), got {type(env).__name__}: for one "
                           "env, use PixelObservations")  # fmt: skip
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, SyncVectorEnv):
            raise EnvError(f"{type(base).__name__}: the sub-environments must be in this "
                           "process, a SyncVectorEnv (gym.make_vec(..., "
                           "vectorization_mode='sync'))")  # fmt: skip
        parts = [mujoco_parts(sub) for sub in base.envs]
        model = parts[0][0]
        self._datas = [data for _, data in parts]  # one list: the renderer syncs it as bound
        # a camera name, id or mujoco.MjvCamera, as BatchRenderer takes it
        self.camera: Any = render_camera(base.envs[0], camera)
        self._options: dict[str, Any] = {"cameras": [self.camera], "width": width,
                                         "height": height, "outputs": outputs}  # fmt: skip
        self.renderer: BatchRenderer = BatchRenderer(model, len(self._datas), context=context,
                                                     **self._options)  # fmt: skip
        try:
            images = image_spaces(model, width, height, self.renderer.outputs)
            self._layout = PixelLayout(env.single_observation_space, images, render_only,
                                       render_key, obs_key)  # fmt: skip
        except BaseException:
            self.renderer.close()
            raise
        self.single_observation_space = self._layout.space
        self.observation_space = batch_space(self._layout.space, self.num_envs)
        self._finals: list[mujoco.MjData] = []
        self._final_renderer: BatchRenderer | None = None
        if base.autoreset_mode == AutoresetMode.SAME_STEP:
            self._finals = [mujoco.MjData(m) for m, _ in parts]
            base.envs = [_KeepFinalState(sub, final)
                         for sub, final in zip(base.envs, self._finals, strict=True)]  # fmt: skip

    @property
    def datas(self) -> list[mujoco.MjData]:
        """The sub-environments' MjData, the list the renderer is bound to (render it as
        it is: another list re-records the renderer's program)."""
        return self._datas

    def _images(self, renderer: BatchRenderer, data: Any) -> dict[str, np.ndarray]:
        result = renderer.render(data)
        return {name: result[name][:, 0] for name in renderer.outputs}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        observations, infos = self.env.reset(seed=seed, options=options)
        images = self._images(self.renderer, self._datas)
        return self._layout.observation(observations, images), infos

    def step(self, actions: Any) -> Any:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        pixels = self._layout.observation(observations, self._images(self.renderer, self._datas))
        ended = np.flatnonzero(infos.get("_final_obs", ())) if self._finals else ()
        if len(ended):
            if self._final_renderer is None:  # the first episode end: made once, kept
                self._final_renderer = BatchRenderer(self._finals[0].model, len(self._finals),
                                                     context=self.renderer.context,
                                                     **self._options)  # fmt: skip
            finals = self._images(self._final_renderer, self._finals)
            for i in ended:
                infos["final_obs"][i] = self._layout.observation(
                    infos["final_obs"][i], {name: image[i] for name, image in finals.items()}
                )
        return pixels, rewards, terminations, truncations, infos

    def close(self, **kwargs: Any) -> None:
        if self._final_renderer is not None:
            self._final_renderer.close()
        self.renderer.close()
        super().close(**kwargs)

    def __enter__(self) -> VectorPixelObservations:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
