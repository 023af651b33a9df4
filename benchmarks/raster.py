"""Screen-space raster throughput: every py_gpu backend vs py-gpu 0.0.1 vs a hand-written floor.

Fixtures: 1k, 10k and 100k seeded random triangles at 640x360 in the shape of py-gpu 0.0.1's
``examples/benchmark_raster.py`` (centres uniform over the frame, sizes 8..48 px, depth 0.2..8);
triangle size scales with sqrt(1000/N) so overdraw stays near the 1k fixture's (about 8).
In the same run:

* our backends (cpu on the 1k fixture only: it is the pure-Python reference; wgpu on
  whatever Vulkan/Metal/D3D12 adapter it finds, lavapipe here),
* py-gpu 0.0.1 from PyPI, installed in its own virtual environment
  (``.bench-venvs/py-gpu-0.0.1``; ``--setup-seed`` creates it) and run in a subprocess worker,
  its ModernGL backend forced onto headless EGL,
* the **floor**: hand-written moderngl with a persistent vertex buffer, depth test and RGBA
  readback of the same triangles (it ignores py_gpu's convention: no snapping, its own depth);
* **floor_convention**: the same hand-written moderngl honouring the convention the backends
  keep (x, y snapped to 1/256 px, the affine depth per vertex, a guard-band viewport), so that
  the cost of the convention itself is measured in the same run;
* **sync vs async** per GPU backend: blocks of frames rendered with ``render`` (draw, wait,
  read) against the same number through ``py_gpu.readback.stream`` (``render_async``, two frames
  in flight, the drain of the last ones included), blocks interleaved; once with nothing else
  to do per frame, once with a consumer that waits ``--consumer-ms`` per frame (I/O-bound,
  like a video or network writer: the case async readback is for).

Each cell renders the same batch repeatedly (after a warm-up) and reports the median fps; the
GPU backends and both floors run interleaved, frame by frame.

    python benchmarks/raster.py [--repeat N] [--sizes 1000,10000,100000] [--json FILE]
                                [--async-block N] [--no-seed]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED_VENV = ROOT / ".bench-venvs" / "py-gpu-0.0.1"
WIDTH, HEIGHT = 640, 360
OUR_BACKENDS = ("hypergl", "moderngl", "wgpu", "numba", "numpy", "cpu")
SEED_BACKENDS = ("moderngl", "numpy", "cpu")
GPU_BACKENDS = ("hypergl", "moderngl", "wgpu")  # measured interleaved with the floors
ASYNC_IN_FLIGHT = 2
CPU_SIZES = (1000,)  # the pure-Python rasterizers are only run on the 1k fixture


def fixture(count: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """``(xyz (N, 3, 3) float64, rgb (N, 3) uint8)`` seeded random triangles.

    The shape of py-gpu 0.0.1's ``examples/benchmark_raster.py``: an apex at ``(cx, cy - s)``
    and a base from ``(cx - s, cy + s)`` to ``(cx + s, cy + s)`` with ``s`` uniform in 8..48
    pixels (times sqrt(1000/N) here), centres uniform over the frame, a depth uniform in 0.2..8
    per triangle with +-0.1 jitter on the base vertices, colours 40..254.
    """
    rng = np.random.default_rng(seed * 1_000_003 + count)
    scale = math.sqrt(1000.0 / count)
    cx = rng.uniform(0.0, WIDTH, count)
    cy = rng.uniform(0.0, HEIGHT, count)
    size = rng.uniform(8.0, 48.0, count) * scale
    z = rng.uniform(0.2, 8.0, count)
    jitter = rng.uniform(-0.1, 0.1, (count, 2))
    xyz = np.empty((count, 3, 3))
    xyz[:, 0] = np.stack([cx, cy - size, z], axis=1)
    xyz[:, 1] = np.stack([cx - size, cy + size, z + jitter[:, 0]], axis=1)
    xyz[:, 2] = np.stack([cx + size, cy + size, z + jitter[:, 1]], axis=1)
    rgb = rng.integers(40, 255, (count, 3), dtype=np.uint8)
    return xyz, rgb


def measure(render, repeat: int, budget_s: float) -> dict:
    """Median fps of ``render()`` over up to ``repeat`` frames (stops after ``budget_s``)."""
    render()  # warm-up: JIT, shader compile, first upload
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < repeat and (not samples or time.perf_counter() - start < budget_s):
        t0 = time.perf_counter()
        render()
        samples.append(time.perf_counter() - t0)
    return {"fps": 1.0 / statistics.median(samples), "frames": len(samples)}


def progress(what: str) -> None:
    print(f"  measuring {what} ...", file=sys.stderr, flush=True)


def measure_interleaved(renders: dict, repeat: int, budget_s: float) -> dict[str, float]:
    """Median fps of each render, run A B C, A B C ... so that drift hits all alike."""
    for render in renders.values():
        render()  # warm-up
    samples: dict[str, list[float]] = {name: [] for name in renders}
    start = time.perf_counter()
    while len(samples[next(iter(renders))]) < repeat and (
        not samples[next(iter(renders))] or time.perf_counter() - start < budget_s * len(renders)
    ):
        for name, render in renders.items():
            t0 = time.perf_counter()
            render()
            samples[name].append(time.perf_counter() - t0)
    return {name: 1.0 / statistics.median(times) for name, times in samples.items()}


# ----------------------------------------------------------------------------- floor

FLOOR_VS = """
#version 330
in vec3 in_position;
in vec4 in_color;
out vec4 v_color;
void main() {
    gl_Position = vec4(in_position.x * (2.0 / 640.0) - 1.0, in_position.y * (2.0 / 360.0) - 1.0,
                       in_position.z * 0.25 - 1.0, 1.0);
    v_color = in_color;
}
"""
FLOOR_FS = """
#version 330
in vec4 v_color;
out vec4 frag_color;
void main() { frag_color = v_color; }
"""


CONVENTION_VS = """
#version 330
uniform vec3 u_scale;
in vec3 in_position;
in vec4 in_color;
out vec4 v_color;
void main() {
    gl_Position = vec4((in_position.xy + u_scale.z) * u_scale.xy - 1.0,
                       in_position.z * 2.0 - 1.0, 1.0);
    v_color = in_color;
}
"""


def floor_renderer(xyz: np.ndarray, rgb: np.ndarray, *, convention: bool = False):
    """Hand-written moderngl: persistent VBO, depth test, RGBA readback.

    ``convention``: snap x, y to 1/256 px, write py_gpu's affine depth per vertex and draw
    through the guard-band viewport, as the backends do.
    """
    import moderngl

    from py_gpu.convention import SUBPIXEL, affine_depth, guard

    ctx = moderngl.create_standalone_context(require=330, backend="egl")
    vertex_shader = CONVENTION_VS if convention else FLOOR_VS
    program = ctx.program(vertex_shader=vertex_shader, fragment_shader=FLOOR_FS)
    data = np.empty(len(xyz) * 3, dtype=[("p", np.float32, 3), ("c", np.uint8, 4)])
    data["p"] = xyz.reshape(-1, 3)
    if convention:
        data["p"][:, :2] = (np.rint(xyz[:, :, :2] * SUBPIXEL) / SUBPIXEL).reshape(-1, 2)
        data["p"][:, 2] = affine_depth(xyz[:, :, 2]).reshape(-1)
        g = guard(WIDTH, HEIGHT)
        program["u_scale"].value = (2.0 / (WIDTH + 2 * g), 2.0 / (HEIGHT + 2 * g), g)
    data["c"][:, :3] = np.repeat(rgb, 3, axis=0)
    data["c"][:, 3] = 255
    vbo = ctx.buffer(data.tobytes())
    vao = ctx.vertex_array(program, [(vbo, "3f 4f1", "in_position", "in_color")])
    fbo = ctx.framebuffer(
        [ctx.renderbuffer((WIDTH, HEIGHT), 4)], ctx.depth_renderbuffer((WIDTH, HEIGHT))
    )
    ctx.enable(moderngl.DEPTH_TEST)

    def render():
        with ctx:
            fbo.use()
            if convention:
                ctx.viewport = (-g, -g, WIDTH + 2 * g, HEIGHT + 2 * g)
            fbo.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)
            vao.render()
            return fbo.read(components=4)

    return render, ctx


def measure_sync_async(backend, batch, rounds: int, block: int, budget_s: float,
                       consumer_s: float = 0.0) -> dict:  # fmt: skip
    """fps of ``block`` frames through ``render`` vs through ``stream`` (frames in flight),
    blocks interleaved; the median block of each. ``consumer_s``: the consumer sleeps that
    long per frame (an I/O-bound consumer: a network or disk writer).

    Also the CPU time of a sync frame over all of the process's threads (llvmpipe's
    rasterizer threads are ours): overlapping can at best spread that time over every
    core, so ``bound`` = sync frame time / (CPU time per frame / cores) is the most
    async can gain here when the consumer needs no time of its own."""
    from py_gpu.readback import stream

    def consume():
        if consumer_s:
            time.sleep(consumer_s)

    def sync_block():
        for _ in range(block):
            backend.render(batch, WIDTH, HEIGHT)
            consume()

    def async_block():
        for _ in stream(backend, [batch] * block, WIDTH, HEIGHT, in_flight=ASYNC_IN_FLIGHT):
            consume()

    sync_block()
    async_block()  # warm-up: programs, staging rings
    times: dict[str, list[float]] = {"sync": [], "async": []}
    cpu: list[float] = []
    start = time.perf_counter()
    while len(times["sync"]) < rounds and (
        not times["sync"] or time.perf_counter() - start < budget_s * 2
    ):
        for name, run in (("sync", sync_block), ("async", async_block)):
            c0, t0 = time.process_time(), time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
            if name == "sync":
                cpu.append(time.process_time() - c0)  # a sleeping consumer adds none
    result = {name: block / statistics.median(values) for name, values in times.items()}
    cpu_s = statistics.median(cpu) / block
    result["cpu_ms"] = cpu_s * 1e3
    result["bound"] = (1.0 / result["sync"]) / (cpu_s / (os.cpu_count() or 1))
    return result


# ----------------------------------------------------------------------------- seed worker

SEED_WORKER = r"""
import json, statistics, sys, time
import numpy as np
import moderngl

