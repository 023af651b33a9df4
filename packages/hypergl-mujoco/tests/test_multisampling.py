"""Multisampling as ``quality.offsamples`` says, MuJoCo's renderer the oracle: edges of
ray-cast spheres, capsules and cylinders and of meshes antialiased as ``mjr_render``'s,
depth and segmentation single-sampled (exact), and the rejections. A failing view writes
ours | MuJoCo's | difference to out/parity/."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco
from hypergl.bodies import BodyError, BodyRenderer, InstanceRecords

from .test_picture import scores, write_rgb

pytestmark = pytest.mark.gl

EDGES = """
<mujoco model="edges">
  <visual><quality offsamples="{samples}"/></visual>
  <worldbody>
    <light pos="0 0 4" dir="0 0 -1" castshadow="false"/>
    <geom name="floor" type="plane" size="3 3 .1" rgba=".2 .25 .3 1"/>
    <geom name="ball" type="sphere" size=".25" pos="0 0 .4" rgba=".9 .3 .2 1"/>
    <geom name="rod" type="capsule" size=".04 .4" pos=".6 0 .4" euler="30 40 0"
          rgba=".2 .8 .3 1"/>
    <geom name="can" type="cylinder" size=".1 .15" pos="-.6 .2 .3" euler="60 0 20"
          rgba=".9 .9 .2 1"/>
    <geom name="block" type="box" size=".15 .1 .2" pos="-.3 -.5 .3" euler="0 0 35"
          rgba=".3 .4 .9 1"/>
    <camera name="front" pos="0 -2.2 1.2" xyaxes="1 0 0 0 .5 .87"/>
  </worldbody>
</mujoco>
"""


def edges(samples="4") -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(EDGES.format(samples=samples))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def ours(model, data, gl_ctx, primitives="raycast", **kwargs) -> np.ndarray:
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], width=96, height=96,
                                      outputs=("rgb",), context=gl_ctx,
                                      primitives=primitives, **kwargs) as renderer:  # fmt: skip
        return renderer.render(data).rgb[0, 0]


def theirs(model, data) -> np.ndarray:
    with mujoco.Renderer(model, 96, 96) as reference:
        reference.update_scene(data, "front")
        return reference.render()


@pytest.mark.parametrize("primitives", ["raycast", "mesh"])
def test_edges_are_antialiased_as_mujoco_draws_them(primitives, gl_ctx):
    model, data = edges()
    reference = theirs(model, data)
    single = ours(model, data, gl_ctx, primitives, samples=0)
    multi = ours(model, data, gl_ctx, primitives)  # the model's offsamples: 4
    (psnr_single, _), (psnr, within) = scores(single, reference), scores(multi, reference)
    # measured on llvmpipe (Mesa 22.3): raycast 35.3 -> 41.6 dB, mesh 35.2 -> 44.0 dB
    if psnr < 39.0 or within < 0.99 or psnr < psnr_single + 4.0:
        path = write_rgb(f"msaa_edges_{primitives}", multi, reference)
        pytest.fail(f"{primitives}: {psnr:.1f} dB ({psnr_single:.1f} single-sampled), "
                    f"{100 * within:.1f}% within 16/255 (picture: {path})")  # fmt: skip


# Parts thinner than a pixel (at 96 x 96 a pixel is 2.6 cm at the rods, radii 0.4 to 2.6 cm;
# the ball 1.5 cm): their samples' coverage comes from the ray's distance at the pixel's
# centre and its exact derivatives, a plane that must not lose a thin part nor widen it.
THIN = """
<mujoco model="thin">
  <visual><quality offsamples="4"/></visual>
  <worldbody>
    <light pos="0 -1 3" dir="0 .3 -1" castshadow="false"/>
    <geom type="capsule" size=".004 .6" pos="-.6 0 .3" euler="0 80 10" rgba=".9 .9 .9 1"/>
    <geom type="capsule" size=".008 .6" pos="-.3 0 .1" euler="0 60 0" rgba=".9 .9 .9 1"/>
    <geom type="capsule" size=".015 .6" pos=".2 0 -.1" euler="20 40 0" rgba=".9 .9 .9 1"/>
    <geom type="capsule" size=".026 .5" pos=".6 .3 .2" euler="0 10 0" rgba=".9 .9 .9 1"/>
    <geom type="sphere" size=".015" pos="0 0 .5" rgba=".9 .9 .9 1"/>
    <geom type="ellipsoid" size=".3 .2 .004" pos="0 .2 -.4" euler="80 0 0" rgba=".9 .9 .9 1"/>
    <camera name="front" pos="0 -3 0" xyaxes="1 0 0 0 0 1"/>
  </worldbody>
</mujoco>
"""


def test_parts_thinner_than_a_pixel_keep_their_coverage(gl_ctx):
    """MuJoCo the oracle: the light the thin parts leave on the black background (the sum
    of every pixel) and the picture. Measured on llvmpipe (Mesa 22.3): 1.015 of MuJoCo's
    light, 33.0 dB (a ray a sample: 33.4 dB; the plane's slope from differences across
    the pixel's quad instead of its derivatives: 31.3 dB)."""
    model = mujoco.MjModel.from_xml_string(THIN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    reference = theirs(model, data)
    multi = ours(model, data, gl_ctx)
    psnr, within = scores(multi, reference)
    light = multi.sum(dtype=np.float64) / reference.sum(dtype=np.float64)
    if not (0.95 < light < 1.05 and psnr >= 32.0):
        path = write_rgb("msaa_thin", multi, reference)
        pytest.fail(f"thin parts: {light:.3f} of MuJoCo's light, {psnr:.1f} dB, "
                    f"{100 * within:.1f}% within 16/255 (picture: {path})")  # fmt: skip


def test_offsamples_0_draws_single_sampled(gl_ctx):
    model, data = edges(samples="0")
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], outputs=("rgb",),
                                      context=gl_ctx) as renderer:  # fmt: skip
        assert renderer.samples == 0
    assert np.array_equal(ours(model, data, gl_ctx), ours(*edges(), gl_ctx, samples=0))


