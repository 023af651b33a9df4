"""Elements MuJoCo draws by default besides geoms' fronts: sites (of the visible site
groups) and planes' backs, against ``mujoco.Renderer``'s segmentation and depth with its
default scene options (the dm_control suite's sites: tests/test_dm_control.py)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco

from . import parity
from .models import free

pytestmark = pytest.mark.gl

SITES = """<mujoco><worldbody>
  <geom name="floor" type="plane" size="2 2 0.1"/>
  <body name="b" pos="0 0 0.6">
    <geom name="core" type="box" size="0.1 0.1 0.1" rgba="0.2 0.6 0.9 1"/>
    <site name="ball" type="sphere" size="0.08" pos="0.4 0 0" rgba="1 0 0 1"/>
    <site name="pill" type="capsule" size="0.05 0.15" pos="-0.4 0 0" euler="0 60 0"/>
    <site name="egg" type="ellipsoid" size="0.15 0.08 0.05" pos="0 0.4 0" group="1"/>
    <site name="can" type="cylinder" size="0.07 0.1" pos="0 -0.4 0" group="2"/>
    <site name="brick" type="box" size="0.06 0.1 0.04" pos="0 0 0.3" euler="0 0 30"/>
    <site name="hidden" type="sphere" size="0.2" pos="0.4 0.4 0.3" group="3"/>
    <site name="clear" type="sphere" size="0.2" pos="-0.4 -0.4 0.3" rgba="1 1 1 0"/>
  </body>
</worldbody></mujoco>"""


def mujoco_ids(model, data, camera, size):
    """MuJoCo's default picture's segmentation in our id space (geom id, ngeom + site id,
    -1) and its depth."""
    if reason := parity.reference_unusable():
        pytest.skip(reason)
    with mujoco.Renderer(model, size, size) as renderer:
        renderer.enable_segmentation_rendering()
        renderer.update_scene(data, camera)
        seg = renderer.render()
        renderer.disable_segmentation_rendering()
        renderer.enable_depth_rendering()
        renderer.update_scene(data, camera)
        depth = renderer.render()
    ids = np.full(seg.shape[:2], -1, np.int32)
    geom, site = seg[..., 1] == mujoco.mjtObj.mjOBJ_GEOM, seg[..., 1] == mujoco.mjtObj.mjOBJ_SITE
    ids[geom] = seg[..., 0][geom]
    ids[site] = model.ngeom + seg[..., 0][site]
    return ids, depth


@pytest.mark.parametrize("size", [84, 128])
def test_sites_of_the_visible_groups_as_mujoco_draws_them(size, gl_ctx):
    model = mujoco.MjModel.from_xml_string(SITES)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    cameras = [free(model, 30, -35, 2.2), free(model, 200, -20, 2.0)]
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=cameras, width=size, height=size,
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(data)
    seen = set()
    for k, camera in enumerate(cameras):
        theirs, depth = mujoco_ids(model, data, camera, size)
        ours = result.segmentation[0, k]
        stats = parity.compare(ours, result.depth[0, k], theirs, depth)
        if stats["agree"] < 0.99 or stats["depth_median"] >= 1e-3:
            path = parity.write_picture(f"sites_{k}_{size}", ours, theirs)
            raise AssertionError(f"camera {k}: {stats} (picture: {path})")
        seen |= set(np.unique(ours).tolist())
    sites = {model.ngeom + mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
             for name in ("ball", "pill", "egg", "can", "brick")}  # fmt: skip
    assert sites <= seen  # every visible site is in the picture; group 3 and clear are not
    assert not {model.ngeom + 5, model.ngeom + 6} & seen


def test_site_groups_choose_the_sites_and_object_ids_name_them(gl_ctx):
    model = mujoco.MjModel.from_xml_string(SITES)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    camera = free(model, 30, -35, 2.2)
    with hypergl_mujoco.BatchRenderer(model, cameras=[camera], site_groups=(), context=gl_ctx,
                                      outputs=("segmentation",)) as renderer:  # fmt: skip
        none = renderer.render(data).segmentation
    assert none.max() < model.ngeom  # geoms only
    with hypergl_mujoco.BatchRenderer(model, cameras=[camera], site_groups=(0, 3),
                                      context=gl_ctx) as renderer:  # fmt: skip
        seg = renderer.render(data).segmentation
        pairs = renderer.object_ids(seg)
    hidden = model.ngeom + 5  # group 3, shown now
    assert hidden in seg and model.ngeom + 2 not in seg  # egg: group 1, hidden now
    at = np.argwhere(seg == hidden)[0]
    assert pairs[tuple(at)].tolist() == [5, int(mujoco.mjtObj.mjOBJ_SITE)]
    assert pairs[seg == -1].tolist()[:1] == [[-1, -1]]


WALL = """<mujoco><worldbody>
  <geom name="floor" type="plane" size="3 3 0.1" rgba="0.8 0.8 0.8 1"/>
  <geom name="wall" type="plane" size="1 0.5 0.1" pos="0 1 0.5" euler="90 0 0"/>
  <geom name="ball" type="sphere" size="0.2" pos="0 0 0.3"/>
