"""Triangle meshes from STL (binary or ASCII) and Wavefront OBJ files, for URDF visuals."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import UrdfError


def load_mesh(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (N, 3) float64, indices (3M,) int64) of an .stl or .obj file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UrdfError(f"cannot read mesh {str(path)!r}: {exc.strerror or exc}") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".stl":
            vertices, indices = _stl(data)
        elif suffix == ".obj":
            vertices, indices = _obj(data.decode("utf-8", "replace"))
        else:
            raise UrdfError(f"mesh {str(path)!r}: only .stl and .obj files are supported")
    except (ValueError, IndexError) as exc:
        raise UrdfError(f"mesh {str(path)!r} does not parse: {exc}") from None
    if len(indices) == 0:
        raise UrdfError(f"mesh {str(path)!r} has no triangles")
    return vertices, indices


def _stl(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    if len(data) >= 84:
        count = int(np.frombuffer(data, np.uint32, 1, 80)[0])
        if 84 + 50 * count == len(data):  # binary: 50 bytes a triangle
            rows = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                 ("a", "<u2")]), count, 84)  # fmt: skip
            vertices = rows["v"].reshape(-1, 3).astype(np.float64)
            return vertices, np.arange(len(vertices), dtype=np.int64)
    text = data.decode("ascii", "replace")
    if not text.lstrip().startswith("solid"):
        raise ValueError("neither a binary STL (size mismatch) nor an ASCII one")
    points = [line.split()[1:4] for line in text.splitlines() if line.strip().startswith("vertex")]
    vertices = np.array(points, np.float64).reshape(-1, 3)
    if len(vertices) % 3:
        raise ValueError("the vertex count is not a multiple of 3")
    return vertices, np.arange(len(vertices), dtype=np.int64)


def _obj(text: str) -> tuple[np.ndarray, np.ndarray]:
    vertices, indices = [], []
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "v":
            vertices.append([float(x) for x in fields[1:4]])
        elif fields[0] == "f":
            corners = [int(f.split("/")[0]) for f in fields[1:]]
            corners = [c - 1 if c > 0 else len(vertices) + c for c in corners]
            for k in range(1, len(corners) - 1):  # a fan of triangles
                indices += [corners[0], corners[k], corners[k + 1]]
    v = np.array(vertices, np.float64).reshape(-1, 3)
    i = np.array(indices, np.int64)
    if len(i) and (i.min() < 0 or i.max() >= len(v)):
        raise ValueError("a face names a vertex that does not exist")
    return v, i
