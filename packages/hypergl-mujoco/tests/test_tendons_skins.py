"""Spatial tendons, skins and flexes as MuJoCo draws them, and ``scene_option`` (an MjvOption) as
``mujoco.Renderer.update_scene`` applies it: segmentation against ``mujoco.Renderer``'s
(MuJoCo's default scene options, every element kind in our id space), on dm_control's
ball_in_cup (a tendon that hangs as a catenary) and dog (a skin of 24,065 vertices and 57
bones) where dm_control is installed, and on models of ours that cover what those do not
(wrapping, pulleys, inflated skins, flexes of 1, 2 and 3 dimensions, many worlds, a
Batch); a textured skin's RGB (and the dog's) against MuJoCo's."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import mujoco
import numpy as np
import pytest

import hypergl_mujoco

from . import models, parity
from .models import KINDS, free, needs_batch

pytestmark = pytest.mark.gl


def mujoco_ids(model, data, camera, width, height, option=None):
    """MuJoCo's segmentation in our id space: geoms, then sites, tendons, skins (-1:
    nothing, or a kind we do not number)."""
    if reason := parity.reference_unusable():
        pytest.skip(reason)
    with mujoco.Renderer(model, height, width) as renderer:
        renderer.enable_segmentation_rendering()
        renderer.update_scene(data, camera, scene_option=option)
        seg = renderer.render()
    ids = np.full(seg.shape[:2], -1, np.int32)
    first = 0
    for kind, count in zip(
        KINDS,
        (model.ngeom, model.nsite, model.ntendon, model.nskin, model.nflex, model.nsensor),
        strict=True,
    ):
        mine = seg[..., 1] == kind
        ids[mine] = first + seg[..., 0][mine]
        first += count
    return ids


def agree(name, ours, theirs, floor=0.99):
    """At least `floor` of the pixels agree; else ours | MuJoCo's | difference to out/."""
    share = float((ours == theirs).mean())
    if share < floor:
        path = parity.write_picture(name, ours, theirs)
        raise AssertionError(f"{name}: {share:.4f} of the pixels agree (picture: {path})")
    return share


def stepped(model, steps, seed=0):
    return models.stepped(model, steps, seed, noise=0.1)  # further off the defaults


def suite_model(name):
    """dm_control's suite model `name` (or a path under dm_control's package), loaded by
    MuJoCo from dm_control's files (skips where dm_control is not installed: CPython 3.12
    with the mujoco distribution)."""
    spec = importlib.util.find_spec("dm_control")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("dm_control is not installed (its models are the reference)")
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / name if "/" in name else root / "suite" / f"{name}.xml"
    return mujoco.MjModel.from_xml_path(str(path))


def every_view(model, data, name, worlds=1, size=84, option=None, floor=0.99, **kwargs):
    """Each camera and the free camera, ours against MuJoCo's, in `worlds` copies."""
    cameras = [*range(model.ncam), free(model, 150, -25, 1.5 * model.stat.extent)]
    with hypergl_mujoco.BatchRenderer(model, worlds, cameras=cameras, width=size, height=size,
                                      outputs=("segmentation",), scene_option=option,
                                      **kwargs) as renderer:  # fmt: skip
        seg = renderer.render([data] * worlds if worlds > 1 else data).segmentation
    seen = set()
    for k, camera in enumerate(cameras):
        theirs = mujoco_ids(model, data, camera, size, size, option)
        for world in range(worlds):
            agree(f"{name}_{k}_{world}", seg[world, k], theirs, floor)
        seen |= set(np.unique(theirs).tolist())
    return seg, seen


# --- tendons -----------------------------------------------------------------------------
def test_dm_control_ball_in_cup_tether(gl_ctx):
    """The suite's tether: a catenary while slack, straight when taut, in 3 steps' states."""
    model = suite_model("ball_in_cup")
    tendon = model.ngeom + model.nsite
    found = 0
    for seed in range(3):
        data = stepped(model, 40, seed)
        seg, seen = every_view(model, data, f"ball_in_cup_{seed}", context=gl_ctx)
        found += tendon in seen
        assert (tendon in seen) == (tendon in seg)
    assert found  # the tether is in MuJoCo's pictures


