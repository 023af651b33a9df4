"""The per-instance records the body renderer draws, and the protocol of a record source.

A *record source* is what a bridge hands :class:`~hypergl.bodies.BodyRenderer`: an object with

* ``context``  the :class:`hypergl.Context` its buffers live in;
* ``binding``  the storage binding of its records; the renderer uses the eleven after it
  (``binding + 1`` is the source's own: a live-row count, for example);
* ``capacity`` the most rows it holds;
* ``body_glsl()`` GLSL that declares its buffers and defines ``uint body_count()``,
  ``vec3 body_position(uint row)``, ``vec4 body_rotation(uint row)`` (a quaternion x, y, z,
  w) and ``uint body_id(uint row)`` (the look drawn: :meth:`BodyRenderer.set_look`);
  optionally ``#define BODY_SCALE`` and ``vec3 body_scale(uint row)``: each row's parts'
  scales times it (a segment whose length changes every frame: a MuJoCo tendon's);
  optionally ``#define BODY_SOFT_FIRST`` and ``uint body_soft_first(uint row)``: added to a
  soft part's first vertex (one look's soft vertices per row: a skin in many worlds);
  optionally ``#define BODY_LOOK`` and ``void body_look(uint row, inout vec4 color, inout
  vec4 material, inout vec4 texture, inout vec4 uv_map)``: the row's own look over its
  parts' (a part row's fields, :data:`~hypergl.bodies.renderer.PART_DTYPE`), its buffer at
  storage binding ``binding + 7``; with it ``fragment_needs``: body id -> what its rows
  may switch to (texture mappings, ``"specular"``: the draw pipelines are made with them);
* ``bind(cmd)`` recording its buffers' bindings, and ``record(cmd)`` recording its per-frame
  sync (the engine's ``upload`` from the physics state, or nothing). Recorded in a program
  of its own (``BodyRenderer.record_sync``), the sync is the snapshot that lets the physics
  step while the frame draws (:mod:`hypergl.pipelining`, whose doc states the contract).

:class:`InstanceRecords` is the plain one: rows written from NumPy into mapped memory (or by
a bridge's C++ sync: the engine's external-source fields convert f64 to f32), in one of two
std430 layouts. ``rotation="quaternion"`` is the Culverin bridge's with f32 positions::

    struct BodyRecord { vec3 position; uint id; vec4 rotation; };    // 32 bytes

``rotation="matrix"`` takes a row-major 3x3 rotation as MuJoCo reports it (``geom_xmat``),
made a quaternion in the shaders::

    struct BodyRecord { vec3 position; uint id; float xmat[9]; };    // 64 bytes
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..command_buffer import CommandBuffer
from ..errors import BodyError, ResourceError
from ..finite import check_within
from ..resources import Buffer
from ..serialised import Guard, closing, serialised

if TYPE_CHECKING:
    from ..context import Context

RECORD_DTYPE = np.dtype([("position", np.float32, 3), ("id", np.uint32),
                         ("rotation", np.float32, 4)])  # fmt: skip
MATRIX_RECORD_DTYPE = np.dtype({"names": ["position", "id", "rotation"],
                                "formats": [(np.float32, 3), np.uint32, (np.float32, (3, 3))],
                                "offsets": [0, 12, 16], "itemsize": 64})  # fmt: skip
DTYPES = {"quaternion": RECORD_DTYPE, "matrix": MATRIX_RECORD_DTYPE}
IDENTITY = {"quaternion": np.array([0.0, 0.0, 0.0, 1.0], np.float32),
            "matrix": np.eye(3, dtype=np.float32)}  # fmt: skip

GLSL = """layout(std430, binding = {binding}) readonly buffer BodyRecords {{
    BodyRecord body_records[];
}};
layout(std430, binding = {count}) readonly buffer BodyRecordCount {{ uint body_record_count; }};
uint body_count() {{ return body_record_count; }}
vec3 body_position(uint row) {{ return body_records[row].position; }}
uint body_id(uint row) {{ return body_records[row].id; }}
"""
QUATERNION_GLSL = """struct BodyRecord { vec3 position; uint id; vec4 rotation; };
"""
QUATERNION_ACCESSOR = """vec4 body_rotation(uint row) { return body_records[row].rotation; }
"""
MATRIX_GLSL = """struct BodyRecord { vec3 position; uint id; float xmat[9]; };
"""
# The quaternion of a row-major rotation matrix (Shepperd: the largest of w, x, y, z first,
# so no division by a small number).
MATRIX_ACCESSOR = """vec4 body_rotation(uint row) {
    float m[9] = body_records[row].xmat;
    float trace = m[0] + m[4] + m[8];
    if (trace > 0.0) {
        float s = 2.0 * sqrt(trace + 1.0);
        return vec4(m[7] - m[5], m[2] - m[6], m[3] - m[1], 0.25 * s * s) / s;
    }
    if (m[0] > m[4] && m[0] > m[8]) {
        float s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        return vec4(0.25 * s * s, m[1] + m[3], m[2] + m[6], m[7] - m[5]) / s;
    }
    if (m[4] > m[8]) {
        float s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        return vec4(m[1] + m[3], 0.25 * s * s, m[5] + m[7], m[2] - m[6]) / s;
    }
    float s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
    return vec4(m[2] + m[6], m[5] + m[7], 0.25 * s * s, m[3] - m[1]) / s;
}
"""


class InstanceRecords:
    """`capacity` rows of (position, id, rotation) in mapped storage; ``count`` are drawn.

    `rotation`: ``"quaternion"`` (x, y, z, w) or ``"matrix"`` (3x3, row-major)."""

    def __init__(self, ctx: Context, capacity: int, *, binding: int = 0,
                 rotation: str = "quaternion") -> None:  # fmt: skip
        self._guard = Guard(ResourceError, "these body records have been released")
        if rotation not in DTYPES:
            raise BodyError(f"rotation must be 'quaternion' or 'matrix', got {rotation!r}")
        self.rotation: str = rotation
        self.dtype: np.dtype = DTYPES[rotation]
        if (
            isinstance(capacity, bool)
            or not isinstance(capacity, (int, np.integer))
            or (capacity < 1)
        ):
            raise BodyError(f"capacity must be a positive int, got {capacity!r}")
        if isinstance(binding, bool) or not isinstance(binding, int) or not 0 <= binding < 52:
            raise BodyError(f"binding must be an int in 0..51 (the renderer uses the 11 "
                            f"after it), got {binding!r}")  # fmt: skip
        self.context: Context = ctx
        self.binding: int = binding
        self.capacity: int = int(capacity)
        self.buffer: Buffer = ctx.buffer(size=self.capacity * self.dtype.itemsize,
                                         name="body_records")  # fmt: skip
        self.records: np.ndarray = self.buffer.map(self.dtype, self.capacity)
        self.records[:] = np.zeros(1, self.dtype)
        self.records["rotation"][:] = IDENTITY[rotation]
        self.count_buffer: Buffer = ctx.buffer(size=16, name="body_record_count")
        self._count = self.count_buffer.map(np.uint32, (4,))
        self._count[:] = 0

    @property
    def count(self) -> int:
        return int(self._count[0])

    @count.setter
    @serialised
    def count(self, rows: int) -> None:
        if (
            isinstance(rows, bool)
            or not isinstance(rows, (int, np.integer))
            or not (0 <= rows <= self.capacity)
        ):
            raise BodyError(f"count must be an int in 0..{self.capacity}, got {rows!r}")
        self._count[0] = rows

    @serialised
    def write(self, positions: Any, rotations: Any, ids: Any, first: int = 0) -> None:
        """Rows ``first ...``: positions (n, 3), rotations (n, 4) quaternions x, y, z, w or
        (n, 3, 3) row-major matrices, as the layout is; ids (n,). The count grows to cover
        them."""
        pos = np.asarray(positions, np.float64)  # checked as float32 below, then cast
        n = len(pos) if pos.ndim == 2 else -1
        rot = np.asarray(rotations, np.float64)
        idx = np.asarray(ids)
        shape = self.dtype["rotation"].shape
        if pos.shape != (n, 3) or rot.shape != (n, *shape) or idx.shape != (n,):
            want = ", ".join(map(str, shape))
            raise BodyError(f"write takes positions (n, 3), rotations (n, {want}) and ids "
                            f"(n,), got {pos.shape}, {rot.shape}, {idx.shape}")  # fmt: skip
        if first < 0 or first + n > self.capacity:
            raise BodyError(f"rows {first}..{first + n - 1} do not fit capacity {self.capacity}")

        def body(what: str) -> Callable[[tuple[int, ...]], str]:
            return lambda at: f"the {what} of row {first + at[0]} (body id {int(idx[at[0]])})"

        check_within(pos, body("position"), BodyError)
        check_within(rot, body("rotation"), BodyError)
        if idx.size and (idx.min() < 0 or idx.max() >= 2**31):
            raise BodyError(f"ids must be in 0..2**31 - 1, got {idx.min()}..{idx.max()}")
        rows = self.records[first : first + n]
        rows["position"], rows["rotation"], rows["id"] = pos, rot, idx
        self._count[0] = max(self.count, first + n)

    def body_glsl(self) -> str:
        matrix = self.rotation == "matrix"
        struct = MATRIX_GLSL if matrix else QUATERNION_GLSL
        accessor = MATRIX_ACCESSOR if matrix else QUATERNION_ACCESSOR
        return struct + GLSL.format(binding=self.binding, count=self.binding + 1) + accessor

    @serialised
    def bind(self, cmd: CommandBuffer) -> None:
        cmd.bind_storage_buffer(self.buffer, self.binding)
        cmd.bind_storage_buffer(self.count_buffer, self.binding + 1)

    @serialised
    def record(self, cmd: CommandBuffer) -> None:
        """Nothing to sync: the rows are written straight into mapped memory."""

    @property
    def released(self) -> bool:
        return self._guard.closed

    @closing
    def release(self) -> None:
        """Free the buffers; safe to call twice, and while another thread writes rows (it
        waits for that write; later ones raise ResourceError)."""
        for buffer in (self.buffer, self.count_buffer):
            if not buffer.released:
                buffer.release()
