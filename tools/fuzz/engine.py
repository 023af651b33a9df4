"""The engine built for fuzzing: clang, libFuzzer's edge counters, ASan + UBSan.

    .venv/bin/python tools/fuzz/engine.py      # build it, print the extension's path

One more flavour of tools/sanitize.py's instrumented builds (its own folder,
build/fuzz-engine): the engine and the bindings are compiled by clang with
``-fsanitize=fuzzer-no-link`` (the CMake option HYPERGL_FUZZ) and everything with
ASan + UBSan, so that atheris, running in the same process, gets edge feedback from
the C++ verifier, interpreter and devices as well as from the Python loader.

Why atheris and not a native libFuzzer harness: the .hgb reader and the making of
resources are Python (hypergl_compiler.hgb, hypergl.scene); a C++ harness would need
a second reader, and would skip the code users run. atheris's ``asan_with_fuzzer.so``
(ASan, UBSan and libFuzzer in one library, preloaded) is the libFuzzer both the
Python counters and the engine's counters register with. It comes from a newer LLVM
than Debian's clang and without UBSan's C++ runtime, so the two checks whose handlers
differ (vptr, function) are left out here; the ASan suite (tools/dev.py test
--sanitize, GCC) keeps vptr.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sanitize  # tools/sanitize.py

COMPILER = "clang++-14"  # Debian 12's clang
PACKAGES = ["clang-14", "libclang-rt-14-dev"]
FLAGS = ("-fsanitize=address,undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all "
         "-fno-omit-frame-pointer -g")  # fmt: skip
FUZZ = sanitize.Flavour("fuzz-engine", FLAGS, COMPILER, ("-DHYPERGL_FUZZ=ON",))


def runtime(python: Path) -> str:
    """What to preload: atheris's ASan + UBSan + libFuzzer; atheris's custom-mutator
    module, whose LLVMFuzzerCustomMutator the preloaded libFuzzer finds only when it
    is there from the start (atheris imports the same file later); the C++ runtime."""
    where = [str(python), "-c", "import atheris; print(atheris.path())"]
    found = subprocess.run(where, capture_output=True, text=True, check=False)
    root = Path(found.stdout.strip())
    mutator = sorted((root / "atheris").glob("custom_mutator*.so"))
    libraries = [root / "asan_with_fuzzer.so", *mutator]
    if found.returncode != 0 or len(libraries) != 2 or not libraries[0].exists():
        raise sanitize.SanitizeError(
            f"atheris's asan_with_fuzzer.so or custom_mutator not in {root}"
        )
    cxx = sanitize.compiler_library(COMPILER, "libstdc++.so.6", "libstdc++6")
    return " ".join([*map(str, libraries), cxx])


def environment(python: Path) -> dict[str, str]:
    """Build (once; again when sources change) and return the environment that runs
    Python on the fuzzing engine."""
    env = sanitize.environment(python, FUZZ, preload=runtime(python))
    # A crash is libFuzzer's to report (it saves the input); leaks are CPython's own.
    env["ASAN_OPTIONS"] = "detect_leaks=0:detect_stack_use_after_return=0:handle_abort=1"
    return env


def main() -> int:
    return sanitize.show_engine(environment, "fuzz")


if __name__ == "__main__":
    sys.exit(main())
