"""Ragdolls at scale: the demo's ragdoll scene for N = 100, 1,000 and 10,000 ragdolls.

Per N (7 bodies a ragdoll), medians over the frames after the rain has started:
``physics_ms`` (``world.step(1/60)``), ``sync_us`` (``bridge.sync()``: every part's
transform into the storage buffer), ``submit_ms`` (the recorded frame: upload, forest,
GPU expansion of the parts, multi-draw, readback into the ring; finished) and ``fps``
(1 / (physics + submit + ring read)). Creating the 10,000 ragdolls takes Culverin
seconds; ``--max`` caps N where memory or time is short.

Run: ``python benchmarks/ragdolls.py [--json FILE] [--repeat FRAMES] [--max N]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import median, parser, write_json

COUNTS = (100, 1_000, 10_000)


def measure(ctx, ragdolls: int, frames: int) -> dict:
    from hypergl_culverin.demo.scene import build_scene

    started = time.perf_counter()
    scene = build_scene(ctx, scene="ragdolls", ragdolls=ragdolls, size=(640, 360))
    build_s = time.perf_counter() - started
    world, bridge = scene.world, scene.bridge
    frame_rgb = np.empty((360, 640, 3), np.uint8)
    physics, sync, submit, read = [], [], [], []
    for frame in range(frames + 2):
        tick = time.perf_counter()
        world.step(1 / 60)
        physics.append(time.perf_counter() - tick)
        tick = time.perf_counter()
        bridge.sync()
        sync.append(time.perf_counter() - tick)
        scene.aim(frame)
        tick = time.perf_counter()
        scene.cmd.submit()
        submit.append(time.perf_counter() - tick)
        tick = time.perf_counter()
        if frame >= 1:
            scene.ring.read(lag=1, into=frame_rgb)
        read.append(time.perf_counter() - tick)
    keep = slice(2, None)  # the first frames compile shaders and fill the ring
    row = {
        "n": ragdolls,
        "bodies": world.count,
        "physics_ms": median(physics[keep]) * 1e3,
        "sync_us": median(sync[keep]) * 1e6,
        "submit_ms": median(submit[keep]) * 1e3,
        "read_ms": median(read[keep]) * 1e3,
        "build_s": build_s,
    }
    frame_ms = row["physics_ms"] + row["submit_ms"] + row["read_ms"]
    row["fps"] = 1e3 / frame_ms
    row["sync_share"] = row["sync_us"] / 1e3 / frame_ms
    scene.release()
    return row


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=10)
    p.add_argument("--max", type=int, default=COUNTS[-1], help="largest N to run")
    args = p.parse_args()
    import hypergl

    ctx = hypergl.context()
    rows = []
    print(f"Ragdoll scene, 640x360 ({args.repeat} frames each, medians)")
    print(f"{'ragdolls':>9}{'bodies':>8}{'physics ms':>12}{'sync us':>10}{'submit ms':>11}"
          f"{'fps':>7}{'sync share':>12}{'build s':>9}")  # fmt: skip
    for n in COUNTS:
        if n > args.max:
            print(f"{n:>9}  skipped (--max {args.max})")
            continue
        frames = args.repeat if n < 10_000 else max(3, args.repeat // 3)
        row = measure(ctx, n, frames)
        rows.append(row)
        print(f"{row['n']:>9}{row['bodies']:>8}{row['physics_ms']:>12.1f}{row['sync_us']:>10.1f}"
              f"{row['submit_ms']:>11.1f}{row['fps']:>7.2f}{row['sync_share']:>11.2%}"
              f"{row['build_s']:>9.1f}")  # fmt: skip
    write_json(args.json, {"ragdolls": rows})
    ctx.close()


if __name__ == "__main__":
    main()
