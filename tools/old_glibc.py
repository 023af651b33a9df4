"""The wheels on an old glibc: Debian 11 (glibc 2.31, Mesa 20.3), each distribution's tests.

    python3 tools/dev.py old-glibc [--dist DIR] [--only DIST[,DIST...]] [-- pytest arguments]

A user on Debian 11 or Ubuntu 20.04 installs our wheels with ``--only-binary :all:``; this
does the same in a Debian 11 root made here, with nothing of this machine's newer libraries:

1. Once (cached in ``~/.cache/hypergl/debian11``, about 2 minutes and 400 MB): debootstrap
   makes a minimal Debian 11 root with Mesa's EGL and a compiler, and CPython 3.13 is built
   inside it from Debian's source (the free-threaded tool's source, built with the GIL;
   a few minutes), since Debian 11 ships Python 3.9 only.
2. Every run: the wheels in DIR (``tools/dev.py dist --build-only`` when absent) are copied
   in, a venv installs them with ``--only-binary :all:`` and their test extras, and each
   distribution's tests (from its sdist, through tools/test_installed.py) run there on Mesa
   20.3's llvmpipe through headless EGL, a distribution per core (tools/concurrent_runs.py).
   The venv is kept while what decides its third-party packages is the same (the wheels'
   names and declared requirements, the extras, the interpreter): then only wheels whose
   bytes changed are reinstalled (``--no-deps``), and none while the wheels' SHA-256 are the
   same.

Needs root (chroot, bind mounts) and Debian's debootstrap. Standard library only.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import concurrent_runs  # tools/ is not a package
import distributions
import free_threaded  # the CPython source comes from there
from reporting import Reporter

ROOT = Path(__file__).resolve().parent.parent
CACHE = free_threaded.CACHE
DEBIAN = CACHE / "debian11"
SUITE = "bullseye"
#: libgl1 (glvnd's libGL.so.1, on every Debian 11 with Mesa's GL): moderngl's EGL context
#: loads it (glcontext), though hypergl itself needs EGL only.
PACKAGES = ["ca-certificates", "libegl1", "libgl1", "libgl1-mesa-dri", "libegl-mesa0", "libgles2",
            "build-essential", "libssl-dev", "zlib1g-dev", "libffi-dev", "libbz2-dev",
            "liblzma-dev", "libsqlite3-dev", "xz-utils"]  # fmt: skip
PYTHON = f"/opt/python{free_threaded.VERSION}"
VENV = "/opt/wheels-venv"  # outside /work, where the tests' copies are (test_installed.py)
#: The extras each distribution's tests need (as tools/dist.py: tools/distributions.py).
EXTRAS = {d.name: list(d.test_extras) for d in distributions.distributions()}
MOUNTS = ["proc", "sys", "dev"]
HOST_CERTIFICATES = os.environ.get("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
HOST_CA = "/etc/ssl/certs/hypergl-host-ca.crt"  # where the host's bundle goes inside


def tool(name: str) -> str:
    """A system program, also from the sbin folders a user's PATH may leave out."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    found = shutil.which(name, path=path)
    if found is None:
        package = "debootstrap" if name == "debootstrap" else "util-linux"
        fail(f"{name} not found (on Debian: apt install {package})")
    return found


_report = Reporter("old-glibc")
say, fail, run = _report.say, _report.fail, _report.run


def in_root(script: str, **kwargs) -> subprocess.CompletedProcess:
    """Run a shell script inside the Debian 11 root (its own PATH, HOME and no host venv)."""
    env = {"PATH": f"{PYTHON}/bin:/usr/local/bin:/usr/bin:/bin", "HOME": "/root",
           "LANG": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_CERT": HOST_CA,
           "SSL_CERT_FILE": HOST_CA}  # fmt: skip
    return subprocess.run([tool("chroot"), str(DEBIAN), "/bin/sh", "-ec", script], env=env,
                          check=False, **kwargs)  # fmt: skip


class Mounted:
    """/proc, /sys and /dev of the host bound into the root while it is used."""

    def __enter__(self) -> Mounted:
        for name in MOUNTS:
            target = DEBIAN / name
            target.mkdir(exist_ok=True)
            if not os.path.ismount(target):
                run([tool("mount"), "--bind", f"/{name}", target])
        # pip reaches PyPI as this machine does: its resolver and the certificates it trusts
        # (a proxy's own authority among them, where there is one).
        shutil.copy("/etc/resolv.conf", DEBIAN / "etc" / "resolv.conf")
        shutil.copy(HOST_CERTIFICATES, DEBIAN / HOST_CA.lstrip("/"))
        return self

    def __exit__(self, *_: object) -> None:
        for name in reversed(MOUNTS):
            subprocess.run([tool("umount"), "--lazy", str(DEBIAN / name)], check=False)


