"""`python3 tools/dev.py dist` builds, repairs, installs and tests every distribution, and
`release-rehearsal` publishes them to a local index and installs each alone from it.

The cheapest run that still proves the whole chain: all four sdists and wheels are built
(the core wheel compiled by zig for glibc 2.28 where ziglang is installed), the core wheel
is repaired by auditwheel, every wheel is checked against its source files (shaders, data,
stubs, py.typed, LICENSE), all are installed into a new virtual environment outside the
checkout, every declared entry point loads there, and a few tests of each distribution (its
README example and plugin discovery) run against the installed wheels. The full run is
`python3 tools/dev.py dist` (about 3.5 minutes here).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auditwheel is Linux-only"),
]


def test_dist_builds_repairs_installs_and_tests_every_distribution(tmp_path):
    # .ci/run names a folder to keep the files in: its Debian 11 step installs these wheels.
    out = Path(os.environ.get("HYPERGL_DIST_OUT") or tmp_path / "dist")
    command = [sys.executable, str(ROOT / "tools" / "dist.py"), "--out", str(out),
               "--", "-q", "-k", "readme or plugins"]  # fmt: skip
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    tag = re.search(r"hypergl-core platform tag: (\S+)", log)
    assert tag and re.fullmatch(r"(manylinux|musllinux)_\d+_\d+_\w+", tag.group(1)), log[-3000:]
    if "core wheel toolchain: zig" in log:  # where ziglang is installed: glibc 2.28 and older
        assert tag.group(1).startswith("manylinux_2_28_"), tag.group(1)
    assert "declared entry points installed and loaded" in log
    for dist in (
        "hypergl-compiler",
        "py-gpu",
        "hypergl-core",
        "hypergl-culverin",
        "hypergl-mujoco",
        "hypergl-rl",
    ):
        assert f"testing {dist} (tests from its sdist)" in log
    assert len(list(out.glob("*.whl"))) == 6 and len(list(out.glob("*.tar.gz"))) == 6

    # The rehearsed publish, on those files: a local index, each distribution installed alone.
    rehearsal = subprocess.run([sys.executable, str(ROOT / "tools" / "release_rehearsal.py"),
                                "--dist", str(out)], cwd=ROOT, capture_output=True, text=True,
                               timeout=900)  # fmt: skip
    log = rehearsal.stdout + rehearsal.stderr
    assert rehearsal.returncode == 0, log[-6000:]
    assert "twine check --strict: 12 files pass" in log
    for dist in (
        "hypergl-compiler",
        "py-gpu",
        "hypergl-core",
        "hypergl-culverin",
        "hypergl-mujoco",
        "hypergl-rl",
    ):
        assert re.search(rf"{dist}: installed alone with \d+ dependencies", log), log[-3000:]
    assert "draws 1 pixel [ 26 153  51 255]" in log and "synced 1 bodies" in log
    assert "hypergl_mujoco 0.1.0 BatchRenderer (2, 1, 84, 84, 3)" in log
    assert "MujocoBridge 4 records" in log  # ctx.bridge("mujoco", worlds)
    assert "hypergl_rl 0.1.0 BatchRenderer (4, 32, 32, 3)" in log
    assert "pypiserver stopped" in log
