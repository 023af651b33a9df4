"""`python3 tools/dev.py mujoco-matrix`: the hypergl-mujoco suite on the oldest and the newest
MuJoCo it supports, on CPython 3.12 (where dm_control installs: labmaze has no cp313 wheel).

Standard library only. One environment per leg, ``~/.cache/hypergl/mujoco-matrix/<leg>``
(binary wheels: the leg's MuJoCo and what the suite needs), made once per machine and kept
while its requirements are the same, so a fresh clone (CI) only reinstalls our three
distributions into it: hypergl-compiler, hypergl-core and hypergl-mujoco as wheels, those
the suite's dist test left in ``$HYPERGL_DIST_OUT`` (CI) or else built from the checkout
(the engine in a folder of its own, build/mujoco-matrix: another interpreter in the
development environment's folder would reconfigure it); then ``pytest
packages/hypergl-mujoco/tests`` in it, the legs a core each (tools/concurrent_runs.py). The
legs:

- ``floor``: ``mujoco`` 3.5.0 (hypergl_mujoco.versions.MINIMUM) with dm_control 1.0.37,
  the dm_control release made for it;
- ``newest``: ``mujoco-core`` 4.0.1 (no dm_control: 1.0.50 fails on MuJoCo 4, its
  ``MjModel`` has no ``flex_vertedge``);
- ``below``: ``mujoco`` 3.4.0, one release under the floor: only tests/test_versions.py,
  which checks that ``import hypergl_mujoco`` refuses it with the version and the range.

    python3 tools/dev.py mujoco-matrix                # every leg
    python3 tools/dev.py mujoco-matrix --leg floor -x # one leg; the rest goes to pytest
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import concurrent_runs  # tools/ is not a package
from virtual_display import virtual_display_command

ROOT = Path(__file__).resolve().parent.parent
SUITE = "packages/hypergl-mujoco/tests"
PYTHON = "3.12"
#: leg -> its MuJoCo (and dm_control where one installs with it)
LEGS = {
    "below": ["mujoco==3.4.0"],
    "floor": ["mujoco==3.5.0", "dm_control==1.0.37"],
    "newest": ["mujoco-core==4.0.1"],
}
#: leg -> what it runs when no test path is given: below the floor only the import check
#: (every other test module imports hypergl_mujoco, which refuses that MuJoCo)
SUITES = {"below": [f"{SUITE}/test_versions.py"]}
#: What the suite imports besides MuJoCo and the members, and what builds the engine.
REQUIREMENTS = ["numpy>=1.26", "pytest>=8", "pytest-timeout>=2.3", "hypothesis>=6",
                "pillow>=10", "gymnasium>=1.0,<2", "PyOpenGL>=3.1",
                # gymnasium.envs.mujoco imports these even headless (its viewer's)
                "glfw>=2.7", "imageio>=2.31", "packaging",
                "scikit-build-core>=0.10", "nanobind>=3.1,<4", "cmake>=3.26", "ninja",
                "hatchling>=1.26", "editables>=0.5"]  # fmt: skip
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hypergl" / "mujoco-matrix"
CORE = "packages/hypergl-core"  # built by scikit-build-core; the others are pure Python
MEMBERS = ["packages/hypergl-compiler", CORE, "packages/hypergl-mujoco"]
WHEELS = {"packages/hypergl-compiler": "hypergl_compiler-*.whl", CORE: "hypergl_core-*.whl",
          "packages/hypergl-mujoco": "hypergl_mujoco-*.whl"}  # fmt: skip


def say(message: str) -> None:
    print(f"[mujoco-matrix] {message}", flush=True)


def run(command: list[str], **kwargs) -> None:
    result = subprocess.run(command, check=False, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"[mujoco-matrix] error: {' '.join(map(str, command))} failed "
                         f"(exit {result.returncode})")  # fmt: skip


def find_python() -> str:
    """A CPython 3.12: $HYPERGL_MUJOCO_PYTHON, PATH, then ~/.pyenv/versions."""
    given = os.environ.get("HYPERGL_MUJOCO_PYTHON")
    candidates = [given] if given else []
    candidates += [found for found in [shutil.which(f"python{PYTHON}")] if found]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(str(pyenv / "versions" / f"{PYTHON}.*" / "bin" / "python3")),
                         reverse=True)  # fmt: skip
    probe = "import sys; print('%d.%d' % sys.version_info[:2])"
    for candidate in candidates:
        out = subprocess.run([candidate, "-c", probe], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip() == PYTHON:
            return candidate
    raise SystemExit(f"[mujoco-matrix] error: no CPython {PYTHON} on PATH or under "
                     f"{pyenv}/versions (pyenv install {PYTHON}, or set "
                     "HYPERGL_MUJOCO_PYTHON)")  # fmt: skip


def members_digest(wheels: list[Path]) -> str:
    """What our distributions are: the wheels given, or the checkout's sources."""
    digest = hashlib.sha256()
    if wheels:
        for wheel in wheels:
            digest.update(wheel.name.encode() + wheel.read_bytes())
        return digest.hexdigest()
    for member in MEMBERS:
        folder = ROOT / member
        paths = [*folder.joinpath("src").rglob("*"), *folder.joinpath("cpp").rglob("*"),
                 folder / "CMakeLists.txt", folder / "pyproject.toml"]  # fmt: skip
        for path in sorted(paths):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()


