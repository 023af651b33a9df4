"""The main job's frame at 10,000 bodies, part by part: GPU-driven bodies against the old renderer.

Same run, interleaved rounds, medians (ratios are medians of per-round ratios):

* ``physics``           ``world.step(1/60)``
* ``sync``              ``bridge.sync()`` (the C++ copy the frame's ``upload`` runs)
* ``submit+draw``       the recorded frame without its readback, then ``ctx.finish()``:
                        forest (compute cull, conditional draws) and the bodies
* ``readback``          ``target.read(components=3)`` after a finished frame
* ``bodies (GPU-driven)`` / ``bodies (old)``: only the clear and the bodies, finished:
                        this package's renderer (compute pass sorting live bodies into
                        per-mesh, per-LOD instance lists culled against the frustum and,
                        in a second pass, against the depth then on screen; multi-draw-
                        indirect-count) against the renderer of commit aaba37a (every
                        instance runs the vertex shader over both meshes)
* ``frame (old)``       the frame recorded with the old renderer (submit+draw+readback)

Run: ``python benchmarks/demo_frame.py [--json FILE] [--repeat N] [--bodies N] [--size WxH]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, pairwise_ratio, parser, write_json


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=9)
    p.add_argument("--bodies", type=int, default=10_000)
    p.add_argument("--size", default="640x360")
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    from _legacy_renderer import BodyRenderer as OldRenderer

    import hypergl
    from hypergl_culverin.demo.scene import BACKGROUND, build_scene

    ctx = hypergl.context()
    scene = build_scene(ctx, bodies=args.bodies, size=size, readback=False)
    world, bridge, target = scene.world, scene.bridge, scene.target
    for _ in range(60):  # let them fall into view and settle a little
        world.step(1 / 60)
    scene.aim(0)
    old = OldRenderer(bridge, max_ids=bridge.capacity + 16, camera_binding=1,
                      sphere_detail=(5, 8))  # fmt: skip
    for body_id, shape in bridge.shapes.items():
        size_of = shape.half_extents if shape.kind == "box" else shape.radius
        old.set_look(body_id, shape.kind, size_of, (0.9, 0.5, 0.3))
    old.set_camera(scene.camera.update(0.6))

    def program(*parts):
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(target)
        cmd.clear(color=BACKGROUND, depth=1.0)
        for part in parts:
            part(cmd)
        cmd.end()
        return cmd

    frame_new = scene.cmd
    frame_old = program(scene.forest.record, old.record)
    bodies_new = program(lambda cmd: scene.bodies.record(cmd, sync=False, occlusion=target))
    bodies_old = program(lambda cmd: old.record(cmd, sync=False))

    def finished(cmd):
        def run():
            cmd.submit()
            ctx.finish()

        return run

    def readback():
        target.read(components=3)

    def frame_old_full():
        frame_old.submit()
        target.read(components=3)

    samples = interleaved(
        {
            "physics": lambda: world.step(1 / 60),
            "sync": bridge.sync,
            "submit_draw": finished(frame_new),
            "readback": readback,
            "bodies_gpu_driven": finished(bodies_new),
            "bodies_old": finished(bodies_old),
            "frame_old": frame_old_full,
        },
        args.repeat,
    )
    ms = {name: median(values) * 1e3 for name, values in samples.items()}
    finished(frame_new)()  # the instance counts below are those of the demo's frame
    new_total = [s + r for s, r in zip(samples["submit_draw"], samples["readback"], strict=True)]
    counts = scene.bodies.instance_counts()
    results = {
        "bodies": world.count,
        "size": list(size),
        "physics_ms": ms["physics"],
        "sync_us": ms["sync"] * 1e3,
        "submit_draw_ms": ms["submit_draw"],
        "readback_ms": ms["readback"],
        "submit_draw_readback_ms": median(new_total) * 1e3,
        "old_submit_draw_readback_ms": ms["frame_old"],
        "frame_vs_old": pairwise_ratio(samples["frame_old"], new_total),
        "bodies_gpu_driven_ms": ms["bodies_gpu_driven"],
        "bodies_old_ms": ms["bodies_old"],
        "bodies_vs_old": pairwise_ratio(samples["bodies_old"], samples["bodies_gpu_driven"]),
        "instances_drawn": int(sum(counts.values())),
        "instances_per_mesh": {k: v for k, v in counts.items() if v},
    }
    print(f"The demo's frame: {results['bodies']} bodies at {size[0]}x{size[1]} "
          f"({args.repeat} interleaved rounds, medians)")  # fmt: skip
    rows = [
        ("physics (world.step)", ms["physics"]),
        ("sync (bridge.sync)", ms["sync"]),
        ("submit + draw (finished)", ms["submit_draw"]),
        ("readback (640x360 RGB)" if size == (640, 360) else "readback", ms["readback"]),
        ("submit + draw + readback", results["submit_draw_readback_ms"]),
        ("  same with the old renderer", ms["frame_old"]),
        ("bodies only, GPU-driven", ms["bodies_gpu_driven"]),
        ("bodies only, old renderer", ms["bodies_old"]),
    ]
    for label, value in rows:
        print(f"{label:<34}{value:>10.2f} ms")
    print(f"submit + draw + readback: {results['frame_vs_old']:.2f}x faster than the old "
          f"renderer's (goal: >= 4x); bodies alone {results['bodies_vs_old']:.2f}x")  # fmt: skip
    print(f"instances drawn in the last frame: {results['instances_drawn']} "
          f"{results['instances_per_mesh']}")  # fmt: skip
    write_json(args.json, results)
    old.release()
    scene.release()
    ctx.close()


if __name__ == "__main__":
    main()
