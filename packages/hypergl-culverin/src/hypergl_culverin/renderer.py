"""Draws every Culverin body kind from the bridge's records, GPU-driven.

Per frame the recorded program does, with no per-body work on the CPU: a fence wait, the
bridge's ``upload`` (and one per soft body: its vertices into the soft-vertex buffer), a
copy of the indirect-command template (every instance count back to 0), a compute pass
over the live rows that appends each visible part of each body to its mesh's instance
list (frustum-culled, far spheres and capsules on a coarse mesh), and one
``multi_draw_indexed_indirect_count`` over the library's meshes (the count in a parameter
buffer; plain multi-draw-indirect over ``max_meshes`` commands where the GPU lacks it).
The vertex shader reads ``culverin_bodies[row]`` and the part's placement; looks are per
*stable id* (``id``), so Culverin's swap-removes move rows without moving looks.

Shapes come from the bridge's creating helpers (``bridge.create_body``, ``create_convex_hull``,
``create_compound_body``, ``create_ragdoll``, ``load_urdf``, ...), which record them with
the body's id; ``set_look(id, shape, ...)`` gives a look to bodies made straight through
Culverin. Call ``update()`` once per frame: it takes in looks added since the last call and
writes characters' and wheels' transforms (Culverin 0.15 reports those only per object, as
Python tuples; they are the only per-object Python of a frame).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import hypergl

from . import meshes
from .bridge import CulverinBridge
from .errors import ShapeError
from .shaders import DEPTH_TILES, EXPAND, FRAGMENT, VERTEX
from .shapes import MODE_SOFT, Part, Shape, from_name

PART_DTYPE = np.dtype([("offset_mode", np.float32, 4), ("rotation", np.float32, 4),
                       ("scale_mesh", np.float32, 4), ("color", np.float32, 4)])  # fmt: skip
EXTRA_DTYPE = np.dtype([("position", np.float32, 3), ("id", np.uint32),
                        ("rotation", np.float32, 4)])  # fmt: skip
DEFAULT_MAX_IDS = 65536
DEPTH_UNIT = 0  # the texture unit occlusion culling reads the depth attachment from
VERTEX_BYTES = 24
PALETTE = [(0.91, 0.44, 0.32), (0.96, 0.76, 0.29), (0.27, 0.62, 0.80), (0.55, 0.40, 0.75),
           (0.90, 0.90, 0.88), (0.45, 0.72, 0.42)]  # fmt: skip
# Built-in meshes: (key, coarse key or None, bounding radius at unit scale).
BUILT_IN = [("box", None, 3**0.5), ("sphere", "sphere_lo", 1.0), ("sphere_lo", None, 1.0),
            ("capsule", "capsule_lo", 2.0), ("capsule_lo", None, 2.0),
            ("cylinder", None, 2**0.5), ("quad", None, 2**0.5)]  # fmt: skip


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return int(value)


class BodyRenderer:
    """Every body of a bridge, each kind with its own mesh, in one multi-draw.

    Storage bindings from ``bridge.binding`` (B): records B, counter B + 1, looks B + 2,
    parts B + 3, mesh info B + 4, commands B + 5, instances B + 6, extras B + 7, soft
    vertices B + 8, visibility B + 9, depth tiles B + 10; the camera block at uniform
    binding ``camera_binding``; occlusion culling reads depth at texture unit 0.

    ``lod_threshold``: a sphere or capsule whose projected radius is below this share of
    the half screen height is drawn with the coarse mesh (0 turns LOD off).
    """

    parts: hypergl.Buffer
    mesh_info: hypergl.Buffer
    indices: hypergl.Buffer
    template: hypergl.Buffer
    draw_count: hypergl.Buffer
    instances: hypergl.Buffer
    soft_vertices: hypergl.Buffer
    visibility: hypergl.Buffer
    expand: hypergl.Pipeline
    tiles_pipeline: hypergl.Pipeline

    def __init__(
        self,
        bridge: CulverinBridge,
        *,
        max_ids: int = DEFAULT_MAX_IDS,
        max_parts: int | None = None,
        max_meshes: int = 256,
        max_vertices: int = 1 << 18,
        max_extras: int = 1024,
        max_soft_vertices: int = 1 << 16,
        camera_binding: int = 0,
        depth_test: bool = True,
        sphere_detail: tuple[int, int] = (12, 16),
        lod_threshold: float = 0.02,
        looks_binding: int | None = None,
    ) -> None:
        if not isinstance(bridge, CulverinBridge):
            raise TypeError(f"BodyRenderer needs a CulverinBridge, got {bridge!r}")
        bridge._check_live()
        max_ids = _positive_int(max_ids, "max_ids")
        max_parts = _positive_int(max_ids if max_parts is None else max_parts, "max_parts")
        self._max_meshes = _positive_int(max_meshes, "max_meshes")
        max_vertices = _positive_int(max_vertices, "max_vertices")
        max_extras = _positive_int(max_extras, "max_extras")
        max_soft = _positive_int(max_soft_vertices, "max_soft_vertices")
        stacks, slices = self._checked_detail(sphere_detail)
        if not isinstance(lod_threshold, (int, float)) or not 0 <= lod_threshold < 1:
            raise ValueError(f"lod_threshold must be in [0, 1), got {lod_threshold!r}")
        if looks_binding is not None and looks_binding != bridge.binding + 2:
            raise ValueError("looks_binding is always bridge.binding + 2 (the renderer "
                             "uses the seven bindings after the bridge's)")  # fmt: skip
        ctx = bridge.context
        self._ctx, self._bridge = ctx, bridge
        base = bridge.binding
        self._bindings = {"looks": base + 2, "parts": base + 3, "mesh_info": base + 4,
                          "commands": base + 5, "instances": base + 6, "extras": base + 7,
                          "soft": base + 8, "visibility": base + 9, "tiles": base + 10}  # fmt: skip
        self._camera_binding = camera_binding
        self._lod = float(lod_threshold)

        self.looks: hypergl.Buffer = ctx.buffer(size=max_ids * 8, name="culverin_looks")
        self._looks = self.looks.map(np.uint32, (max_ids, 2))
        self._looks[:] = 0
        self.parts = ctx.buffer(size=max_parts * PART_DTYPE.itemsize, name="culverin_parts")
        self._parts = self.parts.map(PART_DTYPE, max_parts)
        self._parts_used = 0
        self._part_mesh = np.zeros(max_parts, np.int32)
        self._look_parts: dict[int, tuple[int, int]] = {}
        self.vertices: hypergl.Buffer = ctx.buffer(size=max_vertices * VERTEX_BYTES, usage="vertex",
                                   name="culverin_meshes")  # fmt: skip
        self._vertices = self.vertices.map(np.float32, (max_vertices, 6))
        self._vertices_used = 0
        self.mesh_info = ctx.buffer(size=self._max_meshes * 16, name="culverin_mesh_info")
        self._mesh_info = self.mesh_info.map(np.float32, (self._max_meshes, 4))
        self._mesh_info[:] = (0.0, -1.0, 0.0, 0.0)
        # Indexed meshes (a shared vertex is shaded once: llvmpipe is vertex-bound here).
        self.indices = ctx.buffer(size=max_vertices * 4, usage="index", name="culverin_indices")
        self._indices = self.indices.map(np.uint32, (max_vertices,))
        self._indices_used = 0
        # DrawElementsIndirectCommand per mesh: count, instanceCount (0 here: the compute
        # pass counts), firstIndex, baseVertex, baseInstance (the mesh's instance list).
        # Two sets of max_meshes: the second draws what occlusion culling's second pass adds.
        self.template = ctx.buffer(size=2 * self._max_meshes * 20, name="culverin_commands_zero")
        self._template = self.template.map(np.uint32, (2 * self._max_meshes, 5))
        self._template[:] = 0
        self.indirect: hypergl.Buffer = ctx.buffer(size=2 * self._max_meshes * 20,
                                                   usage="indirect",
                                                   name="culverin_commands")  # fmt: skip
        # The draw count (meshes in the library) for multi-draw-indirect-count, where the
        # GPU has it (GL 4.6 or ARB_indirect_parameters); else all max_meshes commands.
        caps = ctx.capabilities
        self.indirect_count: bool = caps is None or caps.indirect_count
        self.draw_count = ctx.buffer(size=4, usage="parameter", name="culverin_draw_count")
        self._draw_count = self.draw_count.map(np.uint32, (1,))
        self._draw_count[0] = 0
        # Room for every part twice: a coarse mesh's list also holds its fine mesh's parts;
        # and that once per command set.
        self._instance_capacity = 2 * max_parts
        self.instances = ctx.buffer(size=2 * self._instance_capacity * 8, usage="vertex",
                                    name="culverin_instances")  # fmt: skip
        # Per part: 1 when it was on screen at the end of the last occlusion-culled frame.
        self.visibility = ctx.buffer(size=max_parts * 4, name="culverin_visibility")
        self.visibility.map(np.uint32)[:] = 0
        self.depth_tiles: hypergl.Buffer | None = None  # made for the first occlusion target
        self._tiles_size: tuple[int, int] | None = None
        self.extras: hypergl.Buffer = ctx.buffer(size=16 + max_extras * EXTRA_DTYPE.itemsize,
                                 name="culverin_extras")  # fmt: skip
        self._extra_count = self.extras.map(np.uint32, (4,))
        self._extra_count[:] = 0
        self._extras = np.frombuffer(self.extras.map(np.uint8), np.uint8)[16:].view(EXTRA_DTYPE)
        self.soft_vertices = ctx.buffer(size=max_soft * 16, name="culverin_soft_vertices")
        self._soft_used = 0
        self._soft: list[tuple[Any, Any, int, int]] = []  # (source, staging, first, count)
        self._soft_first_of: dict[int, int] = {}  # body id -> first soft vertex
        self._mesh_index: dict[str, int] = {}
        self._regions_dirty = False
        self._shapes_seen = 0
        self._recorded_soft: int | None = None  # soft bodies the last record() uploads

        self._add_mesh("box", meshes.box())
        self._add_mesh("sphere", meshes.sphere(stacks, slices))
        self._add_mesh("sphere_lo", meshes.sphere(3, 6))
        self._add_mesh("capsule", meshes.capsule(stacks, slices))
        self._add_mesh("capsule_lo", meshes.capsule(4, 6))
        self._add_mesh("cylinder", meshes.cylinder(slices))
        self._add_mesh("quad", meshes.quad())
        for key, coarse, radius in BUILT_IN:
            index = self._mesh_index[key]
            self._mesh_info[index, 0] = radius
            self._mesh_info[index, 1] = -1.0 if coarse is None else self._mesh_index[coarse]

        self.camera: hypergl.Buffer = ctx.buffer(size=96, usage="uniform", name="culverin_camera")
        self.set_camera(np.eye(4))
        self.fence: hypergl.Fence = ctx.fence()
        fill = {"bodies": bridge.glsl(), "camera": camera_binding, **self._bindings}
        fill["max_meshes"] = self._max_meshes
        self.expand = ctx.pipeline(compute_shader=EXPAND.format(**fill), name="culverin_expand")
        self.tiles_pipeline = ctx.pipeline(
            compute_shader=DEPTH_TILES.format(depth_unit=DEPTH_UNIT, tiles=self._bindings["tiles"]),
            name="culverin_depth_tiles",
        )
        self.pipeline: hypergl.Pipeline = ctx.pipeline(
            vertex_shader=VERTEX.format(**fill),
            fragment_shader=FRAGMENT.format(camera=camera_binding),
            vertex_layout=[
                {
                    "binding": 0,
                    "stride": VERTEX_BYTES,
                    "attributes": [
                        {"location": 0, "format": "f32x3", "offset": 0},
                        {"location": 1, "format": "f32x3", "offset": 12},
                    ],
                },
                {
                    "binding": 1,
                    "stride": 8,
                    "per_instance": True,
                    "attributes": [{"location": 2, "format": "u32x2", "offset": 0}],
                },
            ],
            depth_test=depth_test,
            cull="back",  # a closed body shows half its triangles; meshes carry both sides
            name="culverin_bodies",
        )
        self.update()

    @staticmethod
    def _checked_detail(detail: Any) -> tuple[int, int]:
        try:
            stacks, slices = detail
        except (TypeError, ValueError):
            raise TypeError(f"sphere_detail must be (stacks, slices), got {detail!r}") from None
        for value in (stacks, slices):
            if isinstance(value, bool) or not isinstance(value, int) or not 3 <= value <= 256:
                raise ValueError(f"sphere_detail values must be ints in 3..256, got {detail!r}")
        return stacks, slices

    # --- meshes and looks ------------------------------------------------------------------
    def _add_mesh(self, key: str, rows: np.ndarray) -> int:
        index = self._mesh_index.get(key)
        if index is not None:
            return index
        if len(self._mesh_index) >= self._max_meshes:
            raise ShapeError(f"the renderer holds {self._max_meshes} meshes already (each "
                             "convex hull, triangle mesh, heightfield and soft body is one): "
                             "raise max_meshes")  # fmt: skip
        unique, indices = meshes.indexed(rows)
        first, count = self._vertices_used, len(unique)
        first_index = self._indices_used
        if first + count > len(self._vertices) or first_index + len(indices) > len(self._indices):
            left = (len(self._vertices) - first, len(self._indices) - first_index)
            raise ShapeError(
                f"mesh {key!r} needs {count} vertices and {len(indices)} indices, "
                f"{left[0]} and {left[1]} are left: raise max_vertices"
            )
        self._vertices[first : first + count] = unique
        self._vertices_used += count
        self._indices[first_index : first_index + len(indices)] = indices
        self._indices_used += len(indices)
        index = len(self._mesh_index)
        self._mesh_index[key] = index
        self._template[index] = (len(indices), 0, first_index, first, 0)
        self._template[index + self._max_meshes] = (len(indices), 0, first_index, first, 0)
        self._draw_count[0] = index + 1
        if rows[:, :3].size and key not in dict.fromkeys(k for k, _, _ in BUILT_IN):
            self._mesh_info[index] = (float(np.linalg.norm(rows[:, :3], axis=1).max()), -1, 0, 0)
        return index

    @property
    def max_ids(self) -> int:
        return len(self._looks)

    @property
    def mesh_count(self) -> int:
        return len(self._mesh_index)

    def set_look(
        self,
        body_id: int,
        shape: str | Shape,
        size: float | Sequence[float] | None = None,
        color: Sequence[float] | None = None,
    ) -> None:
        """Appearance of the body whose stable id (``user_data``) is `body_id`.

        `shape` is a :class:`~hypergl_culverin.shapes.Shape` (any kind, parts placed about
        the centre of mass), a name (``"box"`` with half extents, ``"sphere"`` with a
        radius, ``"capsule"`` / ``"cylinder"`` with ``(half_height, radius)``) and its
        `size`, or ``"none"`` (not drawn).
        """
        if isinstance(body_id, bool) or not isinstance(body_id, (int, np.integer)):
            raise TypeError(f"body id must be an int, got {body_id!r}")
        if not 0 <= body_id < len(self._looks):
            raise ValueError(f"body id {body_id} is outside 0..{len(self._looks) - 1} "
                             f"(raise max_ids)")  # fmt: skip
        rgb = PALETTE[int(body_id) % len(PALETTE)] if color is None else color
        rgb = np.asarray(rgb, dtype=np.float32)
        if rgb.shape != (3,) or not np.isfinite(rgb).all():
            raise ValueError(f"color must be (r, g, b), got {color!r}")
        if isinstance(shape, str):
            if shape == "none":
                self._drop_look(int(body_id))
                return
            if size is None:
                raise ShapeError(f"shape {shape!r} needs a size")
            shape = from_name(shape, size)
        elif not isinstance(shape, Shape):
            raise ShapeError(f"shape must be a name or a hypergl_culverin.shapes.Shape, "
                             f"got {shape!r}")  # fmt: skip
        self._set_parts(int(body_id), shape.parts(), shape.meshes(), rgb)

    def _set_parts(self, body_id: int, parts: list[Part], new_meshes: dict, rgb) -> None:
        old = self._look_parts.get(body_id)
        reuse = old is not None and old[1] == len(parts)  # a new look in the same slots
        if not reuse and self._parts_used + len(parts) > len(self._parts):
            raise ShapeError(
                f"the renderer's {len(self._parts)} parts are used up (each body "
                "has one per piece: compounds and URDF links more): raise max_parts"
            )
        for key, rows in new_meshes.items():
            self._add_mesh(key, rows)
        meshes_of = []
        for part in parts:
            mesh = self._mesh_index.get(part.mesh)
            if mesh is None:
                raise ShapeError(f"part mesh {part.mesh!r} is not in the renderer's library")
            meshes_of.append(mesh)
        soft_first = self._soft_first(body_id) if any(p.mode == MODE_SOFT for p in parts) else 0
        if reuse:
            first = old[0]
        else:
            self._drop_look(body_id)
            first = self._parts_used
            self._parts_used += len(parts)
        for k, (part, mesh) in enumerate(zip(parts, meshes_of, strict=True)):
            scale = (float(soft_first), 0.0, 0.0) if part.mode == MODE_SOFT else part.scale
            self._parts[first + k] = ((*part.offset, part.mode), part.rotation,
                                      (*scale, mesh), (*rgb, part.shade))  # fmt: skip
            self._part_mesh[first + k] = mesh
        self._look_parts[body_id] = (first, len(parts))
        self._looks[body_id] = (first, len(parts))
        self._regions_dirty = True

    def _drop_look(self, body_id: int) -> None:
        old = self._look_parts.pop(body_id, None)
        if old is not None:
            self._part_mesh[old[0] : old[0] + old[1]] = -1
            self._regions_dirty = True
        self._looks[body_id] = 0

    def _soft_first(self, body_id: int) -> int:
        if body_id in self._soft_first_of:
            return self._soft_first_of[body_id]
        raise ShapeError(f"body {body_id} has no soft-body vertices: make soft bodies with "
                         "bridge.create_soft_body")  # fmt: skip

    def _layout_regions(self) -> None:
        """Each mesh's instance list starts where the previous one's largest use ends."""
        meshes_used = self._part_mesh[: self._parts_used]
        counts = np.bincount(meshes_used[meshes_used >= 0], minlength=self._max_meshes)
        counts = counts[: self._max_meshes].astype(np.int64)
        coarse = self._mesh_info[:, 1].astype(np.int64)
        sizes = counts.copy()
        for fine in np.nonzero(coarse >= 0)[0]:
            sizes[coarse[fine]] += counts[fine]  # a coarse list holds its fine mesh's too
        bases = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if bases[-1] + sizes[-1] > self._instance_capacity:
            raise ShapeError("the instance lists outgrow max_parts: raise max_parts")
        self._template[: self._max_meshes, 4] = bases
        self._template[self._max_meshes :, 4] = bases + self._instance_capacity
        self._regions_dirty = False

    def update(self) -> None:
        """Take in the bridge's new looks and soft bodies; write characters' and wheels'
        transforms (one Culverin call each). Call once per frame, before ``submit``."""
        bridge = self._bridge
        log = bridge.shape_log
        if self._shapes_seen < len(log):
            new_soft = any(shape.kind == "soft_body" for _, shape, _ in log[self._shapes_seen :])
            if new_soft and self._recorded_soft is not None:
                raise ShapeError(
                    "a soft body was made after renderer.record(): its vertices are "
                    "uploaded by the recorded program, so record the frame again"
                )
            for body_id, shape, color in log[self._shapes_seen :]:
                if shape.kind == "soft_body" and body_id not in self._soft_first_of:
                    self._add_soft(body_id, shape)
                self.set_look(body_id, shape, color=color)
            self._shapes_seen = len(log)
        if self._regions_dirty:
            self._layout_regions()
        attached = bridge.attachments
        if len(attached) > len(self._extras):
            raise ShapeError(f"{len(attached)} characters and wheels, more than max_extras="
                             f"{len(self._extras)}")  # fmt: skip
        for row, (body_id, transform) in enumerate(attached):
            position, rotation = transform()
            self._extras[row] = (position, body_id, rotation)
        self._extra_count[0] = len(attached)

    def _add_soft(self, body_id: int, shape: Any) -> None:
        count = shape.vertex_count
        if self._soft_used + count > len(self.soft_vertices_view):
            raise ShapeError(f"soft body {body_id} has {count} vertices, "
                             f"{len(self.soft_vertices_view) - self._soft_used} are left: "
                             "raise max_soft_vertices")  # fmt: skip
        source, staging = self._bridge.soft_body_source(body_id)
        self._soft.append((source, staging, self._soft_used, count))
        self._soft_first_of[body_id] = self._soft_used
        self._soft_used += count

    @property
    def soft_vertices_view(self) -> np.ndarray:
        return self.soft_vertices.map(np.float32, (self.soft_vertices.size // 16, 4))

    def set_camera(self, view_proj: Any, light: Sequence[float] = (0.3, 1.0, 0.5)) -> None:
        """The view-projection matrix (row-major, column vectors) and a light direction."""
        matrix = np.asarray(view_proj, dtype=np.float32)
        if matrix.shape != (4, 4) or not np.isfinite(matrix).all():
            raise ValueError(f"view_proj must be a finite 4x4 matrix, got shape {matrix.shape}")
        block = np.zeros(24, np.float32)
        block[:16] = matrix.T.reshape(-1)  # std140 mat4: column-major
        direction = np.asarray(light, dtype=np.float64)
        length = float(np.linalg.norm(direction)) if direction.shape == (3,) else 0.0
        if not np.isfinite(length) or length == 0.0:
            raise ValueError(f"light must be a finite, non-zero (x, y, z), got {light!r}")
        block[16:19] = direction / length  # unit length: the fragment shader skips normalize
        block[20] = self._lod
        self.camera.write(block)
        if self._regions_dirty:
            self._layout_regions()

    def record(
        self,
        cmd: hypergl.CommandBuffer,
        *,
        sync: bool = True,
        occlusion: hypergl.Framebuffer | None = None,
    ) -> None:
        """Record (optionally) the syncs, then the GPU expansion and the multi-draw.

        Bind and clear the framebuffer before; nothing here depends on the body count.
        Soft bodies made after this call need a new recording.

        ``occlusion``: the framebuffer bound for these draws (it needs a depth texture).
        The parts seen last frame are drawn first; the rest are tested against the depth
        then on screen (the farthest depth of each 4 x 4 and 16 x 16 pixel tile), and only
        those not behind it are drawn: what it culls was hidden, so the picture is the same.
        Draw the other opaque things of the frame (ground, scenery) before this call, so
        that they hide bodies too.
        """
        bridge = self._bridge
        depth = self._occlusion_depth(occlusion)
        self._recorded_soft = None  # a new recording takes in new soft bodies
        self.update()
        if sync:
            cmd.fence_wait(self.fence)  # previous frame's draws done (no-op the first time)
            bridge.record(cmd)
            for source, staging, first, count in self._soft:
                cmd.upload(source, staging)
                cmd.copy_buffer(staging, self.soft_vertices, count * 16, dst_offset=first * 16)
        bindings = self._bindings
        cmd.copy_buffer(self.template, self.indirect, 2 * self._max_meshes * 20)
        self._record_expand(cmd, phase=0 if depth is None else 1)
        self._record_draw(cmd, 0)
        if depth is not None:
            width, height = self._tiles_size
            cmd.barrier()  # the depth written by the draws, before the tiles read it
            cmd.bind_pipeline(self.tiles_pipeline)
            cmd.bind_texture(depth, DEPTH_UNIT)
            cmd.bind_storage_buffer(self.depth_tiles, bindings["tiles"])
            cmd.dispatch(-(-width // 16), -(-height // 16))
            cmd.barrier()  # the tiles, before the second pass reads them
            self._record_expand(cmd, phase=2)
            self._record_draw(cmd, 1)
        cmd.fence_signal(self.fence)
        self._recorded_soft = len(self._soft)

    def _occlusion_depth(self, target: Any) -> hypergl.Texture | None:
        """The depth texture of `target` (None: no occlusion culling); tiles sized for it."""
        if target is None:
            return None
        if not isinstance(target, hypergl.Framebuffer):
            raise TypeError(f"occlusion must be the hypergl.Framebuffer drawn into, "
                            f"got {target!r}")  # fmt: skip
        depth = target.depth_texture  # raises for a framebuffer without one
        size = tuple(target.size)
        if self._tiles_size is not None and self._tiles_size != size:
            raise ValueError(f"occlusion culling reads {self._tiles_size[0]}x"
                             f"{self._tiles_size[1]} framebuffers in this renderer, "
                             f"got {size[0]}x{size[1]}")  # fmt: skip
        if self.depth_tiles is None:
            fine = ((size[0] + 3) // 4, (size[1] + 3) // 4)
            coarse = ((fine[0] + 3) // 4, (fine[1] + 3) // 4)
            floats = fine[0] * fine[1] + coarse[0] * coarse[1]
            self.depth_tiles = self._ctx.buffer(size=4 * floats, name="culverin_depth_tiles")
            self._tiles_size = size
        return depth

    def _record_expand(self, cmd: hypergl.CommandBuffer, *, phase: int) -> None:
        bridge, bindings = self._bridge, self._bindings
        cmd.bind_pipeline(self.expand)
        bridge.bind(cmd)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        buffers = {"looks": self.looks, "parts": self.parts, "mesh_info": self.mesh_info,
                   "commands": self.indirect, "instances": self.instances,
                   "extras": self.extras, "visibility": self.visibility,
                   "tiles": self.depth_tiles}  # fmt: skip
        for name, buffer in buffers.items():
            if buffer is not None:
                cmd.bind_storage_buffer(buffer, bindings[name])
        width, height = self._tiles_size or (1, 1)
        for value, location in ((phase, 1), (width, 2), (height, 3)):
            cmd.li(0, value)
            cmd.uniform_i(0, location)
        for source, rows in ((0, bridge.capacity), (1, len(self._extras))):
            cmd.li(0, source)
            cmd.uniform_i(0, 0)
            cmd.dispatch(-(-rows // 64))
        cmd.barrier()

    def _record_draw(self, cmd: hypergl.CommandBuffer, command_set: int) -> None:
        cmd.bind_pipeline(self.pipeline)
        self._bridge.bind(cmd)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        for name, buffer in (("parts", self.parts), ("extras", self.extras),
                             ("soft", self.soft_vertices)):  # fmt: skip
            cmd.bind_storage_buffer(buffer, self._bindings[name])
        cmd.bind_vertex_buffer(self.vertices, 0)
        cmd.bind_vertex_buffer(self.instances, 1)
        cmd.bind_index_buffer(self.indices)
        cmd.bind_indirect_buffer(self.indirect)
        offset = command_set * self._max_meshes * 20
        if self.indirect_count:
            cmd.bind_parameter_buffer(self.draw_count)
            cmd.multi_draw_indexed_indirect_count(self._max_meshes, offset=offset)
        else:
            cmd.multi_draw_indexed_indirect(self._max_meshes, offset=offset, stride=20)

    def instance_counts(self) -> dict[str, int]:
        """Instances each mesh drew in the last frame (reads the GPU's commands back)."""
        counts = self.indirect.read(np.uint32).reshape(2, -1, 5)[:, :, 1].sum(axis=0)
        return {key: int(counts[index]) for key, index in self._mesh_index.items()}

    def release(self) -> None:
        """Free the renderer's own buffers and pipelines (not the bridge's)."""
        own = (self.fence, self.pipeline, self.expand, self.tiles_pipeline, self.camera,
               self.indirect, self.template, self.indices, self.draw_count, self.visibility,
               *([self.depth_tiles] if self.depth_tiles is not None else []),
               self.instances, self.mesh_info, self.vertices, self.parts, self.looks,
               self.extras, self.soft_vertices)  # fmt: skip
        for resource in own:
            if not resource.released:
                resource.release()
