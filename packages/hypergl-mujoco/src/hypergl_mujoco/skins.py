"""Skins as ``mjv_updateActiveSkin`` makes them: vertices skinned by their bones each step.

A skin's vertex is the weighted sum, over the bones that hold it (``skin_bonevert*``), of
the bone's pose times the inverse of its bind pose (``skin_bonebind*``) applied to the
vertex (``skin_vert``); its normal is the sum of its faces' area-weighted normals, and with
``skin_inflate`` it then moves along it by that much. Per snapshot NumPy makes every world's
bone matrices at once (a few array operations over worlds x bones, from ``xpos`` and
``xquat``);
in the drawing program a compute pass skins every world's vertices into the body
renderer's soft vertices (one invocation per vertex and world; a second for the normals),
and each skin is one smooth soft look (``MODE_SOFT``) drawn in every world,
its row naming the world's vertices (``BODY_SOFT_FIRST``). Segmentation id: ``first_id +
skin id``. A textured skin (a 2D texture and ``skin_texcoord``) is textured through its
vertices' texture coordinates (its soft rows' y and z, mapped as a plane's) from the
layer's own atlas, its specular modulated by the texture as MuJoCo's; shaded smooth with
the vertices' normals, as MuJoCo's.
"""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import (
    MODE_SOFT,
    SOFT_VERTEX_GLSL,
    TEXTURE_PLANAR,
    BodyRenderer,
    Part,
    TextureAtlas,
    meshes,
)
from hypergl.shader_prelude import VERSION

from .element_records import ElementLayer, TailRecords
from .scene import GeomLook, geom_color, geom_material
from .textures import ROLE_RGB, texture_pixels

VERTEX_BYTES = 16  # a soft vertex (hypergl.bodies.soft_vertices), or a skinned one: vec4
# Per world and skin vertex: the skinned vertex (the normals pass's input), from its bone
# blend's inputs.
SKIN = (
    VERSION
    + """layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Bones { vec4 bones[]; };  // [R | t], 3 rows
layout(std430, binding = 1) readonly buffer Rest { vec4 rest[]; };   // the bind position
// per vertex: its first influence, their count, its place in world 0's vertices, per world
layout(std430, binding = 2) readonly buffer Info { uvec4 info[]; };
layout(std430, binding = 3) readonly buffer Weights { vec2 weights[]; };  // bone, weight
layout(std430, binding = 4) writeonly buffer Out { vec4 out_vertices[]; };
layout(location = 0) uniform int vertices;
layout(location = 1) uniform int bones_per_world;
void main() {
    uint v = gl_GlobalInvocationID.x, w = gl_GlobalInvocationID.y;
    if (v >= uint(vertices)) return;
    vec4 p = vec4(rest[v].xyz, 1.0);
    uvec4 at = info[v];
    vec3 sum = vec3(0.0);
    for (uint k = at.x; k < at.x + at.y; ++k) {
        uint b = 3u * (w * uint(bones_per_world) + uint(weights[k].x + 0.5));
        sum += weights[k].y * vec3(dot(bones[b], p), dot(bones[b + 1u], p), dot(bones[b + 2u], p));
    }
    out_vertices[w * uint(vertices) + v] = vec4(sum, 1.0);
}
"""
)
# Per world and vertex: the normal from its faces (their cross products summed: weighted by
# area, as MuJoCo), the vertex moved along it by its skin's inflate, both into the
# renderer's soft vertices.
NORMALS = (
    VERSION
    + SOFT_VERTEX_GLSL
    + """layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Skinned { vec4 skinned[]; };
layout(std430, binding = 1) readonly buffer Rest { vec4 rest[]; };  // w: the skin's inflate
layout(std430, binding = 2) readonly buffer Info { uvec4 info[]; };
// per vertex: (first, count) of its faces; after them each face, four uints: its vertices
layout(std430, binding = 3) readonly buffer Faces { uint faces[]; };
layout(std430, binding = 4) writeonly buffer Out { SoftVertex out_vertices[]; };
layout(location = 0) uniform int vertices;
void main() {
    uint v = gl_GlobalInvocationID.x, w = gl_GlobalInvocationID.y;
    if (v >= uint(vertices)) return;
    uint base = w * uint(vertices);
    vec3 normal = vec3(0.0);
    uvec2 span = uvec2(faces[2u * v], faces[2u * v + 1u]);
    for (uint k = span.x; k < span.x + span.y; ++k) {
        uint at = 2u * uint(vertices) + 4u * k;
        uvec3 f = uvec3(faces[at], faces[at + 1u], faces[at + 2u]);
        vec3 a = skinned[base + f.x].xyz;
        normal += cross(skinned[base + f.y].xyz - a, skinned[base + f.z].xyz - a);
    }
    normal /= max(length(normal), 1e-15);
    uvec4 to = info[v];
    out_vertices[to.z + w * to.w] = SoftVertex(skinned[base + v].xyz + rest[v].w * normal,
                                               pack_soft_normal(normal));
}
"""
)


