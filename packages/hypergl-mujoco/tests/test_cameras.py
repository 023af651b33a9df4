"""hypergl_mujoco.cameras against MuJoCo itself: the camera mjv_updateScene computes (position,
axes, frustum) and where MuJoCo's own renderer draws small spheres, for fixed, tracking
(model cameras in track/trackcom/targetbody mode and mjCAMERA_TRACKING), free, orthographic
and sensor cameras, one world and many."""

from __future__ import annotations

import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

from hypergl_mujoco.cameras import (
    FREE_CAMERA_PROJECTION,
    CameraError,
    Cameras,
    camera_id,
    camera_matrices,
    world_arrays,
)

from . import models, parity

GL_CAMERA = hasattr(mujoco, "mjv_camera2GLCamera")  # MuJoCo 4

gymnasium = pytest.importorskip("gymnasium")
ASSETS = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"

# every kind of model camera; a few small spheres (free bodies, so they fall and the
# tracking cameras move) to project
SCENE = """<mujoco><worldbody><light pos="0 0 4"/>
<geom type="plane" size="3 3 .1" rgba=".2 .3 .4 1"/>
<camera name="fixed" pos="0.2 -3 1.2" xyaxes="1 0.1 0 0 0.3 1"/>
<camera name="ortho" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1" projection="orthographic" fovy="3"/>
<camera name="sensor" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1" sensorsize="0.02 0.015"
        focal="0.01 0.012" principalpixel="40 -30" resolution="640 480"/>
<camera name="target" mode="targetbody" target="a" pos="1 -2.5 2"/>
<body name="a" pos="0 0 1"><freejoint/><geom type="sphere" size=".06" rgba="1 0 0 1"/>
  <camera name="trackcom" mode="trackcom" pos="0 -2.5 0.3" xyaxes="1 0 0 0 0 1"/>
  <camera name="track" mode="track" pos="0.3 -2.5 0.5" xyaxes="1 0 0 0 0.2 1"/></body>
<body name="b" pos="0.5 0.3 0.6"><freejoint/><geom type="sphere" size=".06" rgba="0 1 0 1"/>
</body>
<body name="c" pos="-0.4 -0.2 1.4"><freejoint/><geom type="sphere" size=".06" rgba="0 0 1 1"/>
</body>
</worldbody></mujoco>"""


def stepped(model, steps: int, seed: int = 0):
    """A world after `steps` steps from random velocities and controls (forwarded)."""
    data = mujoco.MjData(model)
    rng = np.random.default_rng(seed)
    data.qvel[:] = rng.normal(0.0, 0.5, model.nv)
    for _ in range(steps):
        data.ctrl[:] = rng.uniform(-1, 1, model.nu)
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return data


def load(name: str):
    if name == "scene":
        return mujoco.MjModel.from_xml_string(SCENE)
    return mujoco.MjModel.from_xml_path(str(ASSETS / f"{name}.xml"))


def free_cameras(model):
    """A free camera of the model's defaults, one placed by hand, an orthographic one and a
    tracking one (body 1)."""
    default = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, default)
    placed = mujoco.MjvCamera()
    placed.azimuth, placed.elevation, placed.distance = 130.0, -25.0, 3.5
    placed.lookat[:] = (0.3, -0.2, 0.7)
    ortho = mujoco.MjvCamera()
    ortho.azimuth, ortho.elevation, ortho.orthographic = 60.0, -10.0, 1
    tracking = mujoco.MjvCamera()
    tracking.type, tracking.trackbodyid = mujoco.mjtCamera.mjCAMERA_TRACKING, 1
    tracking.azimuth, tracking.elevation, tracking.distance = 45.0, -20.0, 4.0
    return [default, placed, ortho, tracking]


def fixed_camera(index: int):
    camera = mujoco.MjvCamera()
    camera.type, camera.fixedcamid = mujoco.mjtCamera.mjCAMERA_FIXED, index
    return camera


def mujoco_camera(model, data, camera):
    """The mono camera mjr_render draws with: the average of mjv_updateScene's two eyes."""
    scene = mujoco.MjvScene(model, 1000)
    mujoco.mjv_updateScene(model, data, mujoco.MjvOption(), None, camera,
                           mujoco.mjtCatBit.mjCAT_ALL, scene)  # fmt: skip
    return mujoco.mjv_averageCamera(scene.camera[0], scene.camera[1])


