"""Planar reflections as ``mjr_render`` draws them (``mjRND_REFLECTION``), MuJoCo's
renderer the oracle: a floor of reflectance 0.6 under bright bodies, seen from above (the
reflection fills a share of the picture no other gap comes near), and the mirror chosen as
MuJoCo chooses it. A failing view writes ours | MuJoCo's | difference to out/parity/."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl
import hypergl_mujoco
from hypergl.bodies import BodyError, BodyRenderer, InstanceRecords
from hypergl_mujoco.reflections import mirror_geom, reflection_matrix
from hypergl_mujoco.scene import model_looks

from . import models
from .test_picture import scores, write_rgb

pytestmark = pytest.mark.gl

MIRROR = """
<mujoco model="mirror">
  <visual><quality offsamples="0"/></visual>
  <asset>
    <material name="mirror" rgba=".2 .25 .3 1" reflectance="{reflectance}"/>
  </asset>
  <worldbody>
    <light pos="0 0 4" dir="0 0 -1" castshadow="false"/>
    <geom name="floor" type="{floor}" size="3 3 .1" pos="0 0 {floor_z}" material="mirror"/>
    <geom name="second" type="plane" size=".4 .4 .1" pos="2 2 .01" material="mirror"/>
    <body name="torso" pos="0 0 .6">
      <freejoint/>
      <geom name="ball" type="sphere" size=".25" rgba=".9 .3 .2 1"/>
      <geom name="rod" type="capsule" size=".06 .3" pos=".5 0 .2" euler="0 40 0"
            rgba=".2 .8 .3 1"/>
      <geom name="block" type="box" size=".15 .1 .2" pos="-.5 0 0" rgba=".9 .9 .2 1"/>
    </body>
    <camera name="above" pos="0 -2.2 2.2" xyaxes="1 0 0 0 .7 .7"/>
  </worldbody>
</mujoco>
"""


def mirror_model(floor: str = "plane", reflectance: float = 0.6) -> mujoco.MjModel:
    floor_z = -0.1 if floor == "box" else 0.0  # a box's top face at 0
    return mujoco.MjModel.from_xml_string(
        MIRROR.format(floor=floor, reflectance=reflectance, floor_z=floor_z)
    )


def picture(model, gl_ctx, reflection: bool, ours_reflect: bool = True):
    """(ours, MuJoCo's) of the "above" camera, MuJoCo's reflection flag `reflection`."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    flags = {"mjRND_REFLECTION": reflection and ours_reflect, "mjRND_SHADOW": False}
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["above"], width=96, height=96,
                                      outputs=("rgb",), context=gl_ctx,
                                      scene_flags=flags) as renderer:  # fmt: skip
        ours = renderer.render(data).rgb[0, 0]
        mirrored = renderer._reflections is not None
    with mujoco.Renderer(model, 96, 96) as reference:
        reference.update_scene(data, "above")
        reference.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = reflection
        reference.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
        theirs = reference.render()
    return ours, theirs, mirrored


@pytest.mark.parametrize("floor", ["plane", "box"])
def test_a_reflective_floor_reflects_as_mujoco_draws_it(floor, gl_ctx):
    model = mirror_model(floor)
    ours, theirs, mirrored = picture(model, gl_ctx, reflection=True)
    assert mirrored
    psnr, within = scores(ours, theirs)
    unreflected, _, _ = picture(model, gl_ctx, reflection=True, ours_reflect=False)
    before, _ = scores(unreflected, theirs)
    # measured: plane 46.8 dB, 99.9% within (29.4 dB without the mirror pass); box 36.5 dB,
    # 99.9% (29.1 dB without)
    if psnr < 33.0 or within < 0.98 or psnr < before + 5.0:
        path = write_rgb(f"rgb_reflection_{floor}", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB ({before:.1f} without the mirror), "
                             f"{100 * within:.1f}% within (picture: {path})")  # fmt: skip


