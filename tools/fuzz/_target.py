"""What every fuzz target does: atheris with a structure-aware custom mutator.

A target module is three lines: ``run(case.check, mutate)``. Coverage comes from the
modules `case` imports (instrumented here), and, under ``tools/dev.py fuzz``, from the
engine built for fuzzing (tools/fuzz/engine.py).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import atheris

# tools/fuzz/engine.py preloads atheris's custom-mutator module (it needs libpython):
# not into the programs this process starts (the sanitizer's symbolizer).
os.environ["LD_PRELOAD"] = " ".join(
    lib for lib in os.environ.get("LD_PRELOAD", "").split() if "custom_mutator" not in lib
)
sys.path.insert(0, str(Path(__file__).resolve().parent))


def run(case_module: str, mutate: Callable[[bytes, int, int], bytes]) -> None:
    """Fuzz ``<case_module>.check`` (imported instrumented) with `mutate`."""
    with atheris.instrument_imports():
        case = importlib.import_module(case_module)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        return mutate(data, max_size, seed)

    atheris.Setup(sys.argv, case.check, custom_mutator=custom_mutator)
    atheris.Fuzz()
