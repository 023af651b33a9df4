"""BatchRenderer: shapes and types of its outputs, every kind of data, looks, live poses."""

from __future__ import annotations

import warnings

import mujoco
import numpy as np
import pytest

import hypergl
import hypergl_mujoco

from . import models

pytestmark = pytest.mark.gl


def geom(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)


@pytest.fixture
def model():
    return models.all_geoms()


def test_outputs_shapes_types_and_attributes(model, gl_ctx):
    worlds = [models.stepped(model, 3) for _ in range(2)]
    with hypergl_mujoco.BatchRenderer(model, 2, cameras=["fixed", 1], width=40, height=30,
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(worlds)
    assert result.rgb.shape == (2, 2, 30, 40, 3) and result.rgb.dtype == np.uint8
    assert result.depth.shape == (2, 2, 30, 40) and result.depth.dtype == np.float32
    assert result.segmentation.shape == (2, 2, 30, 40)
    assert result.segmentation.dtype == np.int32
    assert result["rgb"] is result.rgb and set(result) == {"rgb", "depth", "segmentation"}
    # Nothing hit: MuJoCo's far distance; the floor reaches the horizon, the sky is empty.
    far = model.vis.map.zfar * model.stat.extent
    assert np.isclose(result.depth[result.segmentation == -1], far).all()
    assert (result.segmentation == -1).any() and (result.segmentation >= 0).any()


def test_asked_outputs_only(model, gl_ctx):
    with hypergl_mujoco.BatchRenderer(model, cameras=["fixed"], outputs=("segmentation",),
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(models.stepped(model, 1))
    assert list(result) == ["segmentation"]
    with pytest.raises(hypergl_mujoco.OutputError, match="no output 'rgb'"):
        result["rgb"]


def test_colours_groups_and_alpha_as_mujoco_draws_them(model, gl_ctx):
    data = models.stepped(model, 1)
    with hypergl_mujoco.BatchRenderer(model, cameras=["fixed"], width=128, height=128,
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(data)
    ids, rgb = result.segmentation[0, 0], result.rgb[0, 0].astype(int)
    seen = set(np.unique(ids).tolist())
    assert geom(model, "hidden") not in seen  # alpha 0
    assert geom(model, "group3") not in seen  # group 3: hidden by default
    # Lit as MuJoCo lights them (its headlight and the model's light): the side away from
    # the lights is dark, but every pixel keeps its hue.
    capsule = rgb[ids == geom(model, "capsule")]  # default rgba: the material's blue
    assert capsule.size and (capsule[:, 2] > capsule[:, 0]).all()
    assert np.median(capsule[:, 2] - capsule[:, 0]) > 40
    sphere = rgb[ids == geom(model, "sphere")]  # its own rgba: red
    assert sphere.size and (sphere[:, 0] > sphere[:, 2]).all()
    assert np.median(sphere[:, 0] - sphere[:, 2]) > 40


@models.needs_batch
def test_a_batch_is_synced_live(model, gl_ctx):
    batch = models.Batch(model, 3, nthread=1)
    batch.reset()
    with hypergl_mujoco.BatchRenderer(model, 3, cameras=["fixed"], context=gl_ctx) as renderer:
        first = renderer.render(batch).segmentation.copy()
        assert (first == first[0]).all()  # three worlds in one pose
        batch.step(nstep=200)  # the torso falls onto the floor
        later = renderer.render(batch).segmentation
    assert not np.array_equal(first, later)
    assert (later == later[0]).all()


def test_one_data_is_synced_live_and_cameras_follow_their_body(model, gl_ctx):
    data = models.stepped(model, 1)
    with hypergl_mujoco.BatchRenderer(model, cameras=["fixed", "tracking"],
                                      context=gl_ctx) as renderer:  # fmt: skip
        before = renderer.render(data).segmentation.copy()
        for _ in range(150):
            mujoco.mj_step(model, data)
        after = renderer.render(data).segmentation
    assert not np.array_equal(before[0, 0], after[0, 0])  # the fixed camera sees it fall
    sphere = geom(model, "sphere")
    for image in (before[0, 1], after[0, 1]):  # the tracking camera keeps the torso in view
        assert (image == sphere).sum() > 50


def test_other_data_objects_rerecord(model, gl_ctx):
    one, other = models.stepped(model, 1), models.stepped(model, 120)
    with hypergl_mujoco.BatchRenderer(model, cameras=["fixed"], context=gl_ctx) as renderer:
        a = renderer.render(one).segmentation.copy()
        b = renderer.render(other).segmentation.copy()
        c = renderer.render(one).segmentation
    assert not np.array_equal(a, b) and np.array_equal(a, c)


def test_a_copy_of_the_model_with_the_same_geoms_is_accepted(model, gl_ctx):
    copy = models.all_geoms()  # what each sub-env of a gymnasium vector env holds
    with hypergl_mujoco.BatchRenderer(model, cameras=["fixed"], context=gl_ctx) as renderer:
        result = renderer.render(models.stepped(copy, 1))
    assert (result.segmentation >= 0).any()


def test_own_context_and_the_bridge_entry_point(model, gl_ctx):
    renderer = hypergl_mujoco.BatchRenderer(model, cameras=["fixed"])
    own = renderer.context
    renderer.render(models.stepped(model, 1))
    renderer.close()
    renderer.close()  # twice is fine
    assert own.closed
    shared = hypergl_mujoco.BatchRenderer(model, 2, cameras=["fixed"], context=gl_ctx)
    shared.render([models.stepped(model, 1), models.stepped(model, 2)])
    shared.close()
    assert not gl_ctx.closed


def test_the_bridge_is_the_geoms_record_source(model, gl_ctx):
    """ctx.bridge("mujoco", data): every world's geom poses as records, uploaded in C++ by
    the program its record() went into; the ids are the geoms'."""
    datas = [models.stepped(model, 1), models.stepped(model, 2)]
    bridge = gl_ctx.bridge("mujoco", datas)
    assert isinstance(bridge, hypergl_mujoco.MujocoBridge) and bridge.context is gl_ctx
    assert bridge.capacity == 2 * model.ngeom and bridge.num_worlds == 2
    cmd = gl_ctx.command_buffer()
    bridge.record(cmd)
    cmd.end()
    cmd.submit()
    rows = bridge.records
    for world, data in enumerate(datas):
        mine = rows[world * model.ngeom : (world + 1) * model.ngeom]
        assert np.array_equal(mine["position"], data.geom_xpos.astype(np.float32))
        assert np.array_equal(mine["rotation"].reshape(-1, 9),
                              data.geom_xmat.astype(np.float32))  # fmt: skip
        assert mine["id"].tolist() == list(range(model.ngeom))
    bridge.close()
    bridge.close()


def test_the_bridge_refuses_what_is_not_data(model, gl_ctx):
    with pytest.raises(hypergl_mujoco.DataError, match=r"got MjModel: for MuJoCo's whole "
                                                       r"picture of a model, hypergl_mujoco"
                                                       r"\.BatchRenderer"):  # fmt: skip
        gl_ctx.bridge("mujoco", model)
    with pytest.raises(hypergl_mujoco.DataError, match="non-empty sequence"):
        gl_ctx.bridge("mujoco", [])
    with pytest.raises(hypergl_mujoco.DataError, match="world 1 is a str, not an MjData"):
        gl_ctx.bridge("mujoco", [models.stepped(model, 1), "x"])
    other = mujoco.MjModel.from_xml_string("<mujoco><worldbody/></mujoco>")
    with pytest.raises(
        hypergl_mujoco.ModelMismatchError, match="world 1's data belongs to a model of 0 geoms"
    ):
        gl_ctx.bridge("mujoco", [models.stepped(model, 1), mujoco.MjData(other)])
    with pytest.raises(hypergl_mujoco.DataError, match="groups must be ints"):
        gl_ctx.bridge("mujoco", models.stepped(model, 1), groups=("a",))


def buffer_bytes(ctx):
    return sum(o.size for o in ctx.live_objects() if isinstance(o, hypergl.Buffer))


def test_memory_per_world_is_what_a_world_adds(model, gl_ctx):
    """The buffers of 3 worlds less those of 2: exactly the figure (less its pixels, whose
    framebuffer grows by whole grid rows); the mesh library is not in it."""
    sizes, figures = [], []
    for worlds in (2, 3):
        datas = [models.stepped(model, 1) for _ in range(worlds)]
        with hypergl_mujoco.BatchRenderer(model, worlds, cameras=["fixed", "tracking"],
                                          context=gl_ctx) as renderer:  # fmt: skip
            renderer.render(datas)
            sizes.append(buffer_bytes(gl_ctx))
            figures.append(renderer.memory_per_world)
    # every world's cameras' pixels and its light's shadow map (depth24: no colour)
    pixels = 2 * 84 * 84 * (4 + 4 * 3) + 128 * 128 * 4
    assert figures[0] == figures[1]
    assert sizes[1] - sizes[0] == figures[0] - pixels
    assert figures[0] < 900_000  # the shared meshes alone take megabytes


def test_depth_and_segmentation_alone_count_one_attachment_less(model, gl_ctx):
    """Without RGB the depth is the depth buffer (depth32f, no attachment of its own): a
    view's pixels are 4 bytes of it and 4 of the ids' r32f; nothing lit, so no shadow map."""
    sizes, figures = [], []
    for worlds in (2, 3):
        datas = [models.stepped(model, 1) for _ in range(worlds)]
        with hypergl_mujoco.BatchRenderer(model, worlds, cameras=["fixed", "tracking"],
                                          outputs=("depth", "segmentation"),
                                          context=gl_ctx) as renderer:  # fmt: skip
            renderer.render(datas)
            fb = renderer._framebuffer
            assert fb._desc["color"] == ["r32f"] and fb._desc["depth"] == "depth32f"
            sizes.append(buffer_bytes(gl_ctx))
            figures.append(renderer.memory_per_world)
    assert figures[0] == figures[1]
    assert sizes[1] - sizes[0] == figures[0] - 2 * 84 * 84 * (4 + 4)


def test_an_sdf_without_a_mesh_is_skipped_with_one_warning(gl_ctx):
    model = models.all_geoms()
    for name in ("box", "cylinder"):  # MuJoCo draws an SDF only through its mesh
        model.geom_type[geom(model, name)] = mujoco.mjtGeom.mjGEOM_SDF
        model.geom_dataid[geom(model, name)] = -1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        renderer = hypergl_mujoco.BatchRenderer(model, cameras=["fixed"], context=gl_ctx)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and "'box'" in texts[0] and "'cylinder'" in texts[0], texts
    seen = renderer.render(models.stepped(model, 1)).segmentation
    assert geom(model, "box") not in seen and geom(model, "sphere") in seen
    renderer.close()


def test_infinite_plane_reaches_the_horizon(gl_ctx):
    xml = """<mujoco><statistic extent="0.4"/><worldbody><geom type="plane" size="0 0 1"/>
      <camera name="low" pos="0 0 1" xyaxes="1 0 0 0 0.05 1"/></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with hypergl_mujoco.BatchRenderer(model, cameras=["low"], context=gl_ctx) as renderer:
        result = renderer.render(data)
    ids, depth = result.segmentation[0, 0], result.depth[0, 0]
    assert (ids[-1] == 0).all() and (ids[0] == -1).all()  # floor below, sky above
    far = model.vis.map.zfar * model.stat.extent
    assert depth[ids == 0].max() > 0.8 * far  # drawn out to the far plane
