"""dm_control suite environments observed through HyperGL: dm_control's own pixels wrapper
(``dm_control.suite.wrappers.pixels.Wrapper``) rendered by :class:`BatchRenderer`, for one
environment or many in one submit (needs dm_control, which needs the ``mujoco``
distribution).

``render_kwargs`` are ``Physics.render``'s: ``height`` (240), ``width`` (320),
``camera_id`` (-1: MuJoCo's default free camera; a name or an id), ``depth`` (float32
metres, (H, W)) and ``segmentation`` ((H, W, 2) int32 object id and type, -1 for nothing,
as dm_control returns them) and ``scene_option`` (dm_control's ``wrapper.MjvOption`` or
a ``mujoco.MjvOption``: the groups and flags :class:`BatchRenderer` honours); the
observation spec's shape and dtype are the same as dm_control's. Options of
``Physics.render`` that change the scene otherwise (``overlays``,
``render_flag_overrides``, ``scene_callback``) are refused with
:class:`~hypergl_mujoco.errors.EnvError`, never ignored.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping, Sequence
from typing import Any

import mujoco
import numpy as np
from dm_env import specs

import hypergl

from .errors import EnvError
from .renderer import BatchRenderer

STATE_KEY = "state"  # dm_control's key for a wrapped env's non-dict observation
# Physics.render's
DEFAULTS: dict[str, Any] = {"height": 240, "width": 320, "camera_id": -1, "depth": False,
                            "segmentation": False, "scene_option": None}  # fmt: skip
SCENE_OPTIONS = ("overlays", "render_flag_overrides", "scene_callback")


def render_options(render_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """``Physics.render``'s keyword arguments with its defaults, checked."""
    given = dict(render_kwargs or {})
    unknown = sorted(set(given) - set(DEFAULTS) - set(SCENE_OPTIONS))
    if unknown:
        raise EnvError(f"render_kwargs {unknown} are not Physics.render's; it takes "
                       f"{sorted([*DEFAULTS, *SCENE_OPTIONS])}")  # fmt: skip
    changing = sorted(k for k in SCENE_OPTIONS if given.get(k) not in (None, (), []))
    if changing:
        raise EnvError(f"render_kwargs {changing}: hypergl-mujoco draws MuJoCo's default "
                       "scene and does not take these")  # fmt: skip
    options = {**DEFAULTS, **{k: v for k, v in given.items() if k in DEFAULTS}}
    option = options["scene_option"]
    option = getattr(option, "ptr", option)  # dm_control's wrapper holds MuJoCo's
    if option is not None and not isinstance(option, mujoco.MjvOption):
        raise EnvError(f"render_kwargs scene_option must be an MjvOption (dm_control's or "
                       f"MuJoCo's), got {options['scene_option']!r}")  # fmt: skip
    options["scene_option"] = option
    if options["depth"] and options["segmentation"]:
        raise EnvError("render_kwargs: depth and segmentation together (Physics.render "
                       "refuses them too)")  # fmt: skip
    return options


def physics_parts(env: Any) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The ``mujoco.MjModel`` and ``mujoco.MjData`` under a dm_control env's physics."""
    physics = getattr(env, "physics", None)
    model = getattr(getattr(physics, "model", None), "ptr", None)
    data = getattr(getattr(physics, "data", None), "ptr", None)
    if not isinstance(model, mujoco.MjModel) or not isinstance(data, mujoco.MjData):
        raise EnvError(f"{type(env).__name__} is not a dm_control environment: no "
                       "physics.model.ptr (mujoco.MjModel) and physics.data.ptr "
                       "(mujoco.MjData)")  # fmt: skip
    return model, data


def observation_spec(
    env: Any, pixels_only: bool, observation_key: str, pixels: specs.Array
) -> tuple[collections.OrderedDict[str, Any], bool]:
    """The wrapped spec as dm_control's wrapper makes it, and whether the env's own
    observation is a dict."""
    wrapped = env.observation_spec()
    if isinstance(wrapped, specs.Array):
        is_dict, taken = False, {STATE_KEY}
    elif isinstance(wrapped, collections.abc.MutableMapping):
        is_dict, taken = True, set(wrapped.keys())
    else:
        raise EnvError(f"unsupported observation spec structure {type(wrapped).__name__}: an "
                       "Array or a dict of them")  # fmt: skip
    if not pixels_only and observation_key in taken:
        raise EnvError(f"duplicate or reserved observation key {observation_key!r}")
    spec: collections.OrderedDict[str, Any] = collections.OrderedDict()
    if not pixels_only:
        if is_dict:
            spec = wrapped.copy()
        else:
            spec[STATE_KEY] = wrapped
    spec[observation_key] = pixels
    return spec, is_dict


