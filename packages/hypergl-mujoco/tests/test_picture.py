"""Our RGB against ``mujoco.Renderer``'s default picture (the issue's "How to show it"): PSNR
and the share of pixels within 16/255, on the tests' textured, lit model and gymnasium's.

The thresholds are what this renderer reaches (about 1 dB and 2% below the figures measured
on llvmpipe), not the issue's goal of 30 dB and 95% on every view: multisampling is not drawn
yet (see benchmarks/mujoco_picture.py for every model's figures; reflections are drawn and
tested in test_reflections.py). Measured before the reflections: the tests' model 29.4 /
29.5 dB (95.9 / 96.9%) at 84x84 and 31.6 / 31.6 dB (98.3 / 98.6%) at 240x320; gymnasium's
23.1 to 30.7 dB, 78.9 to 98.2% (since the atlas makes its mip levels as glGenerateMipmap
does: at the goal on MuJoCo 4, see gym_floors). A failing view writes ours | MuJoCo's |
difference to out/parity/.
"""

from __future__ import annotations

import re

import mujoco
import numpy as np
import pytest

import hypergl_mujoco

from . import models, parity

pytestmark = pytest.mark.gl


def scores(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    diff = ours.astype(np.int16) - theirs.astype(np.int16)
    mse = float(np.mean(diff.astype(np.float64) ** 2))
    psnr = 99.0 if mse == 0 else 10.0 * np.log10(255.0**2 / mse)
    return psnr, float(np.mean(np.abs(diff).max(axis=-1) <= 16))


def write_rgb(name: str, ours: np.ndarray, theirs: np.ndarray):
    from PIL import Image

    diff = np.clip(np.abs(ours.astype(np.int16) - theirs.astype(np.int16)) * 4, 0, 255)
    row = np.concatenate([ours, theirs, diff.astype(np.uint8)], axis=1)
    parity.OUT.mkdir(parents=True, exist_ok=True)
    path = parity.OUT / f"{name}.png"
    Image.fromarray(np.kron(row, np.ones((4, 4, 1), np.uint8))).save(path)
    return path


def check_views(name, model, data, cameras, size, gl_ctx, psnr_floor, within_floor,
                shadow_size=None):  # fmt: skip
    """Every camera's picture at `size` (height, width) against MuJoCo's defaults."""
    height, width = size
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=cameras, width=width, height=height,
                                      outputs=("rgb",), context=gl_ctx,
                                      shadow_size=shadow_size) as renderer:  # fmt: skip
        ours = renderer.render(data).rgb[0]
    failures = []
    with mujoco.Renderer(model, height, width) as reference:
        for k, camera in enumerate(cameras):
            reference.update_scene(data, camera)
            theirs = reference.render()
            psnr, within = scores(ours[k], theirs)
            if psnr < psnr_floor or within < within_floor:
                path = write_rgb(f"rgb_{name}_{k}_{height}x{width}", ours[k], theirs)
                failures.append(f"camera {camera}: {psnr:.1f} dB, {100 * within:.1f}% within "
                                f"16/255 (picture: {path})")  # fmt: skip
    assert not failures, f"{name}: " + "; ".join(failures)


def mesa_version(gl_ctx) -> tuple[int, int]:
    """(major, minor) of the context's Mesa; (99, 0) for another driver."""
    found = re.search(r"Mesa (\d+)\.(\d+)", gl_ctx.info["version"])
    return (int(found[1]), int(found[2])) if found else (99, 0)


@pytest.mark.parametrize("size", [(84, 84), (240, 320)])
def test_textures_lights_and_sky_as_mujoco_draws_them(size, gl_ctx):
    model = models.picture()
    data = models.stepped(model, 1)
    check_views("picture", model, data, ["front", -1], size, gl_ctx, 28.4, 0.94)


def gym_floors(gl_ctx) -> tuple[float, float]:
    """(dB, share within 16/255) every view of a gymnasium model reaches here."""
    if int(mujoco.__version__.split(".")[0]) < 4:
        # MuJoCo 3.x's picture of the free camera is further from ours: 70.9-72.4% within
        # 16/255 on 3.5.0 (tools/dev.py mujoco-matrix, floor leg; measured before the atlas
        # made its mip levels as glGenerateMipmap does)
        return 22.0, 0.70
    if mesa_version(gl_ctx) < (21, 0):
        # MuJoCo's own picture moves on Mesa 20.3's llvmpipe (Debian 11): 4.2% of its free
        # camera's pixels are beyond 16/255 of its picture on Mesa 22.3 (its shadow pass
        # mostly: 1.6% with shadows off); ours moves by 3/255 at most. Measured there
        # (tools/dev.py old-glibc): half_cheetah's camera 0 the worst, 26.9 dB, 96.1%
        return 26.0, 0.90
    # the goal: on Mesa 22.3 34.5 dB, 98.9% within at worst (half_cheetah, ant,
    # humanoid, every camera and the free one at 84x84; hopper, walker2d free at both sizes)
    return 30.0, 0.95


@pytest.mark.parametrize("name", ["half_cheetah", "ant", "humanoid"])
def test_gymnasium_models_rgb(name, gl_ctx):
    pytest.importorskip("gymnasium")
    model = models.gym_model(name)
    data = models.stepped(model, 20)
    check_views(name, model, data, [*range(model.ncam), -1], (84, 84), gl_ctx, *gym_floors(gl_ctx))