def drawn_skins(model: mujoco.MjModel, groups: tuple[int, ...]) -> list[int]:
    """The skins of the visible `groups` (``mjvOption.skingroup``) with faces and bones."""
    return [s for s in range(model.nskin)
            if min(max(int(model.skin_group[s]), 0), 5) in groups
            and model.skin_facenum[s] and model.skin_bonenum[s]]  # fmt: skip


def skin_bytes_per_world(model: mujoco.MjModel, skins: list[int]) -> int:
    """The skinned vertices (twice: before their normals, and drawn) and bone matrices of
    one world."""
    vertices = sum(int(model.skin_vertnum[s]) for s in skins)
    bones = sum(int(model.skin_bonenum[s]) for s in skins)
    return vertices * VERTEX_BYTES * 2 + bones * 48


def skin_memory(model: mujoco.MjModel, skins: list[int], worlds: int) -> list[tuple[str, int]]:
    """(what, bytes) the skins add, from the model's sizes alone (before anything is made)."""
    if not skins:
        return []
    vertices = sum(int(model.skin_vertnum[s]) for s in skins)
    faces = sum(int(model.skin_facenum[s]) for s in skins)
    names = ", ".join(_name(model, s) for s in skins)
    per_world = skin_bytes_per_world(model, skins)
    return [
        (f"the skinned vertices of {names} ({worlds} worlds x {vertices} vertices, "
         f"{per_world // max(vertices, 1)} bytes each with the bones)", worlds * per_world),
        (f"the skins' {faces} faces and their bind data", faces * 3 * (28 + 16)
         + vertices * 32),
    ]  # fmt: skip


def _name(model: mujoco.MjModel, skin: int) -> str:
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SKIN, skin)
    return f"skin {skin}" + (f" ({name!r})" if name else "")


def skin_texture(model: mujoco.MjModel, skin: int) -> int:
    """The 2D texture `skin` is drawn with through its texture coordinates (-1: none)."""
    material = int(model.skin_matid[skin])
    if material < 0 or int(model.skin_texcoordadr[skin]) < 0:
        return -1
    tex = int(model.mat_texid[material][ROLE_RGB])
    if tex < 0 or int(model.tex_type[tex]) != int(mujoco.mjtTexture.mjTEXTURE_2D):
        return -1
    return tex if int(model.tex_nchannel[tex]) in (1, 3, 4) else -1