def mounts_under(folder: Path) -> list[str]:
    """Mount points inside `folder` (a bind mount left by an interrupted run, debootstrap's)."""
    prefix = str(folder.resolve()) + "/"
    with open("/proc/self/mounts", encoding="utf-8") as table:
        points = [line.split()[1].replace("\\040", " ") for line in table]
    return sorted((p for p in points if p.startswith(prefix)), reverse=True)


def remove_root() -> None:
    """Delete the root, never through a mount: rmtree would descend into a bound /dev."""
    for point in mounts_under(DEBIAN):
        subprocess.run([tool("umount"), "--lazy", point], check=False)
    if left := mounts_under(DEBIAN):
        fail(f"{left[0]} is still mounted: unmount it before {DEBIAN} can be made again")
    shutil.rmtree(DEBIAN, ignore_errors=True)


def ensure_root() -> None:
    stamp = DEBIAN / ".hypergl-packages"
    if stamp.exists() and stamp.read_text() == " ".join(PACKAGES):
        return
    if stamp.exists() and (added := sorted(set(PACKAGES) - set(stamp.read_text().split()))):
        # A package added to the list goes into the cached root: its CPython stays.
        say(f"adding {', '.join(added)} to the Debian 11 root (apt-get)")
        with Mounted():
            result = in_root(
                f"apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
                f"apt-get install -y -qq --no-install-recommends {' '.join(added)}"
            )
        if result.returncode == 0:
            stamp.write_text(" ".join(PACKAGES))
            return
        say("apt-get failed: making the root again")
    if os.geteuid() != 0:
        fail("needs root (debootstrap, chroot and bind mounts)")
    remove_root()
    say(f"making a Debian 11 ({SUITE}) root in {DEBIAN}: about 2 minutes, once")
    log = CACHE / "debian11-debootstrap.log"
    with log.open("w") as out:
        command = [tool("debootstrap"), "--variant=minbase", f"--include={','.join(PACKAGES)}",
                   SUITE, str(DEBIAN), "http://deb.debian.org/debian"]  # fmt: skip
        result = subprocess.run(command, stdout=out, stderr=out, check=False)
    if result.returncode != 0:
        fail(f"debootstrap failed (exit {result.returncode}); its log: {log}")
    stamp.write_text(" ".join(PACKAGES))


def ensure_python() -> None:
    stamp = DEBIAN / "opt" / ".hypergl-python"
    configure = " ".join(free_threaded.CONFIGURE)
    if stamp.exists() and stamp.read_text() == configure:
        return
    work = DEBIAN / "build"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    source = free_threaded.fetch_source(work)
    say(f"building {source.name} inside Debian 11 (its GCC and glibc) into {PYTHON}: once")
    log = CACHE / "debian11-python.log"
    with Mounted(), log.open("w") as out:
        result = in_root(f"cd /build/{source.name} && ./configure {configure} --prefix={PYTHON} "
                         f"&& make -j{os.cpu_count() or 2} && make install",
                         stdout=out, stderr=out)  # fmt: skip
    if result.returncode != 0:
        fail(f"building CPython in the Debian 11 root failed; the log: {log}")
    shutil.rmtree(work, ignore_errors=True)
    stamp.write_text(configure)


def requirements_digest(wheels: list[Path]) -> str:
    """A hash of what decides the venv's third-party packages: the wheels' names and declared
    requirements, the extras installed and the interpreter. The venv made from them is kept
    while it is unchanged (its packages as pip resolved them then)."""
    digest = hashlib.sha256(f"{EXTRAS} {free_threaded.CONFIGURE}".encode())
    declared = ("Requires-Dist:", "Provides-Extra:", "Requires-Python:")
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            lines = [x for x in archive.read(name).decode().splitlines() if x.startswith(declared)]
        digest.update("\n".join([wheel.name, *lines]).encode())
    return digest.hexdigest()


def wheel_digests(wheels: list[Path]) -> dict[str, str]:
    """Each wheel's SHA-256 (the wheels are reproducible: the same sources, the same bytes)."""
    return {wheel.name: hashlib.sha256(wheel.read_bytes()).hexdigest() for wheel in wheels}


