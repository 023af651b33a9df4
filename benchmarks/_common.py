"""Helpers shared by the benchmark scripts: timing, interleaving, output."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def parser(description: str, repeat: int) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--json", type=Path, help="write the results to this file")
    p.add_argument("--repeat", type=int, default=repeat, help="timed rounds (default %(default)s)")
    return p


def time_once(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(variants: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Seconds per call of each variant, run A B C A B C ... so that drift hits all alike."""
    for fn in variants.values():  # warm up
        fn()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, fn in variants.items():
            samples[name].append(time_once(fn))
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def pairwise_ratio(slow: list[float], fast: list[float]) -> float:
    """Median of the per-round ratios slow/fast (robust on a noisy machine)."""
    return statistics.median(s / f for s, f in zip(slow, fast, strict=True))


def write_json(path: Path | None, results: dict) -> None:
    if path is not None:
        path.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {path}")


def zengl_headless_context(zengl):
    """(zengl context, make it current) on a headless EGL context: zengl's own loader
    needs X11. Call the second before each frame: the other variants bind their own."""
    from glcontext import egl

    class EGLLoader:
        def __init__(self) -> None:
            self.extra = egl.create_context(mode="standalone", glversion=330)

        def load_opengl_function(self, name: str) -> int:
            return self.extra.load_opengl_function(name)

    loader = EGLLoader()
    zengl.init(loader)
    return zengl.context(), loader.extra.__enter__
