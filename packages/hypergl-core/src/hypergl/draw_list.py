"""Draw lists: N objects described once, drawn by one multi-draw-indirect per pipeline.

The "approaching zero driver overhead" layout. A scene of many small objects, each
with its own mesh, texture and uniforms, is usually drawn with a texture bind, a
few uniform writes and a draw call per object: thousands of driver calls a frame.
A draw list records instead, once:

* one texture set (bindless handles where the driver has them, else a texture array),
* one storage buffer of per-object records (your fields plus the texture index),
  mapped as a NumPy structured array: moving an object is a write into
  ``draws.records``, seen by the next submit, with nothing re-recorded,
* one indirect buffer of draw commands and a vertex attribute (``draw_ids``) that
  names the record of each vertex or instance, so it runs on any GL 4.3 driver,
* one ``multi_draw_indirect_count`` per pipeline, with the draw count read from a
  GPU buffer (``draws.counts``, which a culling pass on the GPU may write), or a
  plain ``multi_draw_indirect`` where the driver has no indirect count.

Two ways to batch the objects into commands:

* ``batch='merged'`` (the default): every object's mesh vertices are copied, in
  order, into one vertex buffer, with the object's index per vertex: each pipeline
  is one command, whatever the meshes. Best for small meshes: drivers that pay per
  draw or per instance (Mesa's llvmpipe pays about as much for each command of a
  multi-draw, or each instance, as for a draw call) see one large draw.
* ``batch='instanced'``: the meshes are stored once; each run of consecutive
  objects sharing a mesh is one instanced command (``order='mesh'`` gathers all
  objects of a mesh, when their order does not matter). Less memory for big meshes.

::

    draws = hypergl.DrawList(ctx, meshes={"quad": quad}, vertex_layout=[
        {"location": 0, "format": "f32x2", "offset": 0},
        {"location": 1, "format": "f32x2", "offset": 8}],
        textures=images, fields={"model": "mat4", "color": "vec4"}, capacity=10_000)
    pipe = draws.pipeline(vertex_shader=VS, fragment_shader=FS)
    for i in range(10_000):
        draws.add("quad", texture=i % 64, pipeline=pipe, model=m[i].T, color=c[i])
    cmd = ctx.command_buffer(); cmd.bind_framebuffer(fb); draws.record(cmd); cmd.end()

Shaders made with ``draws.pipeline`` get this GLSL (see `DrawList.glsl`)::

    struct HglDraw { <your fields>; uint texture_index; };
    HglDraw hgl_draw();               // this object's record (the vertex shader's call
                                      // also hands the index on to the fragment stage)
    vec4 hgl_draw_texture(vec2 uv);   // fragment stage: this object's texture at uv
    vec4 hgl_texture(uint index, vec2 uv);   // any image of the set

mat4 fields are column-major, as GLSL reads them: write a NumPy matrix ``M`` as ``M.T``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ResourceError
from .indirect_draws import DRAW_COMMAND, IndirectCommands, mapped_records
from .resources import Buffer, Pipeline, TextureSet
from .serialised import Guard, closing, serialised
from .shader_prelude import insert_after_directives

if TYPE_CHECKING:
    from .context import Context

# GLSL type -> (NumPy base type, shape, std430 size, std430 alignment)
FIELD_TYPES: dict[str, tuple[str, tuple[int, ...], int, int]] = {
    "float": ("<f4", (), 4, 4),
    "int": ("<i4", (), 4, 4),
    "uint": ("<u4", (), 4, 4),
    "vec2": ("<f4", (2,), 8, 8),
    "ivec2": ("<i4", (2,), 8, 8),
    "uvec2": ("<u4", (2,), 8, 8),
    "vec4": ("<f4", (4,), 16, 16),
    "ivec4": ("<i4", (4,), 16, 16),
    "uvec4": ("<u4", (4,), 16, 16),
    "mat4": ("<f4", (4, 4), 64, 16),
}
TEXTURE_FIELD = "texture_index"
ORDERS = ("keep", "mesh")
BATCHES = ("merged", "instanced")
COMMAND_DTYPE = DRAW_COMMAND  # what ``commands`` holds: DrawArraysIndirectCommand
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_VERTEX_FORMAT_FLOATS = {"f32": 1, "f32x2": 2, "f32x3": 3, "f32x4": 4}
_MAX_CAPACITY = 1 << 24


def record_dtype(fields: Mapping[str, str]) -> np.dtype:
    """The std430 layout of one record: `fields` in order, then ``texture_index``."""
    names, formats, offsets = [], [], []
    offset, alignment = 0, 4
    for name, glsl in [*fields.items(), (TEXTURE_FIELD, "uint")]:
        base, shape, size, align = FIELD_TYPES[glsl]
        offset = -(-offset // align) * align
        names.append(name)
        formats.append((base, shape) if shape else base)
        offsets.append(offset)
        offset += size
        alignment = max(alignment, align)
    itemsize = -(-offset // alignment) * alignment
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": itemsize})  # fmt: skip


def _check_fields(fields: Any) -> dict[str, str]:
    if not isinstance(fields, Mapping):
        raise TypeError(f"fields must be a mapping of name -> GLSL type, got {fields!r}")
    checked = {}
    for name, glsl in fields.items():
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or name.startswith("gl_"):
            raise ValueError(f"field name {name!r} is not a GLSL identifier")
        if name == TEXTURE_FIELD:
            raise ValueError(f"field name {name!r} is reserved for the texture index")
        if glsl not in FIELD_TYPES:
            hint = " (vec3 pads to 16 bytes in std430: use vec4)" if glsl == "vec3" else ""
            raise ValueError(f"field {name!r} has type {glsl!r}; expected one of "
                             f"{sorted(FIELD_TYPES)}{hint}")  # fmt: skip
        checked[name] = glsl
    return checked


def _int_in(value: Any, what: str, low: int, high: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not (low <= value <= high)
    ):
        raise ValueError(f"{what} must be an int in {low}..{high}, got {value!r}")
    return int(value)


class DrawList:
    """N objects (mesh, texture, per-object fields), drawn with one multi-draw per pipeline.

    `meshes` maps names to float32 vertex arrays ``(vertices, floats per vertex)``
    (triangle lists unless the pipeline says otherwise); `vertex_layout` lists their
    attributes (``location``, ``format`` f32..f32x4, ``offset``). `textures` is a
    TextureSet or images ``(N, H, W, 4)`` uint8. `fields` maps record field names to
    GLSL types (float, int, uint, vec2, vec4, ivec*, uvec*, mat4). `capacity` is the
    most objects the list holds.

    Objects are drawn grouped by pipeline (in order of the pipelines' first use) and,
    with ``order='keep'``, in the order they were added within a group. ``batch``
    chooses merged vertices (one command per pipeline) or instanced runs (see the
    module's text); ``order='mesh'`` says the order within a pipeline does not matter
    (opaque, depth-tested objects), which lets instanced runs gather a whole mesh.
    """

    def __init__(
        self,
        ctx: Context,
        *,
        meshes: Mapping[str, Any],
        vertex_layout: Sequence[Mapping[str, Any]],
        textures: Any,
        fields: Mapping[str, str],
        capacity: int,
        texture_unit: int = 0,
        record_binding: int = 1,
        draw_id_location: int = 15,
        filter: str = "linear",
        batch: str = "merged",
        order: str = "keep",
        name: str = "draws",
    ) -> None:
        from .context import Context

        if not isinstance(ctx, Context):
            raise TypeError(f"DrawList needs a hypergl context, got {ctx!r}")
        self._guard = Guard(ResourceError, f"draw list {name!r} has been released")
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"draw list name {name!r} is not an identifier")
        self._ctx = ctx
        self._capacity = _int_in(capacity, "capacity", 1, _MAX_CAPACITY)
        self._unit = _int_in(texture_unit, "texture_unit", 0, 15)
        self._binding = _int_in(record_binding, "record_binding", 0, 15)
        if self._binding == self._unit:
            raise ValueError(
                f"record_binding {record_binding} must differ from texture_unit "
                f"{texture_unit}: bindless texture sets use that storage binding"
            )
        self._draw_id_location = _int_in(draw_id_location, "draw_id_location", 0, 15)
        self._fields = _check_fields(fields)
        self._dtype = record_dtype(self._fields)
        self._vertex_layout, floats = self._check_layout(vertex_layout)
        self._mesh_vertices, self._meshes = self._pack_meshes(meshes, floats)
        self._owns_textures = not isinstance(textures, TextureSet)
        self._textures = self._texture_set(textures, filter, name)
        self._objects = 0
        self._pipelines: list[Pipeline] = []  # pipeline of each object, in add order
        # Pipelines made by self.pipeline(): only they have this list's include and layout.
        self._own_pipelines: list[Pipeline] = []
        self._mesh_of: list[int] = []  # mesh of each object, in add order
        self._mesh_index = {mesh: i for i, mesh in enumerate(self._meshes)}
        self._mesh_ranges = list(self._meshes.values())
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
        self._order = order
        if batch not in BATCHES:
            raise ValueError(f"batch must be one of {BATCHES}, got {batch!r}")
        self._batch = batch
        self._name_prefix = name
        self._recorded = False
        self._groups: list[tuple[Pipeline, int, int]] = []

        # The records and their commands: the core the body renderer shares (indirect_draws)
        self.record_buffer, self.records = mapped_records(ctx, self._dtype, self._capacity,
                                                          name=f"{name}_records")  # fmt: skip
        self._commands = IndirectCommands(ctx, self._capacity, indexed=False,
                                          name=f"{name}_commands")  # fmt: skip
        self.command_buffer: Buffer = self._commands.buffer
        self.commands: np.ndarray = self._commands.commands
        # Made by record(): the vertices, the record index of each vertex or instance,
        # the draw count of each pipeline.
        self.vertex_buffer: Buffer | None = None
        self.draw_id_buffer: Buffer | None = None
        self.draw_ids: np.ndarray | None = None
        self.count_buffer: Buffer | None = None
        self.counts: np.ndarray | None = None

    # --- what the list is --------------------------------------------------------------
    @property
    def context(self) -> Context:
        return self._ctx

    @property
    def textures(self) -> TextureSet:
        return self._textures

    @property
    def capacity(self) -> int:
        return self._capacity

    def __len__(self) -> int:
        return self._objects

    @property
    def groups(self) -> list[tuple[Pipeline, int, int]]:
        """(pipeline, first command, commands) of each multi-draw, once recorded."""
        return list(self._groups)

    @property
    def indirect_count(self) -> bool:
        """True when the draw counts come from ``count_buffer`` (GL 4.6 or indirect parameters)."""
        return self._commands.indirect_count

    def mesh_range(self, mesh: str) -> tuple[int, int]:
        """(first vertex, vertex count) of `mesh` in ``vertex_buffer``."""
        if mesh not in self._meshes:
            raise KeyError(f"unknown mesh {mesh!r}; this draw list has {sorted(self._meshes)}")
        return self._meshes[mesh]

    # --- building ----------------------------------------------------------------------
    def _check_layout(self, layout: Any) -> tuple[list[dict], int]:
        if isinstance(layout, (str, bytes)) or not isinstance(layout, Sequence) or not layout:
            raise TypeError(f"vertex_layout must be a list of attributes, got {layout!r}")
        checked, end = [], 0
        for attribute in layout:
            if not isinstance(attribute, Mapping) or set(attribute) - {
                "location", "format", "offset"
            }:  # fmt: skip
                raise ValueError(f"vertex attribute {attribute!r} needs location, format, "
                                 "offset (and nothing else)")  # fmt: skip
            fmt = attribute.get("format")
            if fmt not in _VERTEX_FORMAT_FLOATS:
                raise ValueError(f"vertex attribute format {fmt!r}: draw list meshes are "
                                 f"float32, one of {sorted(_VERTEX_FORMAT_FLOATS)}")  # fmt: skip
            location = _int_in(attribute.get("location"), "attribute location", 0, 15)
            if location == self._draw_id_location:
                raise ValueError(f"attribute location {location} is the draw list's "
                                 f"draw_id_location; pass another draw_id_location")  # fmt: skip
            offset = _int_in(attribute.get("offset", 0), "attribute offset", 0, 1 << 12)
            if offset % 4:
                raise ValueError(f"attribute offset {offset} is not a multiple of 4")
            end = max(end, offset + 4 * _VERTEX_FORMAT_FLOATS[fmt])
            checked.append({"location": location, "format": fmt, "offset": offset})
        return checked, end // 4

    def _pack_meshes(self, meshes: Any, floats: int) -> tuple[np.ndarray, dict]:
        if not isinstance(meshes, Mapping) or not meshes:
            raise TypeError(f"meshes must be a non-empty mapping of name -> vertices, "
                            f"got {meshes!r}")  # fmt: skip
        parts, ranges, first = [], {}, 0
        for mesh, data in meshes.items():
            if not isinstance(mesh, str):
                raise TypeError(f"mesh names must be strings, got {mesh!r}")
            array = np.asarray(data)
            if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < floats:
                raise ValueError(f"mesh {mesh!r} has shape {array.shape}; expected "
                                 f"(vertices, >= {floats}) floats for this layout")  # fmt: skip
            if array.dtype.kind not in "fiu":
                raise TypeError(f"mesh {mesh!r} has dtype {array.dtype}; expected numbers")
            parts.append(array.astype(np.float32))
            ranges[mesh] = (first, array.shape[0])
            first += array.shape[0]
        widths = {part.shape[1] for part in parts}
        if len(widths) != 1:
            raise ValueError(f"meshes have different vertex widths {sorted(widths)}")
        self._stride = 4 * widths.pop()
        return np.ascontiguousarray(np.concatenate(parts)), ranges

    def _texture_set(self, textures: Any, filter: str, name: str) -> TextureSet:
        if isinstance(textures, TextureSet):
            if textures.context is not self._ctx:
                raise ResourceError(f"texture set '{textures.name}' belongs to another context")
            return textures
        return self._ctx.texture_set(textures, filter=filter, wrap="clamp",
                                     name=f"{name}_textures")  # fmt: skip

    def glsl(self, stage: str) -> str:
        """The include that `pipeline` adds to a shader of `stage` ('vertex' or 'fragment')."""
        if stage not in ("vertex", "fragment"):
            raise ValueError(f"stage must be 'vertex' or 'fragment', got {stage!r}")
        members = "".join(f"    {glsl} {name};\n" for name, glsl in self._fields.items())
        text = (
            f"struct HglDraw {{\n{members}    uint {TEXTURE_FIELD};\n}};\n"
            f"layout(std430, binding = {self._binding}) readonly buffer HglDrawRecords "
            "{ HglDraw hgl_draws[]; };\n"
        )
        if stage == "vertex":
            return text + (
                f"layout(location = {self._draw_id_location}) in uint hgl_draw_id;\n"
                "flat out uint hgl_draw_index;\n"
                "HglDraw hgl_draw() { hgl_draw_index = hgl_draw_id; "
                "return hgl_draws[hgl_draw_id]; }\n"
            )
        return text + (
            "flat in uint hgl_draw_index;\n"
            "HglDraw hgl_draw() { return hgl_draws[hgl_draw_index]; }\n"
            "vec4 hgl_texture(uint index, vec2 uv);\n"
            "vec4 hgl_draw_texture(vec2 uv) {\n"
            f"    return hgl_texture(hgl_draws[hgl_draw_index].{TEXTURE_FIELD}, uv);\n}}\n"
        )

    def _include(self, source: Any, stage: str, label: str) -> str:
        if not isinstance(source, str) or not source.strip():
            raise TypeError(f"{label} must be GLSL source text, got {source!r}")
        return insert_after_directives(source, self.glsl(stage), 2)

    @serialised
    def pipeline(self, *, vertex_shader: str, fragment_shader: str, **state: Any) -> Pipeline:
        """A pipeline for this list: its shaders get the include, its layout the meshes'.

        Other keywords (topology, depth_test, blend, cull, ...) go to ``ctx.pipeline``.
        """
        for taken in ("vertex_layout", "texture_set_unit", "compute_shader"):
            if taken in state:
                raise ValueError(f"draw list pipelines set {taken} themselves; leave it out")
        layout = [
            {"binding": 0, "stride": self._stride, "attributes": self._vertex_layout},
            {"binding": 1, "stride": 4, "per_instance": self._batch == "instanced",
             "attributes": [
                {"location": self._draw_id_location, "format": "u32", "offset": 0}]},
        ]  # fmt: skip
        pipeline = self._ctx.pipeline(
            vertex_shader=self._include(vertex_shader, "vertex", "vertex_shader"),
            fragment_shader=self._include(fragment_shader, "fragment", "fragment_shader"),
            vertex_layout=layout,
            texture_set_unit=self._unit,
            **state,
        )
        self._own_pipelines.append(pipeline)
        return pipeline

    @serialised
    def add(self, mesh: str, *, texture: int, pipeline: Pipeline, **values: Any) -> int:
        """Append one object; returns its index into ``records``. Fields left out are zero."""
        if self._recorded:
            raise ResourceError("this draw list is recorded: its objects are fixed; change "
                                "them through draws.records (and draws.counts)")  # fmt: skip
        if self._objects == self._capacity:
            raise ResourceError(f"draw list is full ({self._capacity} objects); "
                                "make it with a larger capacity")  # fmt: skip
        self.mesh_range(mesh)  # a known mesh
        texture = _int_in(texture, "texture", 0, self._textures.count - 1)
        if not isinstance(pipeline, Pipeline) or pipeline.context is not self._ctx:
            raise TypeError(f"pipeline must be a pipeline of this context, got {pipeline!r}")
        if not any(own is pipeline for own in self._own_pipelines):
            # Another list's (or a plain ctx.pipeline) reads other records, meshes and
            # draw ids: the frame would be silently wrong.
            raise ResourceError(
                f"pipeline '{pipeline.name}' was not made by this draw list "
                f"('{self._name_prefix}'): make it with draws.pipeline(...)"
            )
        if pipeline.released:
            raise ResourceError(f"pipeline '{pipeline.name}' has been released")
        unknown = set(values) - set(self._fields)
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)}; this draw list has "
                             f"{sorted(self._fields)}")  # fmt: skip
        index = self._objects
        for field, value in values.items():
            shape = FIELD_TYPES[self._fields[field]][1]
            array = np.asarray(value)
            if array.shape != shape or array.dtype.kind not in "fiub":
                raise ValueError(f"field {field!r} needs {math.prod(shape) or 1} numbers of "
                                 f"shape {shape}, got {value!r}")  # fmt: skip
            self.records[field][index] = array
        self.records[TEXTURE_FIELD][index] = texture
        self._mesh_of.append(self._mesh_index[mesh])
        self._pipelines.append(pipeline)
        self._objects += 1
        return index

    # --- recording ---------------------------------------------------------------------
    def _group(self) -> None:
        """Make the vertex, draw-id, command and count buffers (once, at the first record)."""
        if self._recorded:
            return
        if not self._objects:
            raise ResourceError("draw list is empty: add objects before recording it")
        groups: dict[int, list[int]] = {}
        pipelines: dict[int, Pipeline] = {}
        for index, pipeline in enumerate(self._pipelines):
            groups.setdefault(id(pipeline), []).append(index)
            pipelines[id(pipeline)] = pipeline
        mesh_of = np.array(self._mesh_of, np.int64)
        ranges = np.array(self._mesh_ranges, np.int64).reshape(-1, 2)  # (first, count)
        vertex_index, draw_ids, commands = [], [], []
        vertices = 0
        for key, members in groups.items():
            members = np.array(members, np.int64)
            if self._order == "mesh":  # any order will do: objects of one mesh together
                members = members[np.argsort(mesh_of[members], kind="stable")]
            start = len(commands)
            if self._batch == "merged":  # every object's vertices, in order: one command
                firsts, counts = ranges[mesh_of[members]].T
                total = int(counts.sum())
                begins = np.repeat(np.cumsum(counts) - counts, counts)
                vertex_index.append(np.arange(total) - begins + np.repeat(firsts, counts))
                draw_ids.append(np.repeat(members, counts))
                commands.append((total, 1, vertices, 0))
                vertices += total
            else:  # one instanced command per run of objects sharing a mesh
                runs = np.split(members, np.flatnonzero(np.diff(mesh_of[members])) + 1)
                offset = sum(len(ids) for ids in draw_ids)
                for run in runs:
                    first, count = ranges[mesh_of[run[0]]]
                    commands.append((int(count), len(run), int(first), offset))
                    offset += len(run)
                draw_ids.append(members)
            self._groups.append((pipelines[key], start, len(commands) - start))
        if self._batch == "merged":
            data = self._mesh_vertices[np.concatenate(vertex_index)]
        else:
            data = self._mesh_vertices
        ids = np.concatenate(draw_ids).astype(np.uint32)
        prefix = self._name_prefix
        self.vertex_buffer = self._ctx.buffer(data, usage="vertex", name=f"{prefix}_vertices")
        self.draw_id_buffer = self._ctx.buffer(ids, usage="vertex", name=f"{prefix}_ids")
        self.draw_ids = self.draw_id_buffer.map(np.uint32, len(ids))
        self.commands[: len(commands)] = np.array(commands, np.uint32).view(COMMAND_DTYPE)[:, 0]
        self.counts = self._commands.set_counts([n for _, _, n in self._groups], f"{prefix}_counts")
        self.count_buffer = self._commands.count_buffer
        self._recorded = True

    @serialised
    def record(self, cmd: Any) -> None:
        """Record the whole list into `cmd` (a CommandBuffer of this context)."""
        from .command_buffer import CommandBuffer

        if not isinstance(cmd, CommandBuffer) or cmd.context is not self._ctx:
            raise TypeError(f"record needs a command buffer of this context, got {cmd!r}")
        self._group()
        cmd.bind_texture(self._textures, self._unit)
        cmd.bind_storage_buffer(self.record_buffer, self._binding)
        self._commands.bind(cmd)
        for group, (pipeline, start, count) in enumerate(self._groups):
            cmd.bind_pipeline(pipeline)
            cmd.bind_vertex_buffer(self.vertex_buffer, 0)
            cmd.bind_vertex_buffer(self.draw_id_buffer, 1)
            self._commands.draw(cmd, start, count, counted=group)

    @property
    def released(self) -> bool:
        return self._guard.closed

    @closing
    def release(self) -> None:
        """Release the buffers (and the texture set, when the list made it); safe to call
        twice, and from another thread than an add's or a record's (it waits for it; later
        ones raise ResourceError)."""
        for buffer in (self.vertex_buffer, self.draw_id_buffer, self.record_buffer,
                       self.command_buffer, self.count_buffer):  # fmt: skip
            if buffer is not None and not buffer.released:
                buffer.release()
        if self._owns_textures and not self._textures.released:
            self._textures.release()
