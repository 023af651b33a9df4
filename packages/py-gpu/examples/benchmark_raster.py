"""Benchmark a py_gpu raster backend on random screen-space triangles.

    python examples/benchmark_raster.py --backend auto --frames 60 --triangles 1000 \
        --width 640 --height 360 [--output raster-benchmark.png]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from py_gpu import RasterBatch, available_backends, select_backend


def random_batch(width: int, height: int, count: int, seed: int) -> RasterBatch:
    """``count`` triangles of 8..48 px at random places and depths, random colours."""
    rng = np.random.default_rng(seed)
    centre = rng.uniform((0, 0), (width, height), (count, 1, 2))
    size = rng.uniform(8.0, 48.0, (count, 1, 1))
    corners = np.array([(0.0, -1.0), (-1.0, 1.0), (1.0, 1.0)])[None] * size + centre
    depth = rng.uniform(0.2, 8.0, (count, 1)) + rng.uniform(-0.1, 0.1, (count, 3))
    xyz = np.concatenate([corners, depth[:, :, None]], axis=2)
    colors = rng.integers(40, 255, (count, 3), dtype=np.uint8)
    return RasterBatch.from_arrays(xyz, colors)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", *available_backends()])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--triangles", type=int, default=1000)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--output", type=Path, help="write the last frame as PNG")
    args = parser.parse_args(argv)
    backend = select_backend(args.backend)
    batch = random_batch(args.width, args.height, args.triangles, args.seed)
    backend.render(batch, args.width, args.height)  # warm up (shaders, buffers)
    seconds, frame = [], None
    for _ in range(args.frames):
        start = time.perf_counter()
        frame = backend.render(batch, args.width, args.height, background=(6, 8, 12))
        seconds.append(time.perf_counter() - start)
    median = statistics.median(seconds)
    print(f"backend: {backend.capabilities.name} (accelerated: {backend.capabilities.accelerated})")
    print(f"{args.triangles} triangles at {args.width}x{args.height}, {args.frames} frames")
    print(f"median frame: {median * 1e3:.2f} ms, {1.0 / median:.1f} frames/s")
    if args.output is not None and frame is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        frame.to_png(args.output)
        print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
