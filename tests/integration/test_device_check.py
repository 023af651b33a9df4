"""The GPU check (tools/device_check.sh) rehearsed here, so that it cannot rot.

The real run happens on a GPU machine with no network: what it installs comes from
`python3 tools/dev.py device-prepare`, whose package list is checked here against
every import of the suite and the benchmarks.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import device_prepare  # noqa: E402  (tools/ is not a package)

BENCHMARKS = ["culverin_sync", "draws_10k", "hgb_load", "mujoco_pixels", "overlap", "raster",
              "rl_throughput", "state_heavy", "vm_dispatch"]  # fmt: skip
# Imported only inside try/except, where absent (optional backends, window systems).
# Imported only behind extras the GPU check does not run (Ray scale-out, SB3 adapters,
# the torch examples of .venv-examples).
OPTIONAL = {
    "wgpu",
    "pygame",
    "sdl2",
    "sdl2dll",
    "atheris",
    "ray",
    "stable_baselines3",
    "torch",
    "dm_env",
    "dm_control",
}  # dm_env: hypergl_mujoco.dm_pixels, with a user's dm_control; dm_control: its suite's
#   models in hypergl-mujoco's tests and benchmarks/mujoco_elements.py, where installed


@pytest.mark.gl
@pytest.mark.slow
def test_device_check_runs_locally_at_the_smallest_sizes(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "tools" / "device_check.sh"), str(tmp_path),
                           "--local", "--smallest"], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    log = (tmp_path / "device_check.log").read_text()
    assert done.returncode == 0, log[-3000:]
    summary = json.loads((tmp_path / "device_check.json").read_text())
    assert summary["gl"]["renderer"] and "bindless_textures" in summary["gl"]
    assert all(step["exit"] == 0 for step in summary["steps"]), summary["steps"]
    assert summary["tests"]["tests"] > 0 and summary["tests"]["failures"] == 0
    assert sorted(summary["benchmarks"]) == BENCHMARKS
    headline = {row["benchmark"]: row["value"] for row in summary["headlines"]}
    assert headline["state_heavy"] is not None and headline["draws_10k"] is not None
    assert "hypergl" in log and "OpenGL" in log  # python -m hypergl info
    assert sorted(p.name for p in tmp_path.iterdir()) == [  # the run tool brings back 8 at most
        "device_check.json",
        "device_check.log",
        "tests.xml",
    ]


def test_device_check_names_its_usage():
    done = subprocess.run(["bash", str(ROOT / "tools" / "device_check.sh")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "usage: bash tools/device_check.sh OUTDIR" in done.stderr
    done = subprocess.run(["bash", str(ROOT / "tools" / "device_check.sh"), "/tmp/x", "--gpu"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2


def imported_modules() -> set[str]:
    folders = [*ROOT.glob("packages/*/src"), *ROOT.glob("packages/*/tests"),
               ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"]  # fmt: skip
    names = set()
    for folder in folders:
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module.split(".")[0])
    return names


def test_device_prepare_carries_every_third_party_import_the_image_lacks():
    carried = set(device_prepare.needed()) | set(device_prepare.LEFT_BEHIND)
    image = device_prepare.DEVICE_IMAGE
    ours = {
        "hypergl",
        "hypergl_compiler",
        "py_gpu",
        "hypergl_culverin",
        "hypergl_mujoco",
        "hypergl_rl",
    }
    local = {p.stem for p in [*ROOT.glob("benchmarks/*.py"), *ROOT.glob("tools/*.py"),
                              *ROOT.glob("examples/*.py")]}  # fmt: skip
    local |= {p.stem for p in ROOT.glob("packages/*/tests/*.py")} | {"py_gpu_plugin_example"}
    by_module = importlib.metadata.packages_distributions()
    missing = []
    for module in sorted(imported_modules() - ours - local - OPTIONAL):
        if module in sys.stdlib_module_names or module == "__future__":
            continue
        distributions = {device_prepare.normal(d) for d in by_module.get(module, [])}
        if not distributions:
            assert importlib.util.find_spec(module) is None, module
            missing.append(f"{module} (not installed here: add it to OPTIONAL if optional)")
        elif not distributions & (carried | image):
            missing.append(f"{module} ({', '.join(sorted(distributions))})")
    assert not missing, f"imported, but neither on the GPU machine nor carried: {missing}"
