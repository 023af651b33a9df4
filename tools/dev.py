#!/usr/bin/env python3
"""HyperGL's developer entry: installs what is missing, then runs the job.

    python3 tools/dev.py demo    # the main job: hypergl demo (options after it, e.g. --window)
    python3 tools/dev.py test    # the whole test suite (--sanitize: on an ASan+UBSan engine)
    python3 tools/dev.py test --free-threaded  # compiler/core/py_gpu suites on CPython 3.13t
    python3 tools/dev.py mujoco-matrix  # hypergl-mujoco's suite on the oldest and newest MuJoCo
    python3 tools/dev.py bench   # every benchmark, one table and a chart
    python3 tools/dev.py lint    # ruff check and ruff format --check
    python3 tools/dev.py dist    # build every wheel and sdist, test them installed
    python3 tools/dev.py release-rehearsal  # publish them to a local index, install each alone
    python3 tools/dev.py lowest  # each distribution's tests at its declared floors (oldest Python)
    python3 tools/dev.py old-glibc  # the wheels' tests on Debian 11 (glibc 2.31), in a chroot
    python3 tools/dev.py docs    # the documentation site, strict (site/; --serve to browse)
    python3 tools/dev.py info    # what this machine's OpenGL can do
    python3 tools/dev.py examples  # PPO with SB3 and RLlib: own environment, with torch
    python3 tools/dev.py device-prepare   # fetch what the GPU check machine lacks (.device/)
    python3 tools/dev.py fuzz --seconds N # fuzz .hgb, MJCF, URDF inputs (atheris; --target)

Standard library only, so it runs on any Python 3 before anything is installed.
It wraps Hatch, the environment manager: the development environment is `.venv`
on the newest CPython >= 3.12 found (PATH first, then ~/.pyenv/versions), with
the six distributions installed editable with their test extras (and hypergl-rl's
[gym], [ray] and [culverin], so the gymnasium, Ray and Culverin-reach tests run too). A
second run with nothing changed takes seconds: Hatch skips an environment that is in sync,
and the C++ extension is rebuilt only when its sources change.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_workers import worker_args  # tools/ is not a package
from virtual_display import virtual_display_command

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
TOOLS = ROOT / ".tools"
HATCH_VENV = TOOLS / "hatch"
HATCH_REQUIREMENT = "hatch>=1.16"
CORE = ROOT / "packages" / "hypergl-core"
CORE_STAMP = VENV / ".hypergl-core-sources.sha256"
MIN_PYTHON = (3, 12)

# Debian packages: EGL with Mesa's llvmpipe, Vulkan with Mesa's lavapipe (py-gpu's
# wgpu backend), and a virtual display for windows.
SYSTEM_PACKAGES = ["libegl1", "libgl1-mesa-dri", "libegl-mesa0", "libgles2", "mesa-vulkan-drivers",
                   "xvfb", "xauth"]  # fmt: skip
# Installed alongside them as root, never asked of anyone else: a compiler cache, so that a
# fresh clone (CI's) rebuilds the same C++ from it (see use_compiler_cache).
OPTIONAL_PACKAGES = ["ccache"]


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def fail(message: str) -> None:
    print(f"[dev] error: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=False, **kwargs)


def ensure_system_packages(packages: list[str] = SYSTEM_PACKAGES) -> None:
    """Install Debian's EGL/Vulkan (Mesa) and Xvfb packages (or `packages`) when
    missing (as root)."""
    if shutil.which("dpkg-query") is None:
        say("not a Debian system: make sure EGL (Mesa) and Xvfb are installed")
        return
    missing = [
        name
        for name in packages
        if "install ok installed"
        not in run(
            ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True
        ).stdout
    ]
    if os.geteuid() == 0 and shutil.which("ccache") is None:
        missing += [name for name in OPTIONAL_PACKAGES if name not in packages]
    if not missing:
        return
    if os.geteuid() != 0:
        fail(
            "missing Debian packages: " + " ".join(missing) + "\n"
            "        install them with: sudo apt-get install -y " + " ".join(missing)
        )
    say("installing Debian packages: " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if run(["apt-get", "update", "-q"], env=env).returncode != 0:
        fail("apt-get update failed")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    if run(install, env=env).returncode != 0:
        fail("apt-get install failed for: " + " ".join(missing))


def use_compiler_cache() -> None:
    """Every CMake build this script starts (the editable engine, the sanitized, fuzzing
    and free-threaded engines, the wheels) compiles through ccache where it is installed.
    Paths are hashed relative to the checkout, so another clone (CI's) hits the same
    entries: the regular engine, for one, takes seconds instead of minutes there. A
    variable the caller set wins; zig's wheel builds keep zig's own cache (zig_toolchain)."""
    if shutil.which("ccache") is None:
        return
    for language in ("C", "CXX"):
        os.environ.setdefault(f"CMAKE_{language}_COMPILER_LAUNCHER", "ccache")
    os.environ.setdefault("CCACHE_BASEDIR", str(ROOT))
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")  # -g builds: not the clone's folder


def python_version(executable: str) -> tuple[int, int, int] | None:
    """(major, minor, micro) of a regular (GIL) CPython, or None."""
    probe = (
        "import sys, sysconfig; "
        "print(*sys.version_info[:3], sys.implementation.name, "
        "int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))))"
    )
    try:
        out = run([executable, "-c", probe], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 5 or fields[3] != "cpython" or fields[4] != "0":
        return None
    return int(fields[0]), int(fields[1]), int(fields[2])


def find_python() -> str:
    """The newest CPython >= 3.12: PATH first, then ~/.pyenv/versions."""
    candidates: list[str] = []
    for minor in range(20, MIN_PYTHON[1] - 1, -1):
        found = shutil.which(f"python3.{minor}")
        if found:
            candidates.append(found)
    for name in ("python3", "python"):
        found = shutil.which(name)
        if found:
            candidates.append(found)
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(str(pyenv_root / "versions" / "*" / "bin" / "python3")))
    best: tuple[tuple[int, int, int], str] | None = None
    for candidate in candidates:
        version = python_version(candidate)
        if version and version[:2] >= MIN_PYTHON and (best is None or version > best[0]):
            best = (version, candidate)
    if best is None:
        fail(
            "no CPython >= 3.12 found on PATH or under ~/.pyenv/versions; "
            "install one (Debian 13: apt-get install python3; elsewhere: pyenv install 3.12)"
        )
    say(f"using Python {'.'.join(map(str, best[0]))} at {best[1]}")
    return best[1]


def ensure_hatch(python: str) -> Path:
    """Hatch in its own small virtual environment under .tools/."""
    hatch = HATCH_VENV / "bin" / "hatch"
    if hatch.exists() and python_version(str(HATCH_VENV / "bin" / "python")):
        return hatch
    say("installing Hatch into .tools/hatch")
    shutil.rmtree(HATCH_VENV, ignore_errors=True)
    if run([python, "-m", "venv", str(HATCH_VENV)]).returncode != 0:
        fail(f"{python} -m venv failed (on Debian: apt-get install python3-venv)")
    pip = [str(HATCH_VENV / "bin" / "python"), "-m", "pip", "install", "-q"]
    if run([*pip, HATCH_REQUIREMENT]).returncode != 0:
        fail("pip could not install Hatch")
    return hatch


def hatch_env() -> dict[str, str]:
    env = dict(os.environ)
    # CI builds the C++ with -Werror (see packages/hypergl-core/CMakeLists.txt).
    if os.environ.get("CI"):
        env.setdefault("HYPERGL_WERROR", "ON")
    env.pop("VIRTUAL_ENV", None)
    return env


def core_sources_digest() -> str:
    digest = hashlib.sha256()
    files = [CORE / "CMakeLists.txt", CORE / "pyproject.toml", CORE / "src/hypergl/__init__.py"]
    files += sorted(p for p in (CORE / "cpp").rglob("*") if p.is_file())
    for path in files:
        digest.update(str(path.relative_to(CORE)).encode())
        digest.update(path.read_bytes())
    digest.update(hatch_env().get("HYPERGL_WERROR", "OFF").encode())
    return digest.hexdigest()


def reinstall_changed_members() -> None:
    """Reinstall (editable, no dependencies) a pure-Python member whose pyproject.toml
    changed: Hatch syncs dependencies but not a member's own metadata (entry points,
    scripts), which an editable install only picks up when it is installed again."""
    for pyproject in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        member = pyproject.parent
        if member == CORE:  # rebuilt below when its sources (pyproject included) change
            continue
        stamp = VENV / f".{member.name}-pyproject.sha256"
        # its version too: the installed metadata carries it (a sibling's range checks it)
        inits = sorted(member.glob("src/*/__init__.py"))
        digest = hashlib.sha256(pyproject.read_bytes() + b"".join(p.read_bytes() for p in inits))
        digest = digest.hexdigest()
        if stamp.exists() and stamp.read_text() == digest:
            continue
        reinstall = [str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                     "--no-build-isolation", "-e", str(member)]  # fmt: skip
        if run(reinstall, cwd=ROOT, env=hatch_env()).returncode != 0:
            fail(f"reinstalling {member.name} failed (see above)")
        stamp.write_text(digest)


def ensure_environment() -> Path:
    """Python, Hatch, .venv in sync, extension up to date (main() saw to the system's
    packages)."""
    hatch = ensure_hatch(find_python())
    fresh = not (VENV / "bin" / "python").exists()
    if fresh:
        say("creating .venv with every distribution editable (first run builds the C++)")
    # `hatch env create` creates the environment or, when it exists, does nothing;
    # `hatch run true` then brings its dependencies in sync with pyproject.toml.
    if run([str(hatch), "env", "create"], cwd=ROOT, env=hatch_env()).returncode != 0:
        fail("hatch env create failed (see above)")
    if run([str(hatch), "run", "true"], cwd=ROOT, env=hatch_env()).returncode != 0:
        fail("hatch could not sync .venv (see above)")
    reinstall_changed_members()
    digest = core_sources_digest()
    if fresh:
        CORE_STAMP.write_text(digest)
    elif not CORE_STAMP.exists() or CORE_STAMP.read_text() != digest:
        say("C++ sources changed: rebuilding hypergl._core incrementally")
        rebuild = [
            str(VENV / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            str(CORE),
        ]
        if run(rebuild, cwd=ROOT, env=hatch_env()).returncode != 0:
            fail("building hypergl-core failed (see the compiler output above)")
        CORE_STAMP.write_text(digest)
    return VENV / "bin" / "python"


def command_test(python: Path, args: list[str]) -> int:
    env = None
    if "--sanitize" in args:  # the engine built with ASan + UBSan: tools/sanitize.py
        import sanitize

        args = [arg for arg in args if arg != "--sanitize"]
        try:
            env = sanitize.environment(python)
        except sanitize.SanitizeError as exc:
            fail(str(exc))
        say("running the suite on the engine built with AddressSanitizer + UBSan")
    # the slowest tests named at the end: where a run's time goes (CI's budget)
    durations = [] if any(a.startswith("--durations") for a in args) else ["--durations=15"]
    pytest = [str(python), "-m", "pytest", *worker_args(args), *durations, *args]
    code = run(virtual_display_command(pytest), cwd=ROOT, env=env).returncode
    if code == 5:  # pytest: no tests collected
        say("pytest collected no tests")
    return code


def command_demo(python: Path, args: list[str]) -> int:
    return run([str(python), "-m", "hypergl", "demo", *args], cwd=ROOT).returncode


def command_bench(python: Path, args: list[str]) -> int:
    script = ROOT / "benchmarks" / "run_all.py"
    if not script.exists():
        fail("no benchmarks yet")
    return run([str(python), str(script), *args], cwd=ROOT).returncode


def command_lint(python: Path, args: list[str]) -> int:
    """ruff's lint, then its formatter's check (the tree is held to ``ruff format``)."""
    paths = args or ["."]
    checked = run([str(python), "-m", "ruff", "check", *paths], cwd=ROOT).returncode
    formatted = run([str(python), "-m", "ruff", "format", "--check", *paths], cwd=ROOT).returncode
    return checked or formatted


def command_dist(python: Path, args: list[str]) -> int:
    script = ROOT / "tools" / "dist.py"
    return run(virtual_display_command([str(python), str(script), *args]), cwd=ROOT).returncode


def command_release_rehearsal(python: Path, args: list[str]) -> int:
    script = ROOT / "tools" / "release_rehearsal.py"
    return run(virtual_display_command([str(python), str(script), *args]), cwd=ROOT).returncode


def command_lowest(python: Path, args: list[str]) -> int:
    script = ROOT / "tools" / "lowest.py"
    return run(virtual_display_command([str(python), str(script), *args]), cwd=ROOT).returncode


def command_old_glibc(python: Path, args: list[str]) -> int:
    ensure_system_packages(["debootstrap"])  # a fresh machine (CI's first run) lacks it
    script = ROOT / "tools" / "old_glibc.py"
    return run([str(python), str(script), *args], cwd=ROOT).returncode


def command_docs(python: Path, args: list[str]) -> int:
    mkdocs = [str(python), "-m", "mkdocs"]
    if args[:1] == ["--serve"]:
        return run([*mkdocs, "serve", "--strict", *args[1:]], cwd=ROOT).returncode
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return run([*mkdocs, "build", "--strict", *args], cwd=ROOT, env=env).returncode


def command_info(python: Path, args: list[str]) -> int:
    return run([str(python), "-m", "hypergl", "info", *args], cwd=ROOT).returncode


# The examples train with torch, several GB from PyPI (a CUDA build, with triton, on
# x86_64 Linux): they get their own environment, never the default one. It uses the
# development environment's Python, so hypergl's C++ build directory is shared with
# .venv and installing hypergl there is an incremental build. torch<=2.14.1: the newest
# these machines carry on disk (pip's cap in /etc/xdg/pip).
EXAMPLES_VENV = ROOT / ".venv-examples"
EXAMPLES_REQUIREMENTS = ["torch>=2.9,<=2.14.1", "stable-baselines3>=2.4", "ray[rllib]>=2.40",
                         "mujoco-core>=4,<5"]  # fmt: skip
EXAMPLES_RUNS = [  # (script, arguments): a few hundred environment steps each
    ("train_reach.py", ["--envs", "16", "--steps", "400", "--policy", "random"]),
    ("ppo_sb3.py", ["--envs", "8", "--steps", "512"]),
    ("ppo_rllib.py", ["--envs", "8", "--steps", "512"]),
    ("mujoco_pixels_ppo.py", ["--envs", "4", "--steps", "512", "--rollout", "32"]),
]


def ensure_examples_environment() -> Path:
    """.venv-examples: torch, SB3, Ray with RLlib, and hypergl (editable); rebuilt on change."""
    python = EXAMPLES_VENV / "bin" / "python"
    stamp = EXAMPLES_VENV / ".sources.sha256"
    digest = hashlib.sha256((core_sources_digest() + " ".join(EXAMPLES_REQUIREMENTS)).encode())
    if python.exists() and stamp.exists() and stamp.read_text() == digest.hexdigest():
        return python
    if not python.exists():
        base = os.environ.get("HYPERGL_EXAMPLES_PYTHON") or find_python()
        say(f"creating .venv-examples on {base}: torch, stable-baselines3, ray[rllib] (about "
            "6 GB with torch's CUDA libraries; minutes)")  # fmt: skip
        if run([base, "-m", "venv", str(EXAMPLES_VENV)]).returncode != 0:
            fail(f"{base} -m venv failed")
    pip = [str(python), "-m", "pip", "install", "-q"]
    # The members' own dependencies, named here so pip resolves them for this Python.
    # glfw, imageio, packaging: gymnasium.envs.mujoco imports them even headless
    needs = ["numpy>=1.26", "glcontext>=3.0", "gymnasium>=1.1", "glfw>=2.7", "imageio>=2.31",
             "packaging", *EXAMPLES_REQUIREMENTS]  # fmt: skip
    if run([*pip, *needs]).returncode != 0:
        fail("installing " + " ".join(needs) + " failed (see above)")
    members = ["-e", str(ROOT / "packages" / "hypergl-compiler"), "-e", str(CORE),
               "-e", str(ROOT / "packages" / "hypergl-mujoco"),
               "-e", str(ROOT / "packages" / "hypergl-rl")]  # fmt: skip
    if run([*pip, "--no-deps", *members], cwd=ROOT, env=hatch_env()).returncode != 0:
        fail("installing hypergl into .venv-examples failed (see above)")
    stamp.write_text(digest.hexdigest())
    return python


def command_examples(python: Path, args: list[str]) -> int:
    """Run every example for a few hundred steps in .venv-examples; print what each said."""
    examples_python_path = ensure_examples_environment()
    failed = []
    for script, script_args in EXAMPLES_RUNS:
        command = [str(examples_python_path), str(ROOT / "examples" / script), *script_args, *args]
        say("running " + " ".join([f"examples/{script}", *script_args, *args]))
        if run(command, cwd=ROOT).returncode != 0:
            failed.append(script)
    say("examples: " + ("all passed" if not failed else "failed: " + ", ".join(failed)))
    return 1 if failed else 0


def command_device_prepare(python: Path, args: list[str]) -> int:
    return run([str(python), str(ROOT / "tools" / "device_prepare.py"), *args], cwd=ROOT).returncode


# name -> (target script, seed corpus): tools/fuzz/<script> fuzzes what its case checks.
FUZZ_TARGETS = {
    "hgb": ("hgb_target.py", "corpus"),  # .hgb files: loader, verifier, replay, play
    "mjcf": ("mjcf_target.py", "corpus_mjcf"),  # MuJoCo models through BatchRenderer
    "urdf": ("urdf_target.py", "corpus_urdf"),  # URDF robots through the Culverin bridge
}


def command_fuzz(python: Path, args: list[str]) -> int:
    """Fuzz each target of tools/fuzz (--target hgb|mjcf|urdf|all, default all) on the
    engine built for fuzzing, for --seconds N in all (default 60, shared evenly)."""
    seconds, target, rest = "60", "all", list(args)
    for option in ("--seconds", "--target"):
        if option in rest:
            at = rest.index(option)
            value = rest[at + 1] if at + 1 < len(rest) else ""
            del rest[at : at + 2]
            seconds, target = (value, target) if option == "--seconds" else (seconds, value)
    if not seconds.isdigit() or int(seconds) < 1:
        fail(f"fuzz --seconds needs a whole number of seconds, got {seconds!r}")
    if target != "all" and target not in FUZZ_TARGETS:
        fail(f"fuzz --target must be one of {', '.join(FUZZ_TARGETS)} or all, got {target!r}")
    names = list(FUZZ_TARGETS) if target == "all" else [target]
    sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
    import engine  # tools/fuzz/engine.py: clang, libFuzzer's edge counters, ASan + UBSan

    ensure_system_packages(engine.PACKAGES)
    say("building the engine for fuzzing (build/fuzz-engine; minutes the first time)")
    try:
        env = engine.environment(python)
    except engine.sanitize.SanitizeError as exc:
        fail(str(exc))
    share = max(1, int(seconds) // len(names))
    for name in names:
        script, seeds = FUZZ_TARGETS[name]
        work = ROOT / "build" / "fuzz" / ("" if name == "hgb" else name)
        corpus = work / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        say(f"fuzzing {name} for {share} s; new inputs in {corpus}, findings in {work}/")
        # A case past -timeout (s) is a finding: a hang that the budgets did not stop. So
        # is one allocation of more than 2 GiB. The process's RSS may grow further: under
        # ASan it counts the shadow of llvmpipe's JIT mappings (4.7 GB of RSS over 51 MB of
        # live heap after 4,500 cases on gl; the same cases without ASan stay at 120 MB).
        command = [str(python), str(ROOT / "tools" / "fuzz" / script), str(corpus),
                   str(ROOT / "tools" / "fuzz" / seeds), f"-max_total_time={share}",
                   "-timeout=30", "-rss_limit_mb=12288", "-malloc_limit_mb=2048",
                   "-max_len=65536", f"-artifact_prefix={work}/", *rest]  # fmt: skip
        code = run(command, cwd=ROOT, env=env).returncode
        if code != 0:
            return code
    return 0


COMMANDS = {
    "demo": command_demo,
    "test": command_test,
    "bench": command_bench,
    "lint": command_lint,
    "info": command_info,
    "dist": command_dist,
    "release-rehearsal": command_release_rehearsal,
    "lowest": command_lowest,
    "old-glibc": command_old_glibc,
    "docs": command_docs,
    "examples": command_examples,
    "device-prepare": command_device_prepare,
    "fuzz": command_fuzz,
    "mujoco-matrix": None,  # its own environments (tools/mujoco_matrix.py): not .venv
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in (*COMMANDS, "setup"):
        given = f"unknown command {sys.argv[1]!r}; " if len(sys.argv) > 1 else ""
        print(f"{given}usage: python3 tools/dev.py COMMAND [arguments]", file=sys.stderr)
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    name, args = sys.argv[1], sys.argv[2:]
    ensure_system_packages()
    use_compiler_cache()
    if name == "test" and "--free-threaded" in args:  # its own interpreter and environment
        sys.path.insert(0, str(ROOT / "tools"))
        from free_threaded import main as free_threaded_tests

        return free_threaded_tests([a for a in args if a != "--free-threaded"])
    if name == "mujoco-matrix":  # CPython 3.12 environments of its own, one per MuJoCo
        sys.path.insert(0, str(ROOT / "tools"))
        from mujoco_matrix import main as mujoco_matrix

        return mujoco_matrix(args)
    python = ensure_environment()
    if name == "setup":
        return 0
    return COMMANDS[name](python, args)


if __name__ == "__main__":
    sys.exit(main())