WRAPPED = """<mujoco><option gravity="0 0 -9.81"/><worldbody>
  <geom name="floor" type="plane" size="2 2 .1" rgba=".8 .8 .8 1"/>
  <site name="anchor" pos="-.5 0 1"/>
  <body name="pole" pos="0 0 .6"><joint type="hinge" axis="0 1 0"/>
    <geom name="drum" type="cylinder" size=".12 .1" euler="90 0 0" rgba=".3 .5 .9 1"/>
    <site name="side" pos="0 0 .3"/>
  </body>
  <body name="weight" pos=".5 0 .8"><freejoint/>
    <geom type="sphere" size=".06" rgba=".9 .3 .2 1"/><site name="hook" pos="0 0 .06"/>
  </body>
  <site name="top" pos=".2 0 1.3"/><site name="left" pos="-.6 .4 .4"/>
  <site name="right" pos=".6 .4 .4"/>
  <site name="slack_a" pos="-.4 -.5 1"/><site name="slack_b" pos=".4 -.5 1"/>
</worldbody>
<tendon>
  <spatial name="wrap" width=".02" rgba=".2 .9 .2 1">
    <site site="anchor"/><geom geom="drum" sidesite="side"/><site site="hook"/>
  </spatial>
  <spatial name="pulley" width=".015" rgba=".9 .9 .2 1" group="1">
    <site site="left"/><site site="top"/><pulley divisor="2"/><site site="top"/><site site="right"/>
  </spatial>
  <spatial name="hidden" width=".03" group="3"><site site="left"/><site site="right"/></spatial>
  <spatial name="rope" width=".01" limited="true" range="0 1.2">
    <site site="slack_a"/><site site="slack_b"/>
  </spatial>
</tendon></mujoco>"""


def test_tendons_wrap_break_at_pulleys_and_hang(gl_ctx):
    """A tendon around a cylinder (half width inside it), one broken by a pulley, one of
    group 3 (hidden) and a slack rope (a catenary): MuJoCo's pixels, 1 and 3 worlds."""
    model = mujoco.MjModel.from_xml_string(WRAPPED)
    data = stepped(model, 20)
    first = model.ngeom + model.nsite
    for worlds in (1, 3):
        seg, seen = every_view(model, data, f"wrapped_{worlds}", worlds, size=128,
                               context=gl_ctx)  # fmt: skip
        assert {first, first + 1, first + 3} <= seen and first + 2 not in seg


def test_tendon_group_and_flag_as_mujoco(gl_ctx):
    model = mujoco.MjModel.from_xml_string(WRAPPED)
    data = stepped(model, 5)
    first = model.ngeom + model.nsite
    option = mujoco.MjvOption()
    option.tendongroup[:] = 0
    option.tendongroup[3] = 1
    seg, _ = every_view(model, data, "tendon_group_3", option=option, context=gl_ctx)
    assert first + 2 in seg and first not in seg
    option = mujoco.MjvOption()
    option.flags[mujoco.mjtVisFlag.mjVIS_TENDON] = 0
    seg, _ = every_view(model, data, "tendons_off", option=option, context=gl_ctx)
    assert seg.max() < first


# --- skins -------------------------------------------------------------------------------
def tube_skin(inflate: float, rings: int = 7, around: int = 10) -> str:
    """Two bodies and a skin of rings around their line, bound to both (blended along
    x); the bodies' own geoms are in group 3 (hidden): the skin alone is seen."""
    x = np.linspace(-0.15, 0.45, rings)
    angle = np.linspace(0, 2 * np.pi, around, endpoint=False)
    y, z = 0.07 * np.cos(angle), 0.5 + 0.07 * np.sin(angle)
    vertices = np.stack(np.broadcast_arrays(x[:, None], y[None], z[None]), -1).reshape(-1, 3)
    vertices = np.concatenate([vertices, [[x[0], 0, 0.5], [x[-1], 0, 0.5]]])
    i = np.arange(rings * around).reshape(rings, around)
    j = np.roll(i, -1, axis=1)
    faces = [np.stack([i[:-1], j[:-1], j[1:]], -1), np.stack([i[:-1], j[1:], i[1:]], -1)]
    start, end = rings * around, rings * around + 1
    faces.append(np.stack([np.full(around, start), j[0], i[0]], -1)[None])
    faces.append(np.stack([np.full(around, end), i[-1], j[-1]], -1)[None])
    faces = np.concatenate([f.reshape(-1, 3) for f in faces])
    weight_b = np.clip((vertices[:, 0] - 0.05) / 0.25, 0, 1)
    ids = np.arange(len(vertices))

    def numbers(values):
        return " ".join(f"{v:.5g}" for v in np.ravel(values))

    return f"""<mujoco><worldbody>
  <geom name="floor" type="plane" size="2 2 .1" rgba=".8 .8 .8 1"/>
  <body name="a" pos="0 0 .5"><freejoint/><geom type="box" size=".05 .05 .05" group="3"/>
    <body name="b" pos=".3 0 0"><joint name="bend" type="hinge" axis="0 1 0" damping=".01"/>
      <geom type="box" size=".05 .05 .05" group="3"/></body>
  </body>
</worldbody>
<deformable>
  <skin name="tube" rgba=".9 .6 .3 1" inflate="{inflate}" vertex="{numbers(vertices)}"
        face="{numbers(faces)}">
    <bone body="a" bindpos="0 0 .5" bindquat="1 0 0 0" vertid="{numbers(ids)}"
          vertweight="{numbers(1 - weight_b + 1e-6)}"/>
    <bone body="b" bindpos=".3 0 .5" bindquat="1 0 0 0" vertid="{numbers(ids)}"
          vertweight="{numbers(weight_b + 1e-6)}"/>
  </skin>
</deformable></mujoco>"""


