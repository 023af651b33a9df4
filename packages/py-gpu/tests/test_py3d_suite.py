"""py_3d's own test suite (from the py3dengine 0.0.4 sdist) with our py_gpu installed.

The sdist is fetched once with pip (``pip download --no-binary :all:``) into
``.tools/py3dengine-sdist`` and its tests run in a subprocess, with the wintypes set-up loaded
as a pytest plugin.  Its ``test_gpu_renderer_renders_with_accelerated_bridge_or_fallback``
goes through ``py_gpu.adapters.py3d``.  Deselected: the tests that read files the sdist does not
ship (py_3d's ``examples/`` and ``assets/`` folders) — they fail the same way without py_gpu.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

VERSION = "0.0.4"
# An ignored .tools folder beside the tests (packages/py-gpu/.tools in a checkout), so that
# the tests stay inside their distribution when they run against its installed wheel.
TOOLS = Path(__file__).resolve().parents[1] / ".tools"
CACHE = TOOLS / "py3dengine-sdist"
SHIM = Path(__file__).resolve().parent  # py3d_wintypes_shim.py

#: Tests of the sdist that need py_3d's examples/ or assets/ (absent from the sdist).
NEEDS_FILES_NOT_IN_SDIST = [
    "tests/test_assets.py::test_ingest_grid_simplification_preserves_surface_coverage",
    "tests/test_buffer.py::test_pixel_buffer_reads_png_asset",
    "tests/test_cli.py::test_scaffold_example_game_writes_preview_runner",
    "tests/test_demo_behaviors.py",
    "tests/test_render.py::test_textured_triangles_render_from_png_asset",
    "tests/test_render.py::test_textured_sphere_renders_from_png_asset",
    "tests/test_window.py::test_framework_favicon_asset_loads_for_window_backends",
]


def sdist_tree() -> Path:
    tree = CACHE / f"py3dengine-{VERSION}"
    if (tree / "tests").is_dir():
        return tree
    CACHE.mkdir(parents=True, exist_ok=True)
    fetch = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--no-binary",
        ":all:",
        f"py3dengine=={VERSION}",
        "-d",
        str(CACHE),
    ]
    result = subprocess.run(fetch, capture_output=True, text=True, timeout=300)
    archive = CACHE / f"py3dengine-{VERSION}.tar.gz"
    if result.returncode != 0 or not archive.exists():
        pytest.skip(f"pip could not fetch the py3dengine {VERSION} sdist: {result.stderr[-400:]}")
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return tree


def test_py3d_own_suite_passes_with_py_gpu_installed():
    tree = sdist_tree()
    env = {**os.environ, "PYTHONPATH": str(SHIM)}
    env.pop("DISPLAY", None)  # its GLFW tests skip or run hidden without a display
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "-q",
        "-p",
        "py3d_wintypes_shim",
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::Warning",
    ]
    for test in NEEDS_FILES_NOT_IN_SDIST:
        command += ["--deselect", test]
    result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr
    print(f"\npy_3d {VERSION} suite: {summary}")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary
