"""The body renderer as it was before GPU-driven drawing (commit aaba37a), kept for
benchmarks/demo_frame.py's side-by-side: every instance runs the vertex shader over both
the box and the sphere mesh and collapses the one it is not; nothing is culled.

An instanced renderer of boxes and spheres that reads body transforms from the bridge's SSBO.

Per frame it records no per-body work at all: a fence wait (the GPU has finished the
previous frame's draws, so the records may be rewritten), ``upload`` (the bridge's sync),
two GPU ``copy_buffer`` of the live row count into the instanceCount of two indirect
commands, then two ``draw_indirect`` (box mesh, sphere mesh) and a fence signal. The vertex
shader reads ``culverin_bodies[gl_InstanceID]`` and looks the body's appearance up by its
*stable id* (``id``), so swap-removes in Culverin move rows without moving colours or shapes.

Appearance (``set_look``) is per stable id: shape ``"box"`` (size = half extents) or
``"sphere"`` (size = radius) and an RGB colour; ids without a look are not drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import hypergl
from hypergl_culverin import CulverinBridge, meshes  # the unit meshes are unchanged

SHAPES = {"none": 0, "box": 1, "sphere": 2}
LOOK_DTYPE = np.dtype([("size_shape", np.float32, 4), ("color", np.float32, 4)])
DEFAULT_MAX_IDS = 65536

_FRAGMENT = """#version 430
in vec3 v_normal;
in vec4 v_color;
layout(std140, binding = {camera}) uniform CulverinCamera {{ mat4 view_proj; vec4 light; }};
out vec4 color;
void main() {{
    float lit = 0.35 + 0.65 * max(dot(normalize(v_normal), normalize(light.xyz)), 0.0);
    color = vec4(v_color.rgb * lit, 1.0);
}}
"""

_VERTEX = """#version 430
{bodies}
struct CulverinLook {{ vec4 size_shape; vec4 color; }};  // xyz size, w shape (1 box, 2 sphere)
layout(std430, binding = {looks}) readonly buffer CulverinLooks {{ CulverinLook looks[]; }};
layout(std140, binding = {camera}) uniform CulverinCamera {{ mat4 view_proj; vec4 light; }};
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
out vec3 v_normal;
out vec4 v_color;

vec3 rotate(vec4 q, vec3 v) {{ return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }}

