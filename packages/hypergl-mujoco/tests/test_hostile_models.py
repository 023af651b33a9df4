"""Models, sizes and states a hostile hand gives a BatchRenderer (issue 36, items 6 and 7).

Memory: everything a renderer allocates, sized by the model (meshes, height fields), the
worlds and the image, is added up against its ``memory_limit`` by
``hypergl.memory_budget.check_memory`` (the check ``ctx.load`` makes for an ``.hgb``) before
the context, the looks or any buffer is made. Cameras and poses: one finiteness check
(``hypergl.finite``) names the camera or the geom and body that would not draw. Each case
here ran into NumPy's MemoryError, a ValueError about "shape (1, 4, 4)", or drew nothing,
before.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl
from hypergl_mujoco import BatchRenderer, CameraError, EnvError, PoseError, SizeError

SCENE = """<mujoco><worldbody><light pos="0 0 3"/>
<camera name="front" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1" {camera}/>
<geom type="plane" size="2 2 .1"/>
<body name="box" pos="0 0 .5"><freejoint/><geom name="lid" type="box" size=".1 .1 .1"/></body>
</worldbody></mujoco>"""


def scene(camera: str = "") -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(SCENE.format(camera=camera))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.fixture
def trace():
    ctx = hypergl.context(device="trace")
    yield ctx
    ctx.close()


# --- item 6: one memory check before anything is made -----------------------------------------
def test_an_image_over_the_memory_limit_is_refused_naming_its_size(trace):
    model, _ = scene()
    with pytest.raises(
        SizeError,
        match=r"1 worlds x memory_per_world 429\d{7} bytes \(1 "
        r"cameras of 16384x16384 pixels.*over the memory limit of \d+ bytes",
    ):
        BatchRenderer(model, 1, width=16384, height=16384, context=trace)
    assert not trace.live_objects()  # nothing was made


def test_the_callers_memory_limit_is_the_one_checked(trace):
    model, _ = scene()
    renderer = BatchRenderer(model, 4, width=16, height=16, context=trace)
    need = 4 * renderer.memory_per_world
    renderer.close()
    with pytest.raises(SizeError, match=f"over the memory limit of {need - 1} bytes"):
        BatchRenderer(model, 4, width=16, height=16, context=trace, memory_limit=need - 1)
    with pytest.raises(SizeError, match="memory_limit must be a positive int"):
        BatchRenderer(model, 1, context=trace, memory_limit=0)


def test_a_height_field_over_the_memory_limit_is_refused_before_it_is_built(trace):
    """One line of MJCF: 4000 x 4000 points, 96 million triangle rows (8 GiB before)."""
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><asset><hfield name="ground" nrow="4000" ncol="4000" size="1 1 .1 .1"/>'
        '</asset><worldbody><geom type="hfield" hfield="ground"/></worldbody></mujoco>'
    )
    with pytest.raises(
        SizeError,
        match=r"the model's height field 0 \('ground'\) of 4000x4000 "
        r"points \(96047988 triangle rows\) brings the BatchRenderer to",
    ):
        BatchRenderer(model, 1, context=trace)


# --- item 7: cameras and poses that would not draw ------------------------------------------------
@pytest.mark.parametrize(
    ("camera", "change", "match"),
    [
        ('fovy="0"', None, r"camera 0 \(model camera 0 'front'\) sees nothing: fovy 0"),
        (
            'sensorsize="1 1" focal="0 0" resolution="84 84"',
            None,
            r"sees nothing: sensorsize \[1.0, 1.0\], intrinsic \[0.0, 0.0",
        ),
        ("", lambda m: setattr(m.stat, "extent", 0.0), r"sees nothing: fovy 45, near 0 and far 0"),
    ],
    ids=["fovy 0", "sensor fx 0", "extent 0"],
)
def test_a_camera_that_sees_nothing_is_named(trace, camera, change, match):
    model, data = scene(camera)
    if change is not None:
        change(model)
    renderer = BatchRenderer(model, 1, cameras=["front"], width=8, height=8, context=trace)
    with pytest.raises(CameraError, match=match):
        renderer.render(data)
    renderer.close()


def test_a_camera_too_far_for_the_gpu_is_named(trace):
    model, data = scene()
    far = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, far)
    far.distance = 1e300
    moved = mujoco.MjData(model)
    mujoco.mj_forward(model, moved)
    moved.cam_xpos[0] = 1e38
    cases = [
        ([far], data, r"camera 0 \(an MjvCamera\) of world 0, at \["),
        (["front"], moved, r"camera 0 \(model camera 0 'front'\) of world 0, at \[1e\+38"),
    ]
    for cameras, state, match in cases:
        renderer = BatchRenderer(model, 1, cameras=cameras, width=8, height=8, context=trace)
        with pytest.raises(CameraError, match=match + r".* is not finite on the GPU"):
            renderer.render(state)
        renderer.close()


@pytest.mark.gl
@pytest.mark.parametrize("value", [1e38, np.nan])
def test_a_body_whose_pose_is_not_finite_is_named(gl_ctx, value):
    model, _ = scene()
    worlds = [mujoco.MjData(model) for _ in range(3)]
    for world in worlds:
        mujoco.mj_forward(model, world)
    renderer = BatchRenderer(model, 3, cameras=["front"], width=8, height=8, context=gl_ctx)
    renderer.render(worlds)
    worlds[2].geom_xpos[1] = value  # a simulation that diverged
    with pytest.raises(PoseError, match=r"the pose of geom 1 \('lid'\) of body 1 \('box'\) in "
                       r"world 2 is not finite on the GPU"):  # fmt: skip
        renderer.render(worlds)
    renderer.close()


def test_a_plain_env_is_not_a_vector_env():
    gym = pytest.importorskip("gymnasium")
    from hypergl_mujoco import PixelObservations, VectorPixelObservations

    env = gym.make("InvertedPendulum-v5")
    with pytest.raises(
        EnvError,
        match=r"VectorPixelObservations wraps a vector env .* got "
        "TimeLimit: for one env, use PixelObservations",
    ):
        VectorPixelObservations(env)
    env.close()
    envs = gym.make_vec("InvertedPendulum-v5", 2, vectorization_mode="sync")
    with pytest.raises(
        EnvError,
        match="PixelObservations wraps one gymnasium env, got "
        "SyncVectorEnv: for a vector env, use VectorPixelObservations",
    ):
        PixelObservations(envs)
    envs.close()
