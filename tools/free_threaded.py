"""`python3 tools/dev.py test --free-threaded`: the suites on a free-threaded CPython 3.13t.

Standard library only. Once per machine (cached, reused when present):
Debian's python3.13 source package is fetched with apt-get (a private sources
list pointing at Debian 13's deb-src, so the system's apt setup is untouched)
and built with ``--disable-gil`` into the cache folder (``$HYPERGL_CACHE`` or
``~/.cache/hypergl``; about 4 minutes on 2 idle cores). Per checkout: a
free-threaded environment ``.venv-ft`` with binary wheels only (pip then takes
the newest release of each dependency that has a cp313t or pure-Python wheel),
hypergl-compiler, py-gpu and hypergl-core installed from the checkout, the
engine built in nanobind's FREE_THREADED mode; then the compiler, core and
py_gpu suites run with the GIL left as the interpreter decides. hypergl-culverin
is not installed: Culverin's newest cp313t wheel is older than the bridge needs.
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
PREFIX = CACHE / "cpython-3.13t"
PYTHON = PREFIX / "bin" / "python3.13t"
VENV = ROOT / ".venv-ft"
SUITES = ["packages/hypergl-compiler/tests", "packages/hypergl-core/tests", "packages/py-gpu/tests"]
MEMBERS = ["packages/hypergl-compiler", "packages/py-gpu", "packages/hypergl-core"]
# What the suites import besides the members; only binary wheels are taken.
TEST_REQUIREMENTS = ["numpy>=1.26", "pytest>=8", "hypothesis>=6", "pillow>=10", "glfw>=2.7",
                     "PySDL2>=0.9", "ruff", "scikit-build-core>=0.10", "nanobind>=2.4",
                     "cmake>=3.26", "hatchling"]  # fmt: skip
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
    say("fetching Debian's python3.13 source package")
    run(["apt-get", "-qq", *options, "update"])
    run(["apt-get", "-qq", *options, "source", "--download-only", "python3.13"], cwd=work)
    tarballs = sorted(p for p in work.glob("python3.13_*.orig.tar.*") if p.suffix != ".asc")
    if not tarballs:
        raise SystemExit("[free-threaded] error: apt-get source gave no python3.13 tarball")
    with tarfile.open(tarballs[-1]) as archive:
        archive.extractall(work, filter="data")
    return next(p for p in work.iterdir() if p.is_dir() and p.name.startswith("Python-3.13"))


def ensure_interpreter() -> Path:
    """CPython 3.13 built with --disable-gil, in the cache (built once)."""
    if PYTHON.exists():
        return PYTHON
    if shutil.which("apt-get") is None:
        raise SystemExit("[free-threaded] error: needs Debian's apt-get to fetch the source")
    work = CACHE / "build-cpython-3.13t"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    source = fetch_source(work)
    say(f"building {source.name} with --disable-gil into {PREFIX} (a few minutes, once)")
    run(["./configure", "-q", "--disable-gil", f"--prefix={PREFIX}", "--with-ensurepip=install"],
        cwd=source)  # fmt: skip
    run(["make", "-s", f"-j{os.cpu_count() or 2}"], cwd=source, stdout=subprocess.DEVNULL)
    run(["make", "-s", "install"], cwd=source, stdout=subprocess.DEVNULL)
    shutil.rmtree(work, ignore_errors=True)
    return PYTHON


def ensure_environment(python: Path) -> Path:
    """.venv-ft: binary wheels and the members; rebuilt when the members change."""
    venv_python = VENV / "bin" / "python"
    if not venv_python.exists():
        say(f"creating {VENV.name}")
        run([str(python), "-m", "venv", str(VENV)])
        run([str(venv_python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    wanted = VENV / ".requirements"
    if not wanted.exists() or wanted.read_text() != "\n".join(TEST_REQUIREMENTS):
        run([str(venv_python), "-m", "pip", "install", "-q", "--only-binary", ":all:",
             *TEST_REQUIREMENTS])  # fmt: skip
        wanted.write_text("\n".join(TEST_REQUIREMENTS))
    digest = hashlib.sha256()
    for member in MEMBERS:
        for path in sorted((ROOT / member).rglob("*")):
            if path.is_file() and "build" not in path.relative_to(ROOT / member).parts[:1]:
                digest.update(str(path).encode() + path.read_bytes())
    stamp = VENV / ".members.sha256"
    if not stamp.exists() or stamp.read_text() != digest.hexdigest():
        say("installing hypergl-compiler, py-gpu and hypergl-core (FREE_THREADED engine)")
        run([str(venv_python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
             *(str(ROOT / m) for m in MEMBERS)])  # fmt: skip
        stamp.write_text(digest.hexdigest())
    return venv_python


def main(pytest_args: list[str]) -> int:
    python = ensure_interpreter()
    venv_python = ensure_environment(python)
    probe = "import sys, sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'))"
    flag = subprocess.run([str(venv_python), "-c", probe], capture_output=True, text=True)
    if flag.stdout.strip() != "1":
        raise SystemExit(f"[free-threaded] error: {venv_python} is not free-threaded")
    command = [str(venv_python), "-m", "pytest", "-p", "no:cacheprovider",
               *(pytest_args or ["-q", *SUITES])]  # fmt: skip
    say(" ".join(command[2:]))
    # Run outside the checkout's src folders: the installed (FREE_THREADED) engine is tested.
    return subprocess.run(command, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
