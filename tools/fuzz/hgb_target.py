"""Fuzz target: .hgb bytes through the loader, the C++ verifier, and replays on the
trace device and on real OpenGL (tools/fuzz/replay.py says what one case does).

    python3 tools/dev.py fuzz --seconds 60           # or, with libFuzzer's options:
    python3 tools/dev.py fuzz --seconds 60 -runs=1000 -seed=17

Coverage-guided by atheris (libFuzzer for Python). Under `tools/dev.py fuzz` the
engine is the one built for fuzzing (tools/fuzz/engine.py: clang's edge counters,
ASan, UBSan), so libFuzzer sees the C++ verifier, interpreter and GL device as
well as the Python loader; run directly on the regular engine, only Python is
instrumented. Mutations are structure-aware (tools/fuzz/mutator.py), so most
cases parse and verify. A crash, an unexpected exception, or a case past
libFuzzer's -timeout is a finding, saved as a crash-*/timeout-* file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

# tools/fuzz/engine.py preloads atheris's custom-mutator module (it needs libpython):
# not into the programs this process starts (the sanitizer's symbolizer).
os.environ["LD_PRELOAD"] = " ".join(
    lib for lib in os.environ.get("LD_PRELOAD", "").split() if "custom_mutator" not in lib
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports():  # the loader and hypergl's Python, for coverage
    import replay

import mutator  # after: not instrumented, its branches are not ours to cover


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    return mutator.mutate(data, max_size, seed, atheris.Mutate)


def main() -> None:
    atheris.Setup(sys.argv, replay.check, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
