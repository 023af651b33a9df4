"""What free threading buys: Python simulation + rendering on N threads, GIL build vs 3.13t.

Each step of a worker is Python-side simulation (a pure-Python particle update
over lists, the kind of work the GIL serialises), a write of the result into a
mapped buffer, one submit of a recorded program that draws it, and a read of
the 64x64 frame. Two cases, each at 1 and 2 threads:

  own       every thread has its own context and program
  shared    a physics thread and a render thread share one context

Each interpreter runs in its own process; rounds alternate GIL, free-threaded,
GIL, ... and ratios are medians of per-round ratios of throughput (steps/s).
The GIL build is .venv's Python, the free-threaded one .venv-ft's (made by
``python3 tools/dev.py test --free-threaded``).

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
    x, v = state()

    def physics() -> None:
        for _ in range(STEPS):
            simulate(x, v)
            scene.positions[:] = x

    def render() -> None:
        for _ in range(STEPS):
            scene.render()

    def both() -> None:
        for _ in range(STEPS):
            simulate(x, v)
            scene.positions[:] = x
            scene.render()

    if threads == 1:
        return timed([threading.Thread(target=both)], STEPS)
    return timed([threading.Thread(target=physics), threading.Thread(target=render)], STEPS)


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
    print(json.dumps(result))


def main() -> None:
    sys.path.insert(0, str(HERE))
    from _common import parser, write_json

    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--gil-python", default=str(ROOT / ".venv" / "bin" / "python"))
    p.add_argument("--ft-python", default=str(ROOT / ".venv-ft" / "bin" / "python"))
    args = p.parse_args()
    if not Path(args.ft_python).exists():
        sys.exit(f"no free-threaded Python at {args.ft_python}: run "
                 "python3 tools/dev.py test --free-threaded first")  # fmt: skip
    rounds: dict[str, list[dict]] = {"gil": [], "ft": []}
    for _ in range(args.repeat):
        for name, python in (("gil", args.gil_python), ("ft", args.ft_python)):
            out = subprocess.run([python, __file__, "--child"], capture_output=True, text=True,
                                 check=True, cwd=ROOT)  # fmt: skip
            rounds[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    if any(r["gil"] for r in rounds["ft"]):
        sys.exit("the free-threaded interpreter ran with the GIL on: a module re-enabled it")

    def median_ratio(key: str) -> float:
        pairs = sorted(f[key] / g[key] for f, g in zip(rounds["ft"], rounds["gil"], strict=True))
        return pairs[len(pairs) // 2]

    def median_of(name: str, key: str) -> float:
        values = sorted(r[key] for r in rounds[name])
        return values[len(values) // 2]

    results: dict = {}
    print(f"steps/s ({PARTICLES} particles of Python simulation + submit + {SIZE}x{SIZE} read "
          f"per step), medians of {args.repeat} alternating rounds")  # fmt: skip
    for key in ("own_1", "own_2", "shared_1", "shared_2"):
        gil, ft = median_of("gil", key), median_of("ft", key)
        results[f"gil_{key}"], results[f"ft_{key}"] = gil, ft
        results[f"ft_vs_gil_{key}"] = median_ratio(key)
        print(f"  {key:<9} GIL {gil:8.1f}   free-threaded {ft:8.1f}   ratio "
              f"{results[f'ft_vs_gil_{key}']:.2f}x")  # fmt: skip
    results["ft_vs_gil_2threads"] = results["ft_vs_gil_own_2"]
    for name in ("gil", "ft"):
        results[f"{name}_scaling_own"] = median_of(name, "own_2") / median_of(name, "own_1")
    print(f"free-threaded vs GIL, 2 threads with their own contexts: "
          f"{results['ft_vs_gil_2threads']:.2f}x   (goal >= 1.6x)")  # fmt: skip
    print(f"2 threads / 1 thread: GIL {results['gil_scaling_own']:.2f}x, free-threaded "
          f"{results['ft_scaling_own']:.2f}x")  # fmt: skip
    write_json(args.json, results)


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
    else:
        main()
