"""Download what the GPU check machine lacks into `.device/` (git-ignored).

    python3 tools/dev.py device-prepare

The machine (one NVIDIA H200, Python 3.12, no network) has numpy, numba, pytest,
nanobind, scikit-build-core, cmake and ninja but no GL loader libraries and none of
the GL Python packages. This fetches:

* `.device/debs/`   the loader .debs (libEGL, libGL, libOpenGL, GLX, GLES, glvnd,
                    Vulkan), amd64, which `tools/device_check.sh` unpacks into `/`;
* `.device/wheels/` x86-64 manylinux wheels for CPython 3.12 of every registry
                    package the suite and the benchmarks need (the four
                    distributions' dependencies with their test, bench, rl, demo,
                    window and py-gpu extras, recursively) that the machine's image
                    lacks, at the versions installed in this checkout's `.venv`,
                    plus the build backends (hatchling, scikit-build-core, nanobind);
* `.device/seed/`   py-gpu 0.0.1, the baseline of benchmarks/raster.py.

Then it prints the folder to carry (`.device`) and its size. Run by the
development environment's Python (it reads the installed versions there).
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
DEVICE = ROOT / ".device"
DEBS = DEVICE / "debs"
WHEELS = DEVICE / "wheels"
SEED = DEVICE / "seed"
CARRY_LIMIT = 64 << 20  # what travels to the machine with the working tree, at most

LOADER_DEBS = ["libegl1", "libglvnd0", "libopengl0", "libgl1", "libglx0", "libgles2", "libvulkan1"]
# The distributions and extras whose dependencies the suite and the benchmarks import.
ROOTS = {
    "hypergl-compiler": {"test"},
    "py-gpu": {"test", "numeric", "opengl"},
    "hypergl-core": {"test", "bench", "py-gpu", "window"},
    "hypergl-culverin": {"test", "demo"},
    "hypergl-mujoco": {"test", "gym", "core"},
    "hypergl-rl": {"test", "gym", "culverin"},
}
OURS = {
    "hypergl-compiler",
    "py-gpu",
    "hypergl-core",
    "hypergl-culverin",
    "hypergl-mujoco",
    "hypergl-rl",
}
# Build backends, carried even where the image has them, so that the extension and the
# pure-Python distributions build there with the versions that build here.
BUILD_TOOLS = ["hatchling", "scikit-build-core", "nanobind"]
SEED_PACKAGES = ["py-gpu==0.0.1"]
# Not carried, and why (the check runs without them).
LEFT_BEHIND = {
    "imageio-ffmpeg": "68 MB, over the 64 MiB that travel: the demo writes a GIF instead of an MP4",
}

# The image's Python packages, as /work/.library/device/KINDS.md lists them (2026-11-17).
_IMAGE_PACKAGES = """
absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch
build certifi charset-normalizer chex click cloudpickle cmake colorama contourpy coverage
cuda-bindings cuda-core cuda-pathfinder cuda-toolkit cupy-cuda13x cycler cython diffrax e3nn
einops equinox etils execnet filelock flatbuffers flax fonttools formulaic frozenlist fsspec
gpytorch grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize hypothesis idna imageio
iniconfig interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin jaxlib jaxtyping jinja2 joblib
kiwisolver lazy-loader lightning lightning-utilities linear-operator lineax llvmlite lxml markdown
markdown-it-py markupsafe matplotlib mdurl meson ml-dtypes mpi4py mpmath msgpack multidict
multipledispatch mypy-extensions nanobind narwhals networkx ninja numba numba-cuda numpy numpyro
nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cudnn-cu13
nvidia-cufft nvidia-cufile nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13
nvidia-ml-py nvidia-nccl-cu13 nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx onnx onnx-ir
onnxruntime onnxscript opencv-python-headless optax opt-einsum opt-einsum-fx optimistix
orbax-checkpoint packaging pandas pathspec patsy peft pillow pip pluggy portalocker
prometheus-client propcache protobuf psutil pyarrow pybind11 py-cpuinfo pygments pyparsing
pyproject-hooks pyre-extensions pytest pytest-benchmark pytest-cov pytest-mock pytest-timeout
pytest-xdist python-dateutil pytorch-lightning pyyaml regex requests rich sacrebleu safetensors
scikit-build-core scikit-image scikit-learn scipy seaborn sentencepiece sentence-transformers
setuptools shellingham simplejson six sortedcontainers statsmodels sympy tabulate tensorboard
tensorboard-data-server tensorstore threadpoolctl tifffile tiktoken timm tokenizers toolz torch
torchaudio torchdiffeq torch-geometric torchmetrics torchvision tqdm transformers treescope
triton typer typing-extensions typing-inspect urllib3 uvloop wadler-lindig werkzeug wheel wrapt
xarray xxhash yarl zipp
"""
DEVICE_IMAGE = set(_IMAGE_PACKAGES.split())
PLATFORMS = ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_5_x86_64",
             "manylinux1_x86_64"] + [f"manylinux_2_{n}_x86_64" for n in range(24, 36)]  # fmt: skip


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needed() -> dict[str, str]:
    """name -> version (as installed here) of every third-party package the roots need."""
    found: dict[str, str] = {}
    todo = [(name, extras) for name, extras in ROOTS.items()] + [(n, set()) for n in BUILD_TOOLS]
    seen: set[tuple[str, frozenset]] = set()
    while todo:
        name, extras = todo.pop()
        key = (normal(name), frozenset(extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            sys.exit(f"device-prepare: {name} is not installed in this environment; "
                     "run python3 tools/dev.py setup first")  # fmt: skip
        forced = normal(name) in BUILD_TOOLS
        if (normal(name) in DEVICE_IMAGE and not forced) or normal(name) in LEFT_BEHIND:
            continue  # the image's own copy comes with what it needs
        if normal(name) not in OURS:
            found[normal(name)] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            environment = {"python_version": "3.12", "sys_platform": "linux",
                           "platform_system": "Linux", "platform_machine": "x86_64"}  # fmt: skip
            if marker is not None and not any(
                marker.evaluate({**environment, "extra": extra}) for extra in (extras or {""})
            ):
                continue
            todo.append((requirement.name, set(requirement.extras)))
    return found


def download_wheels(packages: dict[str, str]) -> list[str]:
    """Fetch each wheel (no dependencies: `needed` already listed them). Returns failures."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    failed = []
    base = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
            "--python-version", "3.12", "--implementation", "cp", "--abi", "cp312",
            "--abi", "abi3", "--abi", "none"]  # fmt: skip
    for platform in PLATFORMS:
        base += ["--platform", platform]
    for name, version in sorted(packages.items()):
        target = SEED if f"{name}=={version}" in SEED_PACKAGES else WHEELS
        done = subprocess.run([*base, "-d", str(target), f"{name}=={version}"], check=False)
        if done.returncode != 0:
            failed.append(f"{name}=={version}")
    return failed