def test_reflection_off_draws_no_mirror_pass_and_matches_mujoco_without_it(gl_ctx):
    ours, theirs, mirrored = picture(mirror_model(), gl_ctx, reflection=False)
    assert not mirrored  # switched off: nothing made, nothing paid
    psnr, within = scores(ours, theirs)
    if psnr < 40.0 or within < 0.99:  # measured 47.3 dB, 99.9%
        path = write_rgb("rgb_reflection_off", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB, {100 * within:.1f}% (picture: {path})")


def test_the_mirror_is_the_first_opaque_reflective_plane_or_box_fixed_in_the_world():
    model = mirror_model()
    mirror = mirror_geom(model, model_looks(model))
    assert mirror is not None and mirror.geom == 0  # "floor", not the second plane
    np.testing.assert_allclose(mirror.normal, (0, 0, 1))
    assert mirror.reflectance == pytest.approx(0.6)
    box = mirror_model("box")
    top = mirror_geom(box, model_looks(box))
    assert top is not None
    np.testing.assert_allclose(top.point, (0, 0, 0), atol=1e-12)  # its +z face
    # a point and its mirror image
    point = reflection_matrix(mirror) @ np.array([0.3, 0.2, 0.7, 1.0])
    np.testing.assert_allclose(point, (0.3, 0.2, -0.7, 1.0))
    assert mirror_geom(model, []) is None


def test_a_transparent_or_dull_floor_is_no_mirror():
    dull = mirror_model(reflectance=0.0)
    looks = model_looks(dull)
    assert mirror_geom(dull, looks) is None
    moving = mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><body><freejoint/><geom type='box' size='1 1 .1' "
        "material='m'/></body></worldbody><asset><material name='m' reflectance='.5'/>"
        "</asset></mujoco>"
    )
    assert mirror_geom(moving, model_looks(moving)) is None  # on a moving body: none here


def test_bad_mirror_input_is_refused_by_name(gl_ctx):
    records = InstanceRecords(gl_ctx, 4)
    main = BodyRenderer(records, max_ids=4, views=2)
    mirror = BodyRenderer(records, max_ids=4, views=2, mirror=True)
    try:
        with pytest.raises(BodyError, match="non-zero normal"):
            mirror.set_mirror((0, 0, 0), (0, 0, 0), 0.5)
        with pytest.raises(BodyError, match="reflectance must be in"):
            mirror.set_mirror((0, 0, 1), (0, 0, 0), 1.5)
        with pytest.raises(BodyError, match="made without mirror=True"):
            main.set_mirror((0, 0, 1), (0, 0, 0), 0.5)
        with pytest.raises(BodyError, match="reflects nothing"):
            mirror.set_reflection(main.atlas, (0, 0, 1), (0, 0, 0))
        with pytest.raises(BodyError, match="colour Texture"):
            main.set_reflection("picture", (0, 0, 1), (0, 0, 0))
        with pytest.raises(BodyError, match="no shadows"):
            BodyRenderer(records, max_ids=4, views=2, mirror=True, shadow_lights=[0])
    finally:
        mirror.release()
        main.release()
        records.release()


