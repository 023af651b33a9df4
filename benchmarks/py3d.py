"""py_3d (py3dengine 0.0.4) scenes: py_3d's CPU renderer vs py_gpu's adapter as py_gpu 0.0.1
shipped it vs the adapter now (and now without GPU-resident geometry), frames/s, plus the
parity table.

    .venv/bin/python benchmarks/py3d.py [--repeat N] [--json out.json] [--backend auto]

Scenes: py_3d's render benchmark scene (``examples/render_benchmark.py``, 372 triangles, the
camera moving every frame as ``gpu_render_benchmark.py`` moves it) and a scene of six spheres,
20,880 triangles, each at 320x180 and 640x360.  The renderers run interleaved, each in a
process of its own, one frame each per round, medians reported.  The old adapter is
``LegacyPy3DRasterRenderer(reference_compatible=False)`` on the same py_gpu backend.  Parity:
for py_3d's example scenes, the share of pixels within 8/255 of py_3d's CPU renderer.
"""

from __future__ import annotations

import sys
from itertools import count
from pathlib import Path

import numpy as np
from _common import interleaved_in_processes, median, pairwise_ratio, parser, write_json

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packages" / "py-gpu" / "tests"))
import py3d_scenes  # noqa: E402
import py3d_wintypes_shim  # noqa: E402, F401  (py3dengine 0.0.4 on Linux)

SIZES = ((320, 180), (640, 360))


def rgb_of(buffer) -> np.ndarray:
    data = np.frombuffer(bytes(buffer.to_rgb_bytes()), dtype=np.uint8)
    return data.reshape(buffer.height, buffer.width, 3).astype(np.int16)


def parity_table(backend: str) -> dict[str, float]:
    from py_3d import CPURenderer

    from py_gpu.adapters.py3d import Py3DRasterRenderer

    renderer = Py3DRasterRenderer(prefer_backend=backend)
    table = {}
    for name, make in py3d_scenes.SCENES.items():
        scene, camera, settings = make()
        ours = rgb_of(renderer.render(scene, camera, settings))
        reference = rgb_of(CPURenderer().render(scene, camera, settings))
        table[name] = float((np.abs(ours - reference).max(axis=2) <= 8).mean())
    return table


VARIANTS = ["py3d_cpu", "adapter_001", "adapter_now", "now_arrays"]


def make_variant(name: str, scene_name: str, width: int, height: int, backend: str):
    """(run, read) of one renderer in the process that times it: ``run`` draws one frame, the
    camera moving every frame; ``read`` says how the last frame was drawn."""
    from py_3d import CPURenderer, RenderEngine

    from py_gpu.adapters.py3d import LegacyPy3DRasterRenderer, Py3DRasterRenderer

    if scene_name == "benchmark":
        scene = py3d_scenes.benchmark_scene_objects()
        settings = py3d_scenes.benchmark_settings(width, height)
    else:
        scene, _, settings = py3d_scenes.dense_scene(width, height)
    renderer = {
        "py3d_cpu": lambda: CPURenderer(),
        "adapter_001": lambda: LegacyPy3DRasterRenderer(
            reference_compatible=False, prefer_backend=backend
        ),
        "adapter_now": lambda: Py3DRasterRenderer(prefer_backend=backend),
        "now_arrays": lambda: Py3DRasterRenderer(prefer_backend=backend, resident=False),
    }[name]()
    engine, index = RenderEngine(renderer), count()

    def run():
        engine.render(scene, py3d_scenes.benchmark_camera(next(index)), settings)

    def read():
        stats = getattr(renderer, "stats", {})
        if stats.get("reference"):
            return "py_3d reference"
        return "resident" if stats.get("resident") else "arrays"

    return run, read


def frames(scene_name: str, width: int, height: int, backend: str, repeat: int):
    """Each renderer in a process of its own (GL contexts of different libraries in one
    process disturb each other on llvmpipe), taking turns frame by frame."""
    options = {"scene_name": scene_name, "width": width, "height": height, "backend": backend}
    samples, paths = interleaved_in_processes("py3d", VARIANTS, repeat, **options)
    assert paths["adapter_now"] != "py_3d reference"  # drawn on the GPU, not by py_3d
    return samples, paths["adapter_now"]


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--backend", default="auto", help="py_gpu backend (default %(default)s)")
    args = p.parse_args()
    from py_gpu import select_backend

    backend_name = type(select_backend(args.backend)).__name__
    results: dict = {"backend": backend_name, "rows": []}
    print(f"py_gpu backend: {backend_name}")
    print(f"{'scene':>10} {'size':>8} {'py_3d cpu':>10} {'0.0.1':>8} {'now':>8} {'arrays':>8}")
    for scene_name in ("benchmark", "dense"):
        for width, height in SIZES:
            samples, path = frames(scene_name, width, height, args.backend, args.repeat)
            fps = {name: 1.0 / median(values) for name, values in samples.items()}
            row = {
                "scene": scene_name,
                "size": f"{width}x{height}",
                "path": path,
                "fps": fps,
                "vs_cpu": pairwise_ratio(samples["py3d_cpu"], samples["adapter_now"]),
                "vs_001": pairwise_ratio(samples["adapter_001"], samples["adapter_now"]),
            }
            results["rows"].append(row)
            print(
                f"{scene_name:>10} {row['size']:>8} {fps['py3d_cpu']:10.1f} "
                f"{fps['adapter_001']:8.1f} {fps['adapter_now']:8.1f} {fps['now_arrays']:8.1f}"
                f"  frames/s ({row['vs_cpu']:.1f}x py_3d, {row['vs_001']:.1f}x 0.0.1; now: {path})"
            )
    headline = results["rows"][0]
    results["vs_cpu_benchmark_320"] = headline["vs_cpu"]
    results["vs_001_benchmark_320"] = headline["vs_001"]
    results["parity"] = parity_table(args.backend)
    results["parity_min"] = min(results["parity"].values())
    print("parity (pixels within 8/255 of py_3d's CPU renderer):")
    for name, share in results["parity"].items():
        print(f"  {name:28s} {share * 100:6.2f}%")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