@pytest.mark.parametrize("inflate", [0.0, 0.02])
def test_skin_follows_its_bones_in_every_world(inflate, gl_ctx):
    """A skin bent by its bones, inflated along its normals or not, in 1 and 3 worlds each
    in its own pose: MuJoCo's pixels in every world (each world's vertices its own)."""
    model = mujoco.MjModel.from_xml_string(tube_skin(inflate))
    skin = model.ngeom + model.nsite + model.ntendon
    worlds = []
    for seed in range(3):
        data = mujoco.MjData(model)
        data.qpos[3:7] = mujoco.MjData(model).qpos[3:7]
        rng = np.random.default_rng(seed)
        quat = rng.normal(size=4)
        data.qpos[3:7] = quat / np.linalg.norm(quat)
        data.qpos[7] = rng.uniform(-1.2, 1.2)
        mujoco.mj_forward(model, data)
        worlds.append(data)
    cameras = [free(model, 120, -30, 1.4, (0.1, 0, 0.5)), free(model, 10, -60, 1.2, (0.1, 0, 0.5))]
    for count in (1, 3):
        with hypergl_mujoco.BatchRenderer(
            model,
            count,
            cameras=cameras,
            width=96,
            height=96,
            outputs=("segmentation",),
            context=gl_ctx,
        ) as renderer:
            seg = renderer.render(worlds[:count] if count > 1 else worlds[0]).segmentation
        for world in range(count):
            for k, camera in enumerate(cameras):
                theirs = mujoco_ids(model, worlds[world], camera, 96, 96)
                assert (theirs == skin).sum() > 100  # the skin is in the picture
                agree(f"skin_{inflate}_{count}_{world}_{k}", seg[world, k], theirs)


def test_skin_flag_and_group_as_mujoco(gl_ctx):
    model = mujoco.MjModel.from_xml_string(tube_skin(0.0))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    skin = model.ngeom + model.nsite + model.ntendon
    for field in ("flags", "skingroup"):
        option = mujoco.MjvOption()
        if field == "flags":
            option.flags[mujoco.mjtVisFlag.mjVIS_SKIN] = 0
        else:
            option.skingroup[0] = 0
        seg, _ = every_view(model, data, f"skin_off_{field}", option=option, context=gl_ctx)
        assert skin not in seg


def test_dm_control_dog_is_its_skin(gl_ctx):
    """The dog's body is a skin (its geoms are hidden): every camera agrees with MuJoCo's,
    and the skin covers pixels in each view MuJoCo shows it in."""
    model = suite_model("dog")
    data = stepped(model, 20)
    skin = model.ngeom + model.nsite + model.ntendon
    seg, seen = every_view(model, data, "dog", context=gl_ctx)
    assert skin in seen and skin in seg


@pytest.mark.parametrize("path", ["locomotion/walkers/assets/rodent.xml",
                                  "locomotion/walkers/assets/dog_v2/dog.xml"])  # fmt: skip