def mujoco_frustum(gl, aspect: float):
    """(left, right, bottom, top, near, far) as mjr_render's setView builds glFrustum/glOrtho."""
    half = gl.frustum_width or 0.5 * aspect * (gl.frustum_top - gl.frustum_bottom)
    return (gl.frustum_center - half, gl.frustum_center + half, gl.frustum_bottom,
            gl.frustum_top, gl.frustum_near, gl.frustum_far)  # fmt: skip


@pytest.mark.parametrize("name", ["humanoid", "half_cheetah", "ant", "scene"])
@pytest.mark.parametrize("aspect", [1.0, 1.5])
def test_every_camera_matches_mjv_update_scene(name, aspect):
    model = load(name)
    data = stepped(model, 40)
    cameras = [fixed_camera(i) for i in range(model.ncam)] + free_cameras(model)
    ours = Cameras(model, cameras)
    frames = ours.frames(**world_arrays(data))
    frustums, ortho = ours.frustums(aspect)
    for k, camera in enumerate(cameras):
        gl = mujoco_camera(model, data, camera)
        # and MuJoCo 4's one-call form of the same (3.x lacks it)
        direct = [mujoco.mjv_camera2GLCamera(model, data, camera)] if GL_CAMERA else []
        for theirs in (gl, *direct):
            np.testing.assert_allclose(frames.position[0, k], theirs.pos, atol=2e-6, rtol=1e-6)
            np.testing.assert_allclose(frames.forward[0, k], theirs.forward, atol=1e-6)
            np.testing.assert_allclose(frames.up[0, k], theirs.up, atol=1e-6)
        np.testing.assert_allclose(frustums[k], mujoco_frustum(gl, aspect), rtol=1e-6, atol=1e-9)
        assert ortho[k] == bool(gl.orthographic)


def test_tracking_cameras_follow_each_world():
    """Model cameras in track mode and mjCAMERA_TRACKING, several worlds in different states
    (a list of MjData and a mujoco.batch.Batch): each world's camera is MuJoCo's for it."""
    model = load("humanoid")
    worlds = [stepped(model, steps, seed) for seed, steps in enumerate((5, 30, 60))]
    tracking = free_cameras(model)[3]
    ours = Cameras(model, ["track", tracking])
    frames = ours.frames(**world_arrays(worlds))
    assert frames.position.shape == (3, 2, 3)
    for w, data in enumerate(worlds):
        for k, camera in enumerate((fixed_camera(0), tracking)):
            gl = mujoco_camera(model, data, camera)
            np.testing.assert_allclose(frames.position[w, k], gl.pos, atol=2e-6, rtol=1e-6)
            np.testing.assert_allclose(frames.forward[w, k], gl.forward, atol=1e-6)
    assert not np.allclose(frames.position[0], frames.position[2])  # the worlds differ

    if models.Batch is None:
        pytest.skip(f"MuJoCo {mujoco.__version__} has no mujoco.batch (3.17 and later)")
    batch = models.Batch(model, nsim=3, nthread=1, persistent=True)
    batch.bind("qvel")[:] = np.random.default_rng(1).normal(0.0, 0.5, (3, model.nv))
    batch.step(nstep=25)
    from_batch = ours.view_projections(1.0, **world_arrays(batch))
    for w in range(3):
        alone = ours.view_projections(1.0, **world_arrays(batch.get_data(w)))
        np.testing.assert_allclose(from_batch[w], alone[0])
    assert not np.allclose(from_batch[0], from_batch[1])


def sphere_pixels(model, data, camera, width: int, height: int):
    """MuJoCo's own segmentation render: the mean pixel (x, y) of each sphere geom."""
    if reason := parity.reference_unusable():
        pytest.skip(reason)
    renderer = mujoco.Renderer(model, height, width)
    try:
        renderer.update_scene(data, camera)
        renderer.enable_segmentation_rendering()
        ids = renderer.render()[..., 0]
    finally:
        renderer.close()
    found = {}
    for geom in np.flatnonzero(model.geom_type == mujoco.mjtGeom.mjGEOM_SPHERE):
        rows, cols = np.nonzero(ids == geom)
        if len(rows) >= 4:
            found[int(geom)] = np.array([cols.mean() + 0.5, rows.mean() + 0.5])
    return found


