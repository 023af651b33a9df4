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


def time_once(fn: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    start = clock()
    fn()
    return clock() - start


def interleaved(
    variants: dict[str, Callable[[], object]],
    repeat: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call of each variant, run A B C A B C ... so that drift hits all alike.
    `clock`: time.process_time counts this process's CPU seconds, every thread's (llvmpipe's
    too): steadier than the wall clock on a machine that others load."""
    for fn in variants.values():  # warm up
        fn()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, fn in variants.items():
            samples[name].append(time_once(fn, clock))
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


def interleaved_in_processes(
    module: str, names: list[str], repeat: int, **options: object
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Like `interleaved`, but each variant lives in a process of its own.

    Two GL libraries in one process are not what a user runs, and on llvmpipe they
    disturb each other: each context's driver grows and frees hundreds of MB of
    per-frame memory, so whichever runs after the other pays the page faults.
    Here `module.make_variant(name, **options)` builds a variant in its own
    (spawned) process and returns (run, read); the processes take turns, one
    at a time, A B C A B C ..., so drift still hits all alike. Returns the
    seconds per call and each variant's `read()` after its first run."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")
    workers = {}
    try:
        for name in names:  # one at a time, so no setup overlaps another's
            here, there = spawn.Pipe()
            process = spawn.Process(target=_variant_worker, args=(there, module, name, options),
                                    daemon=True)  # fmt: skip
            process.start()
            there.close()  # the child's end: a child that dies then ends recv() with EOFError
            workers[name] = (process, here)
            _expect(here, name)
        outputs = {name: _ask(pipe, name, "read") for name, (_, pipe) in workers.items()}
        samples: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(repeat):
            for name, (_, pipe) in workers.items():
                samples[name].append(_ask(pipe, name, "time"))
        return samples, outputs
    finally:
        for process, pipe in workers.values():
            if process.is_alive():
                pipe.send("stop")
            process.join(timeout=30)


def _ask(pipe, name: str, request: str) -> object:
    pipe.send(request)
    return _expect(pipe, name)


def _expect(pipe, name: str) -> object:
    try:
        status, value = pipe.recv()
    except EOFError:
        raise RuntimeError(f"variant {name!r}: its process ended without answering") from None
    if status == "error":
        raise RuntimeError(f"variant {name!r} failed in its process:\n{value}")
    return value


def _variant_worker(pipe, module: str, name: str, options: dict) -> None:
    import importlib
    import traceback

    try:
        run, read = importlib.import_module(module).make_variant(name, **options)
        run()  # warm up: first-use costs are not the steady state
        pipe.send(("ready", None))
        while (request := pipe.recv()) != "stop":
            pipe.send(("ok", read() if request == "read" else time_once(run)))
    except Exception:
        pipe.send(("error", traceback.format_exc()))
