"""Physics beside the drawing: the demo and the humanoid grid, overlapped against sequential.

``hypergl.PhysicsPipeline`` steps frame N + 1's physics on a thread of its own while frame N
is drawn; sequential is today's order (step, then snapshot and draw). Two workloads, each run
both ways in the same process, the modes alternating (A B, B A, ...) so that drift hits both:

  culverin  the main job: ``hypergl demo``'s scene of 10,000 Culverin bodies falling into the
            forest, 640x360, at least 120 frames from the drop (the pile-up's heavy frames
            count), the frame read back through the demo's ring (no video encoder)
  mujoco    examples/mujoco_humanoids.py's grid: 64 Humanoid worlds in a mujoco.batch.Batch,
            160x120 each, one camera, 60 frames

Each run reports its per-frame split (physics, render = snapshot + submit + readback, the
physics seconds that ran beside the drawing, the frame), the bound (the longer of the two
stages: the sequential frame over max(physics, render) is the most overlap can give), and
the CPU seconds a frame of llvmpipe's, Jolt's, the physics thread's and the caller's
threads (from /proc/self/task: both stages run threads of their own on the same cores, so on
a 2-core machine what one takes the other waits for). Ratios are medians of per-round
ratios of frame times (sequential / overlapped).

  vector    hypergl_mujoco.VectorPixelObservations over 16 HalfCheetah-v5 sub-environments
            at 84x84 (--vector-env, --vector-envs): parts=2 (each half rendered while the
            other half's physics runs) against parts=1 (render after the step)

The cores' bound is printed too: a frame cannot take less than its CPU time over the cores,
whatever the layout. ``--layouts`` compares thread layouts (Jolt's job threads, MuJoCo's
batch threads, llvmpipe's LP_NUM_THREADS), each run in a process of its own (llvmpipe
reads LP_NUM_THREADS once per process), against the best sequential layout of each round.

    nice -n -5 python benchmarks/overlap.py [--repeat N] [--frames N] [--json FILE]
    python benchmarks/overlap.py --layouts [--only culverin|mujoco] [--repeat N]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import parser, write_json

ROOT = Path(__file__).resolve().parent.parent
PHYSICS_THREADS = ("bench-physics", "hypergl-vector-physics")


def thread_cpu() -> dict[str, float]:
    """CPU seconds of this process's threads so far, by kind of thread (Linux). Python
    threads are told apart by their native ids (before 3.14 the OS does not know their
    names); a thread's seconds are gone once it ends, so sample while it lives."""
    physics = {t.native_id for t in threading.enumerate() if t.name in PHYSICS_THREADS}
    caller = threading.main_thread().native_id
    kinds: dict[str, float] = defaultdict(float)
    for task in Path("/proc/self/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            on_cpu_ns = int((task / "schedstat").read_text().split()[0])  # ns, not ticks
        except OSError:  # the thread ended meanwhile
            continue
        tid = int(task.name)
        if tid in physics:
            kind = "physics thread"
        elif tid == caller:
            kind = "caller"
        elif name.startswith("llvmpipe"):
            kind = "llvmpipe"  # llvmpipe's raster threads (LP_NUM_THREADS of them)
        elif name.startswith("Worker"):
            kind = "jolt"  # Jolt's job threads (Culverin's num_threads of them)
        else:
            kind = "others"  # MuJoCo's batch threads, llvmpipe's compute pool, the driver's
        kinds[kind] += on_cpu_ns / 1e9
    return dict(kinds)


def cpu_per_frame(before: dict[str, float], after: dict[str, float], frames: int) -> dict:
    return {k: 1e3 * (after.get(k, 0.0) - before.get(k, 0.0)) / frames
            for k in sorted(set(before) | set(after))}  # fmt: skip


def culverin_run(
    bodies: int, frames: int, overlapped: bool, physics_threads: int | None = None
) -> dict:
    import hypergl
    from hypergl.pipelining import PhysicsPipeline
    from hypergl_culverin.demo import DT
    from hypergl_culverin.demo.scene import build_scene

    with hypergl.context() as ctx:  # a context a run, as the demo makes
        scene = build_scene(ctx, bodies=bodies, size=(640, 360), physics_threads=physics_threads)
        rgb = np.empty((360, 640, 3), np.uint8)

        def draw(frame: int) -> None:
            scene.cmd.submit()
            if frame >= 1:
                scene.ring.read(lag=1, into=rgb)

        before = thread_cpu()
        with PhysicsPipeline(lambda: scene.world.step(DT), overlapped=overlapped,
                             name="bench-physics") as pipeline:  # fmt: skip
            for frame in range(frames):
                pipeline.frame(lambda f=frame: scene.snapshot(f), lambda f=frame: draw(f),
                               step_after=frame + 1 < frames)  # fmt: skip
            after = thread_cpu()  # while the physics thread lives: its time dies with it
        row = {**pipeline.times.per_frame_ms(), "cpu_ms": cpu_per_frame(before, after, frames),
               "final": scene.target.read(components=3)}  # fmt: skip
        scene.release()
    return row


def humanoid_parts(worlds: int, nthread: int = 0):
    sys.path.insert(0, str(ROOT / "examples"))
    import mujoco
    import mujoco.batch
    from mujoco_humanoids import drop_from_above, humanoid_model

    model = humanoid_model()

    def fresh():
        batch = mujoco.batch.Batch(model, worlds, nthread=nthread)  # 0: a thread a core
        drop_from_above(batch, model, np.random.default_rng(0))
        return batch

    return model, fresh


def mujoco_run(model, fresh, worlds: int, frames: int, overlapped: bool) -> dict:
    import mujoco

    import hypergl_mujoco
    from hypergl.pipelining import PhysicsPipeline

    batch = fresh()
    substeps = max(1, round(1.0 / (30 * model.opt.timestep)))
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = (0.0, 0.0, 0.8)
    camera.distance, camera.elevation, camera.azimuth = 3.6, -12.0, 120.0
    renderer = hypergl_mujoco.BatchRenderer(model, worlds, cameras=[camera], width=160,
                                            height=120, outputs=("rgb",))  # fmt: skip

    def snapshot(frame: int) -> None:
        camera.azimuth = 120.0 + 0.4 * frame
        renderer.snapshot(batch)

    before = thread_cpu()
    with PhysicsPipeline(lambda: batch.step(nstep=substeps), overlapped=overlapped,
                         name="bench-physics") as pipeline:  # fmt: skip
        for frame in range(frames):
            last = pipeline.frame(lambda f=frame: snapshot(f), lambda: renderer.draw().rgb,
                                  step_after=frame + 1 < frames)  # fmt: skip
        after = thread_cpu()  # while the physics thread lives: its time dies with it
    row = {**pipeline.times.per_frame_ms(), "cpu_ms": cpu_per_frame(before, after, frames)}
    row["final"] = last
    renderer.close()
    return row


def vector_run(env_id: str, count: int, steps: int, parts: int) -> dict:
    """VectorPixelObservations over a SyncVectorEnv: `parts` 1 renders after the step (the
    sequential path), more renders each part while the later parts step."""
    import gymnasium as gym

    from hypergl.pipelining import FrameTimes
    from hypergl_mujoco import VectorPixelObservations

    envs = VectorPixelObservations(gym.make_vec(env_id, count, vectorization_mode="sync"),
                                   width=84, height=84, camera="track", parts=parts)  # fmt: skip
    spent = {"physics": 0.0}
    vector_step = envs.env.step

    def timed_step(actions):  # the sequential path's physics (in parts: the pipeline's times)
        tick = time.perf_counter()
        try:
            return vector_step(actions)
        finally:
            spent["physics"] += time.perf_counter() - tick

    envs.env.step = timed_step
    envs.reset(seed=0)
    envs.action_space.seed(0)
    batches = [envs.action_space.sample() for _ in range(steps)]
    envs.step(batches[0])  # the part renderers are made (and record) on the first step
    spent["physics"] = 0.0
    warm = dataclasses.replace(envs._stepper.times) if parts > 1 else None
    before = thread_cpu()
    started = time.perf_counter()
    for actions in batches[1:]:
        obs, *_ = envs.step(actions)
    wall = time.perf_counter() - started
    after = thread_cpu()
    n = steps - 1
    if parts > 1:  # the timed steps only: less what the first step took
        times = envs._stepper.times
        fields = ("physics", "render", "waited", "inline", "wall")
        timed = FrameTimes(n, *(getattr(times, f) - getattr(warm, f) for f in fields))
        row = timed.per_frame_ms()
        row["frame_ms"] = 1e3 * wall / n
    else:
        physics = 1e3 * spent["physics"] / n
        row = {"physics_ms": physics, "render_ms": 1e3 * wall / n - physics, "overlap_ms": 0.0,
               "frame_ms": 1e3 * wall / n}  # fmt: skip
    row["cpu_ms"] = cpu_per_frame(before, after, n)
    row["final"] = obs.copy()
    envs.close()
    return row


def summary(name: str, rounds: list[tuple[dict, dict]]) -> dict:
    """Medians over rounds of (sequential, overlapped) rows, the ratio and the bound."""
    sequential = [s for s, _ in rounds]
    overlapped = [o for _, o in rounds]

    def med(rows: list[dict], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    ratio = statistics.median(s["frame_ms"] / o["frame_ms"] for s, o in rounds)
    physics, render = med(sequential, "physics_ms"), med(sequential, "render_ms")
    bound = med(sequential, "frame_ms") / max(physics, render)
    identical = all(np.array_equal(s["final"], o["final"]) for s, o in rounds)
    # Where they differ (a world's tile at another place in the framebuffer: llvmpipe's
    # rounding of the viewport offset), by how much.
    differing = max(int((s["final"] != o["final"]).sum()) for s, o in rounds)
    largest = max(int(np.abs(s["final"].astype(int) - o["final"]).max()) for s, o in rounds)
    out = {
        "ratio": ratio,
        "bound": bound,
        "share_of_bound": (ratio - 1.0) / (bound - 1.0) if bound > 1.0 else 0.0,
        "identical_final_frames": identical,
        "final_values_differing": differing,
        "final_largest_difference": largest,
    }
    for mode, rows in (("sequential", sequential), ("overlapped", overlapped)):
        out[mode] = {key: med(rows, key) for key in ("physics_ms", "render_ms", "overlap_ms",
                                                     "frame_ms")}  # fmt: skip
        kinds = sorted({k for row in rows for k in row["cpu_ms"]})
        out[mode]["cpu_ms"] = {k: statistics.median(row["cpu_ms"].get(k, 0.0) for row in rows)
                               for k in kinds}  # fmt: skip
        # The cores the run got: CPU seconds over wall seconds (2 = this machine, unloaded).
        out[mode]["cores_used"] = sum(out[mode]["cpu_ms"].values()) / out[mode]["frame_ms"]
    # The cores' bound: however the threads are laid out, a frame cannot take less than its
    # CPU time over the cores. A sequential run that keeps c of them busy leaves at most
    # cores / c to gain, less what the overlapped layout adds to the CPU time.
    cores = os.cpu_count() or 1
    seq_cpu = sum(out["sequential"]["cpu_ms"].values())
    ov_cpu = sum(out["overlapped"]["cpu_ms"].values())
    out["cores_bound"] = cores / out["sequential"]["cores_used"] * seq_cpu / ov_cpu
    print(
        f"\n{name}: overlapped {ratio:.2f}x sequential (bound {bound:.2f}x: the sequential "
        f"frame over its longer stage; {100 * out['share_of_bound']:.0f}% of the way; the "
        f"{cores} cores' bound {out['cores_bound']:.2f}x: sequential used "
        f"{out['sequential']['cores_used']:.2f} of them, CPU a frame {seq_cpu:.0f} ms "
        f"sequential, {ov_cpu:.0f} ms overlapped), final frames identical: {identical}"
        + ("" if identical else f" ({differing} values differ, at most by {largest})")
    )
    for mode in ("sequential", "overlapped"):
        row = out[mode]
        cpu = ", ".join(f"{k} {v:.1f}" for k, v in row["cpu_ms"].items())
        print(f"  {mode:>10}: physics {row['physics_ms']:6.1f} ms, render {row['render_ms']:6.1f}"
              f" ms, side by side {row['overlap_ms']:5.1f} ms, frame {row['frame_ms']:6.1f} ms; "
              f"CPU ms a frame: {cpu} ({row['cores_used']:.2f} cores used)")  # fmt: skip
    return out


# Thread layouts, each run in a process of its own (llvmpipe reads LP_NUM_THREADS once, at
# the process's first context): (name, workload, overlapped, engine threads, raster threads);
# None: the engine's default (Culverin 4 job threads, MuJoCo's batch a thread a core,
# llvmpipe a raster thread a core).
LAYOUTS = [
    ("sequential, defaults", "culverin", False, None, None),
    ("sequential, 2 job threads", "culverin", False, 2, None),
    ("overlapped, defaults", "culverin", True, None, None),
    ("overlapped, stage_threads", "culverin", True, "stage", "stage"),
    ("sequential, defaults", "mujoco", False, None, None),
    ("overlapped, defaults", "mujoco", True, None, None),
    ("overlapped, stage_threads", "mujoco", True, "stage", "stage"),
]


def one_run(spec: str) -> None:
    """--one: a single run of a layout in this fresh process; prints its row as JSON."""
    import hashlib
    import json

    from hypergl.pipelining import stage_threads

    workload, overlapped, threads, frames, extra = json.loads(spec)
    threads = stage_threads() if threads == "stage" else threads
    if workload == "culverin":
        row = culverin_run(extra, frames, overlapped, threads)
    else:
        model, fresh = humanoid_parts(extra, 0 if threads is None else threads)
        row = mujoco_run(model, fresh, extra, frames, overlapped)
    row["final"] = hashlib.sha256(np.ascontiguousarray(row["final"]).tobytes()).hexdigest()
    print(json.dumps(row))


def layouts(args) -> dict:
    """--layouts: every layout of LAYOUTS a process each, the order rotating every round;
    per round each layout's frame against the faster sequential layout of its workload."""
    import json
    import subprocess

    from hypergl.pipelining import stage_threads

    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    chosen = [lay for lay in LAYOUTS if args.only in (None, lay[1])]
    for index in range(args.repeat):
        for name, workload, overlapped, threads, raster in chosen[index:] + chosen[:index]:
            env = dict(os.environ)
            raster = stage_threads() if raster == "stage" else raster
            if raster is not None:
                env["LP_NUM_THREADS"] = str(raster)
            size = (args.frames, args.bodies) if workload == "culverin" else (
                args.mujoco_frames, args.worlds)  # fmt: skip
            spec = json.dumps([workload, overlapped, threads, *size])
            done = subprocess.run([sys.executable, __file__, "--one", spec], env=env,
                                  capture_output=True, text=True, check=True)  # fmt: skip
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row["round"] = index
            rows[(workload, name)].append(row)
            print(f"round {index + 1} {workload} {name}: {row['frame_ms']:.1f} ms a frame",
                  flush=True)  # fmt: skip
    results: dict = {}
    for workload in dict.fromkeys(lay[1] for lay in chosen):
        mine = {name: got for (w, name), got in rows.items() if w == workload}
        sequential = [got for name, got in mine.items() if name.startswith("sequential")]
        best_sequential = [min(got[i]["frame_ms"] for got in sequential)
                           for i in range(args.repeat)]  # fmt: skip
        finals = {row["final"] for got in mine.values() for row in got}
        print(f"\n{workload} thread layouts ({args.repeat} rounds, a process a run; final "
              f"frames identical across all: {len(finals) == 1}):")  # fmt: skip
        out = {"identical_final_frames": len(finals) == 1}
        for name, got in mine.items():
            cpu = {k: statistics.median(r["cpu_ms"].get(k, 0.0) for r in got)
                   for k in sorted({k for r in got for k in r["cpu_ms"]})}  # fmt: skip
            frame = statistics.median(r["frame_ms"] for r in got)
            ratio = statistics.median(best_sequential[r["round"]] / r["frame_ms"] for r in got)
            total = sum(cpu.values())
            out[name] = {"frame_ms": frame, "vs_best_sequential": ratio, "cpu_ms": cpu,
                         "cores_used": total / frame}  # fmt: skip
            split = ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
            print(f"  {name:>26}: frame {frame:6.1f} ms, {ratio:.2f}x the best sequential; CPU "
                  f"ms a frame {total:.0f} ({split}; {total / frame:.2f} cores used)")  # fmt: skip
        results[workload] = out
    return results


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=3)
    p.add_argument("--bodies", type=int, default=10_000)
    p.add_argument("--frames", type=int, default=120, help="demo frames a run (default 120)")
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--mujoco-frames", type=int, default=60)
    p.add_argument("--vector-env", default="HalfCheetah-v5")
    p.add_argument("--vector-envs", type=int, default=16)
    p.add_argument("--vector-steps", type=int, default=100)
    p.add_argument("--vector-parts", type=int, default=2)
    p.add_argument("--only", choices=("culverin", "mujoco", "vector"),
                   help="one of the workloads")  # fmt: skip
    p.add_argument("--layouts", action="store_true",
                   help="compare the thread layouts of LAYOUTS, a process a run")  # fmt: skip
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        one_run(args.one)
        return
    if args.layouts:
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        results = {"layouts": layouts(args), "load_before": os.getloadavg()[0]}
        write_json(args.json, results)
        return
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; nice "
          f"{os.nice(0)}")  # fmt: skip
    results: dict = {"cores": os.cpu_count(), "load_before": os.getloadavg()[0]}
    workloads = []
    if args.only in (None, "culverin"):
        from hypergl.pipelining import stage_threads

        # overlapped: Jolt's job threads as the demo sets them (llvmpipe's are the process's)
        def culverin(overlapped: bool) -> dict:
            threads = stage_threads() if overlapped else None
            return culverin_run(args.bodies, args.frames, overlapped, threads)

        workloads.append(("culverin", culverin))
    if args.only in (None, "mujoco"):
        model, fresh = humanoid_parts(args.worlds)
        workloads.append(("mujoco", lambda o: mujoco_run(model, fresh, args.worlds,
                                                         args.mujoco_frames, o)))  # fmt: skip
    if args.only in (None, "vector"):
        env_id, envs, steps, parts = (args.vector_env, args.vector_envs, args.vector_steps,
                                      args.vector_parts)  # fmt: skip
        workloads.append(("vector", lambda o: vector_run(env_id, envs, steps, parts if o else 1)))
    rounds: dict[str, list[tuple[dict, dict]]] = {name: [] for name, _ in workloads}
    for index in range(args.repeat):
        for name, run in workloads:
            order = (False, True) if index % 2 == 0 else (True, False)  # alternate who's first
            got = {}
            for overlapped in order:
                started = time.perf_counter()
                got[overlapped] = run(overlapped)
                mode = "overlapped" if overlapped else "sequential"
                print(f"round {index + 1} {name} {mode}: {got[overlapped]['frame_ms']:.1f} ms a "
                      f"frame ({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
            rounds[name].append((got[False], got[True]))
    for name, _ in workloads:
        results[name] = summary(name, rounds[name])
        results[f"{name}_overlapped_vs_sequential"] = results[name]["ratio"]
    results["load_after"] = os.getloadavg()[0]
    results["bodies"], results["frames"] = args.bodies, args.frames
    results["worlds"], results["mujoco_frames"] = args.worlds, args.mujoco_frames
    results["vector_env"], results["vector_envs"] = args.vector_env, args.vector_envs
    print(f"load average after: {results['load_after']:.1f}")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