</worldbody></mujoco>"""


@pytest.mark.parametrize(("azimuth", "elevation", "seen"),
                         [(90, -20, 1), (-90, -20, 1), (0, 30, 0)])  # fmt: skip
def test_planes_are_two_sided(azimuth, elevation, seen, gl_ctx):
    """A wall from its front and from behind, the floor from below: MuJoCo draws all."""
    model = mujoco.MjModel.from_xml_string(WALL)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    camera = free(model, azimuth, elevation, 3.0, lookat=(0, 1, 0.4))
    with hypergl_mujoco.BatchRenderer(model, cameras=[camera], context=gl_ctx) as renderer:
        result = renderer.render(data)
    theirs, depth = mujoco_ids(model, data, camera, 84)
    ours = result.segmentation[0, 0]
    stats = parity.compare(ours, result.depth[0, 0], theirs, depth)
    if stats["agree"] < 0.99 or stats["depth_median"] >= 1e-3:
        path = parity.write_picture(f"planes_{azimuth}_{elevation}", ours, theirs)
        raise AssertionError(f"{stats} (picture: {path})")
    # the wall (1) from either side, the floor (0) from below
    assert (theirs == seen).mean() > 0.05 and (ours == seen).mean() > 0.05


FIN = """<mujoco><worldbody>
  <geom name="fin" type="ellipsoid" size="0.02 0.015 0.001" euler="90 0 0"/>
  <geom name="rod" type="capsule" size="0.0015 0.02" pos="0.05 0 0"/>
