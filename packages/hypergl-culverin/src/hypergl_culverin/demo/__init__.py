"""`hypergl demo`: the whole product in one command.

Ten thousand Culverin (Jolt) bodies fall into a clearing in a forest. Each frame is two
programs recorded once: the snapshot, the physics bridge's `upload` (bodies into a storage
buffer, in C++ without the GIL), then the drawing: a compute shader that culls the forest's
chunks against the camera, `condition`s on those GPU-written flags that call a `@subroutine`
looping over rows of instanced trees, the bodies (a compute pass lists them per mesh,
culled against the frustum and, in a second pass, against the depth on screen; multi-
draw-indirect-count), and a `read_framebuffer` into a ring of pixel-pack buffers read
one frame later. Python only steps the physics and moves the camera (a write into a
mapped uniform buffer). The physics steps frame N + 1 on a thread of its own while frame N
is drawn (``hypergl.pipelining``; ``--sequential``: one after the other, the same pictures);
overlapped on a machine of 2 cores, Jolt and llvmpipe get one helper thread each
(``hypergl.pipelining.stage_threads``; ``--physics-threads`` and ``LP_NUM_THREADS`` decide
instead when given).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

from hypergl.errors import HyperGLError

from .cli import DemoOptions, parse

DT = 1.0 / 60.0


class DemoError(HyperGLError):
    """A problem the user can fix (missing package, no display): one line, no traceback."""


def _check_extras() -> None:
    """Fail before the first frame, not after the last, when a writer is missing."""
    try:
        import PIL  # noqa: F401  (the final frame is a PNG)
    except ImportError:
        raise DemoError(
            "the demo writes its frames with Pillow, which is not installed: "
            "pip install 'hypergl-culverin[demo]' (or run python3 tools/dev.py demo)"
        ) from None


def run(options: DemoOptions, stream: TextIO = sys.stdout) -> dict[str, Any]:
    """Run the demo; returns what it measured and where it wrote its files."""
    import hypergl
    from hypergl.pipelining import PhysicsPipeline, stage_threads
    from hypergl.progress import Progress
    from hypergl.video import FrameWriter

    from .scene import build_scene

    if not options.window:
        _check_extras()
    try:
        ctx = hypergl.context(window=options.size if options.window else None,
                              title="HyperGL demo")  # fmt: skip
    except hypergl.ContextError as exc:
        raise DemoError(str(exc)) from None
    with ctx:
        physics_threads = options.physics_threads
        if physics_threads is None and not options.sequential:
            physics_threads = stage_threads()  # None: Culverin's default
        scene = build_scene(ctx, scene=options.scene, bodies=options.bodies,
                            ragdolls=options.ragdolls, size=options.size,
                            window=options.window, physics_threads=physics_threads)  # fmt: skip
        world, forest = scene.world, scene.forest
        target, ring, cmd = scene.target, scene.ring, scene.cmd

        writer = None
        if not options.window:
            options.out.mkdir(parents=True, exist_ok=True)
            writer = FrameWriter(options.out)
        progress = Progress(options.frames, "demo")
        totals = {"instructions": 0, "draws": 0, "binds_issued": 0, "binds_skipped": 0}
        frame_rgb = np.empty((*target.size[::-1], 3), np.uint8)

        def draw(frame: int) -> tuple[Any, Any]:
            stats = cmd.submit()
            shown = ring.read(lag=1, into=frame_rgb) if ring is not None and frame >= 1 else None
            if options.window:
                ctx.swap()
            return stats, shown

        # Frame N is drawn from physics state N while the world steps N + 1 on the pipeline's
        # thread (--sequential: one after the other); both draw the same pictures.
        pipeline = PhysicsPipeline(lambda: world.step(DT), overlapped=not options.sequential,
                                   name="demo-physics")  # fmt: skip
        with pipeline:
            for frame in range(options.frames):
                stats, shown = pipeline.frame(lambda f=frame: scene.snapshot(f),
                                              lambda f=frame: draw(f),
                                              step_after=frame + 1 < options.frames)  # fmt: skip
                if shown is not None:
                    writer.append(shown)  # while the next step runs
                for key in totals:
                    totals[key] += getattr(stats, key)
                if options.window:
                    ctx.poll()
                    if ctx.should_close:
                        break
                progress.update(frame + 1, pipeline.times.describe())
        times = pipeline.times
        frames = times.frames
        result = {
            "frames": frames,
            "bodies": world.count - 1,  # not the floor
            "scene": options.scene,
            "overlapped": not options.sequential,
            "physics_threads": physics_threads,  # None: Culverin's default
            "fps": frames / times.wall,
            **times.per_frame_ms(),
            "visible_chunks": int(forest.visible.read(np.uint32).sum()),
            "chunks": forest.chunks,
            "stats_per_frame": {k: v / frames for k, v in totals.items()},
        }
        if writer is not None:
            final = target.read(components=3)
            final_path = options.out / "final.png"
            from PIL import Image

            Image.fromarray(final).save(final_path)
            writer.append(final)
            writer.close()
            result["video"] = str(writer.path)
            result["image"] = str(final_path)
        scene.release()
    _report(result, stream)
    return result


def _report(result: dict, stream) -> None:
    per_frame = result["stats_per_frame"]
    mode = "overlapped" if result["overlapped"] else "sequential"
    print(f"{result['frames']} frames of {result['bodies']} bodies, {mode}: "
          f"{result['fps']:.1f} frames/s (per frame: physics {result['physics_ms']:.1f} ms, "
          f"snapshot + submit + readback {result['render_ms']:.1f} ms, side by side "
          f"{result['overlap_ms']:.1f} ms: {result['frame_ms']:.1f} ms)", file=stream)  # fmt: skip
    print(f"VM per frame: {per_frame['instructions']:.0f} instructions, "
          f"{per_frame['draws']:.0f} draws, {per_frame['binds_issued']:.0f} binds issued, "
          f"{per_frame['binds_skipped']:.0f} skipped; the GPU kept "
          f"{result['visible_chunks']}/{result['chunks']} forest chunks in the last frame",
          file=stream)  # fmt: skip
    if "video" in result:
        print(f"wrote {result['video']} and {result['image']}", file=stream)


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    if not options.sequential:
        from hypergl.pipelining import ask_raster_threads, stage_threads

        # The process's first GL context is this run's: llvmpipe's raster threads for the
        # overlapped layout (benchmarks/overlap.py --layouts), unless LP_NUM_THREADS says.
        threads = stage_threads()
        if threads is not None:
            ask_raster_threads(threads)
    try:
        run(options)
    except HyperGLError as exc:  # DemoError and every other HyperGL error: one line
        print(f"hypergl demo: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hypergl demo: interrupted", file=sys.stderr)
        return 130
    return 0


__all__ = ["DemoError", "DemoOptions", "main", "run"]
