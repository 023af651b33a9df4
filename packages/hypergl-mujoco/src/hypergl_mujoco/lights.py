"""MuJoCo's lights as the body renderer's: the headlight and the model's lights, per world.

What ``mjv_makeLights`` and ``mjr_render`` do: the headlight (``vis.headlight``, when
active) is light 0, directional along the camera; the model's active lights follow in model
order. The classic renderer lights with OpenGL's fixed-function lights, so it draws the
first eight of them (``GL_MAX_LIGHTS``), directional and spot lights only (a point light
keeps its slot and adds nothing); with no such light at all, a global ambient of 0.3. Each
world is a light group: the poses (``light_xpos``, ``light_xdir``) of every world are
written in one NumPy call per frame.
"""

from __future__ import annotations

import mujoco
import numpy as np

from hypergl.bodies import LIGHT_HEAD, LIGHT_OFF, LIGHT_WORLD, lights, set_light

MAX_LIGHTS = 8  # fixed-function OpenGL's lights
LIGHT = mujoco.mjtLightType
SUPPORTED = (int(LIGHT.mjLIGHT_DIRECTIONAL), int(LIGHT.mjLIGHT_SPOT))


def scene_lights(model: mujoco.MjModel) -> list[int]:
    """The model lights in the scene's light slots after the headlight: active lights,
    in order, as many as fit the eight slots."""
    head = int(bool(model.vis.headlight.active))
    active = [i for i in range(model.nlight) if model.light_active[i]]
    return active[: MAX_LIGHTS - head]


def light_count(model: mujoco.MjModel) -> int:
    """Rows one world's group needs (at least one: the global ambient of an unlit model)."""
    return max(int(bool(model.vis.headlight.active)) + len(scene_lights(model)), 1)


def model_lights(model: mujoco.MjModel, *, shadows: bool = True) -> np.ndarray:
    """One world's group of light rows, poses unset (see :func:`write_poses`); `shadows`:
    the scene's mjRND_SHADOW (shadow-casting lights drawn in passes of their own)."""
    rows = lights(light_count(model))
    head = model.vis.headlight
    slot = 0
    if head.active:
        set_light(rows[0], kind=LIGHT_HEAD, ambient=head.ambient, diffuse=head.diffuse,
                  specular=head.specular)  # fmt: skip
        slot = 1
    supported = bool(head.active)
    for k, light in enumerate(scene_lights(model)):
        kind = int(model.light_type[light])
        row = rows[slot + k]
        if kind not in SUPPORTED:
            row["diffuse"][3] = LIGHT_OFF
            continue
        supported = True
        spot = kind == int(LIGHT.mjLIGHT_SPOT)
        set_light(row, kind=LIGHT_WORLD, position=(0.0, 0.0, 0.0) if spot else None,
                  ambient=model.light_ambient[light], diffuse=model.light_diffuse[light],
                  specular=model.light_specular[light],
                  cutoff=float(model.light_cutoff[light]) if spot else None,
                  exponent=float(model.light_exponent[light]) if spot else 0.0,
                  attenuation=model.light_attenuation[light] if spot else (1.0, 0.0, 0.0),
                  castshadow=shadows and bool(model.light_castshadow[light]))  # fmt: skip
    if not supported:  # OpenGL's global ambient, as mjr_render sets it without lights
        set_light(rows[0], kind=LIGHT_WORLD, ambient=(0.3, 0.3, 0.3), diffuse=(0, 0, 0))
    return rows


def unlit(model: mujoco.MjModel) -> np.ndarray:
    """One world's light rows for a renderer drawing no RGB (depth, segmentation): every
    slot off but an ambient one, so the fragments compute no lighting nobody reads."""
    rows = lights(light_count(model))
    rows["diffuse"][:, 3] = LIGHT_OFF
    set_light(rows[0], kind=LIGHT_WORLD, ambient=(1.0, 1.0, 1.0), diffuse=(0, 0, 0))
    return rows


def write_poses(rows: np.ndarray, model: mujoco.MjModel, light_xpos: np.ndarray,
                light_xdir: np.ndarray) -> None:  # fmt: skip
    """Every world's light poses into `rows` (worlds, max_lights): `light_xpos` and
    `light_xdir` shaped (worlds, nlight, 3). One NumPy call per field."""
    chosen = scene_lights(model)
    if not chosen:
        return
    first = int(bool(model.vis.headlight.active))
    slots = slice(first, first + len(chosen))
    rows["position"][:, slots, :3] = light_xpos[:, chosen]
    rows["direction"][:, slots, :3] = light_xdir[:, chosen]