</worldbody></mujoco>"""


@pytest.mark.parametrize("distance", [0.5, 1.0, 2.0, 4.0, 8.0])
def test_thin_ray_cast_shapes_are_exact_at_any_distance(distance, gl_ctx):
    """A fin 0.02 x 0.015 x 0.001 and a rod of radius 0.0015 from 0.5 to 8 m: every pixel
    MuJoCo's mesh gives them (the ray-sphere quadratic from the point nearest the centre:
    from afar the unit sphere's offset is thousands of radii and float lost the 1)."""
    model = mujoco.MjModel.from_xml_string(FIN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    camera = free(model, 90, -10, distance, lookat=(0.025, 0, 0))
    camera.distance = distance
    width, height = 320, 240
    with hypergl_mujoco.BatchRenderer(model, cameras=[camera], width=width, height=height,
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(data)
    if reason := parity.reference_unusable():
        pytest.skip(reason)
    with mujoco.Renderer(model, height, width) as reference:
        reference.enable_segmentation_rendering()
        reference.update_scene(data, camera)
        theirs = reference.render()[..., 0].astype(np.int32)
    ours = result.segmentation[0, 0]
    assert distance > 1.0 or ((theirs == 0).sum() > 20 and (theirs == 1).sum() > 5)
    for geom in (0, 1):
        want, got = theirs == geom, ours == geom
        # every pixel but at the outline (MuJoCo's is a tessellated mesh), as many
        inside = want & ~parity.near_edge(theirs)
        counts = (geom, distance, int(got.sum()), int(want.sum()))
        assert (got & inside).sum() == inside.sum(), counts
        assert abs(int(got.sum()) - int(want.sum())) <= max(0.2 * want.sum(), 2), counts


ORTHO = """<mujoco><worldbody>
  <geom name="floor" type="plane" size="3 3 0.1"/>
  <geom name="ball" type="sphere" size="0.3" pos="0 0 0.4"/>
  <geom name="egg" type="ellipsoid" size="0.3 0.15 0.2" pos="0.8 0.3 0.3" euler="20 30 0"/>
  <geom name="pill" type="capsule" size="0.1 0.3" pos="-0.8 0 0.3" euler="0 70 0"/>
  <geom name="can" type="cylinder" size="0.15 0.2" pos="0 0.9 0.2"/>
  <geom name="box" type="box" size="0.2 0.2 0.2" pos="0 -0.9 0.2" euler="0 0 30"/>
  <camera name="ortho" pos="0.5 -4 3" xyaxes="1 0 0 0 0.6 0.8" projection="orthographic"
          fovy="3"/>
</worldbody></mujoco>"""


@pytest.mark.skipif(tuple(int(v) for v in mujoco.__version__.split(".")[:2]) < (4, 0),
                    reason="mujoco.Renderer before 4.0 converts an orthographic camera's "
                           "depth as a perspective one's: no reference")  # fmt: skip
def test_orthographic_depth_is_metres(gl_ctx):
    """An orthographic camera's depth is the distance from its plane, as MuJoCo's (it was
    clip w: 1.0 everywhere); ray-cast, meshed and the plane's quad alike."""
    model = mujoco.MjModel.from_xml_string(ORTHO)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    ortho_free = free(model, 60, -35, 5.0)
    ortho_free.orthographic = 1
    cameras = ["ortho", ortho_free]
    for primitives in ("raycast", "mesh"):
        with hypergl_mujoco.BatchRenderer(model, cameras=cameras, context=gl_ctx,
                                          primitives=primitives) as renderer:  # fmt: skip
            result = renderer.render(data)
        for k, camera in enumerate(cameras):
            theirs, depth = mujoco_ids(model, data, camera, 84)
            ours = result.segmentation[0, k]
            stats = parity.compare(ours, result.depth[0, k], theirs, depth)
            if stats["agree"] < 0.99 or stats["depth_median"] >= 1e-3:
                path = parity.write_picture(f"ortho_{primitives}_{k}", ours, theirs)
                raise AssertionError(f"{primitives}, camera {k}: {stats} (picture: {path})")
            assert stats["objects"] >= 4  # the floor and what the view holds


RANGEFINDER = """<mujoco><visual><quality offsamples="{samples}"/>
  <rgba rangefinder="1 1 .1 {alpha}"/></visual><worldbody>
  <light pos="0 0 3"/>
  <geom type="plane" size="2 2 .1" rgba=".2 .3 .6 1"/>
  <body pos="0 0 .3"><geom type="sphere" size=".02"/>
    <site name="r" euler="0 90 0" size=".01" rgba="0 0 0 0"/>
    <site name="miss" euler="0 -90 0" size=".01" rgba="0 0 0 0"/></body>
  <geom type="box" pos="1 0 .3" size=".05 .5 .5"/>
  <camera name="c" pos=".5 -1.5 1" xyaxes="1 0 0 0 .5 .86"/>
  <camera name="behind" pos="-.25 -.12 .42" xyaxes="0 -1 0 0 0 1"/>
</worldbody><sensor><rangefinder site="r"/><rangefinder site="miss"/></sensor></mujoco>"""


def rangefinder_pictures(alpha, gl_ctx, rays=True, camera="c", samples=0):
    """(ours, MuJoCo's) RGB and our segmentation, MuJoCo's with its rays drawn."""
    if reason := parity.reference_unusable():
        pytest.skip(reason)
    model = mujoco.MjModel.from_xml_string(RANGEFINDER.format(alpha=alpha, samples=samples))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    assert data.sensordata[0] > 0 and data.sensordata[1] == -1  # one hit, one miss
    option = mujoco.MjvOption()
    option.flags[mujoco.mjtVisFlag.mjVIS_RANGEFINDER] = rays
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=[camera], width=160, height=120,
                                      outputs=("rgb",), context=gl_ctx,
                                      scene_option=option) as renderer:  # fmt: skip
        ours = renderer.render(data).rgb[0, 0]
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=[camera], width=160, height=120,
                                      outputs=("segmentation",), context=gl_ctx,
                                      scene_option=option) as renderer:  # fmt: skip
        kinds = renderer.object_ids(renderer.render(data).segmentation[0, 0])
    with mujoco.Renderer(model, 120, 160) as reference:
        reference.update_scene(data, camera, scene_option=option)
        theirs = reference.render()
    return ours, theirs, kinds


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_rangefinder_rays_as_mujoco_draws_them(alpha, gl_ctx):
    """mjVIS_RANGEFINDER (on by default): a line from the site along its z to the hit, 3
    pixels wide in vis.rgba.rangefinder (blended below alpha 0.995), none for a miss;
    its pixels are the sensor's in the segmentation; off: no line."""
    from .test_picture import scores, write_rgb

    ours, theirs, kinds = rangefinder_pictures(alpha, gl_ctx)
    without, theirs_without, plain = rangefinder_pictures(alpha, gl_ctx, rays=False)
    line = np.abs(theirs.astype(int) - theirs_without.astype(int)).sum(-1) > 30  # the ray
    ray = kinds[..., 1] == mujoco.mjtObj.mjOBJ_SENSOR
    assert line.sum() > 100 and ray.sum() > 100
    assert (kinds[ray][:, 0] == 0).all()  # the sensor that hit
    assert not (plain[..., 1] == mujoco.mjtObj.mjOBJ_SENSOR).any()
    overlap = (line & ray).sum() / (line | ray).sum()
    psnr, within = scores(ours, theirs)
    before, _ = scores(without, theirs)
    # measured: alpha 1: overlap 0.99, 38.2 dB (22.2 without the ray: the rest of the gap is
    # the small sphere's shadow and the box's shading); alpha .3: 0.99, 42.3 dB (27.9); with
    # cylinders for ribbons (opaque, and the segmentation): 0.98, 37.0 dB; 0.98
    if overlap < 0.9 or psnr < before + 5.0:
        path = write_rgb(f"rgb_rangefinder_{alpha}", ours, theirs)
        raise AssertionError(
            f"overlap {overlap:.2f}, {psnr:.1f} dB ({before:.1f} without "
            f"the ray), {100 * within:.1f}% within (picture: {path})"
        )


