"""Depth and segmentation: hypergl_mujoco against mujoco.batch.Batch.ray (MuJoCo 4's CPU rays).

N worlds of gymnasium's half_cheetah and humanoid at 84x84, seen by their "track" camera,
each world in its own state (one ``mujoco.batch.Batch``). Interleaved rounds, medians:

  ours   ``BatchRenderer(..., outputs=("depth", "segmentation")).render(batch)``
  rays   ``batch.ray(points, directions)``: one ray a pixel from each world's camera
         (``nthread`` = the CPUs), the distance and geom id MuJoCo's ``mj_ray`` gives

Ray distance runs along the ray, our depth along the view axis: the same work either way.
``--cpu``: the process's CPU seconds (every thread's: MuJoCo's ray threads and llvmpipe's)
rather than the wall clock, on a machine others load (the rays' threads then share fewer
cores, and the wall clock's ratio moves with the load).

    python benchmarks/mujoco_rays.py [--repeat N] [--worlds N] [--cpu] [--json FILE]
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, parser, write_json
from mujoco_pixels import MODELS, SIZE, load_model


def camera_rays(model, batch, camera: int) -> tuple[np.ndarray, np.ndarray]:
    """(worlds, SIZE * SIZE, 3) origins and directions of one ray a pixel of `camera`."""
    fovy = np.radians(model.cam_fovy[camera])
    half = np.tan(fovy / 2)
    u = (np.arange(SIZE) + 0.5) / SIZE * 2 - 1
    x, y = np.meshgrid(u * half, -u * half)
    local = np.stack([x, y, -np.ones_like(x)], axis=-1).reshape(-1, 3)  # camera frame
    xpos = batch.bind("cam_xpos")[:, camera]
    xmat = batch.bind("cam_xmat")[:, camera].reshape(-1, 3, 3)
    directions = np.einsum("wij,rj->wri", xmat, local)
    return np.broadcast_to(xpos[:, None], directions.shape).copy(), directions


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--worlds", type=int, default=64, help="worlds (default %(default)s)")
    p.add_argument(
        "--cpu", action="store_true", help="CPU seconds (every thread's), not the wall clock"
    )
    args = p.parse_args()
    import mujoco
    from mujoco.batch import Batch

    import hypergl_mujoco

    results = {}
    for label, name in MODELS.items():
        model = load_model(name)
        batch = Batch(model, args.worlds, nthread=os.cpu_count() or 1)
        batch.reset()
        rng = np.random.default_rng(0)
        qpos = batch.bind("qpos")
        qpos[:] += rng.normal(0, 0.05, qpos.shape)
        batch.step(nstep=5)
        batch.forward()
        camera = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "track")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            renderer = hypergl_mujoco.BatchRenderer(model, args.worlds, ["track"], SIZE, SIZE,
                                                    ("depth", "segmentation"))  # fmt: skip
        try:
            renderer.render(batch)  # the first render forwards the batch once
            batch.bind("cam_xpos"), batch.bind("cam_xmat")
            batch.forward()  # the bound camera poses copied out
            points, directions = camera_rays(model, batch, camera)
            calls = {"ours": lambda r=renderer, b=batch: r.render(b),
                     "rays": lambda b=batch, p=points, d=directions: b.ray(p, d)}  # fmt: skip
            samples = interleaved(calls, args.repeat,
                                  time.process_time if args.cpu else time.perf_counter)  # fmt: skip
        finally:
            renderer.close()
        ms = {k: median(v) * 1e3 for k, v in samples.items()}
        results[label] = {**{f"{k}_ms": round(v, 2) for k, v in ms.items()},
                          "ours_vs_rays": round(ms["rays"] / ms["ours"], 2)}  # fmt: skip
        ratio = ms["rays"] / ms["ours"]
        print(f"{label:9s} {args.worlds} worlds: ours {ms['ours']:.1f} ms  rays "
              f"{ms['rays']:.1f} ms  ours/rays {ratio:.1f}x", flush=True)  # fmt: skip
    write_json(args.json, {"worlds": args.worlds, "cpu": args.cpu, "results": results})


if __name__ == "__main__":
    main()
