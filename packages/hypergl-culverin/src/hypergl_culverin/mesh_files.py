"""Triangle meshes from STL (binary or ASCII) and Wavefront OBJ files, for URDF visuals.

Untrusted files are bounded before they are read: the path is resolved under the
:class:`MeshPaths` policy, the suffix and the file's size are checked first (a 2 GiB
``robot.txt`` costs a ``stat``), and parsing streams the file in chunks into compact
arrays (binary STL straight into NumPy, ASCII STL and OBJ line by line into
``array('d')`` / ``array('q')``), charging a :class:`Budget` as it goes, so memory is
proportional to what is kept and never above the loader's ``memory_limit``.
"""

from __future__ import annotations

import os
import stat
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from . import values
from .errors import BridgeError, UrdfError

DEFAULT_MEMORY_LIMIT = 256 << 20
SUFFIXES = (".stl", ".obj")
CHUNK = 1 << 16  # bytes of text read at a time (its split lines cost ~3x that)
STL_ROWS = 1 << 15  # binary STL triangles read at a time (1.6 MB)
MAX_LINE = 1 << 12  # longer lines are not STL or OBJ
_STL_ROW = np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])  # 50 bytes


class Budget:
    """The bytes one URDF load may read and keep: each file's size, then the arrays kept."""

    def __init__(self, memory_limit: Any) -> None:
        if memory_limit is None:
            memory_limit = DEFAULT_MEMORY_LIMIT
        if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or \
                memory_limit < 1:  # fmt: skip
            raise TypeError(f"memory_limit must be a positive int of bytes, got {memory_limit!r}")
        self.limit: int = memory_limit
        self.used: int = 0

    def charge(self, nbytes: int, what: str) -> None:
        if self.used + nbytes > self.limit:
            raise UrdfError(f"{what} needs {self.used + nbytes} bytes, more than the load's "
                            f"memory_limit of {self.limit}: pass load_urdf(..., memory_limit=) "
                            "to allow more")  # fmt: skip
        self.used += nbytes

    def check(self, kept: int, what: str) -> None:
        """Raise once `kept` more bytes (not charged yet) would pass the limit."""
        if self.used + kept > self.limit:
            self.charge(kept, what)


class MeshPaths:
    """Where a URDF's meshes may be read from.

    * relative names (``meshes/arm.stl``, also with ``..``) are taken from the URDF's
      folder, absolute ones (and ``file://`` URLs) as they are;
    * ``package://name/rest`` is ``packages[name] / rest``; a package not in ``packages``
      is refused;
    * whatever the name, the file (symbolic links resolved) must lie inside the URDF's
      folder, one of ``roots`` or the named package's folder: a file cannot send the loader
      to ``/etc/passwd`` or ``../../secret.stl``. Other URL schemes are refused, and so is
      anything that is not a regular file (a FIFO, ``/dev/zero``).
    """

    def __init__(self, base: Path, roots: Any = (), packages: Any = None) -> None:
        if isinstance(roots, (str, os.PathLike)):
            roots = [roots]
        self.roots: list[Path] = [Path(base).resolve(), *(Path(r).resolve() for r in roots)]
        if packages is not None and not isinstance(packages, dict):
            raise TypeError(f"packages must be a dict {{name: folder}}, got {packages!r}")
        self.packages: dict[str, Path] = {str(k): Path(v).resolve()
                                          for k, v in (packages or {}).items()}  # fmt: skip

    def resolve(self, filename: str, what: str) -> Path:
        allowed = self.roots
        if filename.startswith("package://"):
            name, _, rest = filename.removeprefix("package://").partition("/")
            if name not in self.packages:
                raise UrdfError(f"{what} names {filename!r}: package {name!r} is not in "
                                "load_urdf(..., packages={name: folder})")  # fmt: skip
            allowed = [self.packages[name]]
            path = allowed[0] / rest
        elif filename.startswith("file://"):
            path = Path(filename.removeprefix("file://"))
        elif "://" in filename:
            raise UrdfError(f"{what} names {filename!r}: only relative paths, file:// and "
                            "package:// are read")  # fmt: skip
        else:
            path = Path(filename)
        if not path.is_absolute():
            path = self.roots[0] / path
        # Symbolic links resolved as far as the path exists, then refused alike wherever it
        # leads outside: the message names only what the file wrote, never the target a
        # link points to, nor whether a file out there exists.
        _inside(Path(os.path.realpath(path)), allowed, filename, what)
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise UrdfError(f"{what} names mesh {filename!r}, which does not exist "
                            f"(looked for {str(path)!r})") from None  # fmt: skip
        return _inside(real, allowed, filename, what)  # again: a link may have changed


def _inside(real: Path, allowed: list[Path], filename: str, what: str) -> Path:
    """`real` if it lies in one of the `allowed` folders; else the one refusal for every
    path outside (a link out, a file out there or none), naming only `filename`."""
    if not any(real.is_relative_to(root) for root in allowed):
        raise UrdfError(
            f"{what} names mesh {filename!r}, outside the folders meshes are "
            f"read from ({', '.join(map(str, allowed))}): pass "
            "load_urdf(..., mesh_roots=[folder]) or packages= to allow one"
        )
    return real


