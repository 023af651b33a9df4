"""Byte-reproducible wheels and sdists: one commit always gives the same files.

The build time is the last commit's (``SOURCE_DATE_EPOCH``, which hatchling and
scikit-build-core read too), and every archive is rewritten after its build backend (and,
for the core wheel, auditwheel) made it: entries sorted (a wheel's ``.dist-info`` last, its
``RECORD`` at the very end, as the wheel spec recommends), each dated ``SOURCE_DATE_EPOCH``,
owned by 0:0 with no user names, mode 0644 or 0755 (0755 where any execute bit was set),
deflated at one level; the sdist's gzip header carries that date and no file name. The
contents are untouched, so a wheel's RECORD hashes still hold. Standard library only.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZIP_EPOCH = 315532800  # 1980-01-01: a zip entry cannot be dated earlier


def source_date_epoch(root: Path = ROOT) -> int:
    """``$SOURCE_DATE_EPOCH`` when set, else the time of the checkout's last commit."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return int(out.stdout.strip())


def _mode(executable: bool) -> int:
    return 0o755 if executable else 0o644


def _wheel_order(name: str) -> tuple[bool, bool, str]:
    top = name.split("/", 1)[0]
    return top.endswith(".dist-info"), name.endswith(".dist-info/RECORD"), name


def normalise_wheel(path: Path, epoch: int) -> None:
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    date = time.gmtime(max(epoch, ZIP_EPOCH))[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for info, data in sorted(entries, key=lambda e: _wheel_order(e[0].filename)):
            entry = zipfile.ZipInfo(info.filename, date_time=date)
            entry.create_system = 3  # Unix: the mode below is read
            directory = info.filename.endswith("/")
            executable = directory or bool((info.external_attr >> 16) & 0o111)
            entry.external_attr = ((0o040000 if directory else 0o100000) | _mode(executable)) << 16
            entry.compress_type = zipfile.ZIP_STORED if directory else zipfile.ZIP_DEFLATED
            target.writestr(entry, data, compresslevel=6)
    path.write_bytes(buffer.getvalue())


def normalise_sdist(path: Path, epoch: int) -> None:
    with tarfile.open(path) as source:
        members = [(m, source.extractfile(m).read() if m.isfile() else None)
                   for m in source.getmembers()]  # fmt: skip
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=epoch) as compressed:  # noqa: SIM117
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as target:
            for member, data in sorted(members, key=lambda m: m[0].name):
                entry = tarfile.TarInfo(member.name)
                entry.type, entry.linkname = member.type, member.linkname
                entry.mtime, entry.uid, entry.gid, entry.uname, entry.gname = epoch, 0, 0, "", ""
                entry.mode = _mode(member.isdir() or bool(member.mode & 0o111))
                entry.size = len(data) if data is not None else 0
                target.addfile(entry, io.BytesIO(data) if data is not None else None)
    path.write_bytes(buffer.getvalue())


def normalise(path: Path, epoch: int) -> None:
    """Rewrite a ``.whl`` or ``.tar.gz`` in place, reproducibly."""
    if path.suffix == ".whl":
        normalise_wheel(path, epoch)
    elif path.name.endswith(".tar.gz"):
        normalise_sdist(path, epoch)
    else:
        raise ValueError(f"not a wheel or an sdist: {path}")
