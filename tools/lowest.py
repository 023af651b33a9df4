"""Test every distribution at the floors it declares: the ranges we publish are the ranges we test.

    python3 tools/dev.py lowest [--only DIST[,DIST...]] [-- pytest arguments]

For each distribution under packages/ (tools/distributions.py), in build order:

1. a virtual environment on the oldest CPython its ``requires-python`` allows (PATH, then
   ~/.pyenv/versions);
2. its dependencies and those of its test extras (``[tool.hypergl] test-extras``, default
   ``test``) installed by uv at the lowest version each range allows
   (``--resolution lowest-direct``: the ones it names at their floors, what those need at
   their newest), wheels only. An installed version above the declared floor (the floor
   has no wheel for that Python, or cannot be installed with the rest) fails the run: raise
   the floor to what was installed;
3. its sibling distributions at the oldest version their ranges allow
   (distributions.floor: a release tag ``<name>-v<version>``, built from that tag and cached,
   or this checkout's version when no release satisfies the range), itself from this
   checkout, as wheels;
4. its tests, from packages/DIST/tests, against those installed wheels
   (tools/test_installed.py), without the ``slow`` ones unless pytest arguments are given:
   once every environment is ready, a distribution per core at a time.

Third-party resolutions are cached in ~/.cache/hypergl/lowest, one environment per hash
of (Python, requirements, siblings' versions and requirements): a second run reinstalls only
our wheels. Run by the development environment's Python (tools/dev.py lowest).
"""

from __future__ import annotations

import argparse
import functools
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))
import concurrent_runs  # tools/ is not a package
import dist as dist_tool
import distributions
from reporting import Reporter

ROOT = distributions.ROOT
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hypergl" / "lowest"
DEFAULT_PYTEST = ["-q", "-m", "not slow"]

_report = Reporter("lowest")
say, fail, run = _report.say, _report.fail, _report.run


def interpreter(minor: str) -> str:
    """CPython ``minor`` ("3.10"): the newest ~/.pyenv/versions/3.10.*, else python3.10 on PATH."""
    found = shutil.which(f"python{minor}")
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(glob.glob(str(pyenv / f"{minor}.*" / "bin" / "python3")),
                        key=lambda p: Version(Path(p).parents[1].name.split("t")[0]))  # fmt: skip
    candidates = [c for c in candidates if not Path(c).parents[1].name.endswith("t")]
    if candidates:
        return candidates[-1]
    if found:
        return found
    fail(f"no CPython {minor} on PATH or under {pyenv}: install it (pyenv install {minor})")
    raise AssertionError  # fail exits


def uv() -> str:
    found = dist_tool.uv()
    if found is None:
        fail("uv is missing: it comes with Hatch (python3 tools/dev.py setup), or pip install uv")
    return str(found)


def floor_of(requirement: Requirement) -> Version | None:
    """The lowest version a requirement's specifier allows (None: no lower bound)."""
    lows = [Version(s.version) for s in requirement.specifier
            if s.operator in (">=", "==", "~=", "===")]  # fmt: skip
    return max(lows) if lows else None


def sibling_wheels(dist: distributions.Distribution, out: Path) -> dict[str, Path]:
    """Every sibling ``dist`` needs (its test extras included, and theirs in turn) at its
    floor, as a wheel: built from this checkout, or from its release tag (cached)."""
    needed: dict[str, object] = {}
    pending = [dist.siblings(dist.test_extras)]
    while pending:
        for name, specifier in pending.pop().items():
            if name in needed:
                continue
            version, tag = distributions.floor(name, specifier)
            needed[name] = (version, tag)
            pending.append(distributions.by_name(name).siblings())
    wheels = {}
    for sibling in distributions.distributions():  # build order
        if sibling.name not in needed:
            continue
        version, tag = needed[sibling.name]
        if tag is None:
            wheels[sibling.name] = checkout_wheel(sibling, out)
            say(f"  {sibling.name} {version} (its floor) built from this checkout")
        else:
            wheels[sibling.name] = tagged_wheel(sibling, tag)
            say(f"  {sibling.name} {version} (its floor) built from the tag {tag}")
    return wheels


