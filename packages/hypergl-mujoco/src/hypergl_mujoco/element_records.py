"""Records whose rows carry more than a pose: the 12 bytes after a matrix record's
rotation (``hypergl.bodies.MATRIX_RECORD_DTYPE`` leaves them free) hold either the row's
part scale (``tail="scale"``: a tendon segment's half length and width factor) or the
first of its soft vertices (``tail="soft_first"``: one skin's vertices in each world), read
by the body renderer's ``BODY_SCALE`` / ``BODY_SOFT_FIRST`` (:mod:`hypergl.bodies.records`);
and :class:`ElementLayer`, what the element layers that fill them share.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import BodyRenderer, InstanceRecords, list_bytes
from hypergl.bodies.records import MATRIX_GLSL

from .scene import GeomLook

TAILS = {
    "scale": (
        (np.float32, 3),
        "#define BODY_SCALE 1\n"
        "struct BodyRecord { vec3 position; uint id; float xmat[9]; float scale[3]; };\n",
        "vec3 body_scale(uint row) {\n"
        "    return vec3(body_records[row].scale[0], body_records[row].scale[1],\n"
        "                body_records[row].scale[2]);\n}\n",
    ),
    "soft_first": (
        np.uint32,
        "#define BODY_SOFT_FIRST 1\n"
        "struct BodyRecord { vec3 position; uint id; float xmat[9]; uint soft_first; };\n",
        "uint body_soft_first(uint row) { return body_records[row].soft_first; }\n",
    ),
}


class TailRecords(InstanceRecords):
    """Matrix records (:class:`hypergl.bodies.InstanceRecords`) with a `tail` per row;
    :attr:`rows` maps them with it (field ``scale`` or ``soft_first``)."""

    def __init__(self, ctx: hypergl.Context, capacity: int, tail: str) -> None:
        super().__init__(ctx, capacity, rotation="matrix")
        self.tail = tail
        kind, self._struct, self._accessor = TAILS[tail]
        dtype = np.dtype({"names": ["position", "id", "rotation", tail],
                          "formats": [(np.float32, 3), np.uint32, (np.float32, (3, 3)), kind],
                          "offsets": [0, 12, 16, 52], "itemsize": 64})  # fmt: skip
        self.rows: np.ndarray = self.buffer.map(dtype, self.capacity)
        if tail == "scale":
            self.rows["scale"] = 1.0

    def body_glsl(self) -> str:
        glsl = super().body_glsl()
        assert MATRIX_GLSL in glsl
        return glsl.replace(MATRIX_GLSL, self._struct) + self._accessor


class ElementLayer:
    """What every element layer (tendons, skins, flexes as skins and as edges) holds: the
    model, the worlds, its segmentation ids (``first_id`` on, below ``max_ids``), its rows
    a world (``count``), its looks, its records and the GPU resources it made; their
    release and the record and instance-list sizes they share."""

    element = ""

    def __init__(self, model: mujoco.MjModel, worlds: int, first_id: int, max_ids: int
                 ) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        self.worlds: int = worlds
        self.first_id: int = first_id
        self.max_ids: int = max_ids
        self.count: int = 0  # rows per world
        self.looks: list[GeomLook] = []
        self.records: TailRecords | None = None
        self._resources: list[Any] = []
        # (body id, count) of the soft vertices added to the layer's renderer, in order, and
        # that renderer's buffer of them: what a mirror pass's renderer shares (share_soft)
        self._soft_spans: list[tuple[int, int]] = []
        self._soft_out: hypergl.Buffer | None = None

    def see(self, matrices: np.ndarray) -> None:
        """This snapshot's view-projections, before :meth:`write` (most layers' rows do not
        depend on the views)."""

    def add_soft(self, renderer: BodyRenderer, body_id: int, count: int) -> int:
        """Room for `count` soft vertices of `body_id` in `renderer` (the layer's own),
        remembered for :meth:`share_soft`; the first one's index."""
        first = renderer.add_soft_vertices(body_id, count)
        self._soft_spans.append((body_id, count))
        self._soft_out = renderer.soft_vertices
        return first

    def share_soft(self, renderer: BodyRenderer) -> None:
        """The same soft bodies in `renderer` (a mirror pass's, fresh: the same first
        indices), filled from the layer's by :meth:`record_soft_copy`."""
        for body_id, count in self._soft_spans:
            renderer.add_soft_vertices(body_id, count)

    def record_soft_copy(self, cmd: hypergl.CommandBuffer, renderer: BodyRenderer) -> None:
        """Copy this frame's soft vertices (after :meth:`record`) into `renderer`'s."""
        if self._soft_out is not None:
            size = sum(count for _, count in self._soft_spans) * 16
            cmd.copy_buffer(self._soft_out, renderer.soft_vertices, size)
            cmd.barrier()

    @staticmethod
    def instance_bytes(cameras: int, parts: int, copies: int = 1) -> int:
        """A world's instance lists: `parts` drawn `copies` times in each camera's view
        (hypergl.bodies.list_bytes; ray-cast's, the larger, whichever the layer draws)."""
        return cameras * parts * copies * list_bytes("raycast")

    def _make_records(self, ctx: hypergl.Context, tail: str, ids: np.ndarray) -> TailRecords:
        """Records of every world's rows, world after world, row k's id ``ids[k]``."""
        self.records = records = TailRecords(ctx, max(self.worlds * self.count, 1), tail)
        records.rows["id"][: self.worlds * self.count] = np.tile(ids, self.worlds)
        records.count = self.worlds * self.count
        return records

    def _soft_records(self, ctx: hypergl.Context, ids: np.ndarray, vertices: np.ndarray
                      ) -> TailRecords:  # fmt: skip
        """Records of soft looks: row k of world w starts at w * ``vertices[k]`` of its
        look's soft vertices (each look holds every world's, world after world)."""
        records = self._make_records(ctx, "soft_first", ids)
        offsets = np.arange(self.worlds)[:, None] * np.asarray(vertices, np.int64)[None, :]
        records.rows["soft_first"][: self.worlds * self.count] = offsets.ravel()
        return records

    def release(self) -> None:
        for resource in reversed(self._resources):
            if not resource.released:
                resource.release()
        self._resources = []
        if self.records is not None:
            self.records.release()