@pytest.mark.skipif(os.environ.get("MUJOCO_GL") not in ("egl", "osmesa"),
                    reason="MuJoCo's renderer needs MUJOCO_GL=egl")  # fmt: skip
@pytest.mark.parametrize("size", [(96, 64), (128, 128)])
def test_matrices_put_spheres_where_mujoco_draws_them(size):
    """The whole matrix, image orientation included (row 0 at the top): each small sphere's
    projected centre is the centre of the pixels MuJoCo's renderer gives it."""
    width, height = size
    model = load("scene")
    data = stepped(model, 10)
    cameras = [fixed_camera(i) for i in range(model.ncam)] + free_cameras(model)[1:]
    matrices = Cameras(model, cameras).view_projections(width / height, **world_arrays(data))
    checked = 0
    for k, camera in enumerate(cameras):
        drawn = sphere_pixels(model, data, camera, width, height)
        for geom, pixel in drawn.items():
            clip = matrices[0, k] @ np.append(data.geom_xpos[geom], 1.0)
            ndc = clip[:3] / clip[3]
            projected = np.array([(ndc[0] + 1) / 2 * width, (1 - ndc[1]) / 2 * height])
            where = f"camera {k} geom {geom}"
            np.testing.assert_allclose(projected, pixel, atol=0.6, err_msg=where)
            assert -1.0 < ndc[2] < 1.0
            checked += 1
    assert checked >= 2 * len(cameras)  # most cameras see most spheres


def test_depth_range_is_near_to_far():
    """OpenGL depth -1..1 from vis.map.znear/zfar times the extent (not MuJoCo's reversed z)."""
    model = load("half_cheetah")
    data = stepped(model, 1)
    ours = Cameras(model, "track")
    matrix = ours.view_projections(1.0, **world_arrays(data))[0, 0]
    position, forward, _ = (v[0, 0] for v in ours.frames(**world_arrays(data)))
    near = model.vis.map.znear * model.stat.extent
    far = model.vis.map.zfar * model.stat.extent
    for distance, expected in ((near, -1.0), (far, 1.0)):
        clip = matrix @ np.append(position + distance * forward, 1.0)
        assert clip[2] / clip[3] == pytest.approx(expected, abs=1e-5)
        assert clip[3] == pytest.approx(distance, rel=1e-9)  # w: metres along the view axis


def test_a_free_camera_is_read_when_used():
    """An MjvCamera is kept by reference: moving it moves the view."""
    model = load("half_cheetah")
    camera = mujoco.MjvCamera()
    ours = Cameras(model, [camera])
    before = ours.view_projections(1.0)
    camera.azimuth += 30.0
    after = ours.view_projections(1.0)
    assert before.shape == (1, 1, 4, 4) and not np.allclose(before, after)
    gl = mujoco_camera(model, mujoco.MjData(model), camera)
    np.testing.assert_allclose(ours.frames().position[0, 0], gl.pos, atol=2e-6)


def test_projections_are_made_again_when_a_frustum_changes():
    """The projections are kept while the frustums stay (each frame's views reuse them):
    a new fovy, aspect or orthographic flag gives exactly a new Cameras' matrices."""
    model = load("half_cheetah")
    arrays = world_arrays(stepped(model, 1))
    free = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, free)
    ours = Cameras(model, ["track", free])
    first = ours.view_projections(1.0, **arrays)
    assert np.array_equal(ours.view_projections(1.0, **arrays), first)
    model.cam_fovy[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "track")] *= 0.5
    if FREE_CAMERA_PROJECTION:  # MuJoCo 4: a free camera's own (3.x has the field, unread)
        free.orthographic = 1
    else:
        model.vis.global_.orthographic = 1
    for aspect in (1.0, 1.5):
        seen = ours.view_projections(aspect, **arrays)
        fresh = Cameras(model, ["track", free]).view_projections(aspect, **arrays)
        assert np.array_equal(seen, fresh)
        assert not np.array_equal(seen[:, 0], first[:, 0])
        assert not np.array_equal(seen[:, 1], first[:, 1])


