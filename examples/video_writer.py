"""Render an animation with py_gpu and write it as a video, frames read back asynchronously.

Each frame is a batch of spinning, depth-sorted triangles. ``py_gpu.readback.stream`` keeps
``--in-flight`` frames outstanding, so while this process converts frame k to YUV and writes
it, the backend is already drawing frame k+1 (on a GPU backend with ``render_async``; others
render synchronously). The output is YUV4MPEG2 (``.y4m``, 4:4:4), which needs no library and
which ffmpeg or mpv read directly::

    python examples/video_writer.py --frames 120 --out spin.y4m
    ffmpeg -i spin.y4m -pix_fmt yuv420p spin.mp4

Needs NumPy and py-gpu; any backend works (``--backend auto`` picks the best that starts).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import py_gpu
from py_gpu.readback import stream

# BT.601 limited range, the default of YUV4MPEG2 readers.
RGB_TO_YUV = np.array(
    [[0.257, 0.504, 0.098], [-0.148, -0.291, 0.439], [0.439, -0.368, -0.071]], dtype=np.float32
)
YUV_OFFSET = np.array([16.0, 128.0, 128.0], dtype=np.float32)


class Y4MWriter:
    """Writes RGB frames as YUV4MPEG2 4:4:4 (planar Y, U, V per frame)."""

    def __init__(self, path: Path, width: int, height: int, fps: int) -> None:
        self.width, self.height = width, height
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._file.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C444\n".encode())

    def write(self, frame: py_gpu.FrameBuffer) -> None:
        rgb = frame.to_numpy().astype(np.float32)
        yuv = rgb @ RGB_TO_YUV.T + YUV_OFFSET
        planes = np.clip(np.rint(yuv), 0, 255).astype(np.uint8).transpose(2, 0, 1)
        self._file.write(b"FRAME\n")
        self._file.write(np.ascontiguousarray(planes).tobytes())

    def close(self) -> None:
        self._file.close()


def scene(count: int, width: int, height: int, seed: int = 3) -> dict[str, np.ndarray]:
    """Triangle centres, sizes, depths, colours and spin rates for the animation."""
    rng = np.random.default_rng(seed)
    return {
        "centre": rng.uniform([0, 0], [width, height], (count, 2)),
        "radius": rng.uniform(6.0, 40.0, count),
        "depth": rng.uniform(0.5, 9.0, count),
        "color": rng.integers(40, 256, (count, 3), dtype=np.uint8),
        "spin": rng.uniform(-2.0, 2.0, count),
    }


def frame_batch(s: dict[str, np.ndarray], t: float) -> py_gpu.RasterBatch:
    """The triangles at time ``t`` (seconds): each spins about its centre and bobs in depth."""
    corners = np.array([0.0, 2.0 * np.pi / 3.0, 4.0 * np.pi / 3.0])
    angle = s["spin"][:, None] * t + corners[None, :]
    xy = s["centre"][:, None, :] + s["radius"][:, None, None] * np.stack(
        [np.cos(angle), np.sin(angle)], axis=2
    )
    z = s["depth"] + 0.5 * np.sin(t + s["spin"])
    xyz = np.concatenate([xy, np.broadcast_to(z[:, None, None], (len(z), 3, 1))], axis=2)
    return py_gpu.RasterBatch.from_arrays(xyz, s["color"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("py_gpu_video.y4m"), help="a .y4m file")
    p.add_argument("--frames", type=int, default=120)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--size", default="640x360", help="WIDTHxHEIGHT")
    p.add_argument("--triangles", type=int, default=2000)
    p.add_argument("--backend", default="auto")
    p.add_argument("--in-flight", type=int, default=2, help="frames outstanding (1: sync)")
    args = p.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        p.error(f"--size must look like 640x360, got {args.size!r}")
    if args.frames < 1 or args.fps < 1 or args.triangles < 1:
        p.error("--frames, --fps and --triangles must be positive")
    if args.out.suffix != ".y4m":
        p.error(f"--out must end in .y4m, got {args.out}")

    backend = py_gpu.select_backend(args.backend)
    s = scene(args.triangles, width, height)
    batches = (frame_batch(s, k / args.fps) for k in range(args.frames))
    writer = Y4MWriter(args.out, width, height, args.fps)
    start = time.perf_counter()
    try:
        for frame in stream(backend, batches, width, height, background=(12, 14, 20),
                            in_flight=args.in_flight):  # fmt: skip
            writer.write(frame)
    finally:
        writer.close()
    seconds = time.perf_counter() - start
    print(f"wrote {args.frames} frames of {width}x{height} to {args.out} with {backend.name} "
          f"({args.frames / seconds:.1f} frames/s, {args.in_flight} in flight)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