def download_debs() -> list[str]:
    """The loader .debs for amd64, through apt with a private package list."""
    if shutil.which("apt-get") is None:
        return ["apt-get (not a Debian system: fetch the loader .debs by hand)"]
    DEBS.mkdir(parents=True, exist_ok=True)
    lists = Path("/tmp/hypergl-device-apt")
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    options = ["-oAPT::Architecture=amd64", "-oAPT::Architectures=amd64",
               f"-oDir::State::Lists={lists}"]  # fmt: skip
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(["apt-get", *options, "-q", "update"], env=env, check=False).returncode:
        return ["apt-get update"]
    for old in DEBS.glob("*.deb"):
        old.unlink()
    done = subprocess.run(["apt-get", *options, "download", *LOADER_DEBS], cwd=DEBS, env=env,
                          check=False)  # fmt: skip
    return [] if done.returncode == 0 else ["apt-get download " + " ".join(LOADER_DEBS)]


def remove_stale(packages: dict[str, str]) -> None:
    """Drop wheels of versions no longer wanted: two versions of one stop the install."""
    wanted = {(name.replace("-", "_"), version) for name, version in packages.items()}
    for folder in (WHEELS, SEED):
        for wheel in folder.glob("*.whl"):
            name, version = wheel.name.split("-")[:2]
            if (name.lower().replace(".", "_").replace("-", "_"), version) not in wanted:
                print(f"[device-prepare] removing {wheel.name} (not wanted now)")
                wheel.unlink()


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    packages = needed()
    for name, why in LEFT_BEHIND.items():
        print(f"[device-prepare] not carried: {name} ({why})")
    packages.update(dict(s.split("==") for s in SEED_PACKAGES))
    print("[device-prepare] wheels for CPython 3.12 x86-64: "
          + ", ".join(f"{n}=={v}" for n, v in sorted(packages.items())), flush=True)  # fmt: skip
    failed = download_debs() + download_wheels(packages)
    remove_stale(packages)
    for folder in (DEBS, WHEELS, SEED):
        if folder.exists():
            print(
                f"[device-prepare] {folder.relative_to(ROOT)}: "
                f"{len(list(folder.glob('*')))} files, {size(folder) / 2**20:.1f} MiB"
            )
    total = size(DEVICE)
    print(f"[device-prepare] carry: .device ({total / 2**20:.1f} MiB of the 64 MiB that travel "
          "with the working tree)")  # fmt: skip
    print("[device-prepare] on the GPU machine: bash tools/device_check.sh $OUT "
          "(the run tool's carry=['.device'])")  # fmt: skip
    if total > CARRY_LIMIT:
        print("[device-prepare] error: .device is over the 64 MiB that can travel", file=sys.stderr)
        return 1
    if failed:
        print("[device-prepare] error: could not fetch: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
