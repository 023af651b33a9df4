"""What the pixel wrappers share: the MuJoCo model and data of a gymnasium env, the camera its
``render()`` uses, and the observation layout, with gymnasium's ``AddRenderObservation``
conventions: one output replaces the state (``render_only=True``) or joins it in a Dict
(``{obs_key: state, render_key: image}``, or added to a Dict state); several outputs are a
Dict keyed ``"rgb"``, ``"depth"``, ``"segmentation"`` (and ``obs_key`` with the state)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium import spaces

from ..errors import EnvError
from ..scene import far_distance


def mujoco_parts(env: Any) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The ``MjModel`` and ``MjData`` of a gymnasium MuJoCo env (its ``unwrapped``)."""
    inner = getattr(env, "unwrapped", env)
    model, data = getattr(inner, "model", None), getattr(inner, "data", None)
    if not isinstance(model, mujoco.MjModel) or not isinstance(data, mujoco.MjData):
        raise EnvError(f"{type(inner).__name__} is not a gymnasium MuJoCo env (its unwrapped "
                       "env has no mujoco.MjModel .model and mujoco.MjData .data)")  # fmt: skip
    return model, data


def render_camera(env: Any, camera: Any) -> Any:
    """``camera`` itself, or for None the camera ``env.render()`` draws with: gymnasium's
    ``MujocoRenderer`` takes its ``camera_id``, or (-1) a free camera set up as its viewer
    does (``lookat`` the median geom position, ``distance`` the model's extent, then the
    env's ``default_camera_config``), from the state the env is in now."""
    if camera is not None:
        return camera
    model, data = mujoco_parts(env)
    renderer = getattr(env.unwrapped, "mujoco_renderer", None)
    fixed = getattr(renderer, "camera_id", None)
    if fixed is not None and fixed >= 0:
        return int(fixed)
    free = mujoco.MjvCamera()
    free.type, free.fixedcamid = mujoco.mjtCamera.mjCAMERA_FREE, -1
    free.lookat[:] = np.median(data.geom_xpos, axis=0)
    free.distance = model.stat.extent
    for key, value in (getattr(renderer, "default_cam_config", None) or {}).items():
        if isinstance(value, np.ndarray):
            getattr(free, key)[:] = value
        else:
            setattr(free, key, value)
    return free


def image_spaces(model: mujoco.MjModel, width: int, height: int, outputs: tuple[str, ...]
                 ) -> dict[str, spaces.Space[Any]]:  # fmt: skip
    """One camera's image of each output: rgb uint8, depth float32 metres up to the far
    plane (where nothing is hit), segmentation int32 geom id or -1."""
    image = (height, width)
    every: dict[str, spaces.Space[Any]] = {
        "rgb": spaces.Box(0, 255, (*image, 3), np.uint8),
        "depth": spaces.Box(0.0, np.float32(far_distance(model)), image, np.float32),
        "segmentation": spaces.Box(-1, max(model.ngeom - 1, -1), image, np.int32),
    }
    return {name: every[name] for name in outputs}


class PixelLayout:
    """How the images of one render join (or replace) the env's own observation."""

    def __init__(self, state_space: gym.Space[Any], images: dict[str, spaces.Space[Any]],
                 render_only: bool, render_key: str, obs_key: str) -> None:  # fmt: skip
        self._single = len(images) == 1
        self._render_only = bool(render_only)
        self._render_key, self._obs_key = render_key, obs_key
        named = {render_key: next(iter(images.values()))} if self._single else dict(images)
        self._state_is_dict = isinstance(state_space, spaces.Dict)
        if render_only:
            self.space: gym.Space[Any] = named[render_key] if self._single else spaces.Dict(named)
        elif isinstance(state_space, spaces.Dict):
            taken = sorted(set(named) & set(state_space.spaces))
            if taken:
                raise EnvError(f"the env's Dict observation already has the key(s) {taken}: "
                               "pass another render_key")  # fmt: skip
            self.space = spaces.Dict({**named, **state_space.spaces})
        else:
            if obs_key in named:
                raise EnvError(f"obs_key {obs_key!r} is also an image key: pick another")
            self.space = spaces.Dict({obs_key: state_space, **named})

    def observation(self, state: Any, images: Mapping[str, np.ndarray]) -> Any:
        """The observation of ``state`` with ``images`` (by output name); batched or not."""
        named = {self._render_key: next(iter(images.values()))} if self._single else dict(images)
        if self._render_only:
            return named[self._render_key] if self._single else named
        if self._state_is_dict:
            return {**named, **state}
        return {self._obs_key: state, **named}