_standalone = moderngl.create_standalone_context
def _egl_standalone(*args, **kwargs):
    kwargs["backend"] = "egl"
    return _standalone(*args, **kwargs)
moderngl.create_standalone_context = _egl_standalone
_create = moderngl.create_context
def _egl_create(*args, **kwargs):
    kwargs.setdefault("standalone", True)
    kwargs["backend"] = "egl"
    return _create(*args, **kwargs)
moderngl.create_context = _egl_create

import py_gpu
from py_gpu import RasterBatch, ScreenTriangle, ScreenVertex
from py_gpu.raster import CPURasterBackend
from py_gpu.numpy_raster import NumpyRasterBackend
from py_gpu.moderngl_backend import ModernGLRasterBackend

args = json.loads(sys.argv[1])
classes = {"cpu": CPURasterBackend, "numpy": NumpyRasterBackend, "moderngl": ModernGLRasterBackend}
out = {"version": getattr(py_gpu, "__version__", "0.0.1"), "fps": {}, "frames": {}, "errors": {}}
for size in args["sizes"]:
    data = np.load(args["fixtures"][str(size)])
    xyz, rgb = data["xyz"].tolist(), data["rgb"].tolist()
    batch = RasterBatch([
        ScreenTriangle(ScreenVertex(*t[0]), ScreenVertex(*t[1]), ScreenVertex(*t[2]), tuple(c))
        for t, c in zip(xyz, rgb)
    ])
    for name in args["backends"]:
        if name == "cpu" and size not in args["cpu_sizes"]:
            continue
        try:
            backend = classes[name]()
            render = lambda: backend.render(batch, 640, 360)
            render()
            samples = []
            start = time.perf_counter()
            while len(samples) < args["repeat"] and (
                not samples or time.perf_counter() - start < args["budget"]
            ):
                t0 = time.perf_counter()
                render()
                samples.append(time.perf_counter() - t0)
            out["fps"].setdefault(name, {})[str(size)] = 1.0 / statistics.median(samples)
            out["frames"].setdefault(name, {})[str(size)] = len(samples)
        except Exception as exc:
            out["errors"][name] = f"{type(exc).__name__}: {exc}"
