"""MJCF models of the hypergl-mujoco tests: one with every geom type and three cameras."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

try:
    from mujoco.batch import Batch
except ImportError:  # MuJoCo before 3.17: the renderer takes MjData alone
    Batch = None

needs_batch = pytest.mark.skipif(Batch is None, reason=f"MuJoCo {mujoco.__version__} has no "
                                 "mujoco.batch (3.17 and later)")  # fmt: skip

# A tetrahedron-ish mesh off its centre (MuJoCo re-centres it) and a 5 x 7 height field.
ALL_GEOMS = """
<mujoco model="every geom">
  <asset>
    <mesh name="wedge" vertex="0.3 0.3 0  0.7 0.3 0  0.3 0.7 0  0.3 0.3 0.5  0.7 0.7 0.4"/>
    <hfield name="hill" nrow="5" ncol="7" size="0.6 0.4 0.3 0.1"
            elevation="0 1 2 3 2 1 0  1 2 3 4 3 2 1  2 3 4 5 4 3 2  1 2 3 4 3 2 1  0 1 2 3 2 1 0"/>
    <material name="blue" rgba="0.1 0.3 0.9 1"/>
  </asset>
  <worldbody>
    <light pos="0 0 4" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="0 0 0.1" rgba="0.8 0.8 0.8 1"/>
    <geom name="tile" type="plane" size="0.3 0.2 0.1" pos="1.4 1.2 0.01" rgba="0.2 0.8 0.2 1"/>
    <geom name="hill" type="hfield" hfield="hill" pos="-1.3 1.1 0"/>
    <geom name="hidden" type="box" size="0.1 0.1 0.1" pos="0 1.5 0.5" rgba="1 0 0 0"/>
    <geom name="group3" type="box" size="0.1 0.1 0.1" pos="0.5 1.5 0.5" group="3"/>
    <body name="torso" pos="0 0 0.8">
      <freejoint/>
      <geom name="sphere" type="sphere" size="0.25" rgba="0.9 0.3 0.2 1"/>
      <geom name="capsule" type="capsule" size="0.08 0.3" pos="0.6 0 0" euler="0 40 0"
            material="blue"/>
      <geom name="ellipsoid" type="ellipsoid" size="0.3 0.15 0.1" pos="-0.6 0 0.1"
            euler="20 0 30" rgba="0.9 0.8 0.2 1"/>
      <geom name="cylinder" type="cylinder" size="0.12 0.2" pos="0 0.6 0" euler="50 0 0"
            rgba="0.3 0.8 0.8 1"/>
      <geom name="box" type="box" size="0.15 0.1 0.2" pos="0 -0.6 0" euler="0 0 25"
            rgba="0.6 0.3 0.8 1"/>
      <geom name="mesh" type="mesh" mesh="wedge" pos="0.5 0.6 0.3" rgba="0.9 0.5 0.7 1"/>
      <camera name="tracking" mode="track" pos="0 -3 1.2" xyaxes="1 0 0 0 0.4 1"/>
    </body>
    <camera name="fixed" pos="2.5 -2.5 2.2" xyaxes="1 1 0 -0.4 0.4 1"/>
  </worldbody>
</mujoco>
"""

# MuJoCo's default picture at work: a checker floor (texrepeat, texuniform), a gradient
# skybox, a cube-textured sphere, a spot light that casts shadows and a directional one,
# materials with specular, shininess and emission; nobody's model but the tests'.
PICTURE = """
<mujoco model="picture">
  <visual>
    <headlight ambient=".3 .3 .3" diffuse=".6 .6 .6" specular=".2 .2 .2"/>
  </visual>
  <asset>
    <texture name="sky" type="skybox" builtin="gradient" rgb1=".4 .6 .8" rgb2="0 0 0"
             width="256" height="256"/>
    <texture name="grid" type="2d" builtin="checker" rgb1=".1 .2 .3" rgb2=".3 .4 .5"
             width="128" height="128" mark="edge" markrgb=".8 .8 .8"/>
    <texture name="marble" type="cube" builtin="checker" rgb1=".9 .5 .2" rgb2=".2 .5 .9"
             width="64" height="64"/>
    <material name="grid" texture="grid" texrepeat="2 2" texuniform="true"/>
    <material name="marble" texture="marble" specular=".8" shininess=".6"/>
    <material name="glow" rgba=".2 .8 .3 1" emission=".5" specular="0"/>
  </asset>
  <worldbody>
    <light name="spot" pos="0 0 4" dir="0 0 -1" cutoff="40" exponent="5"/>
    <light name="sun" directional="true" pos="0 0 5" dir="1 1 -2" castshadow="false"
           diffuse=".3 .3 .3" specular=".1 .1 .1"/>
    <geom name="floor" type="plane" size="0 0 .1" material="grid"/>
    <geom name="ball" type="sphere" size=".4" pos="0 0 .6" material="marble"/>
    <geom name="box" type="box" size=".3 .2 .25" pos="1 .5 .25" material="glow"/>
    <geom name="pole" type="capsule" size=".08 .5" pos="-.9 .4 .6" rgba=".8 .6 .4 1"/>
    <camera name="front" pos="0 -3.5 1.6" xyaxes="1 0 0 0 .4 1"/>
  </worldbody>
</mujoco>
"""


def picture() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(PICTURE)


def all_geoms() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(ALL_GEOMS)


def gym_model(name: str) -> mujoco.MjModel:
    """One of gymnasium's MuJoCo XMLs (half_cheetah, ant, humanoid)."""
    import gymnasium.envs.mujoco as envs

    return mujoco.MjModel.from_xml_path(str(Path(envs.__file__).parent / "assets" / f"{name}.xml"))


def stepped(model: mujoco.MjModel, steps: int = 30, seed: int = 0,
            noise: float = 0.05) -> mujoco.MjData:  # fmt: skip
    """Data a few random-control steps from the model's start (poses off the defaults by
    `noise` radians or metres, normally distributed)."""
    data = mujoco.MjData(model)
    rng = np.random.default_rng(seed)
    data.qpos[:] += rng.normal(0, noise, model.nq) if model.nq else 0
    for _ in range(steps):
        if model.nu:
            data.ctrl[:] = rng.uniform(-1, 1, model.nu)
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return data


def free(model: mujoco.MjModel, azimuth: float, elevation: float, distance: float,
         lookat: object = None) -> mujoco.MjvCamera:  # fmt: skip
    """MuJoCo's free camera of `model`, turned and moved as given."""
    camera = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, camera)
    camera.azimuth, camera.elevation, camera.distance = azimuth, elevation, distance
    if lookat is not None:
        camera.lookat[:] = lookat
    return camera


# our segmentation ids, kind after kind (BatchRenderer's): geoms, ..., flexes, sensors
KINDS = (
    mujoco.mjtObj.mjOBJ_GEOM,
    mujoco.mjtObj.mjOBJ_SITE,
    mujoco.mjtObj.mjOBJ_TENDON,
    mujoco.mjtObj.mjOBJ_SKIN,
    mujoco.mjtObj.mjOBJ_FLEX,
    mujoco.mjtObj.mjOBJ_SENSOR,
)  # rangefinder rays: the sensor's