def test_dm_control_walkers_skins(path, gl_ctx):
    """dm_control's locomotion walkers whose bodies are skins: the rodent and the dog v2,
    every camera."""
    model = suite_model(path)
    data = stepped(model, 10)
    skin = model.ngeom + model.nsite + model.ntendon
    _, seen = every_view(model, data, Path(path).stem, context=gl_ctx)
    assert skin in seen


# --- options, ids, Batch, bad input ------------------------------------------------------
def test_object_ids_name_tendons_and_skins(gl_ctx):
    model = mujoco.MjModel.from_xml_string(WRAPPED)
    data = stepped(model, 5)
    with hypergl_mujoco.BatchRenderer(model, cameras=[free(model, 150, -25, 3.0)],
                                      context=gl_ctx) as renderer:  # fmt: skip
        seg = renderer.render(data).segmentation
        pairs = renderer.object_ids(seg)
    at = tuple(np.argwhere(seg == model.ngeom + model.nsite)[0])
    assert pairs[at].tolist() == [0, int(mujoco.mjtObj.mjOBJ_TENDON)]
    for model, kind in ((mujoco.MjModel.from_xml_string(tube_skin(0.0)), "SKIN"),
                        (flex_model(), "FLEX")):  # fmt: skip
        first = model.ngeom + model.nsite + model.ntendon  # no skins: the flexes' first
        ids = np.array([first, 0, -1])
        with hypergl_mujoco.BatchRenderer(model, context=gl_ctx) as renderer:
            pairs = renderer.object_ids(ids).tolist()
        element = int(getattr(mujoco.mjtObj, f"mjOBJ_{kind}"))
        assert pairs == [[0, element], [0, int(mujoco.mjtObj.mjOBJ_GEOM)], [-1, -1]]


def test_geom_groups_and_static_from_scene_option(gl_ctx):
    model = mujoco.MjModel.from_xml_string(WRAPPED)
    data = stepped(model, 5)
    option = mujoco.MjvOption()
    option.flags[mujoco.mjtVisFlag.mjVIS_STATIC] = 0  # the floor and fixed sites go
    option.geomgroup[0] = 0
    option.geomgroup[3] = 1
    seg, _ = every_view(model, data, "static_off", option=option, context=gl_ctx)
    assert 0 not in seg


def test_scene_option_beside_groups_and_unknown_flags(gl_ctx):
    model = mujoco.MjModel.from_xml_string(WRAPPED)
    with pytest.raises(hypergl_mujoco.OutputError, match="not beside it"):
        hypergl_mujoco.BatchRenderer(model, groups=(0,), scene_option=mujoco.MjvOption(),
                                     context=gl_ctx)  # fmt: skip
    with pytest.raises(hypergl_mujoco.OutputError, match=r"mujoco\.MjvOption"):
        hypergl_mujoco.BatchRenderer(model, scene_option={"tendon": False}, context=gl_ctx)
    option = mujoco.MjvOption()
    option.flags[mujoco.mjtVisFlag.mjVIS_JOINT] = 1
    with pytest.warns(UserWarning, match="mjVIS_JOINT are not drawn"):
        hypergl_mujoco.BatchRenderer(model, scene_option=option, context=gl_ctx).close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MuJoCo's defaults: nothing to warn about
        hypergl_mujoco.BatchRenderer(model, scene_option=mujoco.MjvOption(),
                                     context=gl_ctx).close()  # fmt: skip


@needs_batch
def test_tendons_and_skins_from_a_batch(gl_ctx):
    """A mujoco.batch.Batch's bound arrays (ints too: wrap_obj, ten_wrapadr) as MjData's."""
    from mujoco.batch import Batch

    model = mujoco.MjModel.from_xml_string(WRAPPED)
    batch = Batch(model, 2)  # at the model's initial state, forwarded by the first render
    camera = free(model, 150, -25, 3.0)
    kwargs = {"cameras": [camera], "outputs": ("segmentation",), "context": gl_ctx}
    with hypergl_mujoco.BatchRenderer(model, 2, **kwargs) as renderer:
        from_batch = renderer.render(batch).segmentation
    worlds = [mujoco.MjData(model) for _ in range(2)]
    for one in worlds:
        mujoco.mj_forward(model, one)
    with hypergl_mujoco.BatchRenderer(model, 2, **kwargs) as renderer:
        from_data = renderer.render(worlds).segmentation
    assert model.ngeom + model.nsite in from_data
    assert (from_batch == from_data).mean() > 0.999


