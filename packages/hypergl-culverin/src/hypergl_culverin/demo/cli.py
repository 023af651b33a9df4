"""`hypergl demo` options: parsed and checked, every bad value a one-line error."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DemoOptions:
    frames: int = 180
    bodies: int = 10_000
    size: tuple[int, int] = (640, 360)
    out: Path = Path("out/demo")
    window: bool = False
    scene: str = "bodies"
    ragdolls: int = 1_000
    sequential: bool = False
    physics_threads: int | None = None  # Jolt's job threads; None: see demo.run


def _positive(name: str, maximum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if not 1 <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{name} must be in 1..{maximum}, got {value}")
        return value

    return parse


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 640x360, got {text!r}") from None
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise argparse.ArgumentTypeError(f"size must be 16..4096 on each side, got {text!r}")
    return width, height


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hypergl demo",
        description="Culverin bodies falling into a GPU-culled forest, replayed by the HyperGL VM.",
    )
    p.add_argument(
        "--frames",
        type=_positive("frames", 100_000),
        default=DemoOptions.frames,
        help="frames to simulate and render (default %(default)s)",
    )
    p.add_argument(
        "--bodies",
        type=_positive("bodies", 200_000),
        default=DemoOptions.bodies,
        help="physics bodies dropped (default %(default)s)",
    )
    p.add_argument(
        "--size",
        type=_size,
        default=DemoOptions.size,
        help="frame size WIDTHxHEIGHT (default 640x360)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DemoOptions.out,
        help="folder for demo.mp4 (or .gif) and final.png (default %(default)s)",
    )
    p.add_argument(
        "--scene",
        choices=("bodies", "ragdolls"),
        default=DemoOptions.scene,
        help="bodies: boxes and spheres fall; ragdolls: humanoid ragdolls rain in "
        "(default %(default)s)",
    )
    p.add_argument(
        "--ragdolls",
        type=_positive("ragdolls", 20_000),
        default=DemoOptions.ragdolls,
        help="ragdolls of the ragdoll scene, 7 bodies each (default %(default)s)",
    )
    p.add_argument("--window", action="store_true",
                   help="show it in a GLFW window instead of writing files")  # fmt: skip
    p.add_argument("--sequential", action="store_true",
                   help="step the physics, then draw, one after the other (by default the "
                   "next frame's physics runs while this frame is drawn; the pictures are "
                   "the same)")  # fmt: skip
    p.add_argument("--physics-threads", type=_positive("physics threads", 256), default=None,
                   help="Jolt's job threads (default: overlapped on a machine of 2 cores, 1, "
                   "and one llvmpipe raster thread unless LP_NUM_THREADS is set; else "
                   "Culverin's 4)")  # fmt: skip
    return p


def parse(argv: list[str] | None) -> DemoOptions:
    args = parser().parse_args(argv)
    return DemoOptions(args.frames, args.bodies, args.size, args.out, args.window, args.scene,
                       args.ragdolls, args.sequential, args.physics_threads)  # fmt: skip