class BatchedPixels:
    """Many dm_control environments of one model (each its own physics), stepped in turn
    and rendered in one submit: ``reset()`` and ``step(actions)`` return one ``TimeStep``
    per environment, each with the observation dm_control's ``pixels.Wrapper(env,
    pixels_only, render_kwargs, observation_key)`` gives. ``context``: a
    ``hypergl.Context`` to draw in (None: a headless one of its own)."""

    def __init__(self, envs: Sequence[Any], pixels_only: bool = True,
                 render_kwargs: Mapping[str, Any] | None = None,
                 observation_key: str = "pixels", *,
                 context: hypergl.Context | None = None) -> None:  # fmt: skip
        if isinstance(envs, (str, bytes)) or not isinstance(envs, Sequence) or not envs:
            raise EnvError(f"envs must be a non-empty sequence of dm_control environments, "
                           f"got {envs!r}")  # fmt: skip
        self.envs: list[Any] = list(envs)
        parts = [physics_parts(env) for env in self.envs]
        self._datas = [data for _, data in parts]
        self._render_kwargs = render_options(render_kwargs)
        options = self._render_kwargs
        self._output = ("depth" if options["depth"] else
                        "segmentation" if options["segmentation"] else "rgb")  # fmt: skip
        self.renderer: BatchRenderer = BatchRenderer(
            parts[0][0], len(self.envs), cameras=[options["camera_id"]], width=options["width"],
            height=options["height"], outputs=(self._output,), context=context,
            scene_option=options["scene_option"],
        )  # fmt: skip
        try:
            shape = {
                "rgb": (options["height"], options["width"], 3),
                "depth": (options["height"], options["width"]),
                "segmentation": (options["height"], options["width"], 2),
            }[self._output]
            dtype = {"rgb": np.uint8, "depth": np.float32, "segmentation": np.int32}[self._output]
            pixels = specs.Array(shape=shape, dtype=dtype, name=observation_key)
            self._spec, self._is_dict = observation_spec(self.envs[0], pixels_only,
                                                         observation_key, pixels)  # fmt: skip
        except BaseException:
            self.renderer.close()
            raise
        self._pixels_only = bool(pixels_only)
        self._key = observation_key

    @property
    def num_envs(self) -> int:
        return len(self.envs)

    def render(self) -> np.ndarray:
        """Every environment's pixels as of now, (envs, ...) as dm_control's
        ``physics.render(**render_kwargs)`` of each."""
        image = self.renderer.render(self._datas)[self._output][:, 0]
        if self._output == "segmentation":
            return self.renderer.object_ids(image)
        return image

    def _observe(self, steps: list[Any]) -> list[Any]:
        pixels = self.render()
        out = []
        for step, image in zip(steps, pixels, strict=True):
            observation: Any
            if self._pixels_only:
                observation = collections.OrderedDict()
            elif self._is_dict:
                observation = type(step.observation)(step.observation)
            else:
                observation = collections.OrderedDict([(STATE_KEY, step.observation)])
            observation[self._key] = image
            out.append(step._replace(observation=observation))
        return out

    def reset(self) -> list[Any]:
        return self._observe([env.reset() for env in self.envs])

    def step(self, actions: Sequence[Any]) -> list[Any]:
        """Each environment steps with its action (one after the last ``TimeStep`` resets
        it, as dm_control's environments do), then all are rendered in one submit."""
        if len(actions) != len(self.envs):
            raise EnvError(f"{len(actions)} actions for {len(self.envs)} environments")
        return self._observe([env.step(a) for env, a in zip(self.envs, actions, strict=True)])

    def observation_spec(self) -> collections.OrderedDict[str, Any]:
        """One environment's observation spec (dm_control's wrapper's)."""
        return self._spec

    def action_spec(self) -> Any:
        return self.envs[0].action_spec()

    def close(self) -> None:
        """Free the renderer (the environments stay open, as dm_control's wrapper leaves
        them)."""
        self.renderer.close()

    def __enter__(self) -> BatchedPixels:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Wrapper:
    """dm_control's ``pixels.Wrapper`` for one environment, rendered by HyperGL: the same
    arguments, observation keys, spec and ``TimeStep``\\ s; attributes it does not have
    come from the wrapped environment (``physics``, ``task``, ...), as dm_control's."""

    def __init__(self, env: Any, pixels_only: bool = True,
                 render_kwargs: Mapping[str, Any] | None = None,
                 observation_key: str = "pixels", *,
                 context: hypergl.Context | None = None) -> None:  # fmt: skip
        self._batch = BatchedPixels([env], pixels_only, render_kwargs, observation_key,
                                    context=context)  # fmt: skip
        self._env = env

    def reset(self) -> Any:
        return self._batch.reset()[0]

    def step(self, action: Any) -> Any:
        return self._batch.step([action])[0]

    def observation_spec(self) -> collections.OrderedDict[str, Any]:
        return self._batch.observation_spec()

    def action_spec(self) -> Any:
        return self._env.action_spec()

    @property
    def renderer(self) -> BatchRenderer:
        return self._batch.renderer

    def close(self) -> None:
        self._batch.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._env, name)


__all__ = ["BatchedPixels", "Wrapper", "render_options"]
