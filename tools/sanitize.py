"""The engine built with AddressSanitizer + UndefinedBehaviorSanitizer, for the test suite.

    python3 tools/dev.py test --sanitize [pytest arguments]

Builds hypergl._core with ``-fsanitize=address,undefined -fno-sanitize-recover=all``
into its own folder, ``build/sanitize`` (the regular build is left alone), and lays
out ``build/sanitize/site/hypergl``: the package's Python files (links to the
sources) with the sanitized extension. The suite then runs in ``.venv`` with that
folder first on the path, the sanitizer runtime preloaded (Python itself is not
instrumented) and every report fatal. Leak checking is off: CPython keeps objects
alive at exit on purpose. Standard library only (tools/dev.py imports it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "packages" / "hypergl-core"
BUILD = ROOT / "build" / "sanitize"
SITE = BUILD / "site"
FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"

# Loaded by Python at start-up from the path: keeps .venv's editable hypergl (a
# meta-path finder installed by a .pth file) from shadowing the sanitized copy.
SITECUSTOMIZE = '''\
import sys

sys.meta_path[:] = [f for f in sys.meta_path
                    if not type(f).__module__.startswith("_editable_skbc_hypergl")]
'''


class SanitizeError(RuntimeError):
    pass


def _tool(python: Path, name: str) -> str:
    found = python.parent / name
    if found.exists():
        return str(found)
    path = shutil.which(name)
    if path is None:
        raise SanitizeError(f"{name} not found (it comes with the development environment)")
    return path


def runtime_libraries() -> str:
    """The compiler's ASan runtime, to preload into an uninstrumented Python, and the C++
    runtime: ASan resolves its __cxa_throw interceptor at start-up, and Python does
    not load libstdc++ itself (without it the first C++ exception aborts)."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if compiler is None:
        raise SanitizeError("no C++ compiler found to build the sanitized engine")
    found = []
    for name, package in (("libasan.so", "libasan8"), ("libstdc++.so.6", "libstdc++6")):
        out = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True,
                             text=True, check=False).stdout.strip()  # fmt: skip
        if not out or not Path(out).exists():
            raise SanitizeError(f"{compiler} has no {name}; on Debian: apt-get install {package}")
        found.append(str(Path(out).resolve()))
    return " ".join(found)


def build(python: Path) -> Path:
    """Configure (once) and build the sanitized extension; returns the .so."""
    cmake = _tool(python, "cmake")
    nanobind = [str(python), "-m", "nanobind", "--cmake_dir"]
    cmake_dir = subprocess.run(nanobind, capture_output=True, text=True, check=True).stdout.strip()
    tree = BUILD / "cmake"
    if not (tree / "CMakeCache.txt").exists():
        configure = [
            cmake, "-S", str(CORE), "-B", str(tree), "-G", "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={_tool(python, 'ninja')}",
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            f"-DCMAKE_CXX_FLAGS={FLAGS}",
            f"-DCMAKE_SHARED_LINKER_FLAGS={FLAGS}",
            f"-Dnanobind_DIR={cmake_dir}",
            f"-DPython_EXECUTABLE={python}",
            "-DHYPERGL_STUBS=OFF",  # stubgen imports the module, which needs ASan preloaded
        ]  # fmt: skip
        if subprocess.run(configure, check=False).returncode != 0:
            raise SanitizeError("configuring the sanitized build failed (see above)")
    if subprocess.run([cmake, "--build", str(tree)], check=False).returncode != 0:
        raise SanitizeError("building the sanitized engine failed (see above)")
    built = sorted(tree.glob("_core*.so"))
    if not built:
        raise SanitizeError(f"the sanitized build made no _core*.so in {tree}")
    return built[0]


def lay_out(extension: Path) -> None:
    """SITE/hypergl: links to the package's sources, and the sanitized extension."""
    package = SITE / "hypergl"
    shutil.rmtree(package, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (CORE / "src" / "hypergl").iterdir():
        if entry.name.startswith("_core") or entry.name == "__pycache__":
            continue
        (package / entry.name).symlink_to(entry)
    shutil.copy2(extension, package / extension.name)
    (SITE / "sitecustomize.py").write_text(SITECUSTOMIZE)


def environment(python: Path) -> dict[str, str]:
    """Build, lay out, and return the environment that runs Python on the sanitized engine."""
    lay_out(build(python))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SITE), env.get("PYTHONPATH")]))
    env["LD_PRELOAD"] = " ".join(filter(None, [runtime_libraries(), env.get("LD_PRELOAD")]))
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env["HYPERGL_SANITIZED"] = "1"
    return env


def main() -> int:
    python = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".venv" / "bin" / "python"
    try:
        env = environment(python)
    except SanitizeError as exc:
        print(f"[sanitize] error: {exc}", file=sys.stderr)
        return 1
    check = "import hypergl._core as c; print(c.__file__)"
    return subprocess.run([str(python), "-c", check], env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
