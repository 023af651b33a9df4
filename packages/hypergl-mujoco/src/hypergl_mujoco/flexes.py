"""Flexes as ``mjv_updateActiveFlex`` and ``mjr_render`` draw them by default.

With ``mjVIS_FLEXSKIN`` (on by default) a 2D or 3D flex is a smooth skin over its vertices
(``flexvert_xpos``, MjData): each vertex's normal is the sum of its faces' unit normals
(2D: its elements', 3D: its shell's), and the skin's vertices lie ``flex_radius`` along it;
a 2D flex has a top (+radius) and a bottom (-radius, wound the other way) and its rims
closed by its shell's sides, as MuJoCo builds them. Top and bottom are shaded smooth with
those normals (turned over at the bottom), flat where ``flex_flatskin``; the sides flat.
Every flex vertex makes two soft vertices (at +radius and -radius) per world, written by
a compute pass from the worlds' positions (pulled with one C++ copy, a NumPy cast into a
mapped buffer). With
``mjVIS_FLEXEDGE`` (on by default) the edges of a flex without a skin (1D flexes: cables)
are cylinders of ``flex_radius`` between their vertices, one row per edge (the tendons'
scaled rows). Not drawn: ``mjVIS_FLEXVERT``'s spheres and ``mjVIS_FLEXFACE``'s flat faces
(off by default), textures. Segmentation id: ``first_id + flex id``.
"""

from __future__ import annotations

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import MODE_SOFT, SOFT_VERTEX_GLSL, BodyRenderer, Part, meshes
from hypergl.shader_prelude import VERSION

from .element_records import ElementLayer, TailRecords
from .scene import Y_TO_Z, GeomLook, geom_color, geom_material
from .tendons import connectors

VERTEX_BYTES = 16
# Per world and flex vertex: its normal from its faces, its two skin vertices.
SURFACE = (
    VERSION
    + SOFT_VERTEX_GLSL
    + """layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };  // per world
// per vertex: (first, count) of its faces, its first soft vertex in world 0, per world;
// then each face, four uints: its three vertices (among the drawn flexes')
layout(std430, binding = 1) readonly buffer Faces { uvec4 info[]; };
layout(std430, binding = 2) readonly buffer Corners { uvec4 corners[]; };
layout(std430, binding = 3) readonly buffer Radius { float radius[]; };
layout(std430, binding = 4) writeonly buffer Out { SoftVertex out_vertices[]; };
layout(location = 0) uniform int vertices;
void main() {
    uint v = gl_GlobalInvocationID.x, w = gl_GlobalInvocationID.y;
    if (v >= uint(vertices)) return;
    uint base = w * uint(vertices);
    uvec4 at = info[v];
    vec3 normal = vec3(0.0);
    for (uint k = at.x; k < at.x + at.y; ++k) {
        uvec4 f = corners[k];
        vec3 a = positions[base + f.x].xyz;
        vec3 n = cross(positions[base + f.y].xyz - a, positions[base + f.z].xyz - a);
        normal += n / max(length(n), 1e-15);
    }
    normal /= max(length(normal), 1e-15);
    vec3 p = positions[base + v].xyz;
    uint to = at.z + w * at.w;
    out_vertices[to] = SoftVertex(p + radius[v] * normal, pack_soft_normal(normal));
    out_vertices[to + 1u] = SoftVertex(p - radius[v] * normal, pack_soft_normal(-normal));
}
"""
)


def drawn_flexes(model: mujoco.MjModel, groups: tuple[int, ...], flags: dict[str, bool]
                 ) -> tuple[list[int], list[int]]:  # fmt: skip
    """(flexes drawn as skins, flexes drawn as edges) of the visible `groups`."""
    if not model.nflex:
        return [], []
    visible = [f for f in range(model.nflex)
               if min(max(int(model.flex_group[f]), 0), 5) in groups
               and geom_color(model, f, "flex")[3] > 0]  # fmt: skip
    # a skin over its elements (2D) or shell (3D); without them MuJoCo draws no faces
    faces = {2: model.flex_elemnum, 3: model.flex_shellnum}
    skins = [f for f in visible if flags["mjVIS_FLEXSKIN"] and int(model.flex_dim[f]) >= 2
             and faces[int(model.flex_dim[f])][f] > 0]  # fmt: skip
    edges = [f for f in visible if flags["mjVIS_FLEXEDGE"] and f not in skins
             and model.flex_radius[f] > 0 and model.flex_edgenum[f]]  # fmt: skip
    return skins, edges


