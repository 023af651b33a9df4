"""Records whose rows carry more than a pose: the 12 bytes after a matrix record's
rotation (``hypergl.bodies.MATRIX_RECORD_DTYPE`` leaves them free) hold either the row's
part scale (``tail="scale"``: a tendon segment's half length and width factor) or the
first of its soft vertices (``tail="soft_first"``: one skin's vertices in each world), read
by the body renderer's ``BODY_SCALE`` / ``BODY_SOFT_FIRST`` (:mod:`hypergl.bodies.records`).
"""

from __future__ import annotations

import numpy as np

import hypergl
from hypergl.bodies import InstanceRecords
from hypergl.bodies.records import MATRIX_GLSL

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
