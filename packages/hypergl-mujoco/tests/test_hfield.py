"""Height fields finer than the image are drawn with every k-th grid line (about one a
pixel), and still agree with MuJoCo's own renderer."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco
from hypergl_mujoco import scene

N = 201
TERRAIN = f"""<mujoco><asset>
  <hfield name="terrain" nrow="{N}" ncol="{N}" size="2 2 0.4 0.1"/>
</asset><worldbody>
  <light pos="0 0 4" dir="0 0 -1"/>
  <geom name="terrain" type="hfield" hfield="terrain"/>
  <camera name="view" pos="0 -4 2.5" xyaxes="1 0 0 0 0.6 0.8"/>
</worldbody></mujoco>"""


@pytest.fixture
def terrain():
    model = mujoco.MjModel.from_xml_string(TERRAIN)
    x = np.linspace(0, 6 * np.pi, N)
    model.hfield_data[:] = (0.5 + 0.25 * np.sin(x)[None, :] * np.cos(x)[:, None]).ravel()
    return model


def test_grid_samples_keep_both_ends():
    assert scene.grid_samples(201, 84).tolist() == list(range(0, 201, 2))
    assert scene.grid_samples(10, 3).tolist() == [0, 3, 6, 9]
    assert scene.grid_samples(11, 3).tolist() == [0, 3, 6, 9, 10]
    assert scene.grid_samples(5, None).tolist() == [0, 1, 2, 3, 4]
    assert scene.grid_samples(5, 84).tolist() == [0, 1, 2, 3, 4]  # coarser than the image


def test_a_fine_height_field_has_a_quarter_of_the_triangles_at_84_pixels(terrain):
    full, coarse = scene.hfield_rows(terrain, 0), scene.hfield_rows(terrain, 0, 84)
    assert len(full) == scene.hfield_row_count(terrain, 0)
    surface = 3 * 2 * 100 * 100
    assert len(coarse) < len(full) / 3 and len(coarse) > surface
    for rows in (full, coarse):  # the same extent
        assert np.allclose(rows[:, :3].min(axis=0), (-2, -2, -0.1))
        assert np.allclose(rows[:, :3].max(axis=0), (2, 2, 0.3), atol=1e-3)


def test_the_coarser_field_agrees_with_mujoco_s_depth(terrain, gl_ctx):
    data = mujoco.MjData(terrain)
    mujoco.mj_forward(terrain, data)
    theirs = mujoco.Renderer(terrain, 84, 84)
    theirs.enable_depth_rendering()
    theirs.update_scene(data, "view")
    expected = theirs.render()
    theirs.close()
    with hypergl_mujoco.BatchRenderer(terrain, cameras=["view"], context=gl_ctx,
                                      outputs=("depth",)) as renderer:  # fmt: skip
        depth = renderer.render(data).depth[0, 0]
    assert (np.abs(depth - expected) < 0.01).mean() > 0.99


def test_shadow_maps_take_a_coarser_field_and_the_rest_as_it_is(terrain):
    from . import models

    model = models.all_geoms()  # a 5 x 7 field: already coarser than any map
    looks = scene.model_looks(model)
    hfield = int(mujoco.mjtGeom.mjGEOM_HFIELD)
    for before, after in zip(looks, scene.with_hfield_points(model, looks, 64), strict=True):
        if int(model.geom_type[before.geom]) != hfield:
            assert after is before
        else:  # every point of it
            (a,), (b,) = before.new_meshes.values(), after.new_meshes.values()
            assert np.array_equal(a, b)
    fine = scene.model_looks(terrain, hfield_points=84)
    coarse = scene.with_hfield_points(terrain, fine, 64)
    (rows,) = coarse[0].new_meshes.values()
    assert len(rows) < len(next(iter(fine[0].new_meshes.values()))) / 2
    assert coarse[0].color == fine[0].color and coarse[0].material == fine[0].material
