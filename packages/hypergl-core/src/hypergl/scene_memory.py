"""What a loaded scene's resources will take in memory, checked before any is made.

``ctx.load`` adds up every resource the file asks for (buffers, textures,
framebuffers, readback rings) and refuses the file when the total passes its
memory limit, naming the resource that crosses it; only then is anything
created (through :func:`hypergl.memory_budget.check_memory`, the check every renderer
sized by untrusted input uses too). Sizes are what the engine allocates, or a bound on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypergl_compiler import Program
from hypergl_compiler import Resource as ResourceEntry
from hypergl_compiler.isa import ResourceKind

from .memory_budget import check_memory

# Bytes per pixel of each texture and attachment format (depth24 is stored in 4).
PIXEL_BYTES = {"rgba8": 4, "r32f": 4, "rgba32f": 16, "rgba16f": 8, "r32ui": 4,
               "depth24": 4, "depth32f": 4}  # fmt: skip
LARGEST_PIXEL = max(PIXEL_BYTES.values())


def _int(value: Any) -> int:
    """A dimension read from a file; anything else counts as 0 (the maker refuses it)."""
    return value if type(value) is int and value > 0 else 0


def resource_bytes(entry: ResourceEntry) -> int:
    """Memory that making `entry` from its description takes (an upper bound)."""
    d = entry.desc
    kind = entry.kind
    if kind is ResourceKind.BUFFER:
        return _int(d.get("size"))
    width, height = _int(d.get("width")), _int(d.get("height"))
    if kind is ResourceKind.TEXTURE:
        pixel = PIXEL_BYTES.get(d.get("format"), LARGEST_PIXEL)
        texels, w, h = width * height, width, height
        while d.get("mipmaps") and (w > 1 or h > 1):  # a mip chain: each level halves
            w, h = max(w // 2, 1), max(h // 2, 1)
            texels += w * h
        return texels * max(_int(d.get("layers")), 1) * pixel
    if kind is ResourceKind.FRAMEBUFFER:
        colour = d.get("color") if isinstance(d.get("color"), list) else []
        formats = [*colour, d.get("depth")] if d.get("depth") is not None else colour
        return width * height * sum(PIXEL_BYTES.get(f, LARGEST_PIXEL) for f in formats)
    if kind is ResourceKind.READBACK:
        return width * height * max(_int(d.get("components")), 4) * 4 * max(_int(d.get("depth")), 3)
    return 0


def check_scene_memory(program: Program, bindings: Mapping[str, Any], limit: int) -> None:
    """Refuse `program` when the resources it makes (those not bound) pass `limit` bytes."""
    made = (entry for entry in program.resources
            if entry.name not in bindings and not entry.linked)  # fmt: skip
    check_memory(((f"resource '{e.name}' ({e.kind.name.lower()}, {resource_bytes(e)} bytes)",
                   resource_bytes(e)) for e in made), limit, whole="the scene",
                 hint="pass ctx.load(..., memory_limit=...) to load it")  # fmt: skip