def install(wheels: list[Path], requirements: str) -> str:
    """Brings the venv to these wheels (see the module's note); says what it did."""
    made = DEBIAN / VENV.lstrip("/") / ".hypergl-requirements"
    installed = DEBIAN / VENV.lstrip("/") / ".hypergl-wheels"
    wanted, digests = requirements_digest(wheels), wheel_digests(wheels)
    if made.exists() and made.read_text() == wanted and installed.exists():
        before = json.loads(installed.read_text())
        changed = [w for w in wheels if before.get(w.name) != digests[w.name]]
        if not changed:
            return f"{VENV} has these wheels already (same SHA-256): not installed again"
        names = " ".join(f"'/work/wheels/{w.name}'" for w in changed)
        if in_root(f"{VENV}/bin/python -m pip install -q --no-deps --force-reinstall "
                   f"--only-binary :all: {names}").returncode != 0:  # fmt: skip
            fail("pip could not reinstall the changed wheels on Debian 11")
        installed.write_text(json.dumps(digests))
        return (f"reinstalled {', '.join(w.name for w in changed)} (--no-deps: the requirements "
                f"are unchanged, the venv's other packages kept)")  # fmt: skip
    result = in_root(f"rm -rf {VENV} && {PYTHON}/bin/python3 -m venv {VENV} && "
                     f"{VENV}/bin/python -m pip install -q --only-binary :all: "
                     f"{requirements}")  # fmt: skip
    if result.returncode != 0:
        fail("pip could not install the wheels with --only-binary :all: on Debian 11")
    made.write_text(wanted)
    installed.write_text(json.dumps(digests))
    return f"installed the {len(wheels)} wheels with --only-binary :all: (pip took no sdist)"


def tested(script: str) -> tuple[str, bool]:
    """``script``'s output inside the root and whether it passed: a run for concurrent_runs."""
    done = in_root(script, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.stdout.rstrip(), done.returncode == 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/dev.py old-glibc",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="wheels and sdists")
    parser.add_argument("--only", help="comma-separated distributions to test")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to each pytest")
    args = parser.parse_args(argv)
    only = args.only.split(",") if args.only else list(EXTRAS)
    started = time.monotonic()
    dist_dir = args.dist.resolve()
    if not list(dist_dir.glob("*.whl")):
        say(f"no wheels in {dist_dir}: building them (tools/dist.py --build-only)")
        run([sys.executable, ROOT / "tools" / "dist.py", "--out", dist_dir, "--build-only"])
    ensure_root()
    ensure_python()
    glibc = in_root("ldd --version | head -1", capture_output=True, text=True).stdout.strip()
    say(f"Debian 11 root ready ({glibc})")

    work = DEBIAN / "work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "wheels").mkdir(parents=True)
    for wheel in dist_dir.glob("*.whl"):
        shutil.copy(wheel, work / "wheels")
    # test_installed.py reads the workspace's pytest markers from ../pyproject.toml
    (work / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "test_installed.py", work / "tools")
    shutil.copy(ROOT / "pyproject.toml", work)
    names = {dist: next(dist_dir.glob(f"{dist.replace('-', '_')}-*.whl")).name for dist in EXTRAS}
    requirements = " ".join(f"'/work/wheels/{names[d]}[{','.join(EXTRAS[d])}]'" for d in EXTRAS)
    failed = []
    times = [f"root {time.monotonic() - started:.0f} s"]
    with Mounted():
        began = time.monotonic()
        say(install(sorted(dist_dir.glob("*.whl")), requirements))
        times.append(f"venv {time.monotonic() - began:.0f} s")
        runs, tests = {}, {}
        for dist in only:
            sdist = next(dist_dir.glob(f"{dist.replace('-', '_')}-*.tar.gz"))
            with tarfile.open(sdist) as archive:
                archive.extractall(work / "sdists", filter="data")
            unpacked = work / "sdists" / sdist.name.removesuffix(".tar.gz")
            shutil.rmtree(unpacked / "src")  # the tests import the wheel
            pytest = " ".join(f"'{a}'" for a in args.pytest_args)
            script = (f"cd /work && {VENV}/bin/python /work/tools/test_installed.py {dist} "
                      f"--from /work/sdists/{unpacked.name} {pytest}")  # fmt: skip
            runs[dist] = functools.partial(tested, script)
            tests[dist] = unpacked / "tests"
        runs = {dist: runs[dist] for dist in concurrent_runs.heaviest_first(tests)}
        say(f"testing {', '.join(only)} on Debian 11 against the installed wheels, "
            f"{os.cpu_count() or 1} at a time")  # fmt: skip
        for dist, passed, seconds in concurrent_runs.each(runs):
            if not passed:
                failed.append(dist)
            times.append(f"{dist} {seconds:.0f} s")
    elapsed = time.monotonic() - started
    say("times: " + ", ".join(times))
    if failed:
        fail(f"tests failed on Debian 11 for: {', '.join(failed)}")
    say(f"ok in {elapsed:.0f} s: {', '.join(only)} pass on Debian 11 ({glibc})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
