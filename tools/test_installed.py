#!/usr/bin/env python3
"""Run one distribution's tests against the copy of it that is installed, not the source.

    python tools/test_installed.py DIST [--from DIR] [pytest arguments...]

DIST is a distribution name (hypergl-compiler, py-gpu, hypergl-core, hypergl-culverin,
hypergl-mujoco, hypergl-rl).
DIR holds its ``tests/`` and ``README.md``: ``packages/DIST`` of this checkout by default,
or an unpacked sdist. Both are copied into a new temporary folder, and pytest runs there
with the interpreter that runs this script, so no source folder is on ``sys.path``: the
tests import what pip installed (a wheel that lacks a module, shader, data file, stub or
entry point fails them). Used by ``tools/dev.py dist``, cibuildwheel's test step and the
release workflow. Standard library only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = {
    "hypergl-compiler": "hypergl_compiler",
    "py-gpu": "py_gpu",
    "hypergl-core": "hypergl",
    "hypergl-culverin": "hypergl_culverin",
    "hypergl-mujoco": "hypergl_mujoco",
    "hypergl-rl": "hypergl_rl",
}
ADDOPTS = "-ra --strict-markers --import-mode=importlib -p no:cacheprovider"


def markers() -> list[str]:
    """The markers the workspace declares (root pyproject.toml), for --strict-markers."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: the list's quoted strings, one a line
        block = re.search(r"^markers = \[\n(.*?)^\]", text, re.S | re.M)
        return re.findall(r'^\s*"(.*)",?$', block.group(1), re.M) if block else []
    return tomllib.loads(text)["tool"]["pytest"]["ini_options"]["markers"]


def installed_location(module: str, cwd: Path) -> Path:
    probe = f"import {module}; print({module}.__file__)"
    out = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"test_installed: cannot import {module}: {out.stderr.strip()}")
    return Path(out.stdout.strip()).resolve()


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in MODULES:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    dist, rest = argv[0], argv[1:]
    source = ROOT / "packages" / dist
    if rest[:1] == ["--from"]:
        if len(rest) < 2:
            sys.exit("test_installed: --from needs a folder")
        source, rest = Path(rest[1]).resolve(), rest[2:]
    if not (source / "tests").is_dir():
        sys.exit(f"test_installed: {source} has no tests/ folder")
    work = Path(tempfile.mkdtemp(prefix=f"test-installed-{dist}-"))
    try:
        shutil.copytree(source / "tests", work / "tests")
        if (source / "README.md").exists():
            shutil.copy2(source / "README.md", work / "README.md")
        if (source / "examples").is_dir():  # a distribution's own examples, run by its tests
            shutil.copytree(source / "examples", work / "examples")
        lines = ["[pytest]", f"addopts = {ADDOPTS}", "pythonpath = tests", "markers ="]
        lines += [f"    {marker}" for marker in markers()]
        (work / "pytest.ini").write_text("\n".join(lines) + "\n", encoding="utf-8")
        location = installed_location(MODULES[dist], work)
        for forbidden in (ROOT, source):
            if location.is_relative_to(forbidden):
                sys.exit(f"test_installed: {MODULES[dist]} is imported from {location}, "
                         f"inside {forbidden}: install the wheel, not the source")  # fmt: skip
        print(f"[test_installed] {dist}: {MODULES[dist]} from {location.parent}", flush=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        command = [sys.executable, "-m", "pytest", *rest]
        return subprocess.run(command, cwd=work, env=env).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
