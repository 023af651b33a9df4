"""Pipeline state, validated once at creation: every bad value is named.

A pipeline is immutable: shaders, vertex layout, topology, depth, blend, cull,
clip-distance and multisample state are checked here (on every device) before any GL
object exists, and the GL device compiles and links with the driver's log on failure.

Vertex layouts are a list of vertex buffer bindings::

    vertex_layout=[
        {"binding": 0, "stride": 24, "attributes": [
            {"location": 0, "format": "f32x3", "offset": 0},
            {"location": 1, "format": "f32x3", "offset": 12},
        ]},
        {"binding": 1, "stride": 16, "per_instance": True, "attributes": [
            {"location": 2, "format": "f32x4", "offset": 0},
        ]},
    ]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypergl_compiler.isa import MAX_BINDING_INDEX

from .errors import HyperGLError

# GL enums (values from the OpenGL registry).
TOPOLOGIES = {
    "points": 0x0000,
    "lines": 0x0001,
    "line_strip": 0x0003,
    "triangles": 0x0004,
    "triangle_strip": 0x0005,
    "triangle_fan": 0x0006,
}
DEPTH_FUNCS = {
    "never": 0x0200,
    "less": 0x0201,
    "equal": 0x0202,
    "less_equal": 0x0203,
    "greater": 0x0204,
    "not_equal": 0x0205,
    "greater_equal": 0x0206,
    "always": 0x0207,
}
CULL_MODES = {"none": 0, "front": 0x0404, "back": 0x0405}
FRONT_FACES = {"ccw": 0x0901, "cw": 0x0900}
BLEND_MODES = ("none", "alpha")
_FLOAT, _INT, _UINT, _UBYTE, _SHORT, _USHORT = 0x1406, 0x1404, 0x1405, 0x1401, 0x1402, 0x1403
# format name -> (components, GL type, normalized, integer attribute, bytes)
VERTEX_FORMATS = {
    **{f"f32x{n}" if n > 1 else "f32": (n, _FLOAT, False, False, 4 * n) for n in range(1, 5)},
    **{f"i32x{n}" if n > 1 else "i32": (n, _INT, False, True, 4 * n) for n in range(1, 5)},
    **{f"u32x{n}" if n > 1 else "u32": (n, _UINT, False, True, 4 * n) for n in range(1, 5)},
    "u8x4n": (4, _UBYTE, True, False, 4),
    "u8x4": (4, _UBYTE, False, True, 4),
    "i16x2n": (2, _SHORT, True, False, 4),
    "u16x2": (2, _USHORT, False, True, 4),
}
MAX_VERTEX_ATTRIBUTES = 16
PIPELINE_STATE_KEYS = (
    "vertex_layout",
    "topology",
    "depth_test",
    "depth_write",
    "depth_func",
    "blend",
    "cull",
    "front_face",
    "clip_distances",
    "multisample",
    "texture_set_unit",
)
# GL guarantees at least 8 clip distances (GL_MAX_CLIP_DISTANCES); a vertex shader that
# writes gl_ClipDistance[0 .. n - 1] needs n of them enabled.
MAX_CLIP_DISTANCES = 8


class PipelineStateError(HyperGLError, ValueError):
    """A pipeline description has a bad value; the message names it."""


@dataclass(frozen=True)
class VertexAttribute:
    location: int
    binding: int
    format: str
    offset: int

    def native(self) -> tuple[Any, ...]:
        components, gl_type, normalized, integer, _size = VERTEX_FORMATS[self.format]
        return (self.location, self.binding, components, gl_type, normalized, integer, self.offset)


@dataclass(frozen=True)
class VertexBinding:
    binding: int
    stride: int
    per_instance: bool

    def native(self) -> tuple[Any, ...]:
        return (self.binding, self.stride, 1 if self.per_instance else 0)


@dataclass(frozen=True)
class PipelineState:
    topology: str = "triangles"
    depth_test: bool = False
    depth_write: bool = True
    depth_func: str = "less"
    blend: str = "none"
    cull: str = "none"
    front_face: str = "ccw"
    clip_distances: int = 0
    multisample: bool = True
    attributes: tuple[VertexAttribute, ...] = ()
    bindings: tuple[VertexBinding, ...] = ()
    texture_set_unit: int | None = None

    def describe(self) -> dict[str, Any]:
        """The state as plain data (what a self-contained .hgb stores)."""
        layout = []
        for binding in self.bindings:
            layout.append(
                {
                    "binding": binding.binding,
                    "stride": binding.stride,
                    "per_instance": binding.per_instance,
                    "attributes": [
                        {"location": a.location, "format": a.format, "offset": a.offset}
                        for a in self.attributes
                        if a.binding == binding.binding
                    ],
                }
            )
        out = {
            "vertex_layout": layout,
            "topology": self.topology,
            "depth_test": self.depth_test,
            "depth_write": self.depth_write,
            "depth_func": self.depth_func,
            "blend": self.blend,
            "cull": self.cull,
            "front_face": self.front_face,
        }
        if self.clip_distances:
            out["clip_distances"] = self.clip_distances
        if not self.multisample:
            out["multisample"] = False
        if self.texture_set_unit is not None:
            out["texture_set_unit"] = self.texture_set_unit
        return out

    def vertex_inputs(self) -> list[tuple[int, int, int, bool]]:
        """(binding, stride, extent, per_instance) per binding that attributes read: what
        the VM checks draws against (extent: the end of the binding's last attribute)."""
        inputs = []
        for binding in self.bindings:
            ends = [a.offset + VERTEX_FORMATS[a.format][4] for a in self.attributes
                    if a.binding == binding.binding]  # fmt: skip
            if ends:
                inputs.append((binding.binding, binding.stride, max(ends), binding.per_instance))
        return inputs

    def native(self) -> dict[str, Any]:
        """Keyword arguments of _core.Context.gl_pipeline (after the shaders)."""
        return {
            "topology": TOPOLOGIES[self.topology],
            "depth_test": self.depth_test,
            "depth_write": self.depth_write,
            "depth_func": DEPTH_FUNCS[self.depth_func],
            "blend": self.blend != "none",
            "cull": CULL_MODES[self.cull],
            "front_face": FRONT_FACES[self.front_face],
            "clip_distances": self.clip_distances,
            "multisample": self.multisample,
            "attributes": [a.native() for a in self.attributes],
            "bindings": [b.native() for b in self.bindings],
            "vertex_inputs": self.vertex_inputs(),
        }


def _choice(value: Any, options: Mapping[str, Any] | Sequence[str], what: str) -> str:
    if not isinstance(value, str) or value not in options:
        raise PipelineStateError(f"{what} {value!r} is not one of {sorted(options)}")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise PipelineStateError(f"{what} must be True or False, got {value!r}")
    return value


def _index(value: Any, what: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise PipelineStateError(f"{what} {value!r} is not an int in 0..{maximum}")
    return value


def _layout(layout: Any) -> tuple[tuple[VertexAttribute, ...], tuple[VertexBinding, ...]]:
    if layout is None:
        return (), ()
    if isinstance(layout, (str, bytes)) or not isinstance(layout, Sequence):
        raise PipelineStateError(f"vertex_layout must be a list of bindings, got {layout!r}")
    attributes: list[VertexAttribute] = []
    bindings: list[VertexBinding] = []
    locations: set[int] = set()
    for entry in layout:
        if not isinstance(entry, Mapping):
            raise PipelineStateError(f"vertex_layout entry {entry!r} is not a mapping")
        unknown = set(entry) - {"binding", "stride", "per_instance", "attributes"}
        if unknown:
            raise PipelineStateError(f"vertex_layout entry has unknown keys {sorted(unknown)}")
        binding = _index(entry.get("binding", len(bindings)), "vertex binding", MAX_BINDING_INDEX)
        if any(b.binding == binding for b in bindings):
            raise PipelineStateError(f"vertex binding {binding} appears twice")
        stride = _index(entry.get("stride"), f"stride of vertex binding {binding}", 2048)
        per_instance = _flag(entry.get("per_instance", False), f"per_instance of binding {binding}")
        entries = entry.get("attributes", ())
        if not isinstance(entries, Sequence) or not entries:
            raise PipelineStateError(f"vertex binding {binding} needs a list of attributes")
        for attribute in entries:
            if not isinstance(attribute, Mapping):
                raise PipelineStateError(f"vertex attribute {attribute!r} is not a mapping")
            where = f"attribute of vertex binding {binding}"
            location = _index(attribute.get("location"), f"location of {where}",
                              MAX_VERTEX_ATTRIBUTES - 1)  # fmt: skip
            if location in locations:
                raise PipelineStateError(f"vertex attribute location {location} appears twice")
            locations.add(location)
            fmt = attribute.get("format")
            if fmt not in VERTEX_FORMATS:
                raise PipelineStateError(
                    f"vertex format {fmt!r} at location {location} is not one of "
                    f"{sorted(VERTEX_FORMATS)}"
                )
            offset = _index(attribute.get("offset", 0), f"offset of location {location}", 2047)
            size = VERTEX_FORMATS[fmt][4]
            if stride and offset + size > stride:
                raise PipelineStateError(
                    f"attribute at location {location} ({fmt}, offset {offset}) does not fit "
                    f"in stride {stride} of vertex binding {binding}"
                )
            attributes.append(VertexAttribute(location, binding, fmt, offset))
        bindings.append(VertexBinding(binding, stride, per_instance))
    return tuple(attributes), tuple(bindings)


def pipeline_state(state: Mapping[str, Any]) -> PipelineState:
    """Validate keyword state of ctx.pipeline(); raises PipelineStateError naming the value."""
    unknown = set(state) - set(PIPELINE_STATE_KEYS)
    if unknown:
        raise PipelineStateError(
            f"unknown pipeline state {sorted(unknown)}; "
            f"expected some of {list(PIPELINE_STATE_KEYS)}"
        )
    attributes, bindings = _layout(state.get("vertex_layout"))
    unit = state.get("texture_set_unit")
    return PipelineState(
        topology=_choice(state.get("topology", "triangles"), TOPOLOGIES, "topology"),
        depth_test=_flag(state.get("depth_test", False), "depth_test"),
        depth_write=_flag(state.get("depth_write", True), "depth_write"),
        depth_func=_choice(state.get("depth_func", "less"), DEPTH_FUNCS, "depth_func"),
        blend=_choice(state.get("blend", "none"), BLEND_MODES, "blend"),
        cull=_choice(state.get("cull", "none"), CULL_MODES, "cull"),
        front_face=_choice(state.get("front_face", "ccw"), FRONT_FACES, "front_face"),
        clip_distances=_index(state.get("clip_distances", 0), "clip_distances", MAX_CLIP_DISTANCES),
        multisample=_flag(state.get("multisample", True), "multisample"),
        attributes=attributes,
        bindings=bindings,
        texture_set_unit=None
        if unit is None
        else _index(unit, "texture_set_unit", MAX_BINDING_INDEX),
    )