@pytest.mark.parametrize("size", [(84, 84), (240, 320)])
@pytest.mark.parametrize("name", ["hopper", "walker2d"])
def test_gymnasium_free_camera_at_the_goal(name, size, gl_ctx):
    """MuJoCo's free camera over gymnasium's checker floor (60 repeats of a 100 x 100
    builtin, every mip level in view): at the issue's goal on MuJoCo 4. Before the atlas
    made its odd mip levels as glGenerateMipmap does, every far cell edge was a line off:
    25.1 / 28.7 dB, 80.0 / 91.2% within 16/255 (hopper, 84x84 / 240x320)."""
    pytest.importorskip("gymnasium")
    model = models.gym_model(name)
    data = models.stepped(model, 20)
    check_views(name, model, data, [-1], size, gl_ctx, *gym_floors(gl_ctx))


@pytest.mark.parametrize("size", [(84, 84), (240, 320)])
def test_a_checker_floor_seen_from_below_as_mujoco(size, gl_ctx):
    """The free camera under gymnasium's floor (elevation +10 and +30 degrees): the plane's
    back, drawn transparent, carries the front's texture where the front has it (mirrored
    before: each checker square's colours swapped, 11.4 / 9.4 dB at 120 x 160 on MuJoCo 4;
    now 45.7 / 46.0 dB)."""
    pytest.importorskip("gymnasium")
    model = models.gym_model("half_cheetah")
    data = models.stepped(model, 20)
    cameras = [models.free(model, 90, elevation, 3.0) for elevation in (10, 30)]
    check_views("floor_from_below", model, data, cameras, size, gl_ctx, *gym_floors(gl_ctx))


def test_scene_flags_switch_the_sky_haze_and_shadow_passes_as_mujoco(gl_ctx):
    """The same flags off in both renderers: no sky, no haze, no reflection,
    shadow-casting lights lit with the rest."""
    model = models.picture()
    data = models.stepped(model, 1)
    flags = {"mjRND_SKYBOX": False, "mjRND_SHADOW": False, "mjRND_REFLECTION": False}
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["front"], outputs=("rgb",),
                                      context=gl_ctx, scene_flags=flags) as renderer:  # fmt: skip
        ours = renderer.render(data).rgb[0, 0]
    with mujoco.Renderer(model, 84, 84) as reference:
        reference.update_scene(data, "front")
        for name in flags:
            reference.scene.flags[getattr(mujoco.mjtRndFlag, name)] = False
        theirs = reference.render()
    psnr, within = scores(ours, theirs)
    if psnr < 32.5 or within < 0.95:  # measured: 33.8 dB, 96.5% (edges: no multisampling)
        path = write_rgb("rgb_flags", ours, theirs)
        raise AssertionError(f"{psnr:.1f} dB, {100 * within:.1f}% (picture: {path})")
    assert (ours[0] == 0).all()  # no sky: the background is black, as MuJoCo's


def test_a_flag_mujoco_does_not_have_is_refused(gl_ctx):
    with pytest.raises(hypergl_mujoco.OutputError, match="'mjRND_SKY' is not a mujoco"):
        hypergl_mujoco.BatchRenderer(models.picture(), context=gl_ctx,
                                     scene_flags={"mjRND_SKY": False})  # fmt: skip


def test_the_shadow_pass_draws_depth_alone(gl_ctx):
    """The maps' framebuffer has no colour attachment: on llvmpipe each one costs every
    fragment of the pass (4 maps' texels a view's pixel) a store nobody reads."""
    model = models.picture()
    with hypergl_mujoco.BatchRenderer(model, 2, cameras=["front"], outputs=("rgb",),
                                      context=gl_ctx) as renderer:  # fmt: skip
        renderer.render([models.stepped(model, 1), models.stepped(model, 1)])
        shadows = renderer._shadows
        assert shadows is not None
        assert shadows.framebuffer._desc["color"] in ((), [])
        assert shadows.texture is not None  # the depth the main pass reads


def test_a_turning_free_camera_sees_the_sky_mujoco_sees(gl_ctx):
    """The sky after the resolve is kept per view and redrawn only when the view turns:
    an MjvCamera turned between renders shows what a new renderer shows from there, to the
    bit, and MuJoCo's sky (its cube's lookups are redone; a moved, unturned view's are not:
    test_gl_bodies_shading's cached sky test)."""
    pytest.importorskip("gymnasium")
    model = models.gym_model("half_cheetah")  # a skybox, no haze, 4 samples
    data = models.stepped(model, 20)
    camera = mujoco.MjvCamera()
    camera.azimuth, camera.elevation, camera.distance = 30.0, -10.0, 4.0
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=[camera], width=96, height=72,
                                      outputs=("rgb",), context=gl_ctx) as renderer:  # fmt: skip
        first = renderer.render(data).rgb[0, 0]
        assert renderer._resolved is not None  # multisampled, a sky, no haze
        camera.azimuth, camera.elevation = 100.0, -20.0  # turned: the sky is seen anew
        turned = renderer.render(data).rgb[0, 0]
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=[camera], width=96, height=72,
                                      outputs=("rgb",), context=gl_ctx) as fresh:  # fmt: skip
        assert (fresh.render(data).rgb[0, 0] == turned).all()
    assert (first != turned).any()
    with mujoco.Renderer(model, 72, 96) as reference:
        reference.update_scene(data, camera)
        psnr, within = scores(turned, reference.render())
    psnr_floor, within_floor = gym_floors(gl_ctx)
    assert psnr >= psnr_floor and within >= within_floor
