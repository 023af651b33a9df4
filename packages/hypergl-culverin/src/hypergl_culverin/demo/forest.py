"""The demo's forest: instanced trees in chunks, culled on the GPU, drawn by the VM.

A compute shader tests each chunk's bounding sphere against the camera's
frustum and writes a visibility flag per chunk into a storage buffer. The
program, recorded once, asks `condition(flags, 4 * chunk)` for every chunk and
calls one `@subroutine` that loops over the chunk's rows of trees: the CPU
never decides what is visible, and Python never runs per frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import hypergl
from hypergl import SceneCompiler, subroutine
from hypergl.shader_prelude import VERSION

from .camera import CAMERA_GLSL
from .meshes import VERTEX_LAYOUT, ground, tree

if TYPE_CHECKING:
    from .camera import Camera

ROWS_PER_CHUNK = 4
TREES_PER_ROW = 16
TREES_PER_CHUNK = ROWS_PER_CHUNK * TREES_PER_ROW
BASE_LOCATION = 0  # uniform uint: first instance of the draw

# Every face of the trees and the ground is flat (its three vertices share one normal), so
# the light is worked out per vertex and handed on flat: the same picture as per pixel, with
# no interpolant for llvmpipe to set up per triangle and interpolate per pixel.
LIT_VERTEX = (
    VERSION
    + CAMERA_GLSL
    + """
layout(std430, binding = 1) readonly buffer Instances { vec4 instances[]; };  // x, z, scale, yaw
layout(location = 0) uniform int base;
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 colour;
flat out vec3 v_lit;
void main() {
    vec4 t = instances[base + gl_InstanceID];
    float c = cos(t.w), s = sin(t.w);
    vec3 p = vec3(c * position.x - s * position.z, position.y, s * position.x + c * position.z);
    vec3 n = vec3(c * normal.x - s * normal.z, normal.y, s * normal.x + c * normal.z);
    v_lit = colour * (0.35 + 0.65 * max(dot(normalize(n), light.xyz), 0.0));
    gl_Position = view_proj * vec4(p * t.z + vec3(t.x, 0.0, t.y), 1.0);
}
"""
)
LIT_FRAGMENT = (
    VERSION
    + """flat in vec3 v_lit;
out vec4 color;
void main() { color = vec4(v_lit, 1.0); }
"""
)
CULL_COMPUTE = (
    VERSION
    + CAMERA_GLSL
    + """