def skin_rows(model: mujoco.MjModel, skin: int) -> np.ndarray:
    """The soft rows of `skin`'s faces: (vertex index, u, v), u and v its texture
    coordinates (``skin_texcoord``; 0 without)."""
    faces = model.skin_face[model.skin_faceadr[skin] : model.skin_faceadr[skin]
                            + model.skin_facenum[skin]].reshape(-1)  # fmt: skip
    rows = meshes.indexed_rows(int(model.skin_vertnum[skin]), faces)
    first = int(model.skin_texcoordadr[skin])
    if first >= 0:
        rows[:, 1:3] = model.skin_texcoord[first + faces.astype(np.int64)]
    return rows


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mju_mulQuat over the leading axes (w, x, y, z)."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)  # fmt: skip


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    """mju_quat2Mat over the leading axes: (..., 3, 3)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)  # fmt: skip


class Skins(ElementLayer):
    """The skin layer of a renderer: one soft look per drawn skin (id ``first_id +
    skin``), a row per world and skin, the bone matrices written per snapshot and the
    skinning pass recorded before the layer's draws."""

    element = "skin"

    def __init__(self, model: mujoco.MjModel, skins: list[int], first_id: int,
                 worlds: int) -> None:  # fmt: skip
        super().__init__(model, worlds, first_id, first_id + model.nskin)
        self.skins: list[int] = skins
        self.count = len(skins)
        # the skins' textures, in the layer's own atlas (the renderer sets it)
        self.atlas: TextureAtlas | None = None
        index: dict[int, int] = {}
        for s in skins:
            tex = skin_texture(model, s)
            if tex >= 0 and tex not in index:
                self.atlas = self.atlas or TextureAtlas()
                index[tex] = self.atlas.add_2d(texture_pixels(model, tex))
        for s in skins:
            key = f"mujoco_skin{s}"
            rgba = geom_color(model, s, "skin")
            material = geom_material(model, s, rgba, "skin")
            tex = skin_texture(model, s)
            if tex >= 0:  # the vertex's (u, v) as a plane's x and z: GL's (s, t)
                material = replace(material, texture=index[tex], mapping=TEXTURE_PLANAR,
                                   uv_map=(1.0, 1.0, 0.0, 0.0))  # fmt: skip
            self.looks.append(
                GeomLook(
                    first_id + s,
                    [Part(key, mode=MODE_SOFT, smooth=True)],
                    {key: skin_rows(model, s)},
                    tuple(rgba[:3]),
                    material,
                )
            )
        self.vertices: int = sum(int(model.skin_vertnum[s]) for s in skins)
        self.soft_vertices: int = worlds * self.vertices
        # the bones of every drawn skin in a row: their bodies and bind poses
        bones = np.concatenate([np.arange(model.skin_boneadr[s],
                                          model.skin_boneadr[s] + model.skin_bonenum[s])
                                for s in skins]) if skins else np.zeros(0, np.int64)  # fmt: skip
        self._bone_body = model.skin_bonebodyid[bones].astype(np.int64)
        self._bind_pos = model.skin_bonebindpos[bones].astype(np.float64)
        conj = model.skin_bonebindquat[bones].astype(np.float64) * (1.0, -1.0, -1.0, -1.0)
        self._bind_inverse = conj
        self._bone_index = {int(b): k for k, b in enumerate(bones)}
        self._bones_view: np.ndarray | None = None

    def arrays(self) -> dict[str, tuple[int, ...]]:
        return {"xpos": (self.model.nbody, 3), "xquat": (self.model.nbody, 4)}

    def memory(self, worlds: int) -> list[tuple[str, int]]:
        """The named parts of the memory check (their per-world bytes: named_per_world)."""
        return skin_memory(self.model, self.skins, worlds)

    @property
    def named_per_world(self) -> int:
        return skin_bytes_per_world(self.model, self.skins)

    def memory_per_world(self, cameras: int) -> int:
        """One world's rows, instance lists, pulled poses, vertices and bone matrices."""
        return (self.count * 64 + self.instance_bytes(cameras, self.count) + self.model.nbody * 56
                + skin_bytes_per_world(self.model, self.skins))  # fmt: skip

    def make_records(self, ctx: hypergl.Context) -> TailRecords:
        skins = np.asarray(self.skins, np.int64)
        return self._soft_records(ctx, self.first_id + skins, self.model.skin_vertnum[skins])

    def attach(self, renderer: BodyRenderer) -> None:
        """Room for every world's vertices of each skin in `renderer`'s soft vertices (skin
        after skin, world after world), and the skinning pass's buffers and pipelines."""
        assert self.records is not None, "make_records first"
        model, ctx = self.model, self.records.context
        rest, info, weights, spans, incident = [], [], [], [], []
        faces_seen = 0
        start = 0  # the skin's first vertex among all drawn skins'
        for s in self.skins:
            count = int(model.skin_vertnum[s])
            first = self.add_soft(renderer, self.first_id + s, self.worlds * count)
            first_vertex = int(model.skin_vertadr[s])
            vertices = model.skin_vert[first_vertex : first_vertex + count].astype(np.float64)
            rest.append(np.column_stack([vertices, np.full(count, model.skin_inflate[s])]))
            # the (vertex, bone, weight) triples of its bones, grouped by vertex
            ids, bones, amounts = [], [], []
            for j in range(model.skin_boneadr[s], model.skin_boneadr[s] + model.skin_bonenum[s]):
                a, n = int(model.skin_bonevertadr[j]), int(model.skin_bonevertnum[j])
                ids.append(model.skin_bonevertid[a : a + n])
                bones.append(np.full(n, self._bone_index[j]))
                amounts.append(model.skin_bonevertweight[a : a + n])
            vid = np.concatenate(ids).astype(np.int64)
            order = np.argsort(vid, kind="stable")
            per_vertex = np.bincount(vid, minlength=count)
            firsts = sum(len(w) for w in weights) + np.concatenate(
                [[0], np.cumsum(per_vertex)[:-1]]
            )
            weights.append(np.column_stack([np.concatenate(bones)[order],
                                            np.concatenate(amounts)[order]]))  # fmt: skip
            info.append(np.column_stack([firsts, per_vertex, first + np.arange(count),
                                         np.full(count, count)]))  # fmt: skip
            # each vertex's faces (all drawn skins' vertices numbered on)
            face = model.skin_face[model.skin_faceadr[s] : model.skin_faceadr[s]
                                   + model.skin_facenum[s]].astype(np.int64)  # fmt: skip
            owner = face.reshape(-1)
            order = np.argsort(owner, kind="stable")
            per = np.bincount(owner, minlength=count)
            spans.append(
                np.column_stack([faces_seen + np.concatenate([[0], np.cumsum(per)[:-1]]), per])
            )
            tri = np.repeat(face + start, 3, axis=0)[order]
            incident.append(np.column_stack([tri, np.zeros(len(tri), np.int64)]))
            faces_seen += len(tri)
            start += count
        weights_rows = np.concatenate(weights).astype(np.float32)
        buffers = {
            "rest": np.concatenate(rest).astype(np.float32).reshape(-1, 4),
            "info": np.concatenate(info).astype(np.uint32).reshape(-1, 4),
            "weights": weights_rows,
        }
        made = self._resources
        self._buffers = {}
        for name, array in buffers.items():
            buffer = ctx.buffer(data=np.ascontiguousarray(array), name=f"mujoco_skin_{name}")
            made.append(buffer)
            self._buffers[name] = buffer
        bones = len(self._bone_body)
        self._bones = ctx.buffer(size=max(self.worlds * bones * 48, 16), name="mujoco_skin_bones")
        made.append(self._bones)
        self._bones_view = self._bones.map(np.float32, (self.worlds, max(bones, 1), 3, 4))
        self._out = renderer.soft_vertices
        self._skin = ctx.pipeline(compute_shader=SKIN, name="mujoco_skinning")
        each = [np.concatenate(spans).reshape(-1), np.concatenate(incident).reshape(-1)]
        faces = np.concatenate(each).astype(np.uint32)
        self._buffers["faces"] = ctx.buffer(data=faces, name="mujoco_skin_faces")
        self._skinned = ctx.buffer(size=self.worlds * self.vertices * VERTEX_BYTES,
                                   name="mujoco_skin_skinned")  # fmt: skip
        self._normals = ctx.pipeline(compute_shader=NORMALS, name="mujoco_skin_normals")
        made += [self._skin, self._buffers["faces"], self._skinned, self._normals]

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        """Every world's bone matrices (pose times inverse bind pose), in one NumPy pass."""
        xpos = arrays["xpos"].reshape(self.worlds, -1, 3)
        xquat = arrays["xquat"].reshape(self.worlds, -1, 4)
        if self._bones_view is None or not len(self._bone_body):
            return
        quat = _quat_mul(xquat[:, self._bone_body], self._bind_inverse)
        rotation = _quat_matrix(quat)  # (worlds, bones, 3, 3)
        translate = xpos[:, self._bone_body] - np.einsum("wbij,bj->wbi", rotation, self._bind_pos)
        self._bones_view[..., :3] = rotation
        self._bones_view[..., 3] = translate

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The skinning pass, then the normals', before the draws."""
        groups = (max(-(-self.vertices // 64), 1), self.worlds)
        cmd.bind_pipeline(self._skin)
        for binding, buffer in enumerate((self._bones, self._buffers["rest"],
                                          self._buffers["info"], self._buffers["weights"],
                                          self._skinned)):  # fmt: skip
            cmd.bind_storage_buffer(buffer, binding)
        for location, value in ((0, self.vertices), (1, max(len(self._bone_body), 1))):
            cmd.li(0, value)
            cmd.uniform_i(0, location)
        cmd.dispatch(*groups)
        cmd.barrier()
        cmd.bind_pipeline(self._normals)
        for binding, buffer in enumerate((self._skinned, self._buffers["rest"],
                                          self._buffers["info"], self._buffers["faces"],
                                          self._out)):  # fmt: skip
            cmd.bind_storage_buffer(buffer, binding)
        cmd.li(0, self.vertices)
        cmd.uniform_i(0, 0)
        cmd.dispatch(*groups)
        cmd.barrier()