@pytest.mark.parametrize("samples", [0, 4])
def test_a_blended_ray_seen_along_itself_is_a_line_as_wide_near_as_far(samples, gl_ctx):
    """A blended ray seen from just behind its site, running away from the eye: MuJoCo's
    line is 3 pixels wide all along; drawn in pieces (one id, every piece in the
    transparent pass's rank of that id) it is, where one cylinder as wide as the line at
    its middle grew wider towards the eye (dm_control quadruped's rays: too bright where
    they start)."""
    from .test_picture import scores, write_rgb

    ours, theirs, _ = rangefinder_pictures(0.3, gl_ctx, camera="behind", samples=samples)
    without, _, _ = rangefinder_pictures(0.3, gl_ctx, rays=False, camera="behind",
                                         samples=samples)  # fmt: skip
    psnr, within = scores(ours, theirs)
    before, _ = scores(without, theirs)
    # measured (4 pieces): 0 samples 39.8 dB, 99.97% within (32.0 without the ray), one
    # cylinder: 33.0, 99.56%; 4 samples (ribbons facing the view's axis, see
    # rangefinders.write) 38.6, 99.58% (31.5)
    if psnr < before + 5.0:
        path = write_rgb("rgb_rangefinder_behind", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB ({before:.1f} without the ray), "
                             f"{100 * within:.1f}% within (picture: {path})")  # fmt: skip
