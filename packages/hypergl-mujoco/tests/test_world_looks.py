"""Per-world looks: colours, materials, light and camera poses of each world, set between
frames; world A and world B differ exactly where asked, and nothing is recorded again (but
once, for a material of a kind a geom had not shown)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco
from hypergl_mujoco import LookError

from . import models

GEOM = mujoco.mjtObj.mjOBJ_GEOM


def _geom(model: mujoco.MjModel, name: str) -> int:
    return mujoco.mj_name2id(model, GEOM, name)


@pytest.fixture
def picture():
    return models.picture()


def _two_worlds(model, gl_ctx, **kwargs):
    return hypergl_mujoco.BatchRenderer(model, num_worlds=2, width=96, height=72,
                                        context=gl_ctx, **kwargs)  # fmt: skip


def test_a_colour_in_one_world_changes_that_geom_there_alone(picture, gl_ctx):
    data = models.stepped(picture, 1)
    with _two_worlds(picture, gl_ctx) as renderer:
        before = renderer.render([data, data])
        program = renderer._fed.cmd
        ball = _geom(picture, "ball")
        renderer.set_geom_rgba((1.0, 0.0, 0.0, 1.0), worlds=1, geoms="ball")
        after = renderer.render([data, data])
        assert renderer._fed.cmd is program  # nothing recorded again
    assert np.array_equal(after.rgb[0], before.rgb[0])  # world 0 as it was
    assert np.array_equal(after.segmentation, before.segmentation)
    changed = (after.rgb[1] != before.rgb[1]).any(axis=-1)
    on_ball = after.segmentation[1] == ball
    assert changed.any() and not (changed & ~on_ball).any()  # only the ball's pixels
    red = after.rgb[1][on_ball].astype(int)
    assert (red[:, 0] > red[:, 2] + 40).mean() > 0.9  # red, not the blue-orange marble


def test_a_material_per_world_brings_its_texture_and_reset_undoes_it(picture, gl_ctx):
    data = models.stepped(picture, 1)
    box = _geom(picture, "box")
    with _two_worlds(picture, gl_ctx) as renderer:
        before = renderer.render([data, data])
        renderer.set_geom_material("marble", worlds=[0], geoms=box)  # a cube texture
        renderer.set_geom_material(-1, worlds=1, geoms="floor")  # no material: no checker
        after = renderer.render([data, data])
        renderer.reset_looks()
        again = renderer.render([data, data])
    for world, geom in ((0, box), (1, _geom(picture, "floor"))):
        changed = (after.rgb[world] != before.rgb[world]).any(axis=-1)
        assert changed.any()
        assert not (changed & (before.segmentation[world] != geom)).any()
    floor = before.segmentation[1] == _geom(picture, "floor")
    assert len(np.unique(after.rgb[1][floor], axis=0)) < len(np.unique(before.rgb[1][floor],
                                                                       axis=0))  # fmt: skip
    box_pixels = after.rgb[0][before.segmentation[0] == box].astype(int)
    assert box_pixels.std(axis=0).max() > 10  # textured (the glow material is one colour)
    assert np.array_equal(again.rgb, before.rgb)


def test_a_light_moved_in_one_world_lights_that_world_alone(picture, gl_ctx):
    data = models.stepped(picture, 1)
    with _two_worlds(picture, gl_ctx) as renderer:
        before = renderer.render([data, data])
        renderer.set_light_pose((2.0, -2.0, 3.0), (-1.0, 1.0, -1.5), worlds=1, lights="spot")
        after = renderer.render([data, data])
    assert np.array_equal(after.rgb[0], before.rgb[0])
    assert (after.rgb[1] != before.rgb[1]).any(axis=-1).mean() > 0.1
    assert np.array_equal(after.segmentation, before.segmentation)


def test_a_camera_placed_in_one_world_sees_what_the_data_would_show(gl_ctx):
    model = models.all_geoms()
    data = models.stepped(model, 1)
    fixed = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "fixed")
    position = np.array([3.0, -1.0, 2.0])
    forward = -position / np.linalg.norm(position)  # towards the origin
    right = np.cross(forward, (0, 0, 1))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    # the columns: x right, y up, z backwards (MuJoCo's camera frame)
    xmat = np.stack([right, up, -forward], axis=1)
    moved = models.stepped(model, 1)
    moved.cam_xpos[fixed], moved.cam_xmat[fixed] = position, xmat.ravel()
    with hypergl_mujoco.BatchRenderer(model, num_worlds=2, cameras=["fixed"],
                                      context=gl_ctx) as renderer:  # fmt: skip
        before = renderer.render([data, data]).segmentation.copy()
        renderer.set_camera_pose(position, xmat, worlds=1)
        after = renderer.render([data, data]).segmentation.copy()
        reference = renderer.render([data, moved]).segmentation  # the pose in the data
    assert np.array_equal(after[0], before[0])
    assert not np.array_equal(after[1], before[1])
    assert np.array_equal(after[1], reference[1])


def test_looks_set_before_the_first_render_are_drawn(picture, gl_ctx):
    data = models.stepped(picture, 1)
    ball = _geom(picture, "ball")
    with _two_worlds(picture, gl_ctx) as renderer:
        renderer.set_geom_rgba((0.0, 1.0, 0.0, 1.0), worlds=0, geoms=ball)
        renderer.set_geom_material(-1, worlds=0, geoms=ball)  # no marble texture over it
        result = renderer.render([data, data])
    green = result.rgb[0][result.segmentation[0] == ball].astype(int)
    other = result.rgb[1][result.segmentation[1] == ball].astype(int)
    assert (green[:, 1] > green[:, 0] + 40).mean() > 0.9
    assert (other[:, 1] > other[:, 0] + 40).mean() < 0.5


def test_a_shiny_material_given_to_a_matte_geom_records_its_pipelines_once(picture, gl_ctx):
    """The box's own material has no specular, the marble has, and a cube texture: the
    box's pipeline is made without them (no world pays for a path none takes) until a world
    gives it the marble; then the frame is recorded again once, with them."""
    data = models.stepped(picture, 1)
    box = _geom(picture, "box")
    with _two_worlds(picture, gl_ctx) as renderer:
        before = renderer.render([data, data])
        needs = renderer._renderer._specialised.needs["draw"]  # the box: the mesh pipeline's
        assert "specular" not in needs and 3 not in needs
        program = renderer._fed.cmd
        renderer.set_geom_material("marble", worlds=1, geoms=box)
        shiny = renderer.render([data, data])
        assert renderer._fed.cmd is not program  # recorded again, once
        needs = renderer._renderer._specialised.needs["draw"]
        assert "specular" in needs and 3 in needs
        program = renderer._fed.cmd
        renderer.set_geom_material("marble", worlds=0, geoms=box)  # nothing new: as it is
        renderer.set_geom_material(-1, worlds=[0, 1], geoms=box)
        plain = renderer.render([data, data])
        assert renderer._fed.cmd is program
    on_box = before.segmentation[1] == box
    assert (shiny.rgb[1][on_box] != before.rgb[1][on_box]).any()
    assert np.array_equal(shiny.rgb[0], before.rgb[0])  # world 0 as it was
    assert np.array_equal(plain.segmentation, before.segmentation)


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        ("set_geom_rgba", ((1, 0, 0, 1), 2, None), "world 2 is outside 0..1"),
        ("set_geom_rgba", ((1, 0, 0, 1), True, None), "a world must be an int, got True"),
        ("set_geom_rgba", ((1, 0, 0, 1), "one", None), "a world must be an int, got 'one'"),
        ("set_geom_rgba", ((1, 0, 0, 1), [], None), "non-empty sequence"),
        ("set_geom_rgba", ((1, 0, 0, 1), None, 99), "geom 99 is outside 0..3"),
        ("set_geom_rgba", ((1, 0, 0, 1), None, "nope"), "no geom named 'nope'"),
        ("set_geom_rgba", ((np.nan, 0, 0, 1), None, None), "rgba must be finite, got nan"),
        ("set_geom_rgba", ((2, 0, 0, 1), None, None), "rgba must be in 0..1, got 2.0"),
        ("set_geom_rgba", ((1, 0, 0), None, None), "broadcastable to (2, 4, 4)"),
        ("set_geom_material", ("nope", None, None), "no material named 'nope'"),
        ("set_geom_material", (7, None, None), "material 7 is outside 0..2"),
        ("set_geom_material", (1.5, None, None), "a material must be an int id or a name"),
        ("set_geom_material", ([0, 1, 2], None, None), "broadcastable to (2, 4)"),
        ("set_light_pose", ((0, 0, 3), (0, 0, -1), None, 5), "light 5 is outside 0..1"),
        ("set_light_pose", ((0, 0, 3), (0, 0, 0), None, None), "direction must not be zero"),
        ("set_light_pose", ((0, 0, np.inf), (0, 0, -1), None, None), "must be finite, got inf"),
        ("set_camera_pose", ((0, 0, 3), np.ones((3, 3)), None, None), "must be a rotation"),
        ("set_camera_pose", ((0, 0, 3), np.eye(3), None, 1), "camera 1 is outside 0..0"),
    ],
)
def test_bad_looks_are_refused_naming_the_value(picture, gl_ctx, call, args, message):
    with _two_worlds(picture, gl_ctx) as renderer, pytest.raises(LookError) as caught:
        getattr(renderer, call)(*args)
    assert message in str(caught.value)


def test_an_inactive_light_is_refused(gl_ctx):
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><light name="off" active="false"/><light name="on"/>'
        '<geom type="sphere" size=".1"/></worldbody></mujoco>'
    )
    renderer = hypergl_mujoco.BatchRenderer(model, num_worlds=2, context=gl_ctx)
    with renderer, pytest.raises(LookError, match="light 0 is not drawn"):
        renderer.set_light_pose((0, 0, 1), (0, 0, -1), lights="off")