def given_wheels() -> list[Path]:
    """Our three wheels from $HYPERGL_DIST_OUT (the suite's dist test), or none."""
    folder = os.environ.get("HYPERGL_DIST_OUT")
    if not folder:
        return []
    found = [sorted(Path(folder).glob(pattern)) for pattern in WHEELS.values()]
    return [matches[-1] for matches in found] if all(found) else []


def environment(leg: str) -> Path:
    """The leg's venv, made or brought up to date."""
    venv = CACHE / leg
    python = venv / "bin" / "python"
    wanted = "\n".join([*LEGS[leg], *REQUIREMENTS])
    stamp = venv / ".requirements"
    if not (python.exists() and stamp.exists() and stamp.read_text() == wanted):
        shutil.rmtree(venv, ignore_errors=True)
        say(f"creating {venv} on {find_python()}: {' '.join(LEGS[leg])}")
        run([find_python(), "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", "--only-binary", ":all:",
             *LEGS[leg], *REQUIREMENTS])  # fmt: skip
        stamp.write_text(wanted)
    members = venv / ".members"
    wheels = given_wheels()
    digest = members_digest(wheels)
    if not members.exists() or members.read_text() != digest:
        pip = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall"]
        if wheels:
            say(f"installing {', '.join(w.name for w in wheels)} into {venv}")
            run([*pip, *map(str, wheels)], cwd=ROOT)
        else:
            say(f"installing hypergl-compiler, hypergl-core, hypergl-mujoco into {venv} "
                "(the engine built into build/mujoco-matrix)")  # fmt: skip
            build = f"--config-settings=build-dir={ROOT / 'build' / 'mujoco-matrix'}"
            run([*pip, "--no-build-isolation", build, *(str(ROOT / m) for m in MEMBERS)],
                cwd=ROOT)  # fmt: skip
        members.write_text(digest)
    return python


def test_leg(leg: str, python: Path, pytest_args: list[str]) -> tuple[str, bool]:
    """The leg's suite in its environment: what it printed (its MuJoCo and Python first), and
    whether it passed."""
    probe = "import mujoco, sys; print(mujoco.__version__, sys.version.split()[0])"
    versions = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    found = versions.stdout.strip() or versions.stderr.strip()
    paths = [a for a in pytest_args if (ROOT / a.split("::")[0]).exists()]
    command = [str(python), "-m", "pytest", "-p", "no:cacheprovider", *pytest_args,
               *([] if paths else SUITES.get(leg, [SUITE]))]  # fmt: skip
    env = dict(os.environ, MUJOCO_GL="egl")
    output, passed = concurrent_runs.captured(virtual_display_command(command), cwd=ROOT, env=env)
    return f"[mujoco-matrix] {leg}: MuJoCo {found} (Python second)\n{output}", passed


def main(args: list[str]) -> int:
    legs = list(LEGS)
    if "--leg" in args:
        at = args.index("--leg")
        chosen = args[at + 1] if at + 1 < len(args) else ""
        if chosen not in LEGS:
            raise SystemExit(f"[mujoco-matrix] error: --leg takes one of {', '.join(LEGS)}, "
                             f"got {chosen!r}")  # fmt: skip
        legs = [chosen]
        args = args[:at] + args[at + 2 :]
    # The environments one after another (pip), then the legs' suites a core each.
    runs = {leg: functools.partial(test_leg, leg, environment(leg), args) for leg in legs}
    failed = []
    for leg, passed, seconds in concurrent_runs.each(runs):
        say(f"{leg}: {'passed' if passed else 'failed'} in {seconds:.0f} s")
        if not passed:
            failed.append(leg)
    say("every leg passed" if not failed else f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
