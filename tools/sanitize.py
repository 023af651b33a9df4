"""The engine built with AddressSanitizer + UndefinedBehaviorSanitizer, for the test suite.

    python3 tools/dev.py test --sanitize [pytest arguments]

Builds hypergl._core with ``-fsanitize=address,undefined -fno-sanitize-recover=all``
into its own folder, ``build/sanitize`` (the regular build is left alone), and lays
out ``build/sanitize/site/hypergl``: the package's Python files (links to the
sources) with the sanitized extension. The suite then runs in ``.venv`` with that
folder first on the path, the sanitizer runtime preloaded (Python itself is not
instrumented) and every report fatal, but for the reports in others' code listed in
tools/asan_suppressions.txt. Leak checking is off: CPython keeps objects alive at exit
on purpose. Standard library only (tools/dev.py imports it).

Other instrumented flavours of the engine (tools/fuzz/engine.py: clang with
libFuzzer's coverage) are a :class:`Flavour` built and laid out the same way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPPRESSIONS = Path(__file__).resolve().parent / "asan_suppressions.txt"  # reports not ours
CORE = ROOT / "packages" / "hypergl-core"
FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"


@dataclass(frozen=True)
class Flavour:
    """One instrumented build of the engine, in its own folder build/<folder>."""

    folder: str
    flags: str
    compiler: str | None = None  # CMAKE_CXX_COMPILER (None: CMake's default)
    options: tuple[str, ...] = ()  # more -D options

    @property
    def build(self) -> Path:
        return ROOT / "build" / self.folder

    @property
    def site(self) -> Path:
        return self.build / "site"


SANITIZE = Flavour("sanitize", FLAGS)

# Loaded by Python at start-up from the path: keeps .venv's editable hypergl (a
# meta-path finder installed by a .pth file) from shadowing the sanitized copy.
SITECUSTOMIZE = """\
import sys

sys.meta_path[:] = [f for f in sys.meta_path
                    if not type(f).__module__.startswith("_editable_skbc_hypergl")]
"""


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


def compiler_library(compiler: str, name: str, package: str) -> str:
    """The path of a runtime library that `compiler` links (-print-file-name)."""
    out = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True,
                         text=True, check=False).stdout.strip()  # fmt: skip
    if not out or not Path(out).exists():
        raise SanitizeError(f"{compiler} has no {name}; on Debian: apt-get install {package}")
    return str(Path(out).resolve())


def runtime_libraries() -> str:
    """The compiler's ASan runtime, to preload into an uninstrumented Python, and the C++
    runtime: ASan resolves its __cxa_throw interceptor at start-up, and Python does
    not load libstdc++ itself (without it the first C++ exception aborts)."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if compiler is None:
        raise SanitizeError("no C++ compiler found to build the sanitized engine")
    return " ".join(compiler_library(compiler, name, package)
                    for name, package in (("libasan.so", "libasan8"),
                                          ("libstdc++.so.6", "libstdc++6")))  # fmt: skip


def build(python: Path, flavour: Flavour = SANITIZE) -> Path:
    """Configure (once) and build the flavour's extension; returns the .so."""
    cmake = _tool(python, "cmake")
    nanobind = [str(python), "-m", "nanobind", "--cmake_dir"]
    cmake_dir = subprocess.run(nanobind, capture_output=True, text=True, check=True).stdout.strip()
    tree = flavour.build / "cmake"
    if not (tree / "CMakeCache.txt").exists():
        compiler = [f"-DCMAKE_CXX_COMPILER={flavour.compiler}"] if flavour.compiler else []
        configure = [
            cmake, "-S", str(CORE), "-B", str(tree), "-G", "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={_tool(python, 'ninja')}",
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            f"-DCMAKE_CXX_FLAGS={flavour.flags}",
            f"-DCMAKE_SHARED_LINKER_FLAGS={flavour.flags}",
            f"-Dnanobind_DIR={cmake_dir}",
            f"-DPython_EXECUTABLE={python}",
            "-DHYPERGL_STUBS=OFF",  # stubgen imports the module, which needs ASan preloaded
            *compiler, *flavour.options,
        ]  # fmt: skip
        if subprocess.run(configure, check=False).returncode != 0:
            raise SanitizeError(f"configuring the {flavour.folder} build failed (see above)")
    if subprocess.run([cmake, "--build", str(tree)], check=False).returncode != 0:
        raise SanitizeError(f"building the {flavour.folder} engine failed (see above)")
    built = sorted(tree.glob("_core*.so"))
    if not built:
        raise SanitizeError(f"the {flavour.folder} build made no _core*.so in {tree}")
    return built[0]


def lay_out(extension: Path, site: Path) -> None:
    """site/hypergl: links to the package's sources, and the instrumented extension."""
    package = site / "hypergl"
    shutil.rmtree(package, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (CORE / "src" / "hypergl").iterdir():
        if entry.name.startswith("_core") or entry.name == "__pycache__":
            continue
        (package / entry.name).symlink_to(entry)
    shutil.copy2(extension, package / extension.name)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)


def environment(python: Path, flavour: Flavour = SANITIZE, preload: str | None = None
                ) -> dict[str, str]:  # fmt: skip
    """Build, lay out, and return the environment that runs Python on the flavour's
    engine, `preload` (default: the compiler's ASan and C++ runtimes) preloaded."""
    lay_out(build(python, flavour), flavour.site)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(flavour.site), env.get("PYTHONPATH")]))
    preload = runtime_libraries() if preload is None else preload
    env["LD_PRELOAD"] = " ".join(filter(None, [preload, env.get("LD_PRELOAD")]))
    env["ASAN_OPTIONS"] = (
        f"detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0:suppressions={SUPPRESSIONS}"
    )
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env["HYPERGL_SANITIZED"] = "1"
    return env


def show_engine(make_environment, tag: str) -> int:
    """Build (if needed) the engine `make_environment(python)` points at and print which
    file the interpreter given as argv[1] (default: .venv's) then imports."""
    python = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".venv" / "bin" / "python"
    try:
        env = make_environment(python)
    except SanitizeError as exc:
        print(f"[{tag}] error: {exc}", file=sys.stderr)
        return 1
    check = "import hypergl._core as c; print(c.__file__)"
    return subprocess.run([str(python), "-c", check], env=env, check=False).returncode


def main() -> int:
    return show_engine(environment, "sanitize")


if __name__ == "__main__":
    sys.exit(main())
