"""Compile the engine's C++ for another platform with zig, to catch what does not port.

    python3 tools/cross_compile.py [--target x86_64-windows-gnu]

The engine (packages/hypergl-core/cpp/engine) must build wherever the wheel matrix builds;
the bindings need that platform's Python headers and are left out. zig (PyPI ``ziglang``)
carries the headers and C++ library of every target, so this runs here, in seconds a
file, with the engine's strict warnings as errors. Exit status 0 when every file compiles.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "packages" / "hypergl-core"
# The engine's warning set in CMakeLists.txt, as errors.
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion", "-Wno-sign-conversion",
            "-Werror"]  # fmt: skip


def compile_one(source: Path, target: str, out: Path) -> tuple[Path, str]:
    command = [sys.executable, "-m", "ziglang", "c++", "-target", target, "-std=c++17", "-c",
               *WARNINGS, f"-I{CORE / 'cpp' / 'include'}", "-o", str(out / f"{source.stem}.o"),
               str(source)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return source, result.stderr if result.returncode else ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="x86_64-windows-gnu", help="a zig target triple")
    args = parser.parse_args(argv)
    sources = sorted((CORE / "cpp" / "engine").glob("*.cpp"))
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as out, ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda s: compile_one(s, args.target, Path(out)), sources))
    failed = [(source, log) for source, log in results if log]
    for source, log in failed:
        print(f"[cross-compile] {source.relative_to(ROOT)} failed for {args.target}:\n{log}")
    print(f"[cross-compile] {len(sources) - len(failed)} of {len(sources)} engine files compile "
          f"for {args.target} ({time.monotonic() - started:.0f} s)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