void main() {{
    CulverinBody body = culverin_bodies[gl_InstanceID];
    uint id = body.id;
    vec4 size_shape = id < uint(looks.length()) ? looks[id].size_shape : vec4(0.0);
    uint shape = uint(size_shape.w + 0.5);
    uint mesh = gl_VertexID < {box_vertices} ? 1u : 2u;
    v_color = id < uint(looks.length()) ? looks[id].color : vec4(0.0);
    v_normal = rotate(body.rotation, a_normal);
    if (shape != mesh) {{  // not this mesh's shape: every vertex outside the clip volume
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }}
    vec3 scale = shape == 2u ? size_shape.xxx : size_shape.xyz;
    vec3 world = vec3(body.position.xyz) + rotate(body.rotation, a_position * scale);
    gl_Position = view_proj * vec4(world, 1.0);
}}
"""


class BodyRenderer:
    """Draws every body of a bridge as a box or a sphere with two instanced indirect draws.

    Bindings: the bridge's records and counter (``bridge.binding``, ``+ 1``), the looks at
    storage binding ``looks_binding`` (default ``bridge.binding + 2``), the camera uniform
    block at uniform binding ``camera_binding`` (default 0).
    """

    def __init__(
        self,
        bridge: CulverinBridge,
        *,
        max_ids: int = DEFAULT_MAX_IDS,
        looks_binding: int | None = None,
        camera_binding: int = 0,
        depth_test: bool = True,
        sphere_detail: tuple[int, int] = (12, 16),
    ) -> None:
        if not isinstance(bridge, CulverinBridge):
            raise TypeError(f"BodyRenderer needs a CulverinBridge, got {bridge!r}")
        if isinstance(max_ids, bool) or not isinstance(max_ids, int) or max_ids < 1:
            raise ValueError(f"max_ids must be a positive int, got {max_ids!r}")
        ctx = bridge.context
        self._bridge = bridge
        self._looks_binding = bridge.binding + 2 if looks_binding is None else looks_binding
        self._camera_binding = camera_binding
        try:
            stacks, slices = sphere_detail
        except (TypeError, ValueError):
            raise TypeError(
                f"sphere_detail must be (stacks, slices), got {sphere_detail!r}"
            ) from None
        for value in (stacks, slices):
            if isinstance(value, bool) or not isinstance(value, int) or not 3 <= value <= 256:
                raise ValueError(
                    f"sphere_detail values must be ints in 3..256, got {sphere_detail!r}"
                )
        box, sphere = meshes.box(), meshes.sphere(stacks, slices)
        self.box_vertices, self.sphere_vertices = len(box), len(sphere)
        self.vertices = ctx.buffer(np.concatenate([box, sphere]), usage="vertex")
        self.looks = ctx.buffer(size=max_ids * LOOK_DTYPE.itemsize)
        self._looks = self.looks.map(LOOK_DTYPE, max_ids)
        self._looks[:] = np.zeros((), LOOK_DTYPE)
        self.camera = ctx.buffer(size=80, usage="uniform")
        self.set_camera(np.eye(4))
        # DrawArraysIndirectCommand {count, instanceCount, first, baseInstance} x 2.
        commands = np.array(
            [(self.box_vertices, 0, 0, 0), (self.sphere_vertices, 0, self.box_vertices, 0)],
            dtype=np.uint32,
        )
        self.indirect = ctx.buffer(commands, usage="indirect")
        # Signalled after the draws, waited on before the next upload: the CPU never
        # rewrites the records while the GPU may still be drawing the previous frame.
        self.fence = ctx.fence()
        vertex = _VERTEX.format(
            bodies=bridge.glsl(),
            looks=self._looks_binding,
            camera=camera_binding,
            box_vertices=self.box_vertices,
        )
        self.pipeline = ctx.pipeline(
            vertex_shader=vertex,
            fragment_shader=_FRAGMENT.format(camera=camera_binding),
            vertex_layout=[
                {
                    "binding": 0,
                    "stride": 24,
                    "attributes": [
                        {"location": 0, "format": "f32x3", "offset": 0},
                        {"location": 1, "format": "f32x3", "offset": 12},
                    ],
                }
            ],
            depth_test=depth_test,
        )

    @property
    def max_ids(self) -> int:
        return len(self._looks)

    def set_look(
        self,
        body_id: int,
        shape: str,
        size: float | Sequence[float],
        color: Sequence[float] = (1.0, 1.0, 1.0),
    ) -> None:
        """Appearance of the body whose stable id (``user_data``) is `body_id`."""
        if isinstance(body_id, bool) or not isinstance(body_id, (int, np.integer)):
            raise TypeError(f"body id must be an int, got {body_id!r}")
        if not 0 <= body_id < len(self._looks):
            raise ValueError(f"body id {body_id} is outside 0..{len(self._looks) - 1} "
                             f"(raise max_ids)")  # fmt: skip
        if shape not in SHAPES:
            raise ValueError(f"shape must be one of {sorted(SHAPES)}, got {shape!r}")
        extent = np.broadcast_to(np.asarray(size, dtype=np.float32), (3,))
        rgb = np.asarray(color, dtype=np.float32)
        if rgb.shape != (3,):
            raise ValueError(f"color must be (r, g, b), got {color!r}")
        self._looks[body_id] = ((*extent, SHAPES[shape]), (*rgb, 1.0))

    def set_camera(self, view_proj: Any, light: Sequence[float] = (0.3, 1.0, 0.5)) -> None:
        """The view-projection matrix (row-major, column vectors) and a light direction."""
        matrix = np.asarray(view_proj, dtype=np.float32)
        if matrix.shape != (4, 4) or not np.isfinite(matrix).all():
            raise ValueError(f"view_proj must be a finite 4x4 matrix, got shape {matrix.shape}")
        block = np.zeros(20, np.float32)
        block[:16] = matrix.T.reshape(-1)  # std140 mat4: column-major
        block[16:19] = light
        self.camera.write(block)

    def record(self, cmd: hypergl.CommandBuffer, *, sync: bool = True) -> None:
        """Record (optionally) the bridge's sync, then the two instanced indirect draws.

        Bind and clear the framebuffer before; nothing here depends on the body count.
        """
        bridge = self._bridge
        if sync:
            cmd.fence_wait(self.fence)  # previous frame's draws done (no-op the first time)
            bridge.record(cmd)
        count_buffer, offset = bridge.count_target
        cmd.copy_buffer(count_buffer, self.indirect, 4, src_offset=offset, dst_offset=4)
        cmd.copy_buffer(count_buffer, self.indirect, 4, src_offset=offset, dst_offset=20)
        cmd.bind_pipeline(self.pipeline)
        bridge.bind(cmd)
        cmd.bind_storage_buffer(self.looks, self._looks_binding)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        cmd.bind_vertex_buffer(self.vertices, 0)
        cmd.bind_indirect_buffer(self.indirect)
        cmd.draw_indirect(0)
        cmd.draw_indirect(16)
        cmd.fence_signal(self.fence)

    def release(self) -> None:
        """Free the renderer's own buffers and pipeline (not the bridge's)."""
        own = (self.fence, self.pipeline, self.indirect, self.camera, self.looks, self.vertices)
        for resource in own:
            if not resource.released:
                resource.release()
