"""py_gpu's preview: a spinning fan of coloured triangles over a floor, as PNG and MP4.

python examples/render_preview.py --backend auto [--image-only]
"""

from __future__ import annotations

import argparse
from math import tau
from pathlib import Path

import numpy as np
from _media import write_mp4, write_png

from py_gpu import RasterBatch, available_backends, select_backend

OUT = Path("renderings-tests")
COLORS = np.array(
    [
        (255, 88, 76),
        (255, 186, 76),
        (246, 240, 90),
        (86, 220, 120),
        (78, 210, 230),
        (94, 138, 255),
        (190, 105, 255),
        (255, 105, 188),
        (230, 230, 238),
    ]
)


def preview_batch(width: int, height: int, t: float) -> RasterBatch:
    """Nine fan blades around a hub (their depth waving with ``t``) and a two-triangle floor."""
    n = len(COLORS)
    angle = tau * np.arange(n + 1) / n + 0.8 * t
    radius = min(width, height) * (0.26 + 0.04 * np.sin(1.7 * t + np.arange(n + 1) % n))
    rim = np.stack(
        [
            width * 0.5 + np.cos(angle) * radius,
            height * 0.52 + np.sin(angle) * radius,
            1.2 + 0.35 * np.sin(angle + t),
        ],
        axis=1,
    )
    hub = np.array([width * 0.5, height * 0.52, 0.7])
    blades = np.stack([np.broadcast_to(hub, (n, 3)), rim[:-1], rim[1:]], axis=1)
    w, h = width, height
    floor = np.array(
        [
            [(0.12 * w, 0.82 * h, 2.2), (0.88 * w, 0.82 * h, 2.2), (0.76 * w, 0.95 * h, 2.4)],
            [(0.12 * w, 0.82 * h, 2.2), (0.76 * w, 0.95 * h, 2.4), (0.24 * w, 0.95 * h, 2.4)],
        ]
    )
    colors = np.concatenate([COLORS, [(42, 78, 92), (36, 58, 70)]]).astype(np.uint8)
    return RasterBatch.from_arrays(np.concatenate([blades, floor]), colors)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", *available_backends()])
    parser.add_argument("--output", type=Path, default=OUT / "py_gpu_preview.png")
    parser.add_argument("--video", type=Path, default=OUT / "py_gpu_preview.mp4")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--fps", type=int, default=24)
    parser.add_argument("--image-only", action="store_true")
    args = parser.parse_args(argv)
    backend = select_backend(args.backend)

    def frame(t: float):
        batch = preview_batch(args.width, args.height, t)
        return backend.render(batch, args.width, args.height, background=(7, 9, 14))

    print(f"wrote {write_png(args.output, frame(0.2))} with {backend.capabilities.name}")
    if not args.image_only:
        frames = (frame(i / args.fps) for i in range(args.frames))
        print(f"wrote {write_mp4(args.video, frames, args.width, args.height, args.fps)}")


if __name__ == "__main__":
    main()
