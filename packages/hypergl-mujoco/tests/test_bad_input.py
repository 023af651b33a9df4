"""Bad input gets hypergl-mujoco's own exception (a HyperGLError and the right builtin),
with a message naming the bad value: one test per rejection."""

from __future__ import annotations

import mujoco
import pytest

import hypergl
import hypergl_mujoco
from hypergl_mujoco import errors

from . import models

OTHER = """<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body>
  <camera name="c" pos="0 -2 0" xyaxes="1 0 0 0 0 1"/></worldbody></mujoco>"""


@pytest.fixture
def model():
    return models.all_geoms()


def renderer_of(model, ctx, **options):
    options.setdefault("cameras", ["fixed"])
    return hypergl_mujoco.BatchRenderer(model, context=ctx, **options)


def test_errors_are_hypergl_errors_and_builtins():
    pairs = [(errors.ModelMismatchError, ValueError), (errors.DataError, TypeError),
             (errors.WorldCountError, ValueError), (errors.CameraError, ValueError),
             (errors.SizeError, ValueError), (errors.OutputError, ValueError),
             (errors.RendererClosedError, hypergl.ResourceError)]  # fmt: skip
    for error, builtin in pairs:
        assert issubclass(error, hypergl.HyperGLError) and issubclass(error, builtin)


def test_data_of_a_model_with_other_sizes(model, ctx):
    other = mujoco.MjModel.from_xml_string(OTHER)
    with (
        renderer_of(model, ctx) as renderer,
        pytest.raises(errors.ModelMismatchError, match="model of 1 geoms, 2 bodies and 1 cameras"),
    ):
        renderer.render(mujoco.MjData(other))


def test_data_of_another_model_with_the_same_sizes(model, ctx):
    other = models.all_geoms()
    other.geom_size[0, 0] = 3.0  # another model object, other geoms
    with (
        renderer_of(model, ctx) as renderer,
        pytest.raises(errors.ModelMismatchError, match="geom_size differs"),
    ):
        renderer.render(mujoco.MjData(other))


def test_one_world_of_a_sequence_of_another_model(model, ctx):
    other = mujoco.MjModel.from_xml_string(OTHER)
    worlds = [mujoco.MjData(model), mujoco.MjData(other)]
    with (
        renderer_of(model, ctx, num_worlds=2) as renderer,
        pytest.raises(errors.ModelMismatchError, match="world 1's data"),
    ):
        renderer.render(worlds)


@models.needs_batch
def test_a_batch_of_another_model(model, ctx):
    batch = models.Batch(mujoco.MjModel.from_xml_string(OTHER), 2, nthread=1)
    with (
        renderer_of(model, ctx, num_worlds=2) as renderer,
        pytest.raises(errors.ModelMismatchError, match="the Batch belongs to a model of 1 geoms"),
    ):
        renderer.render(batch)


def test_a_camera_name_that_does_not_exist(model, ctx):
    with pytest.raises(
        errors.CameraError, match=r"camera 'side' is not in the model; its cameras: 'fixed' \(0\)"
    ):
        renderer_of(model, ctx, cameras=["side"])


def test_a_camera_id_that_does_not_exist(model, ctx):
    with pytest.raises(errors.CameraError, match=r"camera id 2 is not in the model; its cameras"):
        renderer_of(model, ctx, cameras=[2])


def test_a_camera_of_no_known_kind(model, ctx):
    with pytest.raises(errors.CameraError, match=r"an id or a mujoco\.MjvCamera, got 1\.5"):
        renderer_of(model, ctx, cameras=[1.5])


def test_no_cameras(model, ctx):
    with pytest.raises(errors.CameraError, match="non-empty sequence"):
        renderer_of(model, ctx, cameras=[])


def test_a_user_mjvcamera(model, ctx):
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_USER
    with pytest.raises(errors.CameraError, match="has no pose MuJoCo computes"):
        renderer_of(model, ctx, cameras=[camera])


def test_data_never_forwarded(model, ctx):
    with (
        renderer_of(model, ctx) as renderer,
        pytest.raises(errors.CameraError, match=r"run mujoco\.mj_forward on the data first"),
    ):
        renderer.render(mujoco.MjData(model))


