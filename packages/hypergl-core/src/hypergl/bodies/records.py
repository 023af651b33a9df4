"""The per-instance records the body renderer draws, and the protocol of a record source.

A *record source* is what a bridge hands :class:`~hypergl.bodies.BodyRenderer`: an object with

* ``context``  the :class:`hypergl.Context` its buffers live in;
* ``binding``  the storage binding of its records; the renderer uses the eleven after it
  (``binding + 1`` is the source's own: a live-row count, for example);
* ``capacity`` the most rows it holds;
* ``body_glsl()`` GLSL that declares its buffers and defines ``uint body_count()``,
  ``vec3 body_position(uint row)``, ``vec4 body_rotation(uint row)`` (a quaternion x, y, z,
  w) and ``uint body_id(uint row)`` (the look drawn: :meth:`BodyRenderer.set_look`);
* ``bind(cmd)`` recording its buffers' bindings, and ``record(cmd)`` recording its per-frame
  sync (the engine's ``upload`` from the physics state, or nothing).

:class:`InstanceRecords` is the plain one: rows written from NumPy into mapped memory, the
layout the Culverin bridge uses with f32 positions (so a bridge's C++ sync can fill it)::

    struct BodyRecord { vec3 position; uint id; vec4 rotation; };   // 32 bytes, std430
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..command_buffer import CommandBuffer
from ..resources import Buffer

if TYPE_CHECKING:
    from ..context import Context
from ..errors import BodyError

RECORD_DTYPE = np.dtype([("position", np.float32, 3), ("id", np.uint32),
                         ("rotation", np.float32, 4)])  # fmt: skip

GLSL = """struct BodyRecord {{ vec3 position; uint id; vec4 rotation; }};
layout(std430, binding = {binding}) readonly buffer BodyRecords {{ BodyRecord body_records[]; }};
layout(std430, binding = {count}) readonly buffer BodyRecordCount {{ uint body_record_count; }};
uint body_count() {{ return body_record_count; }}
vec3 body_position(uint row) {{ return body_records[row].position; }}
vec4 body_rotation(uint row) {{ return body_records[row].rotation; }}
uint body_id(uint row) {{ return body_records[row].id; }}
"""


class InstanceRecords:
    """`capacity` rows of (position, id, rotation) in mapped storage; ``count`` are drawn."""

    def __init__(self, ctx: Context, capacity: int, *, binding: int = 0) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or (
            capacity < 1
        ):
            raise BodyError(f"capacity must be a positive int, got {capacity!r}")
        if isinstance(binding, bool) or not isinstance(binding, int) or not 0 <= binding < 52:
            raise BodyError(f"binding must be an int in 0..51 (the renderer uses the 11 "
                            f"after it), got {binding!r}")  # fmt: skip
        self.context: Context = ctx
        self.binding: int = binding
        self.capacity: int = int(capacity)
        self.buffer: Buffer = ctx.buffer(size=self.capacity * RECORD_DTYPE.itemsize,
                                         name="body_records")  # fmt: skip
        self.records: np.ndarray = self.buffer.map(RECORD_DTYPE, self.capacity)
        self.records[:] = np.zeros(1, RECORD_DTYPE)
        self.records["rotation"][:, 3] = 1.0
        self.count_buffer: Buffer = ctx.buffer(size=16, name="body_record_count")
        self._count = self.count_buffer.map(np.uint32, (4,))
        self._count[:] = 0

    @property
    def count(self) -> int:
        return int(self._count[0])

    @count.setter
    def count(self, rows: int) -> None:
        if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or not (
            0 <= rows <= self.capacity
        ):
            raise BodyError(f"count must be an int in 0..{self.capacity}, got {rows!r}")
        self._count[0] = rows

    def write(self, positions: Any, rotations: Any, ids: Any, first: int = 0) -> None:
        """Rows ``first ...``: positions (n, 3), quaternions (n, 4) x, y, z, w, ids (n,);
        the count grows to cover them."""
        pos = np.asarray(positions, np.float32).reshape(-1, 3)
        n = len(pos)
        rot = np.asarray(rotations, np.float32).reshape(n, 4)
        idx = np.asarray(ids).reshape(n)
        if first < 0 or first + n > self.capacity:
            raise BodyError(f"rows {first}..{first + n - 1} do not fit capacity {self.capacity}")
        if not (np.isfinite(pos).all() and np.isfinite(rot).all()):
            raise BodyError("positions and rotations must be finite")
        if idx.size and (idx.min() < 0 or idx.max() >= 2**31):
            raise BodyError(f"ids must be in 0..2**31 - 1, got {idx.min()}..{idx.max()}")
        rows = self.records[first : first + n]
        rows["position"], rows["rotation"], rows["id"] = pos, rot, idx
        self._count[0] = max(self.count, first + n)

    def body_glsl(self) -> str:
        return GLSL.format(binding=self.binding, count=self.binding + 1)

    def bind(self, cmd: CommandBuffer) -> None:
        cmd.bind_storage_buffer(self.buffer, self.binding)
        cmd.bind_storage_buffer(self.count_buffer, self.binding + 1)

    def record(self, cmd: CommandBuffer) -> None:
        """Nothing to sync: the rows are written straight into mapped memory."""

    def release(self) -> None:
        for buffer in (self.buffer, self.count_buffer):
            if not buffer.released:
                buffer.release()