print("SEED-RESULT " + json.dumps(out))
"""


def setup_seed_venv() -> None:
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(SEED_VENV)], check=True)
    pip = [str(SEED_VENV / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "py-gpu==0.0.1", "numpy", "moderngl", "glcontext"], check=True)


def run_seed(fixtures: dict[int, Path], sizes, repeat: int, budget: float) -> dict:
    python = SEED_VENV / "bin" / "python"
    if not python.exists():
        return {"error": f"no seed environment at {SEED_VENV} (run with --setup-seed)"}
    args = {
        "sizes": list(sizes),
        "fixtures": {str(k): str(v) for k, v in fixtures.items()},
        "backends": list(SEED_BACKENDS),
        "cpu_sizes": list(CPU_SIZES),
        "repeat": repeat,
        "budget": budget,
    }
    result = subprocess.run(
        [str(python), "-c", SEED_WORKER, json.dumps(args)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),  # never import the working tree's py_gpu
    )
    for line in result.stdout.splitlines():
        if line.startswith("SEED-RESULT "):
            return json.loads(line[len("SEED-RESULT ") :])
    return {"error": f"seed worker failed: {result.stderr.strip()[-500:]}"}


# ----------------------------------------------------------------------------- main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", type=Path, help="write fps per backend and fixture plus ratios")
    p.add_argument("--repeat", type=int, default=30, help="frames per cell (default %(default)s)")
    p.add_argument("--budget", type=float, default=3.0, help="seconds per cell at most")
    p.add_argument("--sizes", default="1000,10000,100000", help="triangle counts")
    p.add_argument("--no-seed", action="store_true", help="skip py-gpu 0.0.1")
    p.add_argument("--async-block", type=int, default=10,
                   help="frames per sync/async block (default %(default)s)")  # fmt: skip
    p.add_argument("--async-sizes", default="1000", help="triangle counts for sync vs async")
    p.add_argument("--consumer-ms", type=float, default=5.0,
                   help="also measure sync vs async with a consumer that waits this long per "
                        "frame (I/O-bound; 0: skip; default %(default)s)")  # fmt: skip
    p.add_argument("--setup-seed", action="store_true", help="create the py-gpu 0.0.1 venv")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.setup_seed and not (SEED_VENV / "bin" / "python").exists():
        setup_seed_venv()

    import py_gpu

    fixtures = {size: fixture(size) for size in sizes}
    fps: dict[str, dict[str, float]] = {}
    missing: dict[str, str] = {}
    agreement: dict[str, float] = {}
    notes = ["cpu backends (ours and 0.0.1's) run on the 1k fixture only: pure Python"]

    reference_ids = {}
    backends = {}
    for name in OUR_BACKENDS:
        try:
            backends[name] = py_gpu.select_backend(name)
        except Exception as exc:
            missing[name] = str(exc)
    # The GPU backends and both floors run interleaved per fixture: their ratios
    # are the targets, and this machine drifts.
    for size in sizes:
        progress(f"{', '.join(n for n in GPU_BACKENDS if n in backends)} and the floors, "
                 f"{size} triangles (interleaved)")  # fmt: skip
        batch = py_gpu.RasterBatch.from_arrays(*fixtures[size])
        render_floor, floor_ctx = floor_renderer(*fixtures[size])
        render_conv, conv_ctx = floor_renderer(*fixtures[size], convention=True)
        renders = {
            name: (lambda b=backends[name], bt=batch: b.render(bt, WIDTH, HEIGHT))
            for name in GPU_BACKENDS
            if name in backends
        }
        renders["floor"] = render_floor
        renders["floor_convention"] = render_conv
        for name, value in measure_interleaved(renders, args.repeat, args.budget).items():
            fps.setdefault(name, {})[str(size)] = value
        floor_ctx.release()
        conv_ctx.release()
    async_fps: dict[str, dict[str, dict[str, float]]] = {}
    for size in [int(s) for s in args.async_sizes.split(",") if int(s) in fixtures]:
        batch = py_gpu.RasterBatch.from_arrays(*fixtures[size])
        for name in GPU_BACKENDS:
            if name not in backends:
                continue
            progress(f"{name} sync vs async, {size} triangles (blocks of {args.async_block})")
            result = measure_sync_async(backends[name], batch, max(3, args.repeat // 3),
                                        args.async_block, args.budget)  # fmt: skip
            async_fps.setdefault(name, {})[str(size)] = result
            if args.consumer_ms > 0:
                progress(f"{name} sync vs async, {size} triangles, consumer waiting "
                         f"{args.consumer_ms:g} ms per frame")  # fmt: skip
                result = measure_sync_async(backends[name], batch, max(3, args.repeat // 3),
                                            args.async_block, args.budget,
                                            args.consumer_ms / 1000.0)  # fmt: skip
                async_fps.setdefault(name, {})[f"{size}+io"] = result
    for name, backend in backends.items():
        for size in sizes:
            if name not in GPU_BACKENDS and (name != "cpu" or size in CPU_SIZES):
                progress(f"{name}, {size} triangles")
            if name == "cpu" and size not in CPU_SIZES:
                continue
            xyz, rgb = fixtures[size]
            batch = py_gpu.RasterBatch.from_arrays(xyz, rgb)
            if name not in GPU_BACKENDS:
                result = measure(lambda b=backend, bt=batch: b.render(bt, WIDTH, HEIGHT),
                                 args.repeat, args.budget)  # fmt: skip
                fps.setdefault(name, {})[str(size)] = result["fps"]
            if size == sizes[0]:
                frame = backend.render(batch, WIDTH, HEIGHT).to_numpy()
                if "ref" not in reference_ids:
                    ref = py_gpu.select_backend("numpy").render(batch, WIDTH, HEIGHT).to_numpy()
                    reference_ids["ref"] = ref
                agreement[name] = float((frame == reference_ids["ref"]).all(axis=2).mean())

    seed: dict = {}
    if not args.no_seed:
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            for size, (xyz, rgb) in fixtures.items():
                paths[size] = Path(tmp) / f"fixture-{size}.npz"
                np.savez(paths[size], xyz=xyz, rgb=rgb)
            seed = run_seed(paths, sizes, args.repeat, args.budget)
        if "error" in seed:
            missing["seed"] = seed["error"]
        else:
            for name, cells in seed["fps"].items():
                fps[f"seed_{name}"] = cells
            for name, error in seed.get("errors", {}).items():
                missing[f"seed_{name}"] = error

    def ratio(a: str, b: str, size: int) -> float | None:
        x, y = fps.get(a, {}).get(str(size)), fps.get(b, {}).get(str(size))
        return None if x is None or y is None else x / y

    def async_ratio(name: str, size: int | str) -> float | None:
        cell = async_fps.get(name, {}).get(str(size))
        return None if cell is None else cell["async"] / cell["sync"]

    ratios = {
        "wgpu_vs_moderngl_1k": ratio("wgpu", "moderngl", 1000),
        "async_vs_sync_1k": async_ratio("hypergl", 1000),
        "moderngl_async_vs_sync_1k": async_ratio("moderngl", 1000),
        "wgpu_async_vs_sync_1k": async_ratio("wgpu", 1000),
        "async_vs_sync_1k_io_consumer": async_ratio("hypergl", "1000+io"),
        "async_bound_1k": async_fps.get("hypergl", {}).get("1000", {}).get("bound"),
        "hypergl_vs_floor_convention_100k": ratio("hypergl", "floor_convention", 100000),
        "floor_convention_vs_floor_100k": ratio("floor_convention", "floor", 100000),
        "numpy_vs_seed_numpy_1k": ratio("numpy", "seed_numpy", 1000),
        "numba_vs_seed_numpy_1k": ratio("numba", "seed_numpy", 1000),
        "hypergl_vs_seed_moderngl_1k": ratio("hypergl", "seed_moderngl", 1000),
        "hypergl_vs_floor_1k": ratio("hypergl", "floor", 1000),
        "hypergl_vs_floor_100k": ratio("hypergl", "floor", 100000),
        "moderngl_vs_seed_moderngl_1k": ratio("moderngl", "seed_moderngl", 1000),
        "moderngl_vs_floor_1k": ratio("moderngl", "floor", 1000),
        "cpu_vs_seed_cpu_1k": ratio("cpu", "seed_cpu", 1000),
    }
    targets = {
        "numpy_vs_seed_numpy_1k": 2.0,
        "numba_vs_seed_numpy_1k": 20.0,
        "hypergl_vs_seed_moderngl_1k": 2.5,
        "hypergl_vs_floor_1k": 0.9,
        "hypergl_vs_floor_100k": 0.9,
        "async_vs_sync_1k": 1.2,
        "hypergl_vs_floor_convention_100k": 0.9,
    }

    columns = [str(s) for s in sizes]
    print(f"\nraster benchmark, {WIDTH}x{HEIGHT}, median fps (frames <= {args.repeat})")
    print(f"{'backend':<16}" + "".join(f"{int(c) // 1000:>10}k" for c in columns) + "  agree@1st")
    order = [*OUR_BACKENDS, "floor", "floor_convention", *(f"seed_{n}" for n in SEED_BACKENDS)]
    for name in order:
        if name not in fps:
            continue
        cells = "".join(
            f"{fps[name][c]:>11.1f}" if c in fps[name] else f"{'-':>11}" for c in columns
        )
        agree = f"  {agreement[name] * 100:.3f}%" if name in agreement else ""
        print(f"{name:<16}{cells}{agree}")
    for name, reason in missing.items():
        print(f"{name:<16}missing: {reason}")
    if async_fps:
        print(f"\nsync vs async readback, fps (blocks of {args.async_block} frames, "
              f"{ASYNC_IN_FLIGHT} in flight)")  # fmt: skip
        for name, cells in async_fps.items():
            for size, cell in cells.items():
                gain = cell["async"] / cell["sync"]
                count, _, io = size.partition("+")
                what = f"{int(count) // 1000}k" + (f" +{args.consumer_ms:g} ms I/O" if io else "")
                cpu = f"{cell['cpu_ms']:.2f} CPU-ms per frame on {os.cpu_count()} cores"
                bound = "" if io else f"  (at most {cell['bound']:.2f}x: {cpu})"
                print(f"  {name:<10}{what:>14}  sync {cell['sync']:>7.1f}  "
                      f"async {cell['async']:>7.1f}  {gain:.2f}x{bound}")  # fmt: skip
    print("\nratios (target)")
    for key, value in ratios.items():
        target = f" (>= {targets[key]})" if key in targets else ""
        shown = f"{value:.2f}x" if value is not None else "n/a"
        print(f"  {key:<34}{shown}{target}")
    for note in notes:
        print(f"note: {note}")

    if args.json:
        payload = {
            "fps": fps,
            "async_fps": async_fps,
            **ratios,
            "missing": missing,
            "agreement_first_fixture": agreement,
            "meta": {
                "width": WIDTH,
                "height": HEIGHT,
                "sizes": sizes,
                "repeat": args.repeat,
                "seed_version": seed.get("version"),
                "notes": notes,
            },
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
