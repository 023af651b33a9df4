"""tools/old_glibc.py keeps the Debian 11 venv while what decides its third-party packages is
the same, and reinstalls only the wheels whose bytes changed.

The run itself (debootstrap, a chroot, root) is a step of .ci/run; what decides whether
its venv is made again, or a wheel reinstalled, is checked here: a wheel's declared
requirements and its bytes, not its file's time.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import old_glibc  # noqa: E402  (tools/ is not a package)

CORE = "hypergl_core-0.1.0-cp312-abi3-manylinux_2_28_x86_64.whl"


def wheel(folder: Path, name: str, code: bytes, requires: str = "numpy>=1.26") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    dist_info = "-".join(name.split("-")[:2]) + ".dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: x\n"
                         f"Requires-Dist: {requires}\nProvides-Extra: test\n")  # fmt: skip
        archive.writestr("module.py", code)
    return path


def wheels(folder: Path, core: bytes, requires: str = "numpy>=1.26") -> list[Path]:
    return [wheel(folder, CORE, core, requires),
            wheel(folder, "py_gpu-0.1.0-py3-none-any.whl", b"py-gpu")]  # fmt: skip


def test_the_same_wheels_rebuilt_keep_the_venv_and_reinstall_nothing(tmp_path):
    first, again = wheels(tmp_path / "a", b"core"), wheels(tmp_path / "b", b"core")
    assert old_glibc.requirements_digest(again) == old_glibc.requirements_digest(first)
    assert old_glibc.wheel_digests(again) == old_glibc.wheel_digests(first)


def test_a_changed_wheel_with_the_same_requirements_is_reinstalled_alone(tmp_path):
    first = wheels(tmp_path / "a", b"core")
    changed = wheels(tmp_path / "b", b"core, rebuilt")
    assert old_glibc.requirements_digest(changed) == old_glibc.requirements_digest(first)
    before, after = old_glibc.wheel_digests(first), old_glibc.wheel_digests(changed)
    assert [name for name in after if after[name] != before[name]] == [CORE]


def test_a_changed_requirement_makes_the_venv_again(tmp_path):
    first = wheels(tmp_path / "a", b"core")
    changed = wheels(tmp_path / "b", b"core", requires="numpy>=2.0")
    assert old_glibc.requirements_digest(changed) != old_glibc.requirements_digest(first)
