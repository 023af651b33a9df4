"""``mujoco.MjvOption`` as ``mujoco.Renderer.update_scene(scene_option=...)`` applies it.

What a renderer draws: the geom, site, tendon, skin and flex groups, and the visualisation
flags that choose elements of the default picture (``mjVIS_TENDON``, ``mjVIS_SKIN``,
``mjVIS_FLEX*``, ``mjVIS_TEXTURE``, ``mjVIS_STATIC``: static bodies' geoms,
``mjVIS_RANGEFINDER``: the rangefinders' rays). The flags of
decorations MuJoCo does not draw by default (joints, actuators, contact points and forces,
centres of mass, inertia boxes, lights' and cameras' markers, ...) and ``mjVIS_TRANSPARENT``
are not drawn here: one warning names those a given option turns on.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from .errors import OutputError

ELEMENT_FLAGS = ("mjVIS_TENDON", "mjVIS_SKIN", "mjVIS_FLEXVERT", "mjVIS_FLEXEDGE",
                 "mjVIS_FLEXFACE", "mjVIS_FLEXSKIN", "mjVIS_TEXTURE", "mjVIS_STATIC",
                 "mjVIS_RANGEFINDER")  # fmt: skip


@dataclass(frozen=True)
class VisualOptions:
    """The groups of each element kind drawn, and the honoured flags (by name)."""

    geom_groups: tuple[int, ...]
    site_groups: tuple[int, ...]
    tendon_groups: tuple[int, ...]
    skin_groups: tuple[int, ...]
    flex_groups: tuple[int, ...]
    flags: dict[str, bool]

    @property
    def tendons(self) -> bool:
        return self.flags["mjVIS_TENDON"]

    @property
    def skins(self) -> bool:
        return self.flags["mjVIS_SKIN"]

    @property
    def texture(self) -> bool:
        return self.flags["mjVIS_TEXTURE"]


def _groups(option: mujoco.MjvOption, field: str) -> tuple[int, ...]:
    return tuple(int(g) for g, on in enumerate(getattr(option, field)) if on)


def visual_options(scene_option: object, groups: Sequence[int], site_groups: Sequence[int],
                   texture: bool, defaults: tuple[int, ...]) -> VisualOptions:  # fmt: skip
    """The options of `scene_option` (an ``MjvOption``; None: MuJoCo's defaults with
    `groups`, `site_groups` and `texture`, the renderer's older arguments); with one, those
    arguments must keep their defaults."""
    if scene_option is None:
        option = mujoco.MjvOption()
        flags = {name: bool(option.flags[int(getattr(mujoco.mjtVisFlag, name))])
                 for name in ELEMENT_FLAGS}  # fmt: skip
        flags["mjVIS_TEXTURE"] = bool(texture)
        return VisualOptions(
            tuple(groups),
            tuple(site_groups),
            _groups(option, "tendongroup"),
            _groups(option, "skingroup"),
            _groups(option, "flexgroup"),
            flags,
        )
    if not isinstance(scene_option, mujoco.MjvOption):
        raise OutputError(f"scene_option must be a mujoco.MjvOption, got {scene_option!r}")
    if tuple(groups) != defaults or tuple(site_groups) != defaults or texture is not True:
        raise OutputError("pass the groups and texture in scene_option (its geomgroup, "
                          "sitegroup and mjVIS_TEXTURE), not beside it")  # fmt: skip
    flags = {name: bool(scene_option.flags[int(getattr(mujoco.mjtVisFlag, name))])
             for name in ELEMENT_FLAGS}  # fmt: skip
    default = mujoco.MjvOption()
    ignored = [name for name, flag in mujoco.mjtVisFlag.__members__.items()
               if name != "mjNVISFLAG" and name not in ELEMENT_FLAGS
               and scene_option.flags[int(flag)] and not default.flags[int(flag)]]  # fmt: skip
    ignored += [name for name in ("mjVIS_FLEXVERT", "mjVIS_FLEXFACE") if flags[name]]
    if ignored:
        warnings.warn(f"hypergl-mujoco draws MuJoCo's default elements only: scene_option's "
                      f"{', '.join(ignored)} are not drawn", stacklevel=3)  # fmt: skip
    return VisualOptions(_groups(scene_option, "geomgroup"), _groups(scene_option, "sitegroup"),
                         _groups(scene_option, "tendongroup"), _groups(scene_option, "skingroup"),
                         _groups(scene_option, "flexgroup"), flags)  # fmt: skip