@pytest.mark.parametrize("what", ["width", "height"])
def test_a_size_above_the_context_limit(model, ctx, what):
    limit = ctx.limits["max_texture_size"]
    with pytest.raises(errors.SizeError, match=f"{what} {limit + 1} is above"):
        renderer_of(model, ctx, **{what: limit + 1})


def test_views_that_do_not_fit_one_framebuffer(model, ctx):
    with pytest.raises(errors.SizeError, match="do not fit one"):
        renderer_of(
            model, ctx, num_worlds=64, width=4096, height=4096, memory_limit=1 << 40
        )  # the tiling is refused, before any memory


@pytest.mark.parametrize("size", [0, -3, 8.5, True])
def test_a_size_that_is_not_a_positive_int(model, ctx, size):
    with pytest.raises(errors.SizeError, match=f"width must be a positive int, got {size!r}"):
        renderer_of(model, ctx, width=size)


@pytest.mark.parametrize("worlds", [0, -1, 2.0, "4", True])
def test_a_world_count_that_is_not_a_positive_int(model, ctx, worlds):
    with pytest.raises(errors.WorldCountError, match=f"got {worlds!r}"):
        renderer_of(model, ctx, num_worlds=worlds)


def test_a_sequence_of_another_length(model, ctx):
    with (
        renderer_of(model, ctx, num_worlds=3) as renderer,
        pytest.raises(errors.WorldCountError, match="2 MjData for 3 worlds"),
    ):
        renderer.render([mujoco.MjData(model), mujoco.MjData(model)])


def test_one_data_for_many_worlds(model, ctx):
    with (
        renderer_of(model, ctx, num_worlds=2) as renderer,
        pytest.raises(errors.WorldCountError, match="one MjData for 2 worlds"),
    ):
        renderer.render(mujoco.MjData(model))


@models.needs_batch
def test_a_batch_of_another_size(model, ctx):
    batch = models.Batch(model, 3, nthread=1)
    with (
        renderer_of(model, ctx, num_worlds=2) as renderer,
        pytest.raises(errors.WorldCountError, match="Batch of 3 simulations for 2 worlds"),
    ):
        renderer.render(batch)


def test_not_data_at_all(model, ctx):
    with renderer_of(model, ctx) as renderer, pytest.raises(errors.DataError, match="got dict"):
        renderer.render({})


def test_a_sequence_holding_something_else(model, ctx):
    with (
        renderer_of(model, ctx, num_worlds=2) as renderer,
        pytest.raises(errors.DataError, match="world 1 is a str"),
    ):
        renderer.render([mujoco.MjData(model), "data"])


def test_not_a_model(ctx):
    with pytest.raises(errors.DataError, match=r"must be a mujoco\.MjModel, got MjData"):
        hypergl_mujoco.BatchRenderer(mujoco.MjData(models.all_geoms()), context=ctx)


@pytest.mark.parametrize("outputs", [("rgb", "normals"), (), "rgb"])
def test_wrong_output_names(model, ctx, outputs):
    with pytest.raises(errors.OutputError, match=r"normals|non-empty sequence"):
        renderer_of(model, ctx, outputs=outputs)


def test_a_closed_renderer(model, ctx):
    renderer = renderer_of(model, ctx)
    renderer.close()
    with pytest.raises(errors.RendererClosedError, match="has been closed"):
        renderer.render(mujoco.MjData(model))


def test_a_released_context_at_render(model):
    ctx = hypergl.context(device="trace")
    renderer = renderer_of(model, ctx)
    ctx.close()
    with pytest.raises(hypergl.ContextError, match="context has been closed"):
        renderer.render(mujoco.MjData(model))
    renderer.close()  # still fine


def test_a_released_context_at_construction(model):
    ctx = hypergl.context(device="trace")
    ctx.close()
    with pytest.raises(hypergl.ContextError, match="closed"):
        renderer_of(model, ctx)


def test_not_a_context(model):
    with pytest.raises(TypeError, match=r"context must be a hypergl\.Context"):
        renderer_of(model, "gl")


def test_more_views_than_one_renderer_tiles(model, ctx):
    with pytest.raises(errors.WorldCountError, match="4097 views, more than the 4096"):
        renderer_of(model, ctx, num_worlds=4097, width=1, height=1)