def checkout_wheel(dist: distributions.Distribution, out: Path) -> Path:
    """This checkout's wheel of ``dist``: the one tools/dist.py left in $HYPERGL_DIST_OUT
    (CI's suite builds them from this very checkout), else built now."""
    given = os.environ.get("HYPERGL_DIST_OUT")
    if given:
        prefix = f"{dist.name.replace('-', '_')}-{dist.version}-"
        for wheel in sorted(Path(given).glob(f"{prefix}*.whl")):
            return wheel
    return build(dist.folder, out)


def build(folder: Path, out: Path) -> Path:
    """A wheel of the distribution in ``folder`` (packages/DIST, or a tag's copy of it), in a
    folder of its own under ``out`` (a second build of it replaces the first)."""
    target = out / folder.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", target, folder], cwd=folder, env=dist_tool.build_environment())  # fmt: skip
    (wheel,) = target.glob("*.whl")
    return wheel


def tagged_wheel(sibling: distributions.Distribution, tag: str) -> Path:
    """The wheel of ``sibling`` as released at ``tag``, built once from ``git archive``."""
    cached = CACHE / "released" / tag
    wheels = list(cached.rglob("*.whl"))
    if wheels:
        return wheels[0]
    source = Path(tempfile.mkdtemp(prefix=f"hypergl-{tag}-"))
    try:
        archive = source / "src.tar"
        folder = f"packages/{sibling.folder.name}"
        run(["git", "-C", ROOT, "archive", "-o", archive, tag, folder, "LICENSE"])
        with tarfile.open(archive) as tar:
            tar.extractall(source, filter="data")
        cached.mkdir(parents=True, exist_ok=True)
        return build(source / folder, cached)
    finally:
        shutil.rmtree(source, ignore_errors=True)


def environment(dist: distributions.Distribution, python: str, wheels: dict[str, Path]) -> Path:
    """The venv with ``dist``'s third-party requirements at their floors, cached by a hash of
    what decides the resolution; our wheels are (re)installed into it every run."""
    requirements = [str(r) for r in dist.requirements(dist.test_extras)
                    if canonicalize_name(r.name) not in distributions.names()]  # fmt: skip
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    key = {"python": version, "requirements": requirements,
           "siblings": {name: [str(parse_wheel_filename(w.name)[1]),
                               [str(r) for r in distributions.by_name(name).dependencies]]
                        for name, w in sorted(wheels.items())}}  # fmt: skip
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    venv = CACHE / f"{dist.name}-py{distributions.oldest_python(dist)}-{digest}"
    target = venv / "bin" / "python"
    if target.exists() and (venv / ".complete").exists():
        say(f"  {venv.name}: cached (the same Python, requirements and siblings)")
        return target
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    run([uv(), "venv", "-q", "--seed", "--python", python, venv])  # pip: tests that fetch sdists
    say(f"  resolving {len(requirements)} requirements at their floors (uv, lowest-direct)")
    run([uv(), "pip", "install", "-q", "--python", target, "--resolution", "lowest-direct",
         "--only-binary", ":all:", *requirements, *wheels.values()])  # fmt: skip
    (venv / ".complete").write_text(json.dumps(key, indent=1))
    for stale in CACHE.glob(f"{dist.name}-py*"):  # older resolutions of this distribution
        if stale != venv:
            shutil.rmtree(stale, ignore_errors=True)
    return target


