"""The pixel and scalar formats the engine knows: one table each.

Python (`hypergl.formats`) derives its lookups from these tables and the C++
header ``formats_generated.hpp`` is generated from them by
``tools/gen_isa_header.py`` (a test fails when it is stale), so a format is
added here and nowhere else. Standard library only: the generator imports this
file by path, before anything is built.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextureFormat:
    name: str
    dtype: str | None  # NumPy dtype of its pixels; None: a depth format (takes no pixels)
    channels: int
    bytes_per_pixel: int
    depth: bool
    # The OpenGL names (gl:: constants of gl_api.hpp): internal format, pixel format, pixel type.
    gl: tuple[str, str, str]


TEXTURE_FORMATS: tuple[TextureFormat, ...] = (
    TextureFormat("rgba8", "uint8", 4, 4, False, ("RGBA8", "RGBA", "UNSIGNED_BYTE")),
    TextureFormat("r32f", "float32", 1, 4, False, ("R32F", "RED", "FLOAT")),
    TextureFormat("rgba32f", "float32", 4, 16, False, ("RGBA32F", "RGBA", "FLOAT")),
    TextureFormat("rgba16f", "float16", 4, 8, False, ("RGBA16F", "RGBA", "HALF_FLOAT")),
    TextureFormat("r32ui", "uint32", 1, 4, False, ("R32UI", "RED_INTEGER", "UNSIGNED_INT")),
    TextureFormat("depth24", None, 1, 4, True,
                  ("DEPTH_COMPONENT24", "DEPTH_COMPONENT", "UNSIGNED_INT")),
    TextureFormat("depth32f", None, 1, 4, True, ("DEPTH_COMPONENT32F", "DEPTH_COMPONENT", "FLOAT")),
)  # fmt: skip


@dataclass(frozen=True)
class ScalarType:
    """An element type of external-source fields; `code` is the engine's number for it."""

    name: str
    code: int
    size: int
    kind: str  # "f" float, "u" unsigned, "i" signed: what a buffer's format must be


SCALAR_TYPES: tuple[ScalarType, ...] = (
    ScalarType("f32", 0, 4, "f"),
    ScalarType("f64", 1, 8, "f"),
    ScalarType("u32", 2, 4, "u"),
    ScalarType("u64", 3, 8, "u"),
    ScalarType("i32", 4, 4, "i"),
)
assert [t.code for t in SCALAR_TYPES] == list(range(len(SCALAR_TYPES))), "codes are indices"
