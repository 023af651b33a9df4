"""A grid of falling humanoids: many MuJoCo worlds, one submit per frame, into an MP4 and a PNG.

Every world is gymnasium's Humanoid-v5 model, dropped from its own height with its own tilt
and spin. ``mujoco.batch.Batch`` steps all the worlds in C++; ``hypergl_mujoco.
BatchRenderer`` renders all of them in one submit per frame (their poses read in C++ from
the batch's live arrays) from a free camera that slowly circles; NumPy tiles the worlds
into one picture per frame. The next frame's physics steps on a thread of its own while this
frame is drawn (``hypergl.PhysicsPipeline``; ``--sequential``: one after the other, the same
pictures)::

    python examples/mujoco_humanoids.py --worlds 64 --frames 150 --out out/humanoids

Writes ``OUT/humanoids.mp4`` (with imageio-ffmpeg; else ``humanoids.gif`` through Pillow)
and ``OUT/final.png`` (the last frame), with a progress line on stderr. Needs MuJoCo
(``mujoco`` >= 3.5 or ``mujoco-core`` 4), gymnasium (for the model file) and hypergl-mujoco;
OpenGL 4.5 (headless EGL works).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np


def tile(images: np.ndarray, columns: int) -> np.ndarray:
    """(N, H, W, 3) images as one (rows * H, columns * W, 3) grid, row by row; the
    cells past the last image are black."""
    count, height, width, channels = images.shape
    rows = -(-count // columns)
    cells = np.zeros((rows * columns, height, width, channels), images.dtype)
    cells[:count] = images
    grid = cells.reshape(rows, columns, height, width, channels).swapaxes(1, 2)
    return grid.reshape(rows * height, columns * width, channels)


def humanoid_model() -> Any:
    import gymnasium
    import mujoco

    xml = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / "humanoid.xml"
    return mujoco.MjModel.from_xml_path(str(xml))


def drop_from_above(batch: Any, model: Any, rng: np.random.Generator) -> None:
    """Every world's humanoid raised, tilted and spinning, each its own way (one NumPy
    write into the batch's live state for all worlds)."""
    qpos, qvel = batch.bind("qpos"), batch.bind("qvel")
    worlds = len(qpos)
    qpos[:, 2] += rng.uniform(0.3, 1.5, worlds)  # the free joint's height
    half = rng.uniform(0.0, 0.6, worlds) / 2  # a tilt of up to ~35 degrees
    axis = rng.normal(size=(worlds, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    qpos[:, 3:7] = np.column_stack([np.cos(half), axis * np.sin(half)[:, None]])
    qvel[:] = rng.normal(0.0, 0.8, (worlds, model.nv))  # flailing limbs...
    qvel[:, 0:3] = rng.normal(0.0, 0.2, (worlds, 3))  # ...but falling nearly straight down
    batch.forward()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worlds", type=int, default=64, help="humanoid worlds (default 64)")
    p.add_argument("--frames", type=int, default=150, help="frames to write (default 150)")
    p.add_argument("--tile", default="160x120", help="one world's picture, WxH (160x120)")
    p.add_argument("--fps", type=int, default=30, help="video frames per simulated second")
    p.add_argument("--out", type=Path, default=Path("out/humanoids"), help="output folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--sequential",
        action="store_true",
        help="step, then draw, one after the other (the same pictures)",
    )
    args = p.parse_args(argv)
    try:
        width, height = (int(part) for part in args.tile.lower().split("x"))
    except ValueError:
        p.error(f"--tile must look like 160x120, got {args.tile!r}")
    if args.worlds < 1 or args.frames < 1 or not 1 <= args.fps <= 240:
        p.error("--worlds and --frames must be positive, --fps in 1..240")

    import mujoco
    import mujoco.batch

    import hypergl_mujoco
    from hypergl.pipelining import PhysicsPipeline
    from hypergl.png import encode_png
    from hypergl.progress import Progress
    from hypergl.video import FrameWriter

    model = humanoid_model()
    batch = mujoco.batch.Batch(model, args.worlds)
    drop_from_above(batch, model, np.random.default_rng(args.seed))
    substeps = max(1, round(1.0 / (args.fps * model.opt.timestep)))
    camera = mujoco.MjvCamera()  # free, looking at where the humanoids land
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = (0.0, 0.0, 0.8)
    camera.distance, camera.elevation, camera.azimuth = 3.6, -12.0, 120.0
    columns = math.ceil(math.sqrt(args.worlds))  # 8 x 8 for 64 worlds

    args.out.mkdir(parents=True, exist_ok=True)
    writer = FrameWriter(args.out, fps=args.fps, name="humanoids")
    progress = Progress(args.frames, "humanoids")
    with hypergl_mujoco.BatchRenderer(model, args.worlds, cameras=[camera], width=width,
                                      height=height, outputs=("rgb",)) as renderer, \
            PhysicsPipeline(lambda: batch.step(nstep=substeps),
                            overlapped=not args.sequential) as pipeline:  # fmt: skip

        def snapshot(frame: int) -> None:  # the batch's poses, before the next step runs
            camera.azimuth = 120.0 + 0.4 * frame
            renderer.snapshot(batch)

        for frame in range(args.frames):
            rgb = pipeline.frame(
                functools.partial(snapshot, frame),
                lambda: renderer.draw().rgb,
                step_after=frame + 1 < args.frames,
            )  # (worlds, 1, H, W, 3)
            picture = tile(rgb[:, 0], columns)
            writer.append(picture)  # while the next step runs
            progress.update(frame + 1, pipeline.times.describe())
    writer.close()
    final = args.out / "final.png"
    final.write_bytes(encode_png(np.ascontiguousarray(picture)))
    ms = pipeline.times.per_frame_ms()
    mode = "sequential" if args.sequential else "overlapped"
    print(f"{args.frames} frames of {args.worlds} humanoid worlds ({model.ngeom} geoms each, "
          f"{width}x{height} per world), {mode}: physics {ms['physics_ms']:.1f} ms, render "
          f"{ms['render_ms']:.1f} ms, side by side {ms['overlap_ms']:.1f} ms: "
          f"{ms['frame_ms']:.1f} ms per frame ({args.worlds * 1e3 / ms['render_ms']:.0f} "
          "world-frames/s rendered)")  # fmt: skip
    print(f"wrote {writer.path} and {final}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
