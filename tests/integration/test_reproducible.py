"""One commit gives byte-identical wheels and sdists (tools/reproducible.py, tools/dist.py).

The normalisation is checked on archives that differ only in what a build leaks (times,
order, owners, modes); the slow test runs ``tools/dist.py --build-only`` twice and compares
every file (the core wheel through scikit-build-core and auditwheel included).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import reproducible  # noqa: E402  (tools/ is not a package)

EPOCH = 1764547200  # 2025-12-01
FILES = {"pkg/__init__.py": b"x = 1\n", "pkg/tool": b"#!/bin/sh\n",
         "pkg-1.0.dist-info/METADATA": b"Name: pkg\n", "pkg-1.0.dist-info/RECORD": b""}  # fmt: skip


def wheel(path: Path, order: list[str], date: tuple[int, ...], mode: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in order:
            info = zipfile.ZipInfo(name, date_time=date)
            info.external_attr = ((0o755 if name == "pkg/tool" else mode) | 0o100000) << 16
            archive.writestr(info, FILES[name])
    return path


def sdist(path: Path, order: list[str], mtime: int, owner: str) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name in order:
            info = tarfile.TarInfo(f"pkg-1.0/{name}")
            info.size, info.mtime, info.uname, info.uid = len(FILES[name]), mtime, owner, 1000
            info.mode = 0o775 if name == "pkg/tool" else 0o664
            archive.addfile(info, io.BytesIO(FILES[name]))
    return path


def test_wheels_that_differ_in_times_order_and_modes_normalise_to_the_same_bytes(tmp_path):
    names = list(FILES)
    first = wheel(tmp_path / "a.whl", names, (2026, 1, 2, 3, 4, 5), 0o600)
    second = wheel(tmp_path / "b.whl", names[::-1], (2026, 6, 7, 8, 9, 10), 0o664)
    for path in (first, second):
        reproducible.normalise(path, EPOCH)
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == ["pkg/__init__.py", "pkg/tool",
                                               "pkg-1.0.dist-info/METADATA",
                                               "pkg-1.0.dist-info/RECORD"]  # fmt: skip
        assert {i.date_time for i in infos} == {(2025, 12, 1, 0, 0, 0)}
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in infos}
        assert modes["pkg/tool"] == 0o755 and modes["pkg/__init__.py"] == 0o644
        assert archive.read("pkg/__init__.py") == FILES["pkg/__init__.py"]  # contents kept


def test_sdists_that_differ_in_times_order_and_owners_normalise_to_the_same_bytes(tmp_path):
    names = list(FILES)
    first = sdist(tmp_path / "a.tar.gz", names, 1700000000, "alice")
    second = sdist(tmp_path / "b.tar.gz", names[::-1], 1800000000, "bob")
    for path in (first, second):
        reproducible.normalise(path, EPOCH)
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(first) as archive:
        members = archive.getmembers()
        assert [m.name for m in members] == sorted(f"pkg-1.0/{n}" for n in names)
        assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {
            (EPOCH, 0, 0, "", "")}  # fmt: skip
        assert archive.extractfile("pkg-1.0/pkg/tool").read() == FILES["pkg/tool"]
    assert int.from_bytes(first.read_bytes()[4:8], "little") == EPOCH  # the gzip header's date


def test_the_source_date_is_the_last_commits(monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    last = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert reproducible.source_date_epoch() == int(last)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    assert reproducible.source_date_epoch() == 1234567890


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.suffix == ".whl" or p.name.endswith(".tar.gz")}  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auditwheel is Linux-only")
def test_two_builds_of_one_commit_are_byte_identical(tmp_path):
    built = []
    # the commit's time, read once: a commit made while this runs must not change the date
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(reproducible.source_date_epoch()))
    for run in ("first", "second"):
        out = tmp_path / run
        result = subprocess.run([sys.executable, str(ROOT / "tools" / "dist.py"), "--out",
                                 str(out), "--build-only"], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=2400)  # fmt: skip
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
        built.append(digests(out))
    assert len(built[0]) == 2 * len(list((ROOT / "packages").glob("*/pyproject.toml")))
    assert built[0] == built[1]
