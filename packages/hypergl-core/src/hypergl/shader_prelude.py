"""The first lines of every GLSL program hypergl builds, and the one camera block.

Every GLSL builder of the project (the body renderer, draw lists, texture sets, the py_gpu
backend, hypergl-rl's batch renderer, the Culverin demo) starts its stages with
:data:`VERSION` and :func:`defines`, inserts includes after a caller's ``#version`` and
``#extension`` lines with :func:`insert_after_directives`, declares a camera with
:func:`camera_block`, whose std140 layout :data:`CAMERA_DTYPE` mirrors, and draws a pass
over every pixel with :data:`FULL_SCREEN_VERTEX`. One place says which
GLSL the engine speaks (4.30: compute shaders, storage buffers, multi-draw-indirect) and
what a camera is on the GPU.

The camera block::

    layout(std140, binding = B) uniform <Name> {
        mat4 view_proj;  // column-major, as GLSL reads it (:func:`camera_record` transposes)
        vec4 eye;        // the camera's centre, homogeneous (w 0: an orthographic camera's
                         // direction back toward it)
        vec4 light;      // xyz: a unit light direction
        vec4 lod;        // x: the body renderer's level-of-detail threshold
    };
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

VERSION = "#version 430\n"

# One triangle over the whole framebuffer (no vertex buffer: draw 3 vertices), for passes
# that touch every pixel: backgrounds, resolves, probes.
FULL_SCREEN_VERTEX = (
    VERSION
    + """void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
    gl_Position = vec4(corner, 0.0, 1.0);
}
"""
)

# std140 (and std430) bytes of the camera block above: four vec4 rows after the matrix
CAMERA_DTYPE = np.dtype([("view_proj", np.float32, 16), ("eye", np.float32, 4),
                         ("light", np.float32, 4), ("lod", np.float32, 4)])  # fmt: skip
CAMERA_BYTES = CAMERA_DTYPE.itemsize  # 112

_CAMERA_BLOCK = """layout(std140, binding = {binding}) uniform {name} {{
    mat4 view_proj;
    vec4 eye;
    vec4 light;
    vec4 lod;
}};
"""
_DIRECTIVES = re.compile(r"^[ \t]*#[ \t]*(version|extension)\b.*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def defines(values: Mapping[str, Any]) -> str:
    """``#define NAME value`` lines, one per item, in order."""
    for name in values:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"a GLSL define needs an identifier, got {name!r}")
    return "".join(f"#define {name} {value}\n" for name, value in values.items())


def camera_block(binding: int, name: str = "Camera") -> str:
    """The GLSL of the camera block (see the module's text) at uniform `binding`."""
    if isinstance(binding, bool) or not isinstance(binding, int) or binding < 0:
        raise ValueError(f"a camera block's binding must be a non-negative int, got {binding!r}")
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"a camera block's name must be a GLSL identifier, got {name!r}")
    return _CAMERA_BLOCK.format(binding=binding, name=name)


def camera_record(
    view_proj: Any,
    eye: Sequence[float] = (0.0, 0.0, 0.0, 1.0),
    light: Sequence[float] = (0.0, 0.0, 0.0),
    lod: float = 0.0,
) -> np.ndarray:
    """One :data:`CAMERA_DTYPE` record (shape (1,)): `view_proj` (4x4, row-major for
    column vectors, as :mod:`hypergl.transforms` makes it) stored column-major, the
    homogeneous `eye`, the `light` direction (stored as given) and `lod`. Write it into
    the block's buffer (``buffer.write(record)`` or a mapped ``CAMERA_DTYPE`` array)."""
    record = np.zeros(1, CAMERA_DTYPE)
    record["view_proj"][0] = np.asarray(view_proj, np.float32).T.reshape(-1)
    record["eye"][0] = eye
    record["light"][0, :3] = light
    record["lod"][0, 0] = lod
    return record


def insert_after_directives(source: str, text: str, file_number: int) -> str:
    """`source` with `text` after its ``#version`` / ``#extension`` lines, numbered as
    GLSL file `file_number` (``#line 1 N``), then the source's own line numbers resumed
    (``#line L 0``), so the driver's error log still points into the caller's text."""
    last = None
    for match in _DIRECTIVES.finditer(source):
        last = match
    cut = last.end() + 1 if last else 0
    lines = source[:cut].count("\n") + 1
    return f"{source[:cut]}#line 1 {file_number}\n{text}#line {lines} 0\n{source[cut:]}"
