"""Our images against ``mujoco.Renderer``'s: segmentation agreement, edges, depth error.

MuJoCo's segmentation gives (objid, objtype) per pixel; only geoms count (sites and the
rest are hidden in its scene options), -1 elsewhere. A pixel the two disagree on must lie
within one pixel of an object's edge (in either picture); when a check fails, the picture
(ours | MuJoCo's | difference) is written under out/parity/ of the working directory
(``$HYPERGL_PARITY_OUT``) for a person to look at.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

# Beside where the tests run (the checkout's out/ is git-ignored); the tests also run from
# an unpacked sdist, which has no checkout around it.
OUT = Path(os.environ.get("HYPERGL_PARITY_OUT", "out/parity"))


def reference_option() -> mujoco.MjvOption:
    """MuJoCo's default visible geom groups, nothing but geoms drawn."""
    option = mujoco.MjvOption()
    option.sitegroup[:] = 0
    option.tendongroup[:] = 0
    option.flexgroup[:] = 0
    option.skingroup[:] = 0
    for flag in (mujoco.mjtVisFlag.mjVIS_LIGHT, mujoco.mjtVisFlag.mjVIS_CAMERA,
                 mujoco.mjtVisFlag.mjVIS_TENDON, mujoco.mjtVisFlag.mjVIS_SKIN):  # fmt: skip
        option.flags[flag] = 0
    return option


PROBE = '<mujoco><worldbody><geom type="box" size="1 1 1"/></worldbody></mujoco>'


@functools.cache
def reference_unusable() -> str | None:
    """Why MuJoCo's own segmentation render cannot be the reference on this driver, or None.

    Probed, not assumed: a box that fills the view must give its geom id at the centre.
    On Mesa 20.3 (Debian 11; MuJoCo's EGL context is a GL 3.1 compatibility one there)
    mujoco.Renderer's segmentation draws no geom, or few and with wrong ids.
    """
    os.environ.setdefault("MUJOCO_GL", "egl")
    model = mujoco.MjModel.from_xml_string(PROBE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    camera = mujoco.MjvCamera()
    camera.distance, camera.elevation = 4.0, -30.0
    with mujoco.Renderer(model, 32, 32) as renderer:
        renderer.enable_segmentation_rendering()
        renderer.update_scene(data, camera)
        centre = renderer.render()[16, 16]
        if tuple(centre) == (0, mujoco.mjtObj.mjOBJ_GEOM):
            return None
        from OpenGL import GL  # the renderer's context is current

        driver = ", ".join(GL.glGetString(n).decode() for n in (GL.GL_VERSION, GL.GL_RENDERER))
    return (
        f"MuJoCo's segmentation render (mujoco.Renderer), the reference, finds no geom "
        f"in a box filling the view on this driver (GL {driver}): {centre.tolist()}"
    )


def mujoco_images(model, data, camera, width: int, height: int):
    """(segmentation int32 geom id or -1, depth float32) from MuJoCo's own renderer; the test
    skips where that renderer's segmentation is wrong (:func:`reference_unusable`)."""
    if reason := reference_unusable():
        pytest.skip(reason)
    with mujoco.Renderer(model, height, width) as renderer:
        option = reference_option()
        renderer.enable_segmentation_rendering()
        renderer.update_scene(data, camera, scene_option=option)
        seg = renderer.render()
        ids = np.where(seg[..., 1] == mujoco.mjtObj.mjOBJ_GEOM, seg[..., 0], -1)
        renderer.disable_segmentation_rendering()
        renderer.enable_depth_rendering()
        renderer.update_scene(data, camera, scene_option=option)
        depth = renderer.render()
    return ids.astype(np.int32), depth.astype(np.float32)


def near_edge(ids: np.ndarray) -> np.ndarray:
    """True where a pixel's 3 x 3 neighbourhood holds more than one id."""
    padded = np.pad(ids, 1, mode="edge")
    h, w = ids.shape
    edge = np.zeros(ids.shape, bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            edge |= padded[dy : dy + h, dx : dx + w] != ids
    return edge


def compare(ours_ids, ours_depth, theirs_ids, theirs_depth) -> dict[str, float]:
    agree = ours_ids == theirs_ids
    off_edge = ~agree & ~(near_edge(ours_ids) | near_edge(theirs_ids))
    both = agree & (theirs_ids >= 0)
    rel = np.abs(ours_depth[both] - theirs_depth[both]) / theirs_depth[both]
    return {"agree": float(agree.mean()), "off_edge": int(off_edge.sum()),
            "depth_median": float(np.median(rel)) if rel.size else 0.0,
            "objects": int(np.unique(theirs_ids[theirs_ids >= 0]).size)}  # fmt: skip


def palette(ids: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(7)
    colours = rng.integers(40, 255, (max(int(ids.max()) + 2, 2), 3), dtype=np.uint8)
    colours[0] = 0  # background (-1)
    return colours[ids + 1]


def write_picture(name: str, ours_ids, theirs_ids) -> Path:
    """ours | MuJoCo's | difference (white: disagreeing pixels), 4x enlarged."""
    from PIL import Image

    difference = np.where((ours_ids != theirs_ids)[..., None], 255, 0).astype(np.uint8)
    row = np.concatenate([palette(ours_ids), palette(theirs_ids),
                          np.repeat(difference, 3, axis=2)], axis=1)  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    Image.fromarray(np.kron(row, np.ones((4, 4, 1), np.uint8))).save(path)
    return path


def check(name: str, ours_ids, ours_depth, theirs_ids, theirs_depth) -> dict[str, float]:
    """The issue's criteria; the picture written first when one fails."""
    stats = compare(ours_ids, ours_depth, theirs_ids, theirs_depth)
    ok = stats["agree"] >= 0.97 and stats["off_edge"] == 0 and stats["depth_median"] < 1e-3
    if not ok:
        path = write_picture(name, ours_ids, theirs_ids)
        raise AssertionError(f"{name}: {stats} (picture: {path})")
    return stats