def test_a_skin_too_large_for_the_memory_limit(gl_ctx):
    """The skins' vertices count in the memory check, named, before anything is made."""
    model = mujoco.MjModel.from_xml_string(tube_skin(0.0, rings=40, around=50))
    before = len(gl_ctx.live_objects())
    with pytest.raises(hypergl_mujoco.SizeError, match=r"skin 0 \('tube'\) \(4096 worlds x 2002"):
        hypergl_mujoco.BatchRenderer(model, 4096, width=8, height=8, context=gl_ctx,
                                     memory_limit=64 << 20)  # fmt: skip
    assert len(gl_ctx.live_objects()) == before


# --- flexes ------------------------------------------------------------------------------
FLEXES = """<mujoco><worldbody><geom type="plane" size="2 2 .1"/>
  <flexcomp name="cloth" type="grid" count="6 6 1" spacing=".1 .1 .1" pos="0 0 1" radius=".01"
            dim="2" rgba=".2 .6 .9 1"><edge equality="true"/></flexcomp>
  <flexcomp name="block" type="grid" count="3 3 3" spacing=".1 .1 .1" pos=".8 0 .5"
            radius=".005" dim="3" rgba=".9 .6 .2 1"><edge equality="true"/></flexcomp>
  <flexcomp name="cable" type="grid" count="8 1 1" spacing=".1 .1 .1" pos="-.8 0 .5"
            radius=".02" dim="1" rgba=".9 .2 .2 1"><edge equality="true"/></flexcomp>
</worldbody></mujoco>"""


def flex_model():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MuJoCo's own about the block's stiffness
        return mujoco.MjModel.from_xml_string(FLEXES)


def test_flexes_skins_and_edges_as_mujoco(gl_ctx):
    """A falling cloth (2D: top, bottom and rims at its radius), a block (3D: its shell)
    and a cable (1D: its edges as cylinders), each world in its own state."""
    model = flex_model()
    first = model.ngeom + model.nsite + model.ntendon + model.nskin
    for steps in (0, 150):
        data = stepped(model, steps)
        seg, seen = every_view(model, data, f"flexes_{steps}", 2, size=128, context=gl_ctx)
        assert {first, first + 1, first + 2} <= seen
        assert {first, first + 1, first + 2} <= set(np.unique(seg).tolist())


@pytest.mark.parametrize("size", [(84, 84), (240, 320)])
def test_flex_skins_rgb_at_the_goal(size, gl_ctx):
    """The cloth, block and cable in MuJoCo's RGB: the skins' tops and bottoms shaded smooth
    with their vertices' normals, their rims flat, as mjv_updateActiveFlex makes them
    (measured on llvmpipe, 120x160: 34.1 to 46.4 dB, 98.1 to 99.8% within; flat shaded
    before: 30.4 to 39.4 dB, 95.4 to 99.1%)."""
    from .test_picture import check_views

    model = flex_model()
    cameras = [free(model, 120, -30, 2.0), free(model, 30, -50, 2.5), free(model, 200, 10, 2.0)]
    for steps in (0, 150):
        check_views(f"flexes_{steps}", model, stepped(model, steps), cameras, size, gl_ctx,
                    30.0, 0.95)  # fmt: skip


def test_flex_flags_and_groups_as_mujoco(gl_ctx):
    """mjVIS_FLEXSKIN off: the cloth and block drawn by their edges; flexgroup off: none."""
    model = flex_model()
    data = stepped(model, 50)
    option = mujoco.MjvOption()
    option.flags[mujoco.mjtVisFlag.mjVIS_FLEXSKIN] = 0
    every_view(model, data, "flex_edges", option=option, context=gl_ctx)
    option = mujoco.MjvOption()
    option.flexgroup[0] = 0
    seg, _ = every_view(model, data, "flex_group_off", option=option, context=gl_ctx)
    assert seg.max() < model.ngeom


def test_a_flex_too_large_for_the_memory_limit(gl_ctx):
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><flexcomp name="cloth" type="grid" count="40 40 1" '
        'spacing=".02 .02 .02" radius=".001" dim="2"/></worldbody></mujoco>'
    )
    before = len(gl_ctx.live_objects())
    with pytest.raises(hypergl_mujoco.SizeError, match=r"flex 0 \('cloth'\) \(4096 worlds x 1600"):
        hypergl_mujoco.BatchRenderer(model, 4096, width=8, height=8, context=gl_ctx,
                                     memory_limit=64 << 20)  # fmt: skip
    assert len(gl_ctx.live_objects()) == before


