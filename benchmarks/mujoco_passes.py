"""Where a hypergl_mujoco frame's time goes: each pass of one frame, timed alone.

N worlds of gymnasium's half_cheetah and humanoid at 84x84 seen by their "track" camera
(``--outputs rgb``: MuJoCo's default picture; ``depth,segmentation``: what
benchmarks/mujoco_rays.py measures). After one render, each pass of the recorded frame is
recorded again as a program of its own and replayed on the same snapshot, interleaved,
each followed by ``ctx.finish()`` (llvmpipe draws on the CPU: the wall time is the pass's):

  snapshot     ``renderer.snapshot(data)``: the poses' sync and the view matrices
  shadow       the shadow maps' depth pass (shadows on)
  reflection   the mirror pass (a reflective floor, reflections on)
  main         the clear, every layer's expansion and draws, without the sky
  sky          the sky's and the haze's quads, over what main drew; multisampled without a
               haze: the resolve and the sky single-sampled under it in one pass (drawn
               after the transparent pass, which this times alone before it)
  transparent  the transparent geoms' blended pass (a model with some)
  read         reading the framebuffer's outputs back into NumPy, split into the views
  frame        ``renderer.render(data)`` whole (its sum, and what binds them together)

Medians of milliseconds; the passes add up to about the frame. ``--samples 0`` draws the
RGB single-sampled (default: the model's ``quality.offsamples``, MuJoCo's 4): the two side
by side say what multisampling costs each pass (on llvmpipe every pass that covers the
views pays per sample, and ``read`` includes the resolve, unless ``sky`` did it).
``--cpu``: the process's CPU time (llvmpipe's threads too) rather than the wall clock, on
a machine others load.
``--tuned``: mujoco_pixels.py's ours_tuned (shadows, reflection and skybox off, and
single-sampled unless ``--samples`` says otherwise): the frame of the tuned-vs-tuned goal.
``--without planes`` (or ``shapes``: every other geom): those geoms hidden (alpha 0, which
MuJoCo does not draw either), so that the difference from a run without it is what they
cost each pass (the ground plane is half the frame: see docs/guide/mujoco.md).

    python benchmarks/mujoco_passes.py [--repeat N] [--worlds N] [--outputs rgb]
        [--samples N] [--cpu] [--tuned] [--without planes|shapes] [--json FILE]
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, parser, write_json
from mujoco_pixels import MODELS, SIZE, TUNED_FLAGS, load_model, without, worlds


def pass_programs(renderer, ctx) -> dict:
    """name -> a program drawing one pass of `renderer`'s recorded frame (its internals:
    this is a profile, not an API)."""
    programs = {}

    def program(record):
        cmd = ctx.command_buffer()
        record(cmd)
        cmd.end()
        return cmd

    if renderer._shadows is not None:
        programs["shadow"] = program(renderer._shadows.record)
    if renderer._reflections is not None:
        programs["reflection"] = program(renderer._reflections.record)

    resolved = renderer._resolved  # the sky drawn after a resolve (multisampled, no haze)

    def main(cmd):
        cmd.bind_framebuffer(renderer._framebuffer)
        renderer._renderer.record_clear(cmd, background=(0.0, 0.0, 0.0),
                                        coverage=resolved is not None)  # fmt: skip
        for _, _, layer in renderer._layers:
            layer.record(cmd, sync=False, sky=False)

    def sky(cmd):
        if resolved is None:
            cmd.bind_framebuffer(renderer._framebuffer)
            for _, _, layer in renderer._layers:
                layer._record_sky(cmd)
        else:
            renderer._renderer.record_resolved_sky(cmd, renderer._framebuffer, resolved)

    programs["main"] = program(main)
    if renderer._renderer._sky is not None:
        programs["sky"] = program(sky)
    if renderer._transparent is not None:

        def transparent(cmd):
            cmd.bind_framebuffer(renderer._framebuffer)
            renderer._transparent.record(cmd, sync=False)

        programs["transparent"] = program(transparent)
    return programs


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=9)
    p.add_argument("--worlds", type=int, default=64, help="worlds (default %(default)s)")
    p.add_argument("--outputs", default="rgb", help="comma-separated (default %(default)s)")
    p.add_argument(
        "--samples",
        type=int,
        default=None,
        help="the RGB's samples a pixel (default: the model's offsamples)",
    )
    p.add_argument(
        "--cpu",
        action="store_true",
        help="time the process's CPU seconds (every thread's), not the wall clock",
    )
    p.add_argument("--tuned", action="store_true",
                   help="shadows, reflection, skybox off (samples 0 by default)")  # fmt: skip
    p.add_argument("--without", choices=("planes", "shapes"),
                   help="hide the planes, or every other geom (alpha 0)")  # fmt: skip
    args = p.parse_args()
    per_pixel_samples = 0 if args.tuned and args.samples is None else args.samples
    flags = TUNED_FLAGS if args.tuned else None
    import hypergl_mujoco

    outputs = tuple(args.outputs.split(","))
    results = {}
    for label, name in MODELS.items():
        model = load_model(name) if not args.without else without(load_model(name), args.without)
        datas = worlds(model, args.worlds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            renderer = hypergl_mujoco.BatchRenderer(model, args.worlds, ["track"], SIZE, SIZE,
                                                    outputs, samples=per_pixel_samples,
                                                    scene_flags=flags)  # fmt: skip
        per_pixel = renderer.samples
        try:
            renderer.render(datas)
            ctx = renderer.context
            calls = {"snapshot": lambda r=renderer, d=datas: r.snapshot(d)}
            for key, cmd in pass_programs(renderer, ctx).items():
                calls[key] = lambda c=cmd, g=ctx: (c.submit(), g.finish())
            picture = renderer._framebuffer if renderer._resolved is None else renderer._resolved
            calls["read"] = lambda r=renderer, f=picture: r._renderer.read_views(
                f, miss_depth=r._far
            )
            calls["frame"] = lambda r=renderer, d=datas: r.render(d)
            clock = time.process_time if args.cpu else time.perf_counter
            samples = interleaved(calls, args.repeat, clock)
        finally:
            renderer.close()
        ms = {k: round(median(v) * 1e3, 2) for k, v in samples.items()}
        parts = sum(v for k, v in ms.items() if k != "frame")
        results[label] = ms
        print(f"{label:9s} {args.worlds} worlds {','.join(outputs)} x{per_pixel}: "
              + "  ".join(f"{k} {v:.1f}" for k, v in ms.items())
              + f"  (passes' sum {parts:.1f}) ms", flush=True)  # fmt: skip
    write_json(args.json, {"worlds": args.worlds, "outputs": outputs, "samples": per_pixel_samples,
                           "cpu": args.cpu, "tuned": args.tuned, "without": args.without,
                           "results": results})  # fmt: skip


if __name__ == "__main__":
    main()