def test_offsamples_beyond_the_device_are_lowered_as_mujoco_lowers_them(gl_ctx):
    model, _ = edges(samples="64")
    most = gl_ctx.limits["max_samples"]
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], outputs=("rgb",),
                                      context=gl_ctx) as renderer:  # fmt: skip
        assert renderer.samples == most


def test_depth_and_segmentation_stay_single_sampled_and_exact(gl_ctx):
    model, data = edges()
    outputs = ("rgb", "depth", "segmentation")
    pictures = []
    for samples in (None, 0):
        with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], outputs=outputs,
                                          context=gl_ctx, samples=samples) as renderer:  # fmt: skip
            assert renderer.samples == 0
            pictures.append(renderer.render(data))
    for name in outputs:
        assert np.array_equal(pictures[0][name], pictures[1][name]), name


@pytest.mark.parametrize("samples", [-1, True, 4.0, "4"])
def test_bad_samples_are_refused(samples, gl_ctx):
    model, _ = edges()
    with pytest.raises(hypergl_mujoco.SizeError, match="samples must be"):
        hypergl_mujoco.BatchRenderer(model, outputs=("rgb",), context=gl_ctx, samples=samples)


def test_samples_beyond_the_device_are_refused(gl_ctx):
    model, _ = edges()
    most = gl_ctx.limits["max_samples"]
    wanted = f"samples={most + 1} is above this context's max_samples {most}"
    with pytest.raises(hypergl_mujoco.SizeError, match=wanted):
        hypergl_mujoco.BatchRenderer(model, outputs=("rgb",), context=gl_ctx,
                                     samples=most + 1)  # fmt: skip


def test_samples_with_a_depth_output_are_refused(gl_ctx):
    model, _ = edges()
    with pytest.raises(hypergl_mujoco.OutputError, match="samples=4 multisamples the RGB "
                                                          "output alone"):  # fmt: skip
        hypergl_mujoco.BatchRenderer(model, outputs=("rgb", "depth"), context=gl_ctx,
                                     samples=4)  # fmt: skip


def test_a_body_renderer_refuses_bad_samples(gl_ctx):
    records = InstanceRecords(gl_ctx, 4)
    with pytest.raises(BodyError, match=r"samples must be an int, 0 .* got -1"):
        BodyRenderer(records, samples=-1)
    renderer = BodyRenderer(records, samples=4, outputs=("color", "depth"))
    with pytest.raises(BodyError, match="takes the color output alone"):
        renderer.framebuffer((8, 8))


GROUND = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="{floor}"/>
    {fixed}
    <body pos="0 0 .05"><freejoint/><geom type="sphere" size=".2"/></body>
  </worldbody>
  {assets}
</mujoco>
"""


@pytest.mark.parametrize(
    "fixed, assets, single",
    [
        ("", "", True),  # bodies that move: they cross a ground where they touch it
        ('<geom type="box" size=".1 .1 .1" pos="1 0 .5"/>', "", True),  # above it
        ('<geom type="capsule" size=".02 1" pos="1 0 .01" euler="90 0 0"/>', "", False),
        ('<geom type="hfield" hfield="terrain"/>',
         '<asset><hfield name="terrain" nrow="3" ncol="3" size="1 1 .1 .1"/></asset>', False),
        ('<body pos="2 0 0"><geom type="plane" size="1 1 .1"/></body>', "", True),  # welded
        ('<body mocap="true"><geom type="plane" size="1 1 .1"/></body>', "", False),  # moves
    ],
)  # fmt: skip
def test_planes_are_single_sampled_where_nothing_fixed_lies_across_one(fixed, assets, single):
    from hypergl_mujoco import scene

    xml = GROUND.format(floor="3 3 .1", fixed=fixed, assets=assets)
    assert scene.planes_single_sampled(mujoco.MjModel.from_xml_string(xml)) is single
    assert scene.planes_single_sampled(edges()[0]) is False  # its rod lies across the floor


@pytest.mark.parametrize("bad", [None, "model.xml", mujoco.MjData])
def test_planes_single_sampled_names_what_is_not_a_model(bad):
    from hypergl_mujoco import DataError, scene

    with pytest.raises(DataError, match=r"model must be a mujoco\.MjModel, got"):
        scene.planes_single_sampled(bad)


def test_a_ground_of_one_sample_stays_mujocos_picture(gl_ctx):
    # EDGES with its rod lifted off the floor: the floor drawn with one sample a pixel
    # (its edges over the sky aliased), the bodies' edges over it antialiased as MuJoCo's
    xml = EDGES.replace('pos=".6 0 .4" euler="30 40 0"', 'pos=".6 0 .6" euler="0 90 0"')
    model = mujoco.MjModel.from_xml_string(xml.format(samples="4"))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    from hypergl_mujoco import scene

    assert scene.planes_single_sampled(model)
    reference = theirs(model, data)
    multi = ours(model, data, gl_ctx)
    psnr, within = scores(multi, reference)
    # measured on llvmpipe (Mesa 22.3): 40.9 dB (41.2 with the plane multisampled)
    if psnr < 39.0 or within < 0.99:
        path = write_rgb("msaa_ground", multi, reference)
        pytest.fail(f"{psnr:.1f} dB, {100 * within:.1f}% within 16/255 (picture: {path})")