def test_default_picture_model_still_renders_with_its_mirror(gl_ctx):
    """The gymnasium floor (reflectance .1 in half_cheetah's checker): built and drawn."""
    pytest.importorskip("gymnasium")
    model = models.gym_model("half_cheetah")
    data = models.stepped(model, 5)
    with hypergl_mujoco.BatchRenderer(model, 2, outputs=("rgb", "depth", "segmentation"),
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render([data, data])
        assert renderer._reflections is not None
    # the same state in two tiles: the same picture (a level of rounding at a tile's place)
    assert np.abs(result.rgb[0].astype(int) - result.rgb[1]).max() <= 2
    assert (result.segmentation >= -1).all()


GLASS = """
<mujoco model="glass">
  <visual><quality offsamples="0"/></visual>
  <worldbody>
    <light pos="0 0 4" dir="0 0 -1" castshadow="false"/>
    <geom name="floor" type="plane" size="3 3 .1" rgba=".3 .35 .4 1"/>
    <geom name="ball" type="sphere" size=".3" pos="0 .4 .5" rgba=".9 .3 .2 1"/>
    <geom name="glass" type="box" size=".5 .05 .4" pos="0 -.2 .5" rgba=".2 .5 .9 .4"/>
    <camera name="front" pos="0 -2.5 1" xyaxes="1 0 0 0 .3 1"/>
  </worldbody>
</mujoco>
"""


def test_a_transparent_geom_is_blended_over_what_is_behind_it_as_mujoco_draws_it(gl_ctx):
    model = mujoco.MjModel.from_xml_string(GLASS)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], width=96, height=96,
                                      outputs=("rgb", "depth", "segmentation"),
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(data)
        assert renderer._transparent is not None
    ours = result.rgb[0, 0]
    with mujoco.Renderer(model, 96, 96) as reference:
        reference.update_scene(data, "front")
        theirs = reference.render()
        reference.enable_depth_rendering()
        depth = reference.render()
        reference.disable_depth_rendering()
        reference.enable_segmentation_rendering()
        segmentation = reference.render()[..., 0]
    psnr, within = scores(ours, theirs)
    if psnr < 40.0 or within < 0.99:  # measured: 51.6 dB, 99.96% (27.1 dB, 84.9% opaque)
        path = write_rgb("rgb_transparent", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB, {100 * within:.1f}% (picture: {path})")
    # MuJoCo's depth and segmentation have the glass
    glass = segmentation == 2
    assert glass.mean() > 0.2
    assert (result.segmentation[0, 0][glass] == 2).mean() > 0.97
    close = np.abs(result.depth[0, 0][glass] - depth[glass]) < 1e-3 * depth[glass]
    assert close.mean() > 0.97


def test_depth_and_segmentation_alone_draw_transparent_geoms_in_the_opaque_pass(gl_ctx):
    """Without RGB no blended pass: the glass and a floor seen from below are drawn with
    the rest, as MuJoCo's segmentation draws them, and give the depth and ids beside RGB."""
    for model, camera in ((mujoco.MjModel.from_xml_string(GLASS), "front"),
                          (floor_from_below(), "above")):  # fmt: skip
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        results = []
        for outputs in (("rgb", "depth", "segmentation"), ("depth", "segmentation")):
            with hypergl_mujoco.BatchRenderer(model, 1, cameras=[camera], outputs=outputs,
                                              context=gl_ctx) as renderer:  # fmt: skip
                results.append(renderer.render(data))
                assert (renderer._transparent is None) == ("rgb" not in outputs)
        beside, alone = results
        assert np.array_equal(alone.segmentation, beside.segmentation)
        np.testing.assert_allclose(alone.depth, beside.depth, rtol=1e-6)


def floor_from_below() -> mujoco.MjModel:
    model = mirror_model()
    model.cam_pos[0] = (0.0, -2.2, -1.2)  # below the floor, looking up at the bodies
    model.cam_quat[0] = (0.4266, 0.9044, 0.0, 0.0)  # 129.5 degrees about x: up at them
    return model


def test_a_floor_seen_from_below_is_transparent_as_mujoco_draws_it(gl_ctx):
    """mjr_render draws a plane seen from behind with 0.3 of its alpha, lit as its front."""
    model = floor_from_below()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["above"], width=96, height=96,
                                      outputs=("rgb",), context=gl_ctx) as renderer:  # fmt: skip
        ours = renderer.render(data).rgb[0, 0]
    with mujoco.Renderer(model, 96, 96) as reference:
        reference.update_scene(data, "above")
        theirs = reference.render()
    psnr, within = scores(ours, theirs)
    if psnr < 40.0 or within < 0.99:  # measured: 47.9 dB, 99.96%
        path = write_rgb("rgb_plane_from_below", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB, {100 * within:.1f}% (picture: {path})")


def test_memory_per_world_counts_the_mirror_and_transparent_passes(gl_ctx):
    """Buffers of 3 worlds less those of 2: the figure less the pixels (the framebuffers,
    the mirror's too, grow by whole grid rows)."""
    xml = GLASS.replace('rgba=".3 .35 .4 1"', 'rgba=".3 .35 .4 1" material="m"')
    xml = xml.replace(
        "<worldbody>", '<asset><material name="m" reflectance=".3"/></asset><worldbody>'
    )  # a reflective floor, a glass
    model = mujoco.MjModel.from_xml_string(xml)
    sizes, figures = [], []
    for worlds in (2, 3):
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        with hypergl_mujoco.BatchRenderer(model, worlds, cameras=["front"], outputs=("rgb",),
                                          context=gl_ctx) as renderer:  # fmt: skip
            renderer.render([data] * worlds)
            assert renderer._reflections is not None and renderer._transparent is not None
            sizes.append(sum(o.size for o in gl_ctx.live_objects()
                             if isinstance(o, hypergl.Buffer)))  # fmt: skip
            figures.append(renderer.memory_per_world)
    pixels = 84 * 84 * 8 * 2  # colour and depth24, the main pass's and the mirror's
    assert figures[0] == figures[1]
    assert sizes[1] - sizes[0] == figures[0] - pixels


def elements_over_a_mirror() -> mujoco.MjModel:
    """The tube skin of test_tendons_skins over a reflective floor, beside a site and a
    spatial tendon between two sites: every element kind but flexes in the mirror."""
    from .test_tendons_skins import tube_skin

    xml = tube_skin(0.0).replace(
        '<geom name="floor" type="plane" size="2 2 .1" rgba=".8 .8 .8 1"/>',
        '<geom name="floor" type="plane" size="2 2 .1" material="mirror"/>'
        '<light pos="0 0 4" dir="0 0 -1" castshadow="false"/>'
        '<camera name="above" pos=".15 -1.1 1.3" xyaxes="1 0 0 0 .75 .66"/>',
    )
    xml = xml.replace('<freejoint/><geom type="box" size=".05 .05 .05" group="3"/>',
                      '<freejoint/><geom type="box" size=".05 .05 .05" group="3"/>'
                      '<site name="s" pos="0 .25 0" size=".06" rgba=".2 .9 .3 1"/>')  # fmt: skip
    xml = xml.replace('<geom type="box" size=".05 .05 .05" group="3"/></body>',
                      '<geom type="box" size=".05 .05 .05" group="3"/>'
                      '<site name="t" pos="0 .25 0" size=".02"/></body>')  # fmt: skip
    xml = xml.replace("<mujoco><worldbody>",
                      '<mujoco><visual><quality offsamples="0"/></visual><asset>'
                      '<material name="mirror" rgba=".2 .25 .3 1" reflectance=".6"/>'
                      "</asset><worldbody>")  # fmt: skip
    xml = xml.replace("</deformable>",
                      '</deformable><tendon><spatial width=".02" rgba=".9 .2 .9 1">'
                      '<site site="s"/><site site="t"/></spatial></tendon>')  # fmt: skip
    return mujoco.MjModel.from_xml_string(xml)


def test_sites_tendons_and_skins_are_reflected_as_mujoco_draws_them(gl_ctx, monkeypatch):
    """mjr_render reflects every element of the scene, not the geoms alone: the skin, the
    site and the tendon over the mirror show in it as in MuJoCo's picture (and the
    picture with the geoms alone reflected is measurably farther from it)."""
    model = elements_over_a_mirror()
    ours, theirs, mirrored = picture(model, gl_ctx, reflection=True)
    assert mirrored
    # the picture's lower half: the floor and the reflection (the skin itself is flat
    # shaded here, MuJoCo smooths it: that gap is not the mirror's)
    lower = slice(ours.shape[0] // 2, None)
    psnr, within = scores(ours[lower], theirs[lower])
    monkeypatch.setattr(hypergl_mujoco.BatchRenderer, "_reflect_layers", lambda self: None)
    geoms_alone, _, _ = picture(model, gl_ctx, reflection=True)
    before, _ = scores(geoms_alone[lower], theirs[lower])
    # measured: 36.9 dB, 99.3% within (31.2 dB with the geoms alone reflected)
    if psnr < 35.0 or within < 0.98 or psnr < before + 4.0:
        path = write_rgb("rgb_reflection_elements", ours, theirs)
        raise AssertionError(
            f"{psnr:.1f} dB ({before:.1f} with the geoms alone "
            f"reflected), {100 * within:.1f}% within (picture: {path})"
        )
