"""docs/mujoco_side_by_side.png: hypergl_mujoco's picture beside mujoco.Renderer's.

Gymnasium's HalfCheetah and Humanoid (their "track" camera) and the per-world looks of
four HalfCheetah worlds, 240 x 320, each row: ours | MuJoCo's (both with their defaults),
and the PSNR between them printed. Rerun after a change to the picture:

    python tools/mujoco_side_by_side.py [--out docs/mujoco_side_by_side.png]
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HEIGHT, WIDTH = 240, 320


def load(name: str):
    import gymnasium
    import mujoco

    path = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / f"{name}.xml"
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    rng = np.random.default_rng(1)
    data.qpos[:] += rng.normal(0, 0.1, model.nq)
    for _ in range(20):
        mujoco.mj_step(model, data)
    mujoco.mj_forward(model, data)
    return model, data


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(((a.astype(float) - b.astype(float)) ** 2).mean())
    return float("inf") if mse == 0 else 10 * np.log10(255**2 / mse)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "mujoco_side_by_side.png")
    args = p.parse_args()
    import mujoco
    from PIL import Image

    import hypergl_mujoco

    rows = []
    for name in ("half_cheetah", "humanoid"):
        model, data = load(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours_renderer = hypergl_mujoco.BatchRenderer(model, 1, ["track"], WIDTH, HEIGHT,
                                                         ("rgb",))  # fmt: skip
        with ours_renderer:
            ours = ours_renderer.render(data).rgb[0, 0]
        theirs_renderer = mujoco.Renderer(model, HEIGHT, WIDTH)
        theirs_renderer.update_scene(data, "track")
        theirs = theirs_renderer.render()
        theirs_renderer.close()
        print(f"{name}: PSNR {psnr(ours, theirs):.1f} dB (ours | mujoco.Renderer)")
        rows.append(np.concatenate([ours, np.full((HEIGHT, 4, 3), 255, np.uint8), theirs], 1))
    # four worlds of one model, each its own colours, floor material and light
    model, data = load("half_cheetah")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        renderer = hypergl_mujoco.BatchRenderer(model, 4, ["track"], WIDTH // 2, HEIGHT // 2,
                                                ("rgb",))  # fmt: skip
    with renderer:
        rng = np.random.default_rng(3)
        rgba = rng.uniform(0.1, 1, (4, model.ngeom, 4))
        rgba[..., 3] = 1
        renderer.set_geom_rgba(rgba[:, 1:], geoms=list(range(1, model.ngeom)))
        renderer.set_geom_material(-1, worlds=[1, 3], geoms=0)  # a plain floor
        renderer.set_light_pose(rng.normal(0, 2, (4, 1, 3)) + np.array([0, 0, 4]), (0, 0, -1))
        tiles = renderer.render([data] * 4).rgb[:, 0]
    grid = np.concatenate([np.concatenate(list(tiles[:2]), 1), np.concatenate(list(tiles[2:]),
                                                                           1)], 0)  # fmt: skip
    pad = np.full((HEIGHT, rows[0].shape[1] - grid.shape[1], 3), 255, np.uint8)
    rows.append(np.concatenate([grid, pad], 1))
    gap = np.full((4, rows[0].shape[1], 3), 255, np.uint8)
    image = np.concatenate([rows[0], gap, rows[1], gap, rows[2]], 0)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(args.out, optimize=True)
    print(f"wrote {args.out} ({image.shape[1]}x{image.shape[0]})")


if __name__ == "__main__":
    main()
