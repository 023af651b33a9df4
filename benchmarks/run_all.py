"""Run every benchmark in this folder, print one table of ratios, write JSON and a chart.

    python3 tools/dev.py bench            # or: .venv/bin/python benchmarks/run_all.py
    python3 tools/dev.py bench --quick    # fewer rounds, for a quick look

Each script runs in its own process with ``--json``; its headline ratios are
compared with the targets below. Results go to ``benchmarks/results.json`` and,
when matplotlib is installed, a bar chart to ``benchmarks/results.png``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS_JSON = HERE / "results.json"
RESULTS_PNG = HERE / "results.png"

# script -> (rounds for --quick, [(key, what it compares, target, higher is better)])
HEADLINES: dict[str, tuple[int, list[tuple[str, str, float]]]] = {
    "vm_dispatch": (30, [("ratio", "VM vs Python no-op call loop", 10.0)]),
    "hgb_load": (3, [("ratio", ".hgb load + verify vs re-recording", 20.0)]),
    "draws_10k": (
        5,
        [
            ("vm_vs_moderngl", "10k draws: VM vs moderngl loop", 2.0),
            ("mdi_vs_moderngl", "10k draws: one MDI vs moderngl loop", 2.0),
        ],
    ),
    "state_heavy": (
        3,
        [
            ("vm_binds_vs_moderngl", "10k textured objects: VM binds vs moderngl loop", 1.4),
            ("azdo_vs_moderngl", "10k textured objects: one-call draw list vs moderngl", 20.0),
            (
                "vm_ranges_vs_moderngl_ranges",
                "10k textured objects: VM vs moderngl, uniform-buffer ranges",
                1.4,
            ),
        ],
    ),
    "raster": (
        3,
        [
            ("numpy_vs_seed_numpy_1k", "raster 1k: numpy vs py-gpu 0.0.1 numpy", 2.0),
            ("numba_vs_seed_numpy_1k", "raster 1k: numba vs py-gpu 0.0.1 numpy", 20.0),
            ("hypergl_vs_seed_moderngl_1k", "raster 1k: hypergl vs py-gpu 0.0.1 moderngl", 2.5),
            ("hypergl_vs_floor_1k", "raster 1k: hypergl vs hand-written floor", 0.9),
            ("hypergl_vs_floor_100k", "raster 100k: hypergl vs hand-written floor", 0.9),
            (
                "hypergl_vs_floor_convention_100k",
                "raster 100k: hypergl vs floor under py-gpu's convention",
                0.9,
            ),
            ("async_vs_sync_1k", "raster 1k: hypergl async vs sync readback", 1.2),
            (
                "async_vs_sync_1k_io_consumer",
                "raster 1k: async vs sync, consumer waiting 5 ms a frame",
                1.2,
            ),
        ],
    ),
    "culverin_sync": (
        5,
        [
            ("vs_per_body", "10k bodies: bridge sync vs per-body Python", 200.0),
            ("vs_render_state", "10k bodies: bridge sync vs get_render_state", 2.0),
        ],
    ),
    "mujoco_sync": (
        5,
        [("sync_vs_python", "256 MuJoCo worlds: MjData-list sync vs per-geom Python", 50.0)],
    ),
    "mujoco_pixels": (
        3,
        [
            ("vs_default_cheetah", "256 cheetahs 84x84: batch vs mujoco.Renderer default", 100.0),
            ("vs_tuned_cheetah", "256 cheetahs 84x84: batch vs mujoco.Renderer tuned", 10.0),
            ("vs_tuned_humanoid", "256 humanoids 84x84: batch vs mujoco.Renderer tuned", 5.0),
        ],
    ),
    "demo_frame": (
        3,
        [("frame_vs_old", "10k-body frame: submit+draw+readback vs old renderer", 4.0)],
    ),
    "overlap": (
        1,
        [
            (
                "culverin_overlapped_vs_sequential",
                "demo 10k bodies: physics beside the drawing vs sequential",
                1.3,
            ),
            (
                "mujoco_overlapped_vs_sequential",
                "64 humanoid worlds: physics beside the drawing vs sequential",
                1.3,
            ),
        ],
    ),
    "py3d": (
        2,
        [
            ("vs_cpu_benchmark_320", "py_3d benchmark 320x180: py_gpu vs py_3d CPU", 20.0),
            ("vs_001_benchmark_320", "py_3d benchmark 320x180: py_gpu vs 0.0.1 adapter", 10.0),
            ("parity_min", "py_3d example scenes: worst share within 8/255 of py_3d CPU", 0.99),
        ],
    ),
    "ragdolls": (3, []),  # rows (n, bodies, physics_ms, sync_us, submit_ms, fps) in the JSON
    "rl_throughput": (
        3,
        [
            ("vs_moderngl_256", "RL 256 envs: batch renderer vs moderngl batched", 1.5),
            ("vs_moderngl_single", "RL 1 env: hypergl vs moderngl loop", 1.1),
        ],
    ),
    "rl_scale": (
        3,
        [
            ("async_vs_sync", "RL 256 envs: async vs sync, learner as long as a render", 1.2),
            ("ray1_vs_inprocess", "RL 256 envs: one Ray worker (send/recv) vs in process", 0.8),
        ],
    ),
    "free_threaded": (
        3,
        [("ft_vs_gil_2threads", "free-threaded 3.13t vs GIL 3.13, 2 threads", 1.6)],
    ),
}


# Arguments a script always gets: the raster benchmark makes its py-gpu 0.0.1 environment
# (the baseline, from PyPI) the first time.
EXTRA_ARGS = {"raster": ["--setup-seed"]}
# Scripts that need an environment of their own: skipped, saying how to make it.
NEEDS = {
    "free_threaded": (
        HERE.parent / ".venv-ft" / "bin" / "python",
        "python3 tools/dev.py test --free-threaded makes it (the benchmark then makes .venv-gil)",
    ),
}


def scripts() -> list[Path]:
    return sorted(p for p in HERE.glob("*.py") if not p.name.startswith(("_", "run_all")))


def run(script: Path, quick: bool) -> dict | None:
    rounds, _ = HEADLINES.get(script.stem, (3, []))
    needed, how = NEEDS.get(script.stem, (None, ""))
    if needed is not None and not needed.exists():
        print(f"== {script.name} skipped: needs {needed} ({how})", flush=True)
        return {"skipped": f"needs {needed}"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        command = [sys.executable, str(script), "--json", str(out)]
        command += EXTRA_ARGS.get(script.stem, [])
        if quick:
            command += ["--repeat", str(rounds)]
        started = time.monotonic()
        print(f"== {script.name} ({' '.join(command[2:])})", flush=True)
        code = subprocess.run(command, cwd=HERE).returncode
        print(f"   {script.name} took {time.monotonic() - started:.0f} s", flush=True)
        if code != 0 or not out.exists():
            print(f"   {script.name} failed (exit {code})", flush=True)
            return None
        return json.loads(out.read_text())


def table(results: dict[str, dict | None]) -> list[dict]:
    rows = []
    for name, result in results.items():
        for key, what, target in HEADLINES.get(name, (0, []))[1]:
            value = None if result is None else result.get(key)
            rows.append(
                {
                    "benchmark": name,
                    "metric": what,
                    "value": value,
                    "target": target,
                    "met": value is not None and value >= target,
                }
            )
    return rows


def print_table(rows: list[dict]) -> None:
    width = max(len(row["metric"]) for row in rows)
    print()
    print(f"{'comparison':<{width}}  {'ratio':>8}  {'target':>7}  ")
    for row in rows:
        value = "missing" if row["value"] is None else f"{row['value']:.2f}x"
        mark = "ok" if row["met"] else "MISSED"
        print(f"{row['metric']:<{width}}  {value:>8}  {row['target']:>6}x  {mark}")


def chart(rows: list[dict]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib is not installed: no chart (pip install 'hypergl-core[bench]')")
        return False
    shown = [row for row in rows if row["value"] is not None]
    if not shown:
        return False
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(shown) + 1.2))
    labels = [row["metric"] for row in shown]
    values = [row["value"] for row in shown]
    colours = ["#2a9d8f" if row["met"] else "#e76f51" for row in shown]
    ax.barh(labels, values, color=colours)
    ax.scatter([row["target"] for row in shown], labels, marker="|", s=300, color="black",
               label="target", zorder=3)  # fmt: skip
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%gx"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("speed-up (x, log scale); bars: measured, ticks: target")
    ax.invert_yaxis()
    ax.legend(loc="lower right")
    ax.set_title("HyperGL benchmarks on this machine (medians, same run)")
    fig.tight_layout()
    fig.savefig(RESULTS_PNG, dpi=110)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds per benchmark")
    parser.add_argument("--only", nargs="*", help="benchmark names to run (default: all)")
    args = parser.parse_args()
    chosen = [s for s in scripts() if not args.only or s.stem in args.only]
    results = {}
    for index, script in enumerate(chosen, 1):
        print(f"[{index}/{len(chosen)}]", end=" ", flush=True)
        results[script.stem] = run(script, args.quick)
    rows = table(results)
    print_table(rows)
    RESULTS_JSON.write_text(json.dumps({"results": results, "table": rows}, indent=2) + "\n")
    print(f"\nwrote {RESULTS_JSON.relative_to(HERE.parent)}")
    if chart(rows):
        print(f"wrote {RESULTS_PNG.relative_to(HERE.parent)}")
    return 0 if all(result is not None for result in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