def _faces(model: mujoco.MjModel, flex: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(triangles of its skin over its 2 soft vertices per flex vertex (2v: +radius,
    2v + 1: -radius), its sides' triangles (2D), the triangles whose unit normals sum to a
    vertex's normal)."""
    dim = int(model.flex_dim[flex])
    elements = model.flex_elem[model.flex_elemdataadr[flex] :][
        : int(model.flex_elemnum[flex]) * (dim + 1)
    ].reshape(-1, dim + 1)
    shell = model.flex_shell[model.flex_shelldataadr[flex] :][
        : int(model.flex_shellnum[flex]) * dim
    ].reshape(-1, dim)
    top, bottom = 2 * np.arange(int(model.flex_vertnum[flex])), None
    bottom = top + 1
    if dim == 2:
        e0, e1, e2 = elements.T
        s0, s1 = shell.T
        faces = np.concatenate([
            np.stack([top[e0], top[e1], top[e2]], 1),  # makeSmooth(+radius)
            np.stack([bottom[e0], bottom[e2], bottom[e1]], 1),  # makeSmooth(-radius)
        ])  # fmt: skip
        sides = np.concatenate([
            np.stack([top[s0], bottom[s1], top[s1]], 1),  # makeSide(+radius)
            np.stack([bottom[s1], top[s0], bottom[s0]], 1),  # makeSide(-radius)
        ])  # fmt: skip
        return faces, sides, elements
    return top[shell], np.zeros((0, 3), np.int64), shell  # 3D: the shell at +radius


def flex_memory(model: mujoco.MjModel, flexes: list[int], worlds: int) -> list[tuple[str, int]]:
    """(what, bytes) the flex skins add, from the model's sizes alone."""
    if not flexes:
        return []
    vertices = sum(int(model.flex_vertnum[f]) for f in flexes)
    names = ", ".join(_name(model, f) for f in flexes)
    return [(f"the flex vertices of {names} ({worlds} worlds x {vertices} vertices, "
             f"{3 * VERTEX_BYTES} bytes each)", worlds * vertices * 3 * VERTEX_BYTES)]  # fmt: skip


def _name(model: mujoco.MjModel, flex: int) -> str:
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_FLEX, flex)
    return f"flex {flex}" + (f" ({name!r})" if name else "")


def _look(model: mujoco.MjModel, flex: int, first_id: int, parts: list[Part],
          new_meshes: dict[str, np.ndarray]) -> GeomLook:  # fmt: skip
    rgba = geom_color(model, flex, "flex")
    material = geom_material(model, flex, rgba, "flex")
    return GeomLook(first_id + flex, parts, new_meshes, tuple(rgba[:3]), material)


class FlexSkins(ElementLayer):
    """The layer of the flexes drawn as skins: a soft look each, a row per world and flex,
    the worlds' vertex positions written per snapshot, the skin's pass before the draws."""

    element = "flex"

    def __init__(self, model: mujoco.MjModel, flexes: list[int], first_id: int,
                 worlds: int) -> None:  # fmt: skip
        super().__init__(model, worlds, first_id, first_id + model.nflex)
        self.flexes: list[int] = flexes
        self.count = len(flexes)
        self.vertices: int = sum(int(model.flex_vertnum[f]) for f in flexes)
        self.soft_vertices: int = 2 * worlds * self.vertices
        self._faces = {}
        for f in flexes:
            faces, sides, normals_of = _faces(model, f)
            self._faces[f] = normals_of
            key, count = f"mujoco_flex{f}", 2 * int(model.flex_vertnum[f])
            smooth = not model.flex_flatskin[f]
            parts = [Part(key, mode=MODE_SOFT, smooth=bool(smooth))]
            rows = {key: meshes.indexed_rows(count, faces.reshape(-1))}
            if len(sides):  # flat: each side's own normal (makeSide), not its vertices'
                parts.append(Part(f"{key}_sides", mode=MODE_SOFT))
                rows[f"{key}_sides"] = meshes.indexed_rows(count, sides.reshape(-1))
            self.looks.append(_look(model, f, first_id, parts, rows))
        # the drawn flexes' vertices among MjData's flexvert_xpos rows
        self._rows = np.concatenate([np.arange(model.flex_vertadr[f],
                                               model.flex_vertadr[f] + model.flex_vertnum[f])
                                     for f in flexes])  # fmt: skip
        self._positions: np.ndarray | None = None

    def arrays(self) -> dict[str, tuple[int, ...]]:
        return {"flexvert_xpos": (self.model.nflexvert, 3)}

    def memory(self, worlds: int) -> list[tuple[str, int]]:
        """The named parts of the memory check (their per-world bytes: named_per_world)."""
        return flex_memory(self.model, self.flexes, worlds)

    @property
    def named_per_world(self) -> int:
        return self.vertices * 3 * VERTEX_BYTES

    def memory_per_world(self, cameras: int) -> int:
        return (self.count * 64 + self.instance_bytes(cameras, self.count)
                + self.model.nflexvert * 24
                + self.vertices * 3 * VERTEX_BYTES)  # fmt: skip

    def make_records(self, ctx: hypergl.Context) -> TailRecords:
        flexes = np.asarray(self.flexes, np.int64)  # two vertices a point: both sides
        return self._soft_records(ctx, self.first_id + flexes, 2 * self.model.flex_vertnum[flexes])

    def attach(self, renderer: BodyRenderer) -> None:
        """Room for every world's skin vertices of each flex, the pass's buffers."""
        assert self.records is not None, "make_records first"
        model, ctx = self.model, self.records.context
        info, corners, radius = [], [], []
        start, seen = 0, 0
        for f in self.flexes:
            count = int(model.flex_vertnum[f])
            first = self.add_soft(renderer, self.first_id + f, 2 * self.worlds * count)
            faces = self._faces[f].astype(np.int64)
            owner = faces.reshape(-1)
            order = np.argsort(owner, kind="stable")
            per = np.bincount(owner, minlength=count)
            firsts = seen + np.concatenate([[0], np.cumsum(per)[:-1]])
            info.append(np.column_stack([firsts, per, first + 2 * np.arange(count),
                                         np.full(count, 2 * count)]))  # fmt: skip
            tri = np.repeat(faces + start, 3, axis=0)[order]
            corners.append(np.column_stack([tri, np.zeros(len(tri), np.int64)]))
            radius.append(np.full(count, model.flex_radius[f]))
            seen += len(tri)
            start += count
        made = self._resources
        arrays = {"info": np.concatenate(info).astype(np.uint32),
                  "corners": np.concatenate(corners).astype(np.uint32),
                  "radius": np.concatenate(radius).astype(np.float32)}  # fmt: skip
        self._buffers = {}
        for name, array in arrays.items():
            self._buffers[name] = ctx.buffer(data=np.ascontiguousarray(array),
                                             name=f"mujoco_flex_{name}")  # fmt: skip
            made.append(self._buffers[name])
        self._positions_buffer = ctx.buffer(size=self.worlds * self.vertices * VERTEX_BYTES,
                                            name="mujoco_flex_positions")  # fmt: skip
        made.append(self._positions_buffer)
        self._positions = self._positions_buffer.map(np.float32, (self.worlds, self.vertices, 4))
        self._out = renderer.soft_vertices
        self._pipeline = ctx.pipeline(compute_shader=SURFACE, name="mujoco_flex_skin")
        made.append(self._pipeline)

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        positions = arrays["flexvert_xpos"].reshape(self.worlds, -1, 3)
        if self._positions is not None:
            self._positions[..., :3] = positions[:, self._rows]

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        cmd.bind_pipeline(self._pipeline)
        for binding, buffer in enumerate((self._positions_buffer, self._buffers["info"],
                                          self._buffers["corners"], self._buffers["radius"],
                                          self._out)):  # fmt: skip
            cmd.bind_storage_buffer(buffer, binding)
        cmd.li(0, self.vertices)
        cmd.uniform_i(0, 0)
        cmd.dispatch(max(-(-self.vertices // 64), 1), self.worlds)
        cmd.barrier()


class FlexEdges(ElementLayer):
    """The layer of the flexes drawn as edges (cables): a cylinder of the flex's radius per
    edge and world, written per snapshot in a few NumPy passes over all worlds."""

    element = "flex_edge"

    def __init__(self, model: mujoco.MjModel, flexes: list[int], first_id: int,
                 worlds: int) -> None:  # fmt: skip
        super().__init__(model, worlds, first_id, first_id + model.nflex)
        ends, owners = [], []
        for f in flexes:
            edges = model.flex_edge[model.flex_edgeadr[f] :][: int(model.flex_edgenum[f])]
            ends.append(edges.astype(np.int64) + int(model.flex_vertadr[f]))
            owners.append(np.full(len(edges), f))
        self._ends = np.concatenate(ends)
        self._owner = np.concatenate(owners)
        self.count = len(self._ends)
        self.copies: int = int(max(model.flex_edgenum[f] for f in flexes))
        for f in flexes:
            r = float(model.flex_radius[f])
            part = Part("cylinder", rotation=Y_TO_Z, scale=(r, 1.0, r))
            self.looks.append(_look(model, f, first_id, [part], {}))

    def arrays(self) -> dict[str, tuple[int, ...]]:
        return {"flexvert_xpos": (self.model.nflexvert, 3)}

    def memory_per_world(self, cameras: int) -> int:
        return self.count * 64 + self.instance_bytes(cameras, len(self.looks), self.copies)

    def make_records(self, ctx: hypergl.Context) -> TailRecords:
        return self._make_records(ctx, "scale", self.first_id + self._owner)

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        positions = arrays["flexvert_xpos"].reshape(self.worlds, -1, 3)  # the skins' too
        if self.records is None:
            return
        a = positions[:, self._ends[:, 0]].reshape(-1, 3)
        b = positions[:, self._ends[:, 1]].reshape(-1, 3)
        centre, rotation, half = connectors(a, b)
        rows = self.records.rows[: self.worlds * self.count]
        rows["position"], rows["rotation"] = centre, rotation
        rows["scale"] = np.stack([np.ones_like(half), half, np.ones_like(half)], axis=1)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """Nothing on the GPU before the draw: the rows are written by :meth:`write`."""
