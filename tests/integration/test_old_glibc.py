"""tools/old_glibc.py reuses the Debian 11 venv only while the wheels are the same ones.

The run itself (debootstrap, a chroot, root) is a step of .ci/run; what decides whether
its venv is made again is checked here: a wheel's bytes, not its name or time.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import old_glibc  # noqa: E402  (tools/ is not a package)


def wheels(folder: Path, core: bytes) -> list[Path]:
    folder.mkdir()
    (folder / "hypergl_core-0.1.0-cp312-abi3-manylinux_2_28_x86_64.whl").write_bytes(core)
    (folder / "py_gpu-0.1.0-py3-none-any.whl").write_bytes(b"py-gpu")
    return sorted(folder.glob("*.whl"))


def test_the_same_wheels_rebuilt_keep_the_venv(tmp_path):
    first = old_glibc.wheels_digest(wheels(tmp_path / "a", b"core"))
    assert old_glibc.wheels_digest(wheels(tmp_path / "b", b"core")) == first


def test_a_changed_wheel_makes_the_venv_again(tmp_path):
    first = old_glibc.wheels_digest(wheels(tmp_path / "a", b"core"))
    assert old_glibc.wheels_digest(wheels(tmp_path / "b", b"core, rebuilt")) != first