def textured_tube_skin() -> mujoco.MjModel:
    """The tube skin with a material and a checker texture, its texture coordinates u
    along the tube and v around it (the checker's squares on it, not its mean colour)."""
    rings, around = 7, 10
    u = np.repeat(np.linspace(0, 1, rings), around)
    v = np.tile(np.linspace(0, 1, around, endpoint=False), rings)
    texcoord = np.concatenate([np.stack([u, v], -1), [[0, 0.5], [1, 0.5]]])
    numbers = " ".join(f"{t:.5g}" for t in texcoord.ravel())
    xml = tube_skin(0.0, rings, around).replace(
        '<skin name="tube" rgba=".9 .6 .3 1"',
        f'<skin name="tube" material="fur" texcoord="{numbers}"',
    )
    assets = (
        '<asset><texture name="fur" type="2d" builtin="checker" rgb1=".9 .5 .2" '
        'rgb2=".2 .3 .8" width="64" height="64"/>'
        '<material name="fur" texture="fur" rgba="1 .9 1 1" specular=".8"/></asset>'
    )
    return mujoco.MjModel.from_xml_string(xml.replace("<worldbody>", assets + "<worldbody>", 1))


@pytest.mark.parametrize("size", [(84, 84), (240, 320)])
def test_a_textured_skin_as_mujoco_draws_it(size, gl_ctx):
    """A skin with a material and a texture: textured through its texture coordinates,
    its specular modulated by the texture as MuJoCo's (GL_MODULATE), against MuJoCo's
    RGB at the issue's goal (measured on llvmpipe: 42.6 / 40.5 dB, 99.0 / 99.6% within at
    84x84; 43.9 / 41.8 dB, 99.3 / 99.7% at 240x320; 36.9 / 40.9 and 37.9 / 41.5 dB flat
    shaded, before its vertices' normals)."""
    from .test_picture import check_views

    model = textured_tube_skin()
    data = mujoco.MjData(model)
    data.qpos[7] = 0.6
    mujoco.mj_forward(model, data)
    cameras = [free(model, 120, -30, 1.0, (0.1, 0, 0.5)), free(model, 10, -60, 0.9, (0.1, 0, 0.5))]
    check_views("textured_skin", model, data, cameras, size, gl_ctx, 30.0, 0.95)


def test_dm_control_dog_rgb_at_the_goal(gl_ctx):
    """The dog's textured skin against MuJoCo's RGB on every camera (measured on llvmpipe,
    MuJoCo 4.0.1: 30.1 to 42.9 dB, 97.0 to 99.7% within, 3.5.0: 30.1 to 42.5 dB, 96.9 to
    99.7%; flat shaded: 29.4 to 39.8 dB, 96.0 to 99.2%; the mean colour it was drawn in
    before: 24.7 dB, 86.4% at worst)."""
    from .test_picture import check_views

    model = suite_model("dog")
    data = stepped(model, 20)
    cameras = [*range(model.ncam), free(model, 150, -25, 1.5 * model.stat.extent)]
    check_views("dog", model, data, cameras, (84, 84), gl_ctx, 29.0, 0.96)


# --- rangefinder rays ----------------------------------------------------------------------
def test_dm_control_quadruped_rays_as_mujoco(gl_ctx):
    """The quadruped's 20 rangefinder rays (mjGEOM_LINE, 3 px wide), seen end on from
    behind it and from its head; opaque in the segmentation. Measured at 84x84: cameras 0-3
    and the free one 99.74 / 99.11 / 99.12 / 99.52 / 99.89% (with 8 cylinders a ray, whose
    caps showed as discs end on, and twin rays' ids in either order: 99.04 / 98.33 / 99.59 /
    98.27 / 99.76%). Left: single pixels along the rays' sides and ends (GL's wide-line
    rules against a ribbon's triangles)."""
    model = suite_model("quadruped")
    _, seen = every_view(model, stepped(model, 20), "quadruped", context=gl_ctx)
    rays = model.ngeom + model.nsite + model.ntendon + model.nskin + model.nflex
    assert any(i >= rays for i in seen)  # the rays are in MuJoCo's pictures
