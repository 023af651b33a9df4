"""Test runs a core each, each one's output printed whole as it finishes.

Standard library only; used by tools/lowest.py, tools/old_glibc.py and tools/mujoco_matrix.py,
whose runs (a distribution's or a MuJoCo leg's tests, each one pytest process) would leave a
core idle one after another: a single pytest keeps one core busy and llvmpipe a little of
the other.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path


def captured(command: list[str], **kwargs) -> tuple[str, bool]:
    """``command``'s output (stderr in it) and whether it exited 0: a run for ``each``."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          check=False, **kwargs)  # fmt: skip
    return done.stdout.rstrip(), done.returncode == 0


def heaviest_first(test_folders: dict[str, Path]) -> list[str]:
    """The names, those whose test folder holds the most bytes of Python first: a proxy for
    how long they run, so that the long runs do not start last and leave a core idle."""
    weight = {name: sum(f.stat().st_size for f in folder.rglob("*.py"))
              for name, folder in test_folders.items()}  # fmt: skip
    return sorted(test_folders, key=lambda name: -weight[name])


def each(runs: dict[str, Callable[[], tuple[str, bool]]]) -> Iterator[tuple[str, bool, float]]:
    """Every run (name -> a callable giving its output and whether it passed), as many at a
    time as there are cores; yields ``(name, passed, seconds)`` as each finishes, once its
    output is printed."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {pool.submit(_timed, run): name for name, run in runs.items()}
        for finished in as_completed(futures):
            output, passed, seconds = finished.result()
            print(output, flush=True)
            yield futures[finished], passed, seconds


def _timed(run: Callable[[], tuple[str, bool]]) -> tuple[str, bool, float]:
    begun = time.monotonic()
    output, passed = run()
    return output, passed, time.monotonic() - begun