def checked_file(path: Path, budget: Budget, what: str, per_byte: int = 1) -> int:
    """The size of `path`, a regular file, charged to `budget` (`per_byte` times: what
    parsing it keeps per byte) before it is read."""
    try:
        info = path.stat()
    except OSError as exc:
        raise UrdfError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UrdfError(f"{what} {str(path)!r} is not a regular file")
    budget.charge(per_byte * info.st_size, f"{what} {str(path)!r} ({info.st_size} bytes)")
    return info.st_size


def load_mesh(path: Path, budget: Budget | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (N, 3) float64, indices (3M,) int64) of an .stl or .obj file."""
    budget = Budget(None) if budget is None else budget
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:  # before anything is read
        raise UrdfError(f"mesh {str(path)!r}: only .stl and .obj files are supported")
    size = checked_file(path, budget, "mesh")
    what = f"mesh {str(path)!r}"
    try:
        with open(path, "rb") as f:
            if suffix == ".stl":
                vertices, indices = _stl(f, size, budget, what)
            else:
                vertices, indices = _obj(f, budget, what)
        vertices = values.points(vertices, what, least=3)
    except OSError as exc:
        raise UrdfError(f"cannot read {what}: {exc.strerror or exc}") from None
    except UrdfError:
        raise
    except (BridgeError, ValueError, IndexError) as exc:
        raise UrdfError(f"{what} does not parse: {exc}") from None
    if len(indices) == 0:
        raise UrdfError(f"{what} has no triangles")
    return vertices, indices


def _stl(f: BinaryIO, size: int, budget: Budget, what: str) -> tuple[np.ndarray, np.ndarray]:
    head = f.read(84)
    count = int.from_bytes(head[80:84], "little") if len(head) == 84 else -1
    if count >= 0 and 84 + 50 * count == size:  # binary: 50 bytes a triangle
        budget.charge(count * 3 * (24 + 8), f"{what} ({count} triangles)")
        vertices = np.empty((3 * count, 3), np.float64)
        for start in range(0, count, STL_ROWS):
            rows = np.fromfile(f, _STL_ROW, min(STL_ROWS, count - start))
            if len(rows) != min(STL_ROWS, count - start):
                raise ValueError("the file ended early (it changed while read?)")
            vertices[3 * start : 3 * (start + len(rows))] = rows["v"].reshape(-1, 3)
        return vertices, np.arange(len(vertices), dtype=np.int64)
    f.seek(0)
    coordinates = array("d")
    lines = _lines(f, what)
    first = next(lines, b"").strip()
    if not first.startswith(b"solid"):
        raise ValueError("neither a binary STL (size mismatch) nor an ASCII one")
    for line in lines:
        fields = line.split()
        if fields and fields[0] == b"vertex":
            if len(fields) != 4:
                raise ValueError(f"a vertex line needs 3 numbers: {line[:80]!r}")
            coordinates.extend(float(x) for x in fields[1:])
            budget.check(len(coordinates) * 16, what)  # coordinates and indices
    if len(coordinates) % 9:
        raise ValueError("the vertex count is not a multiple of 3")
    budget.charge(len(coordinates) * 8 + len(coordinates) // 3 * 8, what)
    vertices = np.frombuffer(coordinates, np.float64).reshape(-1, 3)
    return vertices, np.arange(len(vertices), dtype=np.int64)


def _obj(f: BinaryIO, budget: Budget, what: str) -> tuple[np.ndarray, np.ndarray]:
    coordinates, indices = array("d"), array("q")
    for number, line in enumerate(_lines(f, what), 1):
        fields = line.split()
        if not fields:
            continue
        if fields[0] == b"v":
            if len(fields) < 4:
                raise ValueError(f"line {number}: a vertex needs 3 numbers")
            coordinates.extend(float(x) for x in fields[1:4])
        elif fields[0] == b"f":
            count = len(coordinates) // 3
            corners = []
            for field in fields[1:]:
                c = int(field.split(b"/")[0])
                if c == 0:
                    raise ValueError(f"line {number}: OBJ indices start at 1")
                corners.append(c - 1 if c > 0 else count + c)
            if len(corners) < 3:
                raise ValueError(f"line {number}: a face needs 3 corners")
            for k in range(1, len(corners) - 1):  # a fan of triangles
                indices.extend((corners[0], corners[k], corners[k + 1]))
        else:
            continue
        budget.check((len(coordinates) + len(indices)) * 8, what)
    budget.charge((len(coordinates) + len(indices)) * 8, what)
    v = np.frombuffer(coordinates, np.float64).reshape(-1, 3)
    i = np.frombuffer(indices, np.int64)
    if len(i) and (i.min() < 0 or i.max() >= len(v)):
        raise ValueError("a face names a vertex that does not exist")
    return v, i


def _lines(f: BinaryIO, what: str) -> Iterator[bytes]:
    """The file's lines, read CHUNK bytes at a time; a line longer than MAX_LINE is an
    error (so a file without newlines is never held whole)."""
    rest = b""
    while chunk := f.read(CHUNK):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        if len(rest) > MAX_LINE:
            raise ValueError(f"a line longer than {MAX_LINE} bytes")
        for line in lines:
            if len(line) > MAX_LINE:
                raise ValueError(f"a line longer than {MAX_LINE} bytes")
            yield line
    if rest:
        yield rest
