"""What free threading buys: Python simulation + rendering on N threads, GIL build vs 3.13t.

Each step of a worker is Python-side simulation (a pure-Python particle update
over lists, the kind of work the GIL serialises), a write of the result into a
mapped buffer, one submit of a recorded program that draws it, and a read of
the 64x64 frame. Every thread owns its particle lists (nothing of the
simulation is shared between threads). Three cases, each at 1 and 2 threads:

  own       every thread has its own context and program
  shared    a physics thread and a render thread share one context
  sim       the simulation alone (no GL): the interpreter's own speed and scaling

Both interpreters are CPython 3.13 built from the same Debian source with the
same configure arguments, one with --disable-gil (tools/free_threaded.py; the
environments .venv-ft and .venv-gil are made when missing, the interpreters
once into the cache). Each runs in its own process; rounds alternate GIL,
free-threaded, GIL, ... and ratios are medians of per-round ratios of
throughput (steps/s), printed with their range.

    python benchmarks/free_threaded.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PARTICLES = 20_000
STEPS = 100
SIZE = 64
VERTEX = """#version 430
layout(std430, binding = 0) readonly buffer P { vec2 p[]; };
void main() { gl_Position = vec4(p[gl_VertexID] * 0.001, 0.0, 1.0); gl_PointSize = 1.0; }
"""
FRAGMENT = "#version 430\nout vec4 c; void main() { c = vec4(1.0); }\n"


def simulate(x: list[float], v: list[float]) -> None:
    """One explicit Euler step with a wall bounce: plain Python on purpose."""
    for i in range(len(x)):
        vi = v[i] - 0.01 * x[i]
        xi = x[i] + vi
        if xi > 900.0 or xi < -900.0:
            vi = -vi
        v[i] = vi
        x[i] = xi


class Scene:
    """A context's program drawing PARTICLES/2 points from a mapped buffer."""

    def __init__(self, ctx) -> None:
        import numpy as np

        self.fb = ctx.framebuffer((SIZE, SIZE), depth=None)
        pipe = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, topology="points")
        buffer = ctx.buffer(size=PARTICLES * 4)
        self.positions = buffer.map(np.float32)
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(self.fb)
        cmd.clear(color=(0, 0, 0, 1))
        cmd.bind_pipeline(pipe)
        cmd.bind_storage_buffer(buffer, 0)
        cmd.draw(PARTICLES // 2)
        cmd.end()
        self.cmd = cmd
        self.out = np.empty((SIZE, SIZE, 4), np.uint8)

    def render(self) -> None:
        self.cmd.submit()
        self.fb.read(self.out)


def state() -> tuple[list[float], list[float]]:
    return [float(i % 1000 - 500) for i in range(PARTICLES)], [1.0] * PARTICLES


def own_contexts(threads: int) -> float:
    """Steps per second, `threads` workers each with its own context."""
    import hypergl

    scenes = [Scene(hypergl.context()) for _ in range(threads)]

    def work(scene: Scene) -> None:
        # Lists made on the thread that uses them: on 3.13t an object made on another thread
        # takes the atomic (shared) reference count path, about a third more CPU per step.
        x, v = state()
        for _ in range(STEPS):
            simulate(x, v)
            scene.positions[:] = x
            scene.render()

    return timed([threading.Thread(target=work, args=(s,)) for s in scenes], threads * STEPS)


def shared_context(threads: int) -> float:
    """Steps per second: physics and rendering on one thread, or on two sharing a context."""
    import hypergl

    scene = Scene(hypergl.context())

    def physics() -> None:
        x, v = state()  # made on the thread that uses them (see own_contexts)
        for _ in range(STEPS):
            simulate(x, v)
            scene.positions[:] = x

    def render() -> None:
        for _ in range(STEPS):
            scene.render()

    def both() -> None:
        x, v = state()
        for _ in range(STEPS):
            simulate(x, v)
            scene.positions[:] = x
            scene.render()

    if threads == 1:
        return timed([threading.Thread(target=both)], STEPS)
    return timed([threading.Thread(target=physics), threading.Thread(target=render)], STEPS)


def simulation_only(threads: int) -> tuple[float, float]:
    """(steps per second, CPU ms per step and thread) of the simulation alone, each thread
    on lists of its own. CPU time does not count time spent waiting for a core, so it shows
    the interpreter's cost per step (and any contention between the threads) under load."""
    cpu: list[float] = []

    def work() -> None:
        x, v = state()
        start = time.thread_time()
        for _ in range(STEPS):
            simulate(x, v)
        cpu.append((time.thread_time() - start) * 1e3 / STEPS)

    rate = timed([threading.Thread(target=work) for _ in range(threads)], threads * STEPS)
    return rate, sum(cpu) / len(cpu)


def timed(workers: list[threading.Thread], steps: int) -> float:
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return steps / (time.perf_counter() - start)


def child() -> None:
    """One measurement on this interpreter: JSON on stdout."""
    own_contexts(1)  # warm up: shader compilers, first context
    gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    result = {"gil": gil, "own_1": own_contexts(1), "own_2": own_contexts(2),
              "shared_1": shared_context(1), "shared_2": shared_context(2)}  # fmt: skip
    for threads in (1, 2):
        result[f"sim_{threads}"], result[f"sim_cpu_ms_{threads}"] = simulation_only(threads)
    print(json.dumps(result))


def main() -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT / "tools"))
    from _common import parser, write_json

    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--gil-python", help="default: .venv-gil (3.13 from the same source)")
    p.add_argument("--ft-python", help="default: .venv-ft (3.13t)")
    args = p.parse_args()
    if args.gil_python is None or args.ft_python is None:
        from free_threaded import environment

        args.gil_python = args.gil_python or environment(free_threaded=False)
        args.ft_python = args.ft_python or environment(free_threaded=True)
    rounds: dict[str, list[dict]] = {"gil": [], "ft": []}
    for _ in range(args.repeat):
        for name, python in (("gil", args.gil_python), ("ft", args.ft_python)):
            out = subprocess.run([python, __file__, "--child"], capture_output=True, text=True,
                                 check=True, cwd=ROOT)  # fmt: skip
            rounds[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    if any(r["gil"] for r in rounds["ft"]):
        sys.exit("the free-threaded interpreter ran with the GIL on: a module re-enabled it")
    if not all(r["gil"] for r in rounds["gil"]):
        sys.exit(f"{args.gil_python} is not a GIL build")

    def ratios(key: str, num: str = "ft", den: str = "gil") -> list[float]:
        return sorted(a[key] / b[key] for a, b in zip(rounds[num], rounds[den], strict=True))

    def median_of(name: str, key: str) -> float:
        values = sorted(r[key] for r in rounds[name])
        return values[len(values) // 2]

    def scaling(name: str, case: str) -> list[float]:
        return sorted(r[f"{case}_2"] / r[f"{case}_1"] for r in rounds[name])

    results: dict = {}
    print(f"steps/s ({PARTICLES} particles of Python simulation + submit + {SIZE}x{SIZE} read "
          f"per step; sim: the simulation alone), medians of {args.repeat} alternating rounds, "
          "ratio median [min-max]")  # fmt: skip
    for key in ("own_1", "own_2", "shared_1", "shared_2", "sim_1", "sim_2"):
        gil, ft, r = median_of("gil", key), median_of("ft", key), ratios(key)
        results[f"gil_{key}"], results[f"ft_{key}"] = gil, ft
        results[f"ft_vs_gil_{key}"] = r[len(r) // 2]
        results[f"ft_vs_gil_{key}_range"] = [r[0], r[-1]]
        print(f"  {key:<9} GIL {gil:8.1f}   free-threaded {ft:8.1f}   ratio "
              f"{r[len(r) // 2]:.2f}x [{r[0]:.2f}-{r[-1]:.2f}]")  # fmt: skip
    results["ft_vs_gil_2threads"] = results["ft_vs_gil_own_2"]
    for name in ("gil", "ft"):
        for case in ("own", "sim"):
            r = scaling(name, case)
            results[f"{name}_scaling_{case}"] = r[len(r) // 2]
    print(f"free-threaded vs GIL, 2 threads with their own contexts: "
          f"{results['ft_vs_gil_2threads']:.2f}x   (goal >= 1.6x)")  # fmt: skip
    scale = {key: f"{value:.2f}x" for key, value in results.items() if "_scaling_" in key}
    print(f"2 threads / 1 thread: GIL {scale['gil_scaling_own']}, free-threaded "
          f"{scale['ft_scaling_own']} (simulation alone: GIL {scale['gil_scaling_sim']}, "
          f"free-threaded {scale['ft_scaling_sim']})")  # fmt: skip
    for name in ("gil", "ft"):
        for threads in (1, 2):
            cpu = sorted(r[f"sim_cpu_ms_{threads}"] for r in rounds[name])
            results[f"{name}_sim_cpu_ms_{threads}"] = cpu[len(cpu) // 2]
            results[f"{name}_sim_cpu_ms_{threads}_range"] = [cpu[0], cpu[-1]]
    cpu = {k: v for k, v in results.items() if "_sim_cpu_ms_" in k}
    penalty = cpu["ft_sim_cpu_ms_1"] / cpu["gil_sim_cpu_ms_1"]
    results["ft_sim_cpu_penalty"] = penalty
    print("simulation CPU ms per step and thread, median [min-max]: "
          + ", ".join(f"{k.replace('_sim_cpu_ms_', ' ')} thread(s) {cpu[k]:.2f} "
                      f"[{cpu[k + '_range'][0]:.2f}-{cpu[k + '_range'][1]:.2f}]"
                      for k in cpu if not k.endswith("_range")))  # fmt: skip
    print(f"free-threaded CPU per step: {penalty:.2f}x the GIL build's, so with two idle cores "
          f"2 threads of simulation reach at most {2 / penalty:.2f}x")  # fmt: skip
    write_json(args.json, results)


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
    else:
        main()