layout(local_size_x = 64) in;
layout(std430, binding = 2) readonly buffer Chunks { vec4 spheres[]; };  // centre xyz, radius
layout(std430, binding = 3) writeonly buffer Visible { uint visible[]; };
layout(location = 0) uniform int chunk_count;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (int(i) >= chunk_count) return;
    vec4 s = spheres[i];
    // Gribb-Hartmann: the frustum planes are sums of rows of view_proj.
    mat4 m = transpose(view_proj);
    vec4 planes[6] = vec4[6](m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1],
                             m[3] + m[2], m[3] - m[2]);
    uint inside = 1u;
    for (int p = 0; p < 6; ++p) {
        if (dot(planes[p].xyz, s.xyz) + planes[p].w < -s.w * length(planes[p].xyz)) inside = 0u;
    }
    visible[i] = inside;
}
"""
)


def tree_positions(chunks: int, clearing: float, seed: int = 5) -> np.ndarray:
    """(chunks * TREES_PER_CHUNK, 4) instances on a ring around a clearing.

    Sorted along a Morton curve of 6-unit cells, so that each run of
    TREES_PER_CHUNK trees (a chunk) is a compact patch: small bounding spheres
    that the frustum test can actually reject.
    """
    rng = np.random.default_rng(seed)
    count = chunks * TREES_PER_CHUNK
    angle = rng.uniform(0, 2 * np.pi, count)
    radius = np.sqrt(rng.uniform(clearing**2, (clearing + 40) ** 2, count))
    out = np.empty((count, 4), np.float32)
    out[:, 0], out[:, 1] = radius * np.cos(angle), radius * np.sin(angle)
    out[:, 2] = rng.uniform(0.8, 1.6, count)
    out[:, 3] = rng.uniform(0, 2 * np.pi, count)
    cells = ((out[:, :2] + 128) // 6).astype(np.uint32)
    morton = np.zeros(count, np.uint64)
    for bit in range(8):
        for axis in range(2):
            morton |= ((cells[:, axis] >> bit) & 1).astype(np.uint64) << np.uint64(2 * bit + axis)
    return out[np.argsort(morton, kind="stable")]


def chunk_spheres(instances: np.ndarray) -> np.ndarray:
    """A bounding sphere (centre, radius) per chunk of trees."""
    chunks = instances.reshape(-1, TREES_PER_CHUNK, 4)
    centres = np.stack([chunks[..., 0].mean(1), np.full(len(chunks), 1.5),
                        chunks[..., 1].mean(1)], axis=1)  # fmt: skip
    spread = np.hypot(chunks[..., 0] - centres[:, None, 0], chunks[..., 1] - centres[:, None, 2])
    radius = spread.max(1) + 2.0 * chunks[..., 2].max(1) + 1.0
    return np.concatenate([centres, radius[:, None]], axis=1).astype(np.float32)


class Forest:
    """Trees and a ground plane; `record(cmd)` emits culling and drawing."""

    pipeline: hypergl.Pipeline
    tree_vertices: hypergl.Buffer
    tree_indices: hypergl.Buffer
    ground_vertices: hypergl.Buffer
    ground_indices: hypergl.Buffer
    ground_instance: hypergl.Buffer

    def __init__(
        self, ctx: hypergl.Context, camera: Camera, chunks: int = 64, clearing: float = 20.0
    ) -> None:
        self.chunks = chunks
        self.camera: Camera = camera
        layout = {"vertex_layout": VERTEX_LAYOUT, "depth_test": True, "cull": "back"}
        self.pipeline = ctx.pipeline(vertex_shader=LIT_VERTEX, fragment_shader=LIT_FRAGMENT,
                                     name="lit", **layout)  # fmt: skip
        self.cull: hypergl.Pipeline = ctx.pipeline(compute_shader=CULL_COMPUTE, name="cull")
        tree_vertices, tree_indices = tree()
        self.tree_vertices = ctx.buffer(tree_vertices, usage="vertex", name="tree_vertices")
        self.tree_indices = ctx.buffer(tree_indices, usage="index", name="tree_indices")
        self.tree_index_count: int = len(tree_indices)
        instances = tree_positions(chunks, clearing)
        self.instances: hypergl.Buffer = ctx.buffer(instances, name="trees")
        self.spheres: hypergl.Buffer = ctx.buffer(chunk_spheres(instances), name="chunk_spheres")
        self.visible: hypergl.Buffer = ctx.buffer(size=4 * chunks, name="visible")
        ground_vertices, ground_indices = ground(80.0)
        self.ground_vertices = ctx.buffer(ground_vertices, usage="vertex", name="ground")
        self.ground_indices = ctx.buffer(ground_indices, usage="index", name="ground_indices")
        self.ground_instance = ctx.buffer(np.array([0, 0, 1, 0], np.float32), name="origin")

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        sc = SceneCompiler(cmd)
        # Cull: one invocation per chunk writes visible[chunk].
        cmd.bind_uniform_buffer(self.camera.buffer, 0)
        cmd.bind_pipeline(self.cull)
        cmd.bind_storage_buffer(self.spheres, 2)
        cmd.bind_storage_buffer(self.visible, 3)
        cmd.li(0, self.chunks)
        cmd.uniform_i(0, 0)
        cmd.dispatch((self.chunks + 63) // 64)
        # Ground.
        cmd.bind_pipeline(self.pipeline)
        cmd.bind_vertex_buffer(self.ground_vertices, 0)
        cmd.bind_index_buffer(self.ground_indices)
        cmd.bind_storage_buffer(self.ground_instance, 1)
        cmd.li(1, 0)
        cmd.uniform_i(1, BASE_LOCATION)
        cmd.draw_indexed(6)
        # Trees: visible chunks only, decided by the GPU's flags.
        cmd.bind_vertex_buffer(self.tree_vertices, 0)
        cmd.bind_index_buffer(self.tree_indices)
        cmd.bind_storage_buffer(self.instances, 1)
        for chunk in range(self.chunks):
            with sc.condition(self.visible, 4 * chunk):
                cmd.li(1, chunk * TREES_PER_CHUNK)
                draw_chunk(sc, self.pipeline, self.tree_index_count)


@subroutine
def draw_chunk(sc, pipeline, index_count):
    """One chunk whose first instance is in r1: a loop over its rows of trees."""
    cmd = sc.cmd
    cmd.bind_pipeline(pipeline)  # skipped by the VM when already bound
    cmd.li(3, TREES_PER_ROW)
    with sc.loop(2, ROWS_PER_CHUNK):
        cmd.uniform_i(1, BASE_LOCATION)
        cmd.draw_indexed(index_count, instances=TREES_PER_ROW)
        cmd.iadd(1, 1, 3)
