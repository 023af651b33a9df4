"""The record one body becomes on the GPU: std430 layout, conversion fields and GLSL text.

One interleaved record per body (rather than one buffer per quantity) so that a single
external source, acquired once per frame under one lock, fills everything a shader needs
about a body with one upload instruction; the shader reads ``culverin_bodies[gl_InstanceID]``.

std430 layout, 32 bytes a body with f32 positions (48 with velocities; 64 with f64)::

    struct CulverinBody {
        vec3  position;  // centre of mass                 (dvec3 with precision="f64")
        uint  id;        // user_data bits 0..31: the body's stable id
        vec4  rotation;  // quaternion x, y, z, w
        vec4  velocity;  // xyz: linear velocity, w: 0     (only with velocities=True)
    };

The id sits in the vec3's fourth slot (std430 packs a scalar there), which keeps the f32
record at 32 bytes: the copy is memory-bound, so every byte saved is time saved. Float
quantities that need no conversion (rotations, velocities) are copied as u64 pairs: the
same bits, half the element operations in the engine's conversion loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Culverin 0.15.0 shadow buffers: positions f64 x4 (x, y, z, pad), rotations f32 x4,
# velocities f32 x4, user_data u64: one row per body, C-contiguous.
POSITION_STRIDE = 32
ROTATION_STRIDE = 16
VELOCITY_STRIDE = 16
USER_DATA_STRIDE = 8
PRECISIONS = ("f32", "f64")


@dataclass(frozen=True)
class RecordLayout:
    """Byte offsets of one body's record, and the fields that fill it."""

    precision: str
    velocities: bool
    position_at: int
    rotation_at: int
    velocity_at: int | None
    id_at: int
    record_size: int

    @classmethod
    def make(cls, precision: str = "f32", velocities: bool = False) -> RecordLayout:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        if precision == "f64":  # dvec3 aligns to 32 bytes: the struct does too
            id_at, rotation_at, align = 24, 32, 32
        else:
            id_at, rotation_at, align = 12, 16, 16
        at = rotation_at + 16
        velocity_at = None
        if velocities:
            velocity_at, at = at, at + 16
        record_size = -(-at // align) * align
        return cls(precision, bool(velocities), 0, rotation_at, velocity_at, id_at, record_size)

    @property
    def sources(self) -> tuple[str, ...]:
        """World attributes that `acquire` returns, in field-source order."""
        names = ("positions", "rotations", "user_data")
        return (*names, "velocities") if self.velocities else names

    def fields(self) -> list[dict[str, Any]]:
        """The external-source fields: every conversion the C++ copy performs per row."""
        fields = [
            {"source": 0, "type": "f64", "stride": POSITION_STRIDE, "components": 3,
             "to": self.precision, "at": self.position_at},
            # user_data is a little-endian u64: its first u32 word is bits 0..31.
            {"source": 2, "type": "u32", "stride": USER_DATA_STRIDE, "components": 1,
             "to": "u32", "at": self.id_at},
            # four float32 copied bit for bit as two u64
            {"source": 1, "type": "u64", "stride": ROTATION_STRIDE, "components": 2,
             "to": "u64", "at": self.rotation_at},
        ]  # fmt: skip
        if self.velocity_at is not None:
            fields.append({"source": 3, "type": "u64", "stride": VELOCITY_STRIDE,
                           "components": 2, "to": "u64", "at": self.velocity_at})  # fmt: skip
        return fields

    def numpy_dtype(self) -> Any:
        """A structured NumPy dtype matching the record (for reading a mapped buffer)."""
        import numpy as np

        position = np.float64 if self.precision == "f64" else np.float32
        names = ["position", "id", "rotation"]
        formats: list = [(position, 3), np.uint32, (np.float32, 4)]
        offsets = [self.position_at, self.id_at, self.rotation_at]
        if self.velocity_at is not None:
            names.append("velocity")
            formats.append((np.float32, 4))
            offsets.append(self.velocity_at)
        return np.dtype(
            {"names": names, "formats": formats, "offsets": offsets, "itemsize": self.record_size}
        )

    def glsl(self, binding: int, count_binding: int | None = None) -> str:
        """GLSL declarations of the record struct and its storage buffer(s)."""
        vec = "dvec3" if self.precision == "f64" else "vec3"
        lines = [
            "struct CulverinBody {",
            f"    {vec} position;  // centre of mass",
            "    uint id;  // user_data bits 0..31: stable id",
            "    vec4 rotation;  // quaternion (x, y, z, w)",
        ]
        if self.velocity_at is not None:
            lines.append("    vec4 velocity;  // xyz: linear velocity, w: 0")
        lines += [
            "};",
            f"layout(std430, binding = {binding}) readonly buffer CulverinBodies {{",
            "    CulverinBody culverin_bodies[];",
            "};",
        ]
        if count_binding is not None:
            lines += [
                f"layout(std430, binding = {count_binding}) readonly buffer CulverinCount {{",
                "    uint culverin_count;  // live rows written by the last sync",
                "};",
            ]
        return "\n".join(lines) + "\n"
