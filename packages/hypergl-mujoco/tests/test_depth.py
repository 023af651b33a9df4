"""Depth is metres along the view axis, as mujoco.Renderer's: orthographic cameras too (from
the camera's plane, not clip w = 1), and the far distance where nothing is hit."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco

SCENE = """<mujoco><worldbody>
  <light pos="0 0 4" dir="0 0 -1"/>
  <geom type="plane" size="3 3 .1" pos="0 0 -0.5"/>
  <geom type="box" size=".4 .3 .2" pos="0.6 0 0.2" euler="0 0 30"/>
  <geom type="sphere" size=".35" pos="-0.7 0.3 0.3"/>
  <geom type="capsule" size=".1 .5" pos="0 0.8 0.3" euler="0 80 0"/>
  <camera name="ortho" pos="0 -3 2" xyaxes="1 0 0 0 0.55 0.83" projection="orthographic"
          fovy="4"/>
  <camera name="perspective" pos="0 -3 2" xyaxes="1 0 0 0 0.55 0.83"/>
</worldbody></mujoco>"""


def renderer_knows_orthographic_depth() -> bool:
    """Whether mujoco.Renderer turns an orthographic camera's depth into metres: MuJoCo 3.x's
    (3.5.0, the floor) applies the perspective formula to every camera, so it is no oracle
    there."""
    import inspect

    return "orthographic" in inspect.getsource(mujoco.Renderer.render)


@pytest.mark.parametrize("camera", ["ortho", "perspective"])
def test_depth_matches_mujoco_renderer(camera, gl_ctx):
    if camera == "ortho" and not renderer_knows_orthographic_depth():
        pytest.skip(f"mujoco.Renderer {mujoco.__version__} takes an orthographic depth "
                    "buffer for a perspective one")  # fmt: skip
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    theirs = mujoco.Renderer(model, 64, 64)
    theirs.enable_depth_rendering()
    theirs.update_scene(data, camera)
    expected = theirs.render()
    theirs.close()
    with hypergl_mujoco.BatchRenderer(model, cameras=[camera], width=64, height=64,
                                      outputs=("depth",), context=gl_ctx) as renderer:  # fmt: skip
        depth = renderer.render(data).depth[0, 0]
    assert depth.min() > 1.0  # metres from the camera's plane, not clip w (1.0 for ortho)
    close = np.abs(depth - expected) < 1e-3 * np.maximum(expected, 1.0)
    assert close.mean() > 0.98, f"{close.mean():.3f} within 1 mm per metre"


def test_depth_and_segmentation_alone_draw_the_same_and_light_nothing(gl_ctx):
    from . import models

    model = models.picture()  # shadows, a skybox, textures: none of them drawn here
    data = models.stepped(model, 1)
    with hypergl_mujoco.BatchRenderer(model, num_worlds=2, context=gl_ctx) as full:
        everything = full.render([data, data])
        assert full._shadows is not None
    with hypergl_mujoco.BatchRenderer(model, num_worlds=2, outputs=("depth", "segmentation"),
                                      context=gl_ctx) as alone:  # fmt: skip
        result = alone.render([data, data])
        assert alone._shadows is None and alone._textures.sky < 0
    assert np.array_equal(result.segmentation, everything.segmentation)
    assert np.array_equal(result.depth, everything.depth)
