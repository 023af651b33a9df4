"""`python3 tools/dev.py test --free-threaded`: the suites on a free-threaded CPython 3.13t.

Standard library only. Once per machine (cached, reused when present):
Debian's python3.13 source package is fetched with apt-get (a private sources
list pointing at Debian 13's deb-src, so the system's apt setup is untouched)
and built with ``--disable-gil`` into the cache folder (``$HYPERGL_CACHE`` or
``~/.cache/hypergl``; about 4 minutes on 2 idle cores, the compiler's output in
a log beside it). Per checkout: a free-threaded environment ``.venv-ft`` with
binary wheels only (pip then takes the newest release of each dependency that
has a cp313t or pure-Python wheel), hypergl-compiler, py-gpu, hypergl-core and
hypergl-rl installed from the checkout, the engine built in nanobind's FREE_THREADED
mode; then the compiler, core, py_gpu and rl suites run with the GIL left as the
interpreter decides. hypergl-culverin is not installed: Culverin's newest
cp313t wheel is older than the bridge needs; nor is hypergl-mujoco: mujoco-core
has no cp313t wheel.

benchmarks/free_threaded.py also asks for ``environment(free_threaded=False)``:
the same source built the same way with the GIL, in ``.venv-gil``, so that the
two interpreters differ only in ``--disable-gil``. (Python 3.14, whose
free-threaded build specialises, is listed in Debian's unstable sources but its
files are not on the mirror this machine reaches.)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("HYPERGL_CACHE", Path.home() / ".cache" / "hypergl"))
VERSION = "3.13"
# Shared by both builds so that the benchmark compares like with like; the test-only C
# modules and Lib/test are left out (nothing here imports them; a shorter build and install).
CONFIGURE = ["--disable-test-modules", "--with-ensurepip=install"]
SUITES = ["packages/hypergl-compiler/tests", "packages/hypergl-core/tests", "packages/py-gpu/tests",
          "packages/hypergl-rl/tests"]  # fmt: skip
MEMBERS = ["packages/hypergl-compiler", "packages/py-gpu", "packages/hypergl-core",
           "packages/hypergl-rl"]  # fmt: skip
# What the suites import besides the members; only binary wheels are taken.
TEST_REQUIREMENTS = [
    "numpy>=1.26",
    "pytest>=8",
    "pytest-xdist>=3.6",
    "hypothesis>=6",
    "pillow>=10",
    "glfw>=2.7",
    "PySDL2>=0.9",
    "pysdl2-dll>=2.28",
    "gymnasium>=1.0",
    "ruff",
    "scikit-build-core>=0.10",
    "nanobind>=2.4",
    "cmake>=3.26",
    "hatchling",
    "py3dengine==0.0.4",
]  # fmt: skip  (pure Python: py_gpu's py_3d adapter tests)
DEB_SRC = "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\n"


def say(message: str) -> None:
    print(f"[free-threaded] {message}", flush=True)


def run(command: list[str], **kwargs) -> None:
    result = subprocess.run(command, check=False, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"[free-threaded] error: {' '.join(map(str, command))} failed "
                         f"(exit {result.returncode})")  # fmt: skip


def fetch_source(work: Path) -> Path:
    """Debian's python3.13 source (upstream tarball plus Debian's patches), unpacked."""
    apt = work / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list.d").mkdir(exist_ok=True)
    (apt / "sources.list.d" / "trixie-src.sources").write_text(DEB_SRC)
    (apt / "sources.list").write_text("")
    options = [f"-oDir::Etc::SourceList={apt / 'sources.list'}",
               f"-oDir::Etc::SourceParts={apt / 'sources.list.d'}",
               f"-oDir::State::Lists={apt / 'lists'}", "-oAPT::Sandbox::User=root"]  # fmt: skip
    say(f"fetching Debian's python{VERSION} source package")
    run(["apt-get", "-qq", *options, "update"])
    run(["apt-get", "-qq", *options, "source", "--download-only", f"python{VERSION}"], cwd=work)
    tarballs = sorted(p for p in work.glob(f"python{VERSION}_*.orig.tar.*") if p.suffix != ".asc")
    if not tarballs:
        raise SystemExit(f"[free-threaded] error: apt-get source gave no python{VERSION} tarball")
    with tarfile.open(tarballs[-1]) as archive:
        archive.extractall(work, filter="data")
    return next(p for p in work.iterdir() if p.is_dir() and p.name.startswith(f"Python-{VERSION}"))


def interpreter(free_threaded: bool = True) -> tuple[Path, list[str]]:
    """Where a build lives and the configure arguments it is made with."""
    suffix = "t" if free_threaded else ""
    prefix = CACHE / f"cpython-{VERSION}{suffix}"
    configure = [*(["--disable-gil"] if free_threaded else []), *CONFIGURE, f"--prefix={prefix}"]
    return prefix / "bin" / f"python{VERSION}{suffix}", configure


def ensure_interpreter(free_threaded: bool = True) -> Path:
    """CPython 3.13 from Debian's source, free-threaded or not, in the cache (built once).

    A build made with other configure arguments (an older version of this file) is rebuilt.
    """
    python, configure = interpreter(free_threaded)
    prefix = python.parent.parent
    stamp = prefix / ".hypergl-configure"
    if python.exists() and stamp.exists() and stamp.read_text() == " ".join(configure):
        return python
    if shutil.which("apt-get") is None:
        raise SystemExit("[free-threaded] error: needs Debian's apt-get to fetch the source")
    work = CACHE / f"build-{prefix.name}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(prefix, ignore_errors=True)
    work.mkdir(parents=True)
    source = fetch_source(work)
    say(f"building {source.name} ({' '.join(configure[:-1])}) into {prefix}: a few minutes, once")
    log = CACHE / f"build-{prefix.name}.log"  # compiler warnings stay out of CI's output
    with log.open("w") as out:
        for step in (["./configure", *configure], ["make", f"-j{os.cpu_count() or 2}"],
                     ["make", "install"]):  # fmt: skip
            if subprocess.run(step, cwd=source, stdout=out, stderr=out).returncode != 0:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
                message = f"{' '.join(step)} failed building CPython; the whole log: {log}"
                raise SystemExit(f"{tail}\n[free-threaded] error: {message}")
    stamp.write_text(" ".join(configure))
    shutil.rmtree(work, ignore_errors=True)
    return python


def ensure_environment(python: Path, venv: Path) -> Path:
    """A venv of `python`: binary wheels and the members; reinstalled when the members change."""
    venv_python = venv / "bin" / "python"
    if not venv_python.exists():
        say(f"creating {venv.name}")
        run([str(python), "-m", "venv", str(venv)])
        run([str(venv_python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    wanted = venv / ".requirements"
    if not wanted.exists() or wanted.read_text() != "\n".join(TEST_REQUIREMENTS):
        run([str(venv_python), "-m", "pip", "install", "-q", "--only-binary", ":all:",
             *TEST_REQUIREMENTS])  # fmt: skip
        wanted.write_text("\n".join(TEST_REQUIREMENTS))
    digest = hashlib.sha256()
    for member in MEMBERS:
        for path in sorted((ROOT / member).rglob("*")):
            if path.is_file() and "build" not in path.relative_to(ROOT / member).parts[:1]:
                digest.update(str(path).encode() + path.read_bytes())
    stamp = venv / ".members.sha256"
    if not stamp.exists() or stamp.read_text() != digest.hexdigest():
        say(f"installing hypergl-compiler, py-gpu, hypergl-core and hypergl-rl into {venv.name}")
        run([str(venv_python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
             *(str(ROOT / m) for m in MEMBERS)])  # fmt: skip
        stamp.write_text(digest.hexdigest())
    return venv_python


def environment(free_threaded: bool = True) -> Path:
    """The Python of .venv-ft (3.13t) or .venv-gil (3.13 built the same way, for benchmarks)."""
    venv = ROOT / (".venv-ft" if free_threaded else ".venv-gil")
    return ensure_environment(ensure_interpreter(free_threaded), venv)


def main(pytest_args: list[str]) -> int:
    from pytest_workers import worker_args  # as tools/dev.py test: a worker per core
    from virtual_display import virtual_display_command  # window tests under Xvfb, as in dev.py

    venv_python = environment(free_threaded=True)
    probe = "import sys, sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'))"
    flag = subprocess.run([str(venv_python), "-c", probe], capture_output=True, text=True)
    if flag.stdout.strip() != "1":
        raise SystemExit(f"[free-threaded] error: {venv_python} is not free-threaded")
    # Options alone (-q, -x, -m ...) apply to the four suites; paths choose other tests.
    paths = [a for a in pytest_args if (ROOT / a.split("::")[0]).exists()]
    command = [str(venv_python), "-m", "pytest", "-p", "no:cacheprovider",
               *worker_args(pytest_args), *pytest_args,
               *([] if paths else SUITES)]  # fmt: skip
    say(" ".join(command[2:]))

    # Run outside the checkout's src folders: the installed (FREE_THREADED) engine is tested.
    return subprocess.run(virtual_display_command(command), cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