def test_camera_id_resolves_names_ids_and_mjv_cameras():
    model = load("humanoid")
    assert camera_id(model, "track") == 0
    assert camera_id(model, 1) == 1
    assert camera_id(model, np.int64(1)) == 1
    assert camera_id(model, -1) == -1
    assert camera_id(model, fixed_camera(1)) == 1
    assert camera_id(model, mujoco.MjvCamera()) == -1
    assert camera_id(model, free_cameras(model)[3]) == -1
    matrices = camera_matrices(model, stepped(model, 0), ["track", -1], 1.0)
    assert matrices.shape == (1, 2, 4, 4) and np.isfinite(matrices).all()


# --- bad input: each a CameraError (a ValueError) naming the bad value ---------------------


def test_unknown_camera_name_lists_the_choices():
    with pytest.raises(CameraError, match=r"'nope' is not in the model.*'track' \(0\)"):
        camera_id(load("half_cheetah"), "nope")


def test_camera_id_out_of_range():
    with pytest.raises(CameraError, match=r"camera id 1 is not in the model.*'track' \(0\)"):
        camera_id(load("half_cheetah"), 1)


def test_model_without_cameras_says_so():
    xml = "<mujoco><worldbody><geom size='1'/></worldbody></mujoco>"
    model = mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(CameraError, match=r"camera id 0 .*the model has no cameras"):
        Cameras(model, [0])


def test_fixed_mjv_camera_with_a_bad_id():
    with pytest.raises(CameraError, match="camera id 5 is not in the model"):
        camera_id(load("half_cheetah"), fixed_camera(5))


def test_tracking_camera_with_a_bad_body():
    camera = mujoco.MjvCamera()
    camera.type, camera.trackbodyid = mujoco.mjtCamera.mjCAMERA_TRACKING, 99
    with pytest.raises(CameraError, match=r"trackbodyid 99 is not a body of the model \(0..7\)"):
        Cameras(load("half_cheetah"), [camera])


def test_user_camera_is_refused():
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_USER
    with pytest.raises(CameraError, match="mjCAMERA_USER"):
        camera_id(load("half_cheetah"), camera)


def test_a_camera_moved_out_of_range_later_is_refused_when_used():
    """MuJoCo would abort the process (mjERROR) on this camera; we raise."""
    model = load("half_cheetah")
    camera = mujoco.MjvCamera()
    ours = Cameras(model, [camera])
    camera.type, camera.trackbodyid = mujoco.mjtCamera.mjCAMERA_TRACKING, -1
    with pytest.raises(CameraError, match="trackbodyid -1"):
        ours.view_projections(1.0, **world_arrays(mujoco.MjData(model)))


def test_not_a_camera():
    with pytest.raises(CameraError, match=r"got 1\.5"):
        camera_id(load("half_cheetah"), 1.5)


def test_no_cameras():
    with pytest.raises(CameraError, match=r"non-empty sequence.*got \[\]"):
        Cameras(load("half_cheetah"), [])


def test_world_arrays_of_the_wrong_shape():
    model = load("half_cheetah")
    with pytest.raises(CameraError, match=r"cam_xpos must be shaped \(worlds, 1, 3\).*\(4, 2, 3\)"):
        Cameras(model, "track").frames(np.zeros((4, 2, 3)), np.zeros((4, 1, 9)))


def test_world_arrays_disagreeing_on_worlds():
    model = load("half_cheetah")
    with pytest.raises(CameraError, match="disagree on the number of worlds"):
        Cameras(model, "track").frames(np.zeros((4, 1, 3)), np.zeros((3, 1, 9)))


def test_model_camera_without_its_arrays():
    with pytest.raises(CameraError, match="cam_xpos must be shaped"):
        Cameras(load("half_cheetah"), "track").frames()


def test_data_never_forwarded():
    model = load("half_cheetah")
    with pytest.raises(CameraError, match=r"camera 0 of world 0 has no pose.*mj_forward"):
        camera_matrices(model, mujoco.MjData(model), "track", 1.0)


def test_free_camera_with_non_finite_numbers():
    camera = mujoco.MjvCamera()
    camera.lookat[:] = (0.0, float("nan"), 0.0)
    with pytest.raises(CameraError, match=r"camera 0 \(an MjvCamera\) has non-finite.*nan"):
        Cameras(load("half_cheetah"), [camera]).view_projections(1.0)


def test_bad_aspect():
    with pytest.raises(CameraError, match=r"aspect .* got 0\.0"):
        Cameras(load("half_cheetah"), -1).frustums(0.0)


def test_bad_data():
    with pytest.raises(CameraError, match="got str"):
        world_arrays("world")
