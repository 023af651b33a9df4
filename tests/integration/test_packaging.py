"""Each distribution builds a wheel and an sdist; the pure-Python ones install alone.

Builds run without isolation, with the build backends of the test environment
(hatchling, scikit-build-core), so the test needs no network.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "packages"
PURE = {"hypergl-compiler": "hypergl_compiler", "py-gpu": "py_gpu"}
ARTEFACT = re.compile(
    r"(^|/)(build|dist|__pycache__|\.pytest_cache|CMakeFiles)(/|$)|\.(o|so|pyd|dll|a|pyc)$"
)

pytestmark = pytest.mark.slow


def source_version(package: str) -> str:
    """The single version source of a distribution: ``__version__`` in its ``__init__.py``."""
    (init,) = (PACKAGES / package / "src").glob("*/__init__.py")
    found = re.search(r'^__version__ = "([^"]+)"', init.read_text(encoding="utf-8"), re.M)
    assert found, f"{init} has no __version__"
    return found.group(1)


def build(kind: str, package: str, out: Path) -> Path:
    """`pip wheel` for wheels; the PEP 517 hook for sdists (pip cannot make those)."""
    source = PACKAGES / package
    if kind == "wheel":
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
             "-w", str(out), str(source)],
            check=True,
        )  # fmt: skip
        pattern = "*.whl"
    else:
        backend = {"hypergl-core": "scikit_build_core.build"}.get(package, "hatchling.build")
        code = (
            "import importlib, sys, os; os.chdir(sys.argv[1]); "
            f"print(importlib.import_module('{backend}').build_sdist(sys.argv[2]))"
        )
        subprocess.run([sys.executable, "-c", code, str(source), str(out)], check=True)
        pattern = "*.tar.gz"
    (built,) = out.glob(pattern)
    return built


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_distribution_installs_alone_into_a_bare_venv(package, tmp_path):
    wheel = build("wheel", package, tmp_path / "dist")
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True,
    )  # fmt: skip
    module = PURE[package]
    listing = subprocess.run(
        [str(python), "-c", f"import {module}, sys; print({module}.__version__); "
         "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'moderngl')))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    version, third_party = listing.stdout.splitlines()
    assert version == source_version(package) and third_party == "[]"
    if package == "hypergl-compiler":
        usage = subprocess.run([str(env / "bin" / "hgb")], capture_output=True, text=True)
        assert usage.returncode == 2 and "usage" in usage.stderr.lower()


@pytest.mark.parametrize("package", ["hypergl-compiler", "py-gpu", "hypergl-core",
                                     "hypergl-culverin", "hypergl-mujoco",
                                     "hypergl-rl"])  # fmt: skip
def test_every_distribution_builds_an_sdist(package, tmp_path):
    sdist = build("sdist", package, tmp_path)
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(name.endswith("pyproject.toml") for name in names)
    assert any(name.endswith("py.typed") for name in names)
    root = f"{package.replace('-', '_')}-{source_version(package)}/"
    assert {root + "LICENSE", root + "CHANGELOG.md"} <= set(names)
    # Only sources travel: no build folder, object file, extension or cache a local build
    # leaves beside them.
    artefacts = [name for name in names if ARTEFACT.search(name.removeprefix(root))]
    assert not artefacts, f"{sdist.name} carries build artefacts: {artefacts[:5]}"
    if package == "hypergl-core":  # the C++ sources travel with it
        assert any(name.endswith("cpp/engine/interpreter.cpp") for name in names)
        assert any(name.endswith("CMakeLists.txt") for name in names)


def test_mujoco_wheel_declares_its_entry_point(tmp_path):
    wheel = build("wheel", "hypergl-mujoco", tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        (entry_points,) = [n for n in archive.namelist() if n.endswith("entry_points.txt")]
        text = archive.read(entry_points).decode()
    assert "[hypergl.bridges]" in text and "mujoco = hypergl_mujoco.bridge:mujoco_bridge" in text


def test_culverin_wheel_declares_its_entry_point(tmp_path):
    wheel = build("wheel", "hypergl-culverin", tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        (entry_points,) = [n for n in archive.namelist() if n.endswith("entry_points.txt")]
        text = archive.read(entry_points).decode()
    assert (
        "[hypergl.bridges]" in text and "culverin = hypergl_culverin.bridge:CulverinBridge" in text
    )


@pytest.mark.parametrize("package", sorted(PURE))
def test_wheel_carries_the_license(package, tmp_path):
    wheel = build("wheel", package, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