def check_floors(dist: distributions.Distribution, python: Path) -> list[str]:
    """Each direct third-party requirement installed at exactly its declared floor; the
    table of what was installed, for the log."""
    probe = ("import json, importlib.metadata as m; print(json.dumps({d.metadata['Name'].lower()"
             ".replace('_', '-'): d.version for d in m.distributions()}))")  # fmt: skip
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
    installed = json.loads(out.stdout)
    markers = (
        "import json, platform, sys; print(json.dumps({'python_version': '.'.join("
        "map(str, sys.version_info[:2])), 'python_full_version': platform.python_version(),"
        " 'sys_platform': sys.platform, 'platform_machine': platform.machine()}))"
    )
    environment_markers = json.loads(subprocess.run([python, "-c", markers], capture_output=True,
                                                    text=True, check=True).stdout)  # fmt: skip
    rows, wrong = [], []
    seen = set()
    for requirement in dist.requirements(dist.test_extras):
        name = requirement.name.lower().replace("_", "-")
        if name in distributions.names() or name in seen:
            continue
        seen.add(name)
        if requirement.marker and not requirement.marker.evaluate(environment_markers):
            continue
        low, got = floor_of(requirement), installed.get(name)
        rows.append(f"{requirement}: {got}")
        if got is None:
            wrong.append(f"{requirement}: not installed")
        elif low is not None and Version(got) != low:
            wrong.append(f"{requirement}: {got} was the oldest uv could install")
    say("  installed: " + ", ".join(rows))
    return wrong


def prepare(dist: distributions.Distribution, out: Path) -> tuple[Path, list[str]]:
    """``dist``'s floors environment with our wheels installed, and its floors that are wrong."""
    python = interpreter(distributions.oldest_python(dist))
    say(f"{dist.name} {dist.version}: Python {distributions.oldest_python(dist)} ({python})")
    wheels = sibling_wheels(dist, out)
    own = checkout_wheel(dist, out)
    target = environment(dist, python, wheels)
    run([uv(), "pip", "install", "-q", "--python", target, "--no-deps", "--reinstall",
         *wheels.values(), own])  # fmt: skip
    wrong = check_floors(dist, target)
    if wrong:
        say(
            f"  {dist.name}: floors that are not the oldest installable version: "
            + "; ".join(wrong)
            + " (raise each to the version installed)"
        )
    return target, wrong


def test(dist: distributions.Distribution, target: Path, out: Path,
         pytest_args: list[str]) -> tuple[str, bool]:  # fmt: skip
    """``dist``'s tests in its floors environment: what they printed, and whether they passed."""
    command = [target, ROOT / "tools" / "test_installed.py", dist.name, "--from", dist.folder,
               *(pytest_args or DEFAULT_PYTEST)]  # fmt: skip
    return concurrent_runs.captured([str(c) for c in command], cwd=out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/dev.py lowest", description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated distributions (default: all)")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to each pytest")
    args = parser.parse_args(argv)
    names = [d.name for d in distributions.distributions()]
    only = args.only.split(",") if args.only else names
    if unknown := sorted(set(only) - set(names)):
        parser.error(f"unknown distribution {unknown[0]!r}; expected some of {names}")
    started = time.monotonic()
    failed = []
    with tempfile.TemporaryDirectory(prefix="hypergl-lowest-") as work:
        chosen = [distributions.by_name(n) for n in names if n in only]
        # The environments one after another (siblings' wheels are built once, in build
        # order), then the tests a distribution per core, each one's output printed whole.
        prepared = []
        for dist in chosen:
            target, wrong = prepare(dist, Path(work))
            prepared.append((dist, target))
            if wrong:
                failed.append(dist.name)
        say(f"environments ready in {time.monotonic() - started:.0f} s; testing "
            f"{min(len(chosen), os.cpu_count() or 1)} distributions at a time")  # fmt: skip
        runs = {d.name: functools.partial(test, d, t, Path(work), args.pytest_args)
                for d, t in prepared}  # fmt: skip
        order = concurrent_runs.heaviest_first({d.name: d.folder / "tests" for d, _ in prepared})
        runs = {name: runs[name] for name in order}
        for name, passed, seconds in concurrent_runs.each(runs):
            say(f"  {name}: tests {'passed' if passed else 'failed'} at the floors "
                f"({seconds:.0f} s)")  # fmt: skip
            if not passed and name not in failed:
                failed.append(name)
    elapsed = time.monotonic() - started
    if failed:
        fail(f"at their floors, {', '.join(failed)} failed ({elapsed:.0f} s)")
    say(f"ok in {elapsed:.0f} s: {', '.join(only)} pass at their declared floors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
