"""Draws bodies from any bridge's per-instance records, GPU-driven, in one or many views.

Per frame the recorded program does, with no per-body work on the CPU: a fence wait, the
source's sync (``source.record``: the bridge's ``upload``), soft-body vertex copies, a copy of
the indirect-command template (every instance count back to 0), a compute pass over the
live rows that appends each visible part of each body to its mesh's instance list
(frustum-culled, far spheres and capsules on a coarse mesh), and one
``multi_draw_indexed_indirect_count`` over the library's meshes (the count in a parameter
buffer; plain multi-draw-indirect over ``max_meshes`` commands where the GPU lacks it).

Looks are per record *id* (``set_look(id, shape, size, color)``): a look is one or more
parts, each a mesh of the library placed, scaled and coloured in the body's frame. A record
source (a bridge, or :class:`~hypergl.bodies.records.InstanceRecords`) gives each row a
position, a rotation quaternion and an id; several rows may share an id (one look drawn at
many poses: many worlds of one model). Bridges subclass this renderer for their own
shape bookkeeping; hypergl-core never imports one.

``views > 1`` draws many views into one framebuffer, tiled (:meth:`set_views`): each view
has its own camera and its own range of record rows. ``outputs`` adds metric depth and the
record id as colour attachments after the colour (:meth:`framebuffer`, :meth:`read`);
without the colour, the depth and id alone, nothing shaded, and the depth kept in the depth
buffer itself (``DEPTH_SCALE``: no attachment of its own to clear, write and read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import errors
from ..command_buffer import CommandBuffer
from ..finite import check_within
from ..indirect_draws import INDEXED_COMMAND, IndirectCommands, mapped_records
from ..memory_budget import check_memory
from ..memory_budget import memory_limit as checked_memory_limit
from ..multisample_probe import writes_every_sample
from ..resources import Buffer, Fence, Framebuffer, Pipeline, Texture
from ..serialised import Guard, closing, serialised
from ..shader_prelude import CAMERA_BYTES, FULL_SCREEN_VERTEX, camera_block, camera_record
from ..shader_prelude import defines as glsl_defines
from . import meshes
from .parts import MODE_SOFT, RAYCAST, Part, check_color, named_parts
from .shaders import (
    BACKGROUND_FRAGMENT,
    DEPTH_TILES,
    EXPAND,
    FRAGMENT,
    HAZE_FRAGMENT,
    REFLECTION_ADD,
    SKY_CHECK,
    SKY_FRAGMENT,
    SKY_VERTEX,
    VERTEX,
    VIEW_SHIFT,
)
from .shading import (
    DEFAULT_MATERIAL,
    LIGHT_DTYPE,
    LIGHT_HEAD,
    LIGHT_OFF,
    MAX_TEXTURES,
    TEXTURE_BOX,
    TEXTURE_CUBE,
    TEXTURE_CUBE_Y_UP,
    TEXTURE_PLANAR,
    Material,
    TextureAtlas,
    default_lights,
    lighting_way,
    lights,
)
from .views import VIEW_DTYPE, Tiling, eye_of, tile_views

PART_DTYPE = np.dtype([("offset_mode", np.float32, 4), ("rotation", np.float32, 4),
                       ("scale_mesh", np.float32, 4), ("color", np.float32, 4),
                       ("material", np.float32, 4), ("texture", np.float32, 4),
                       ("uv_map", np.float32, 4)])  # fmt: skip
EXTRA_DTYPE = np.dtype([("position", np.float32, 3), ("id", np.uint32),
                        ("rotation", np.float32, 4)])  # fmt: skip
DEFAULT_MAX_IDS = 65536
DEPTH_UNIT = 0  # the texture unit occlusion culling reads the depth attachment from
ATLAS_UNIT = 1  # the texture unit the fragment stage reads the texture atlas from
SHADING_HEADER = MAX_TEXTURES * 16  # BodyShading: the texture rectangles, then light poses
POSE_BYTES = 112  # a light's position, direction, shadow tile and matrix (shading buffer)
SKY_NEAREST = 0.5  # cos 60 degrees: the sky's quad's distance ahead, of the cylinder's radius
SHADOW_UNIT = 2  # the texture unit the fragment stage reads shadow maps from
REFLECTION_UNIT = 3  # the texture unit a reflective part reads the mirror pass's picture from
RESOLVED_UNIT = 4  # the texture unit the sky drawn after a resolve reads the resolve from
SKY_UNIT = 5  # the texture unit the sky reads its GL cube map from
FLAT_UNIT = 6  # the texture unit the fragment stage reads the atlas's one 2D image from
SKY_KEY_BYTES = 112  # a view's SkyKey (shaders.SKY_BUFFER): 6 vec4 of key, a uvec4 stale flag
# Metres from the mirror plane within which a point counts as on it (the reflective part's
# own surface; its interpolated points stray by float rounding, 1e-7 of their size).
MIRROR_EPSILON = 1e-3
# A shadow map's bias (see shaders.shadow_light), in texels: along the normal, per sine of
# the angle to the light (MuJoCo's glPolygonOffset factor, 1.5), and at any angle (a curved
# surface's bulge across a texel, the depth's rounding).
SHADOW_SLOPE_BIAS = 1.5
SHADOW_BIAS = 0.1
VERTEX_BYTES = 24
MAX_GROUPS = 65535  # work groups a dispatch may have along x (GL's least maximum)
MAX_BASE_VERTEX = 2**31 - 1  # a draw's base vertex and gl_VertexID are GLint
OUTPUTS = ("color", "depth", "id")
OUTPUT_FORMATS = {"color": "rgba8", "depth": "r32f", "id": "r32f"}
# Depth without colour lives in the depth buffer (depth32f, every fragment's gl_FragDepth):
# DEPTH_SCALE / metres, tested "greater" over a clear to 0 (nothing hit). A power of two,
# so the stored float is today's attachment's 1 / metres scaled exactly, and the read's
# DEPTH_SCALE / stored gives the same metres bit for bit; metres within 2^-62..2^62 fit.
DEPTH_SCALE = 2.0**-64
PALETTE = [(0.91, 0.44, 0.32), (0.96, 0.76, 0.29), (0.27, 0.62, 0.80), (0.55, 0.40, 0.75),
           (0.90, 0.90, 0.88), (0.45, 0.72, 0.42)]  # fmt: skip
# Built-in meshes: (key, coarse key or None, bounding radius at unit scale).
BUILT_IN = [("box", None, 3**0.5), ("sphere", "sphere_lo", 1.0), ("sphere_lo", None, 1.0),
            ("capsule", "capsule_lo", 2.0), ("capsule_lo", None, 2.0),
            ("cylinder", None, 2**0.5), ("quad", None, 2**0.5)]  # fmt: skip
# The proxies of ray-cast parts (primitives="raycast"; radius: bounds the unit shape drawn),
# each drawn by its own pipeline, first in the library (the mesh pipeline draws the rest).
RAY_PROXIES = [("ray_sphere", None, 1.0), ("ray_capsule", None, 2.0),
               ("ray_cylinder", None, 2**0.5), ("ray_plane", None, 2**0.5)]  # fmt: skip
# The proxies drawn by vertex pulling (_pull_proxies), RAY_PROXIES' first: all but the plane,
# whose mesh holds its quad and its 2 x 2 cells (meshes.plane_quads) and keeps vertex arrays.
PULLED_PROXIES = ("ray_sphere", "ray_capsule", "ray_cylinder")
assert [key for key, _, _ in RAY_PROXIES[: len(PULLED_PROXIES)]] == list(PULLED_PROXIES)
RAY_MODE = {key: mode for mode, key in RAYCAST.values()}  # proxy mesh -> the mode it draws
PRIMITIVES = ("mesh", "raycast")


PROXY_INDEX_BYTES = 6 * 4  # a ray-cast proxy's quad: 6 u32 indices (vertex pulling)


def list_bytes(primitives: str = "mesh") -> int:
    """Bytes a BodyRenderer's instance lists take per part that a view may draw once (times
    max_parts x views x copies): 2 lists (a coarse mesh's holds its fine mesh's parts too)
    in each of 2 command sets, 8 bytes an instance; ``"raycast"``: and the proxies' indices
    (one quad a part, :meth:`BodyRenderer._pull_proxies`)."""
    if primitives not in PRIMITIVES:
        raise errors.BodyError(f"primitives must be 'mesh' or 'raycast', got {primitives!r}")
    return 2 * 2 * 8 + (PROXY_INDEX_BYTES if primitives == "raycast" else 0)


def sort_key_commands(max_ids: int) -> int:
    """Indirect commands (5 words) a transparent pass's sort keys take a view: a word an id."""
    return -(-_positive_int(max_ids, "max_ids") // 5)


def renderer_memory(max_ids: int, max_parts: int, max_meshes: int, max_vertices: int,
                    max_extras: int, max_soft: int, views: int, copies: int,
                    primitives: str = "mesh", transparent: bool = False
                    ) -> list[tuple[str, int]]:  # fmt: skip
    """(what, bytes) of every buffer a BodyRenderer of these sizes makes, for
    hypergl.memory_budget.check_memory (the depth tiles and framebuffers come later, sized
    by the framebuffer drawn into, which the context's limits bound)."""
    instances = max_parts * views * copies * list_bytes(primitives)
    keys = 2 * views * sort_key_commands(max_ids) * 20 if transparent else 0  # template, own
    return [
        (
            f"the mesh library (max_vertices={max_vertices}: {VERTEX_BYTES + 4} bytes each)",
            max_vertices * (VERTEX_BYTES + 4),
        ),
        (
            f"the instance lists (max_parts={max_parts} x views={views} x copies={copies})",
            instances,
        ),
        (
            f"the tables (max_ids={max_ids}, max_meshes={max_meshes}, max_extras={max_extras})",
            max_meshes * 16
            + 16
            + max_extras * EXTRA_DTYPE.itemsize
            + max_ids * 16
            + 4 * max_meshes * 20,
        ),
        (f"the parts (max_parts={max_parts})", max_parts * (PART_DTYPE.itemsize + 4)),
        (f"the soft vertices (max_soft_vertices={max_soft})", max_soft * 16),
        (f"the views (views={views})", views * VIEW_DTYPE.itemsize),
        (f"the transparent pass's sort keys (max_ids={max_ids} x views={views})", keys),
    ]


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return int(value)


def lit_grid_variant(used: frozenset[int | str]) -> int:
    """The LIT_GRID a pipeline is made with for the needs `used` (shading.lighting_way):
    3 where every part is lit per vertex of its quadrants (the vertex stage), 2 where every
    part is lit per grid vertex (a plane of quadrants too: each fragment lights its cell's
    corners), 0 where none is, 1 (per fragment or per grid vertex, chosen per part)
    otherwise, and for a pipeline that draws no part yet (a part given after record() draws
    either way)."""
    grid = bool(used & {"lit_grid", "lit_quadrants"})
    if grid:
        if "lit_point" in used:
            return 1
        return 2 if "lit_grid" in used else 3
    return 0 if "lit_point" in used else 1


LIT_GRID_WAYS = {0: {"lit_point"}, 1: {"lit_point", "lit_grid", "lit_quadrants"},
                 2: {"lit_grid", "lit_quadrants"}, 3: {"lit_quadrants"}}  # fmt: skip


def drawn_by(used: frozenset[int | str]) -> frozenset[int | str]:
    """What a pipeline made for the needs `used` draws: those, and every way of lighting
    its LIT_GRID draws."""
    return used | LIT_GRID_WAYS[lit_grid_variant(used)]


class _Specialisation(NamedTuple):
    """What the draw pipelines are made for (see BodyRenderer._specialise)."""

    light_kinds: tuple[tuple[int, bool], ...]  # each slot's kind, whether in its own pass
    needs: dict[str, frozenset[int | str]]  # pipeline key -> what its parts' fragments need
    reflective: frozenset[str]  # the pipelines that read the mirror pass's picture
    flat_texture: bool  # the atlas's lone 2D image is a texture of its own
    origin: str  # the views' origin ("top" or "bottom"): which faces are culled


class BodyRenderer:
    """Every record of a source, each look with its own meshes, in one multi-draw.

    Storage bindings from ``source.binding`` (B): the source's B and B + 1, the tables
    (mesh info, extras, looks) B + 2, parts B + 3, commands B + 5, instances B + 6, soft
    vertices B + 8, visibility B + 9, depth tiles B + 10, views B + 11, the shading B + 4
    (B + 7 is the source's: its rows' own looks, ``BODY_LOOK`` of :mod:`.records`); the
    camera block at uniform binding ``camera_binding``; occlusion culling reads depth at
    texture unit 0.

    ``lod_threshold``: a sphere or capsule whose projected radius is below this share of
    the half screen height is drawn with the coarse mesh (0 turns LOD off).
    ``views``: how many views :meth:`set_views` may tile (1: one view, :meth:`set_camera`).
    ``outputs``: of ``("color", "depth", "id")``, in that order as the colour attachments
    of the framebuffer drawn into (make it with :meth:`framebuffer`). Without ``"color"``
    the fragment stage shades nothing (no lights, textures or reflection: depth and id
    alone); none at all: the depth buffer alone (a shadow map's pass).
    ``copies``: how many rows sharing one id one view may draw (each look's instance lists
    are sized for that many; beyond it parts are dropped, never written out of place).
    1 fits a Culverin world (ids are unique) and one world per view.
    ``primitives``: ``"mesh"`` draws every part as its mesh; ``"raycast"`` draws the parts
    on a built-in sphere (any scale: ellipsoids), capsule (``MODE_CAPSULE``) or cylinder
    as two triangles over the part's screen rectangle in its view, intersected exactly per
    fragment (exact silhouettes, depth and normals; no levels of detail), and a plane
    (``"quad"``) as its own quad in a pipeline of its own (flat: its rasterized depth is
    exact, with no ray and early depth testing on), lit as ``Material.lit_grid`` says
    (:func:`~hypergl.bodies.shading.lighting_way`: per grid vertex in the vertex stage
    where its cells are its quadrants, else its cell's corners per fragment); boxes and other
    meshes stay meshes. With many views, every draw is clipped to
    its own view's tile by the rasterizer (``gl_ClipDistance``, pipelines made with
    ``clip_distances=4``): a large mesh, a ground plane's quad above all, costs only the
    pixels of its own view.
    ``samples``: the samples a pixel of the framebuffer drawn into (:meth:`framebuffer`
    makes it so; 0: single-sampled): each ray-cast part's fragment casts a ray per sample
    too, its edge antialiased as a mesh's. ``single_sampled_planes``: the ray-cast planes'
    quads rasterized as one sample, written to every sample (a pipeline made with
    ``multisample=False``): a flat quad's samples differ only along its edges (its horizon,
    and where a surface crosses it; a body's silhouette over it keeps its own samples), and
    on llvmpipe a ground plane's multisampled coverage costs ~9% of a 256-cheetah frame.
    Not where another surface lies in a plane (a height field at the ground's height): its
    samples would fight the plane's one depth a pixel. The planes are drawn first (a plane
    of one sample drawn over a nearer sample would be refused whole); not in a transparent
    pass; multisampled where the driver writes one sample of them
    (:func:`hypergl.multisample_probe.writes_every_sample`: Mesa 20.3's llvmpipe).
    ``memory_limit``: the bytes its buffers may take together, added up from the sizes above
    before the first is made (None: ``hypergl.memory_budget.default_memory_limit()``); more
    is a BodyError naming the buffer that passes it.

    Shading (:mod:`hypergl.bodies.shading`): each part's :class:`~hypergl.bodies.shading.
    Material` (``set_parts(..., material=)``), ``max_lights`` fixed-function lights per
    group and ``light_groups`` groups (a view's group: :meth:`set_views`' ``light_groups``;
    :meth:`set_lights`, :attr:`lights`), a texture atlas (:meth:`set_textures`), a sky and
    its haze (:meth:`set_sky`, :meth:`set_haze`), and shadow maps for up to two lights
    (``shadow_lights``, :meth:`set_shadow_map`; a renderer made with ``shade=False`` draws
    depth only, for the maps), and a planar mirror as ``mjr_render`` draws one: a renderer
    made with ``mirror=True`` draws the mirror pass (:meth:`set_mirror`: the views' cameras
    reflected in the plane, what lies on the eye's side of it alone, colours scaled by the
    reflectance, every light in one pass and no shadows) into a framebuffer of its own, and
    the main renderer adds that picture where a reflective part (``Material.reflectance``
    > 0) lies on the plane (:meth:`set_reflection`; only the pipelines drawing such a part
    read it). A renderer made with ``transparent=True`` draws its parts blended by their
    alpha over what is drawn (after the opaque ones), writing no depth, lit as in one pass
    with no shadows: ``mjr_render``'s transparent geoms, each view's ids in the order of
    their distance from its eye less their :meth:`set_sort_radii`, nearest first then
    farthest first (an id's rows all in its place: its nearest row's); with depth or ids
    besides colour, those are the nearest's. Without
    :meth:`set_lights`, one light along :meth:`set_camera`'s ``light`` gives the look of
    before: 0.35 + 0.65 max(N.L, 0).
    The draw pipelines are made (again, at :meth:`record`) for the lights' kinds and for the
    texture mappings and specular materials of the parts each draws, as constants (llvmpipe
    runs every branch a fragment might take); after :meth:`record`, a light of another kind
    or a part with a mapping or a specular material they lack makes :meth:`update` raise
    BodyError until the frame is recorded again.
    """

    shape_error: type[Exception] = errors.BodyError  # bridges raise their own kind
    parts: Buffer
    tables: Buffer
    indices: Buffer
    template: Buffer
    draw_count: Buffer
    instances: Buffer
    soft_vertices: Buffer  # 16 bytes a vertex: soft_vertices.py's layout
    visibility: Buffer
    expand: Pipeline
    tiles_pipeline: Pipeline

    def __init__(
        self,
        source: Any,
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
        views: int = 1,
        outputs: Sequence[str] = ("color",),
        copies: int = 1,
        primitives: str = "mesh",
        memory_limit: int | None = None,
        max_lights: int = 8,
        light_groups: int = 1,
        shadow_lights: Sequence[int] = (),
        shade: bool = True,
        mirror: bool = False,
        transparent: bool = False,
        samples: int = 0,
        single_sampled_planes: bool = False,
    ) -> None:
        # One thread at a time changes the library, looks, views and recordings.
        self._guard = Guard(errors.ResourceError, "this body renderer has been released")
        max_ids = _positive_int(max_ids, "max_ids")
        max_parts = _positive_int(max_ids if max_parts is None else max_parts, "max_parts")
        self._max_meshes = _positive_int(max_meshes, "max_meshes")
        max_vertices = _positive_int(max_vertices, "max_vertices")
        max_extras = _positive_int(max_extras, "max_extras")
        max_soft = _positive_int(max_soft_vertices, "max_soft_vertices")
        self._max_views = _positive_int(views, "views")
        self._copies = _positive_int(copies, "copies")
        self._max_lights = _positive_int(max_lights, "max_lights")
        self._light_groups = _positive_int(light_groups, "light_groups")
        self._shadow_lights = tuple(int(i) for i in shadow_lights)
        if len(self._shadow_lights) > 2 or any(
            not 0 <= i < self._max_lights for i in self._shadow_lights
        ):
            raise errors.BodyError(
                f"shadow_lights must be at most 2 light indices in "
                f"0..{self._max_lights - 1}, got {shadow_lights!r}"
            )
        self._shade = bool(shade)
        self.shadow_map: Texture | None = None
        self._mirror = bool(mirror)
        self._transparent = bool(transparent)
        # a transparent pass with depth or ids besides colour draws its parts a second time
        # into those alone, depth-tested and written: the nearest's, as MuJoCo's
        self._nearest = self._transparent and "color" in outputs and len(set(outputs)) > 1
        self._nearest_draws: list[Pipeline] = []  # the second draw's, as _draw_keys()
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
            raise errors.BodyError(f"samples must be an int, 0 (single-sampled) or more, "
                                   f"got {samples!r}")  # fmt: skip
        self.samples: int = samples
        if not isinstance(single_sampled_planes, bool):
            raise errors.BodyError(f"single_sampled_planes must be True or False, got "
                                   f"{single_sampled_planes!r}")  # fmt: skip
        if single_sampled_planes and self._transparent:
            raise errors.BodyError("single_sampled_planes: a transparent pass blends its "
                                   "planes over what is drawn; multisample them")  # fmt: skip
        self._single_sampled_planes = single_sampled_planes
        if (self._mirror or self._transparent) and self._shadow_lights:
            raise errors.BodyError("a mirror or transparent pass draws no shadows (MuJoCo's "
                                   "has none there): make it without shadow_lights")  # fmt: skip
        # the mirror's plane and look (uniforms), the mirror pass's picture (set_reflection)
        self._mirror_uniforms: tuple[tuple[float, ...], tuple[float, ...]] | None = None
        self.reflection: Texture | None = None
        if self._max_views > 1 and max_parts > 1 << VIEW_SHIFT:
            raise ValueError(f"max_parts must be at most {1 << VIEW_SHIFT} with views > 1 "
                             f"(a view sits above the part index), got {max_parts}")  # fmt: skip
        self.outputs: tuple[str, ...] = self._checked_outputs(outputs)
        # the depth output in the depth buffer (DEPTH_SCALE): without colour
        self._depth_buffer = "depth" in self.outputs and "color" not in self.outputs
        if not isinstance(primitives, str) or primitives not in PRIMITIVES:
            raise errors.BodyError(f"primitives must be 'mesh' or 'raycast', got {primitives!r}")
        self.primitives: str = primitives
        stacks, slices = self._checked_detail(sphere_detail)
        if not isinstance(lod_threshold, (int, float)) or not 0 <= lod_threshold < 1:
            raise ValueError(f"lod_threshold must be in [0, 1), got {lod_threshold!r}")
        try:  # every buffer's size added up before the first is made
            limit = checked_memory_limit(memory_limit)
        except TypeError as exc:
            raise errors.BodyError(str(exc)) from None
        check_memory(renderer_memory(max_ids, max_parts, self._max_meshes, max_vertices,
                                     max_extras, max_soft, self._max_views, self._copies,
                                     primitives, self._transparent),
                     limit, whole="the BodyRenderer", error=errors.BodyError,
                     hint="pass BodyRenderer(..., memory_limit=...) to allow more, or "
                          "smaller max_* sizes")  # fmt: skip
        slots = 2 * 2 * max_parts * self._max_views * self._copies  # both command sets'
        if primitives == "raycast" and 4 * slots > MAX_BASE_VERTEX:
            raise errors.BodyError(
                f"ray-cast proxies of max_parts={max_parts} x views={self._max_views} x "
                f"copies={self._copies} would number their vertices past 2^31 (4 a part of "
                f"{slots} instance slots): fewer of them, or primitives='mesh'"
            )
        ctx = source.context
        self._ctx, self._source = ctx, source
        if self._single_sampled_planes and samples > 1 and not writes_every_sample(ctx):
            self._single_sampled_planes = False  # (a driver that writes one sample of them)
        base = source.binding
        self._bindings = {"tables": base + 2, "parts": base + 3, "shading": base + 4,
                          "commands": base + 5,
                          "instances": base + 6, "soft": base + 8, "visibility": base + 9,
                          "tiles": base + 10, "views": base + 11,
                          "sky": base + 10}  # fmt: skip
        # (the sky cache's buffer at the depth tiles' binding: no pass binds both)
        self._camera_binding = camera_binding
        self._lod = float(lod_threshold)

        # The tables (see shaders.COMMON): mesh info, the extras' count and rows, looks.
        extras_at = self._max_meshes * 16
        looks_at = extras_at + 16 + max_extras * EXTRA_DTYPE.itemsize
        self.tables = ctx.buffer(size=looks_at + max_ids * 16, name="body_tables")
        tables = np.frombuffer(self.tables.map(np.uint8), np.uint8)
        self._mesh_info = tables[:extras_at].view(np.float32).reshape(self._max_meshes, 4)
        self._mesh_info[:] = (0.0, -1.0, 0.0, 0.0)
        self._extra_count = tables[extras_at : extras_at + 16].view(np.uint32)
        self._extra_count[:] = 0
        self._extras = tables[extras_at + 16 : looks_at].view(EXTRA_DTYPE)
        # per id: its first part, part count, sort radius (float bits: set_sort_radii), 0
        self._looks = tables[looks_at:].view(np.uint32).reshape(max_ids, 4)
        self._looks[:] = 0
        self.parts = ctx.buffer(size=max_parts * PART_DTYPE.itemsize, name="body_parts")
        self._parts = self.parts.map(PART_DTYPE, max_parts)
        self._parts_used = 0
        self._part_mesh = np.zeros(max_parts, np.int32)
        self._look_parts: dict[int, tuple[int, int]] = {}
        self.vertices: Buffer = ctx.buffer(size=max_vertices * VERTEX_BYTES, usage="vertex",
                                           name="body_meshes")  # fmt: skip
        self._vertices = self.vertices.map(np.float32, (max_vertices, 6))
        self._vertices_used = 0
        # Indexed meshes (a shared vertex is shaded once: llvmpipe is vertex-bound here).
        self.indices = ctx.buffer(size=max_vertices * 4, usage="index", name="body_indices")
        self._indices = self.indices.map(np.uint32, (max_vertices,))
        self._indices_used = 0
        # DrawElementsIndirectCommand per mesh: count, instanceCount (0 here: the compute
        # pass counts), firstIndex, baseVertex, baseInstance (the mesh's instance list).
        # Two sets of max_meshes: the second draws what occlusion culling's second pass adds.
        # The template is copied over the GPU-written commands each frame (the records and
        # commands core the draw lists share: indirect_draws).
        # A transparent pass's commands are followed by each view's sort key per id
        # (shaders.SORT_KEYS), a view's in whole commands of 5 words, all ones in the template.
        self._keys_a_view = 5 * sort_key_commands(max_ids)  # words (shaders.KEYS_A_VIEW)
        keys = self._max_views * self._keys_a_view // 5 if self._transparent else 0
        commands = 2 * self._max_meshes
        template, _ = mapped_records(ctx, INDEXED_COMMAND, commands + keys,
                                     name="body_commands_zero")  # fmt: skip
        self.template: Buffer = template
        words = template.map(np.uint32, (commands + keys, 5))
        words[commands:] = 0xFFFFFFFF
        self._template = words[:commands]
        self._commands = IndirectCommands(ctx, commands + keys, indexed=True,
                                          name="body_commands", mapped=False)  # fmt: skip
        self.indirect: Buffer = self._commands.buffer
        # The draw count (meshes in the library) for multi-draw-indirect-count, where the
        # GPU has it (GL 4.6 or ARB_indirect_parameters); else all max_meshes commands.
        self.indirect_count: bool = self._commands.indirect_count
        self._draw_count = self._commands.set_counts([0], "body_draw_count")
        self.draw_count: Buffer = self._commands.count_buffer
        # Room for every part twice (a coarse mesh's list also holds its fine mesh's parts)
        # per view, and that once per command set.
        self._instance_capacity = 2 * max_parts * self._max_views * self._copies
        self.instances = ctx.buffer(size=2 * self._instance_capacity * 8, usage="vertex",
                                    name="body_instances")  # fmt: skip
        # Per part: 1 when it was on screen at the end of the last occlusion-culled frame.
        self.visibility = ctx.buffer(size=max_parts * 4, name="body_visibility")
        self.visibility.map(np.uint32)[:] = 0
        self.depth_tiles: Buffer | None = None  # made for the first occlusion target
        self._tiles_size: tuple[int, int] | None = None
        self.soft_vertices = ctx.buffer(size=max_soft * 16, name="body_soft_vertices")
        self._soft_used = 0
        self._soft: list[tuple[Any, Any, int, int]] = []  # (source, staging, first, count)
        self._soft_first_of: dict[int, int] = {}  # body id -> first soft vertex
        self._mesh_index: dict[str, int] = {}
        self._first_mesh = 0  # the mesh pipeline's first command (after the ray proxies)
        self._pulled = 0  # the ray proxies drawn by vertex pulling (PULLED_PROXIES), first
        self._regions_dirty = False
        # Views: the tiled cameras and row ranges (multi-view only; else set_camera's one).
        self.views: Buffer | None = None
        self._view_count = 1
        self._view_rows = source.capacity  # the most rows one view's range may hold
        self.tiling: Tiling | None = None  # the views' layout (set_views)
        # read_views' framebuffer and a reader of each output into an array of its own
        self._staging: tuple[Framebuffer, dict[str, Any]] | None = None
        if self._max_views > 1:
            self.views = ctx.buffer(size=self._max_views * VIEW_DTYPE.itemsize, name="body_views")
            self._views = self.views.map(VIEW_DTYPE, self._max_views)
            self._views[:] = np.zeros(1, VIEW_DTYPE)

        built_in = BUILT_IN
        self.proxy_indices: Buffer | None = None  # the ray-cast proxies' (_pull_proxies)
        if primitives == "raycast":
            for key, _, _ in RAY_PROXIES:  # placed over the part's screen rectangle; a
                # plane's: its quad or its 2 x 2 cells (lit per vertex of them)
                self._add_mesh(key, meshes.plane_quads() if key == "ray_plane" else meshes.quad())
            self._first_mesh, self._pulled = len(RAY_PROXIES), len(PULLED_PROXIES)
            built_in = RAY_PROXIES + BUILT_IN
        proxy = self._pull_proxies(ctx)
        self._add_mesh("box", meshes.box())
        self._add_mesh("sphere", meshes.sphere(stacks, slices))
        self._add_mesh("sphere_lo", meshes.sphere(3, 6))
        self._add_mesh("capsule", meshes.capsule(stacks, slices))
        self._add_mesh("capsule_lo", meshes.capsule(4, 6))
        self._add_mesh("cylinder", meshes.cylinder(slices))
        self._add_mesh("quad", meshes.quad())
        for key, coarse, radius in built_in:
            index = self._mesh_index[key]
            self._mesh_info[index, 0] = radius
            self._mesh_info[index, 1] = -1.0 if coarse is None else self._mesh_index[coarse]

        # The atlas's rectangles and every group's light poses (shaders.SHADING_BUFFER),
        # the lights' looks (a uniform block: the same for every group), the atlas itself.
        light_rows = self._max_lights * self._light_groups
        self.shading: Buffer = ctx.buffer(size=SHADING_HEADER + light_rows * POSE_BYTES,
                                          name="body_shading")  # fmt: skip
        shading = np.frombuffer(self.shading.map(np.uint8), np.uint8)
        self._texture_rects = shading[:SHADING_HEADER].view(np.uint32).reshape(MAX_TEXTURES, 4)
        self._texture_rects[:] = 0
        self._poses = (
            shading[SHADING_HEADER:]
            .view(np.float32)
            .reshape(self._light_groups, self._max_lights, POSE_BYTES // 4)
        )
        self._poses[:] = 0
        # Per group and light: its view-projection for its shadow map (row-major) and its
        # tile there (xy scale, zw offset of clip space), written by the caller.
        self.shadow_matrices: np.ndarray = np.zeros((self._light_groups, self._max_lights, 4, 4))
        self.shadow_tiles: np.ndarray = np.zeros((self._light_groups, self._max_lights, 4))
        self.light_block: Buffer = ctx.buffer(size=self._max_lights * LIGHT_DTYPE.itemsize,
                                              usage="uniform", name="body_lights")  # fmt: skip
        self._light_looks = self.light_block.map(LIGHT_DTYPE, self._max_lights)
        self._lights = np.broadcast_to(lights(1), (self._light_groups, self._max_lights)).copy()
        self._own_lights = False  # set_lights called: set_camera's light no longer applies
        self.atlas: Texture = ctx.texture(np.zeros((1, 1, 4), np.uint8), filter="nearest",
                                          name="body_atlas")  # fmt: skip
        self._textures = 0
        # the atlas's 2D image where it has one alone: a GL texture of its own, sampled by
        # the GL sampler (its mip chain the atlas's, repeated), not the atlas's hand-written
        # trilinear lookup (256 cheetah worlds' floor at 84x84 on llvmpipe: ~9 ms of a
        # tuned frame's 36 ms main pass was that lookup)
        self.flat_texture: Texture | None = None
        self._atlas = TextureAtlas()  # set_textures's: the sky's faces and their levels
        self._sky: tuple[int, float, np.ndarray] | None = None  # set_sky's
        self.sky_cube: Texture | None = None  # the sky's cube map (set_sky)
        self.sky_pipeline: Pipeline | None = None
        self.resolved_sky_pipeline: Pipeline | None = None  # record_resolved_sky's
        # record_resolved_sky's cache (shaders.SKY_BUFFER): each view's sky, looked up again
        # only where its key changed; the size of the framebuffer it is for
        self.sky_cache: Buffer | None = None
        self._sky_cache_size: tuple[int, int] | None = None
        self.sky_check_pipeline: Pipeline | None = None
        self.sky_cache_pipeline: Pipeline | None = None
        # record_resolved_sky's resolve and sky in one pass, for its samples a pixel
        self.fused_sky_pipeline: Pipeline | None = None
        self._fused_samples = 0
        self._sky_ground = False  # the sky pipeline tests the haze's ground
        self._haze: tuple[tuple[float, ...], ...] | None = None  # set_haze's uniforms
        self.haze_pipeline: Pipeline | None = None
        self.camera: Buffer = ctx.buffer(size=CAMERA_BYTES, usage="uniform", name="body_camera")
        self.set_camera(np.eye(4))
        self.fence: Fence = ctx.fence()
        defines = self._defines()
        self._fill = fill = {"bodies": self._source_glsl(), "camera": camera_binding,
                             "camera_block": camera_block(camera_binding, "BodyCamera"),
                             **self._bindings,
                "max_meshes": self._max_meshes, "max_extras": max_extras,
                "keys_a_view": self._keys_a_view,
                "atlas_unit": ATLAS_UNIT, "max_textures": MAX_TEXTURES,
                "lights_block": camera_binding + 1, "shadow_unit": SHADOW_UNIT,
                "reflection_unit": REFLECTION_UNIT, **proxy,
                "resolved_unit": RESOLVED_UNIT, "sky_unit": SKY_UNIT, "flat_unit": FLAT_UNIT,
                "max_views": self._max_views,
                "defines": defines + "\n#define RAY_KIND 0"}  # fmt: skip
        # The GLSL of each pipeline's stages (tests count the storage blocks each declares).
        self.shader_sources: dict[str, dict[str, str]] = {
            "expand": {"compute": EXPAND.format(**fill)},
            "tiles": {"compute": DEPTH_TILES.format(depth_unit=DEPTH_UNIT,
                                                    tiles=self._bindings["tiles"])},
        }  # fmt: skip
        self.expand = ctx.pipeline(compute_shader=self.shader_sources["expand"]["compute"],
                                   name="body_expand")  # fmt: skip
        self.tiles_pipeline = ctx.pipeline(
            compute_shader=self.shader_sources["tiles"]["compute"], name="body_depth_tiles"
        )
        # The draw pipelines (the meshes', and one per ray-cast kind with its one command),
        # made for the lights and for what the parts they draw need (see _specialise).
        self._depth_test = depth_test
        self._specialised: _Specialisation | None = None  # what they are made for
        self._stale: str | None = None  # why the recorded program no longer draws right
        self.pipeline: Pipeline
        self._ray_draws: list[tuple[Pipeline, int]] = []
        self._specialise()
        self.background_pipeline: Pipeline | None = None
        # a plain clear writes one colour to every attachment
        if "color" in self.outputs and len(self.outputs) > 1:
            self.background_pipeline = ctx.pipeline(
                vertex_shader=FULL_SCREEN_VERTEX,
                fragment_shader=BACKGROUND_FRAGMENT.format(defines=defines),
                depth_test=False,
                name="body_background",
            )
        self.update()

    def _pull_proxies(self, ctx: Any) -> dict[str, str]:
        """The ray-cast proxies drawn by vertex pulling (the vertex stage's ``RAY_KIND``):
        each proxy mesh's command one instance of 6 indices a listed part (counted by the
        expansion: mesh_info w 1), over an index buffer of one quad after another (corner
        4 k + c of part k); the quad's corners and normal for the vertex stage's text."""
        first, count, first_index = (int(v) for v in self._template[0, [3, 0, 2]])
        corners = self._vertices[first : first + 4, :3]
        quad = self._indices[first_index : first_index + count].astype(np.int64) - first
        normal = self._vertices[first, 3:].tolist()  # the quad's, every corner's
        fill = {"proxy_corners": ", ".join(f"vec3({x!r}, {y!r}, {z!r})"
                                           for x, y, z in corners.tolist()),
                "proxy_normal": ", ".join(repr(v) for v in normal)}  # fmt: skip
        if not self._pulled:
            return fill  # no ray-cast parts: nothing pulled
        # the most one proxy's list holds: every part, in every view, copies times (half a
        # command set's room: no proxy has a coarse mesh)
        slots = self._instance_capacity // 2
        pattern = (np.arange(slots, dtype=np.int64)[:, None] * 4 + quad).astype(np.uint32)
        self.proxy_indices = ctx.buffer(pattern, usage="index", name="body_proxy_indices")
        for index in range(self._pulled):
            self._mesh_info[index, 3] = 1.0
            for command_set in (0, 1):  # no indices yet, one instance, from the pattern's first
                self._template[index + command_set * self._max_meshes, :3] = (0, 1, 0)
        return fill

    # --- pipelines made for what they draw --------------------------------------------------
    def _draw_keys(self) -> list[str]:
        """The draw pipelines' keys: "draw" (every mesh), then each ray-cast kind's proxy."""
        return ["draw", *list(self._mesh_index)[: self._first_mesh]]

    def _light_kinds(self) -> tuple[tuple[int, bool], ...]:
        """Per light slot: its LIGHT_KIND_* of shaders.LIGHTING (0: off) and whether it is
        drawn in a pass of its own (it casts shadows), from the looks every group shares."""
        kinds = []
        for row in self._lights[0]:
            kind = round(float(row["diffuse"][3]))
            if kind == LIGHT_OFF:
                kinds.append((0, False))
                continue
            if kind == LIGHT_HEAD:
                code = 1
            elif row["position"][3] == 0.0:
                code = 2  # directional
            else:
                code = 4 if row["direction"][3] > -1.5 else 3  # a spot (a cone), a point
            kinds.append((code, bool(row["specular"][3] > 0.5)))
        return tuple(kinds)

    def _fragment_needs(self) -> dict[str, frozenset[int | str]]:
        """Per draw pipeline: what the parts it draws need of its fragment stage: the
        texture mappings of its textured parts, "specular" where one of them has a
        specular material (without one, the pipeline has no specular term, and the linker
        drops the view's eye and the point from the fragment stage's inputs), how each is
        lit (shading.lighting_way: "lit_point", "lit_grid" or "lit_quadrants")."""
        used = self._parts_used
        mesh = self._part_mesh[:used]
        texture = self._parts["texture"][:used]
        shiny = self._parts["material"][:used, 0] != 0.0
        scale = self._parts["scale_mesh"][:used]
        ways = [lighting_way(float(g), float(x), float(z))
                for g, x, z in zip(texture[:, 3], scale[:, 0], scale[:, 2],
                                   strict=True)]  # fmt: skip
        keys = self._draw_keys()
        out: dict[str, set[int | str]] = {key: set() for key in keys}
        for index, (texture_index, mapping), specular, way in zip(
                mesh, texture[:, :2], shiny, ways, strict=True):  # fmt: skip
            if index < 0:
                continue  # a dropped look's slot
            need = out[keys[1 + int(index)] if index < self._first_mesh else "draw"]
            if texture_index >= 0:
                need.add(int(mapping))
            if specular:
                need.add("specular")
            need.add(way)
        # what a source's rows may switch their looks' parts to (BODY_LOOK)
        for body_id, extra in getattr(self._source, "fragment_needs", {}).items():
            first, count = self._look_parts.get(int(body_id), (0, 0))
            for index in self._part_mesh[first : first + count]:
                if index >= 0:
                    out[keys[1 + int(index)] if index < self._first_mesh else "draw"].update(extra)
        return {key: frozenset(value) for key, value in out.items()}

    def _reflective(self) -> frozenset[str]:
        """The draw pipelines that read the mirror pass's picture: those drawing a part
        with a reflectance, once :meth:`set_reflection` gave the picture."""
        if self.reflection is None:
            return frozenset()
        used = self._parts_used
        mesh = self._part_mesh[:used]
        shiny = (mesh >= 0) & (self._parts["material"][:used, 3] > 0)
        keys = self._draw_keys()
        return frozenset(keys[1 + int(i)] if i < self._first_mesh else "draw" for i in mesh[shiny])

    def _specialise(self) -> None:
        """(Re)make the draw pipelines when the lights' kinds, the parts' needs (texture
        mappings, specular) or the parts that reflect are other than those they were made
        for. llvmpipe runs every branch a fragment might take, so each holds only the paths
        its parts and the lights take: a light's kind and pass are constants of its call (no
        light loop), a mapping, a specular term or a reflection no part of the pipeline has
        is not there."""
        wanted = _Specialisation(self._light_kinds(), self._fragment_needs(), self._reflective(),
                                 self.flat_texture is not None, self._origin())  # fmt: skip
        if wanted == self._specialised:
            return
        kinds, needs, reflective = wanted.light_kinds, wanted.needs, wanted.reflective
        calls, shadows, points = [], [], []
        for slot, (kind, own_pass) in enumerate(kinds):
            if kind == 0:
                continue  # off: adds nothing
            # a reflection, a transparent surface: every light in one pass (as MuJoCo's)
            own_pass = own_pass and not (self._mirror or self._transparent)
            shadow_map = self._shadow_lights.index(slot) if slot in self._shadow_lights else -1
            calls.append(f"add_light({slot}, {kind}, {shadow_map}, {str(own_pass).lower()}, "
                         "P, N, V, rgb, material, forward, two_sided, total, passes, "
                         "look_up);")  # fmt: skip
            if shadow_map >= 0 and kind == 2:  # LIT_GRID 3, directional: its shadowed share
                # of the vertex colours, its map's point interpolated from the vertices'
                # (the plane's shadow lookups: ~9% of a 256-cheetah frame, most of it this)
                points.append(f"v_shadow_point[{shadow_map}] = shadow_point({shadow_map}, "
                              f"world, N, -v_light_direction[{slot}].xyz);")  # fmt: skip
                shadows.append(f"lit += shadow_test({shadow_map}, v_shadow_point"
                               f"[{shadow_map}]) * v_lit[{1 + shadow_map}];")  # fmt: skip
            elif shadow_map >= 0:  # LIT_GRID 3: its shadowed share of the vertex colours
                shadows.append(f"lit += shadow_of({slot}, {kind}, {shadow_map}, P, N, "
                               f"forward) * v_lit[{1 + shadow_map}];")  # fmt: skip
        defines = (self._defines() + "\n#define LIGHT_CALLS " + " ".join(calls)
                   + "\n#define SHADOW_TERMS " + " ".join(shadows)
                   + "\n#define SHADOW_POINTS " + " ".join(points))  # fmt: skip
        made: list[Pipeline] = []
        variants = (False, True) if self._nearest else (False,)
        try:
            for nearest, key in ((n, k) for n in variants for k in self._draw_keys()):
                ray_kind = 0 if key == "draw" else RAY_MODE[key]
                used = needs[key]
                lit_grid = lit_grid_variant(used)
                if lit_grid == 3 and self._mirror:  # the mirror pass's colours (mirror_look)
                    lit_grid = 2  # are the fragment stage's: its corners lit there
                flags = {"TEXTURE_PLANAR": TEXTURE_PLANAR in used,
                         "TEXTURE_BOX": TEXTURE_BOX in used,
                         "TEXTURE_CUBE": bool(used & {TEXTURE_CUBE, TEXTURE_CUBE_Y_UP}),
                         "SPECULAR": "specular" in used,
                         "LIT_GRID": lit_grid,
                         "REFLECTION": key in reflective,
                         # every 2D image a part may show is the atlas's one: its own texture
                         "FLAT_TEXTURE": self.flat_texture is not None,
                         "TRANSPARENT_NEAREST": nearest}  # fmt: skip
                text = "".join(f"\n#define {k} {int(v)}" for k, v in flags.items())
                fill = {
                    **self._fill,
                    "defines": f"{defines}{text}\n#define RAY_KIND {ray_kind}",
                    "reflection": REFLECTION_ADD if key in reflective else "",
                }
                name = f"{key}_nearest" if nearest else key
                self.shader_sources[name] = {"vertex": VERTEX.format(**fill),
                                             "fragment": FRAGMENT.format(**fill)}  # fmt: skip
                made.append(self._draw_pipeline(key, self._depth_test, nearest=nearest))
        except BaseException:
            for pipeline in made:
                pipeline.release()
            raise
        old = (
            []
            if self._specialised is None
            else [self.pipeline, *(p for p, _ in self._ray_draws), *self._nearest_draws]
        )
        count = len(self._draw_keys())
        made, self._nearest_draws = made[:count], made[count:]
        self.pipeline = made[0]
        rays = zip(made[1:], self._draw_keys()[1:], strict=True)
        self._ray_draws = [(pipeline, self._mesh_index[key]) for pipeline, key in rays]
        self._specialised = wanted
        for pipeline in old:
            if not pipeline.released:
                pipeline.release()

    def _check_specialised(self, what: str) -> None:
        """After record(): whether the recorded pipelines still draw the lights and parts
        (a kind of light, a texture mapping or a specular material they lack makes the
        program stale: update() refuses it until the frame is recorded again)."""
        if self._recorded_views is None or self._specialised is None:
            return
        if self._transparent and self._sorted_ids() != self._recorded_ids:
            self._stale = (f"{what} after record(): the transparent pass draws its ids one "
                           "rank at a time, for as many as it held then; record the frame "
                           "again")  # fmt: skip
            return
        made = self._specialised
        kinds, needs, reflective = made.light_kinds, made.needs, made.reflective
        wanted = self._fragment_needs()
        if (self._light_kinds() != kinds
                or any(not wanted[k] <= drawn_by(needs[k]) for k in wanted)
                or not self._reflective() <= reflective):  # fmt: skip
            self._stale = (f"{what} after record(): the recorded pipelines were made for "
                           "other kinds of light, texture mappings or materials; record "
                           "the frame "
                           "again")  # fmt: skip

    def _draw_pipeline(self, key: str, depth_test: bool, *, nearest: bool = False) -> Pipeline:
        """The draw pipeline of `key`'s shader sources ("draw": every mesh); `nearest`: a
        transparent pass's second draw (depth and ids, depth written)."""
        meshes_layout = [
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
        ]
        return self._ctx.pipeline(
            vertex_shader=self.shader_sources[f"{key}_nearest" if nearest else key]["vertex"],
            fragment_shader=self.shader_sources[f"{key}_nearest" if nearest else key]["fragment"],
            # a ray-cast proxy's vertices are pulled from storage (_pull_proxies): no arrays
            vertex_layout=[] if key in PULLED_PROXIES else meshes_layout,
            # the depth output in the depth buffer: the nearest is the greatest, every
            # fragment's depth written (with no depth test: the last drawn, as an attachment)
            depth_test=depth_test or self._depth_buffer,
            depth_func=("greater" if depth_test else "always") if self._depth_buffer else "less",
            # transparent: blended over what is drawn, behind nothing (MuJoCo's depth mask)
            depth_write=nearest or not self._transparent or self._depth_buffer,
            blend="alpha" if self._transparent else "none",
            cull="front" if self._turned(key) else "back",
            clip_distances=4 if self._max_views > 1 else 0,  # each view to its tile
            multisample=not (self._single_sampled_planes and key == "ray_plane"),
            name="body_draw" if key == "draw" else f"body_draw_{key}",
        )

    def _origin(self) -> str:
        """The tiling's origin the draw pipelines are made for ("top" before set_views)."""
        return "top" if self.tiling is None else self.tiling.origin

    def _turned(self, key: str) -> bool:
        """Whether pipeline `key` culls front faces: a closed body shows half its
        triangles (meshes carry both sides). A reflection turns the triangles' winding over
        (a ray-cast proxy is laid out on screen: not), and so do views tiled upside down
        (origin "bottom": every draw's, the proxies' too)."""
        turned = self._mirror and key in ("draw", "ray_plane")
        return turned != (self._origin() == "bottom")

    # --- checks ----------------------------------------------------------------------------
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

    @staticmethod
    def _checked_outputs(outputs: Any) -> tuple[str, ...]:
        if isinstance(outputs, str) or not isinstance(outputs, Sequence):
            raise errors.BodyError(f"outputs must be a sequence of {OUTPUTS}, got {outputs!r}")
        asked = tuple(outputs)
        unknown = [o for o in asked if o not in OUTPUTS]
        if unknown or len(set(asked)) != len(asked):
            raise errors.BodyError(f"outputs must hold any of {OUTPUTS}, each once, got "
                                   f"{outputs!r}")  # fmt: skip
        return tuple(o for o in OUTPUTS if o in asked)  # attachment order

    def _defines(self) -> str:
        color, depth, ident = (o in self.outputs for o in OUTPUTS)
        shadows = ", ".join(str(i) for i in self._shadow_lights) or "0"
        shadow_count = len(self._shadow_lights)
        return (glsl_defines({"MULTI_VIEW": int(self._max_views > 1), "LIGHTS": self._max_lights,
                         "SHADE": int(self._shade), "SHADOW_MAPS": shadow_count,
                         "MIRROR": int(self._mirror), "TRANSPARENT": int(self._transparent)})
                + f"const int SHADOW_LIGHT[{max(shadow_count, 1)}] = int[]({shadows});\n"
                + glsl_defines({"SHADOW_BIAS": SHADOW_BIAS, "SHADOW_SLOPE_BIAS": SHADOW_SLOPE_BIAS,
                                "MIRROR_EPSILON": MIRROR_EPSILON,
                                "OUTPUT_COLOR": int(color), "OUTPUT_DEPTH": int(depth),
                                "OUTPUT_ID": int(ident), "DEPTH_LOCATION": int(color),
                                "DEPTH_BUFFER": int(self._depth_buffer),
                                "DEPTH_SCALE": DEPTH_SCALE,
                                # ids stored as id + 1 beside colour (its clear's red 0)
                                "ID_OFFSET": float(color),
                                "ID_LOCATION": int(color) + int(depth and not self._depth_buffer),
                                "SAMPLES": self.samples}))  # fmt: skip

    def _source_glsl(self) -> str:
        """The source's record declarations and accessors (see :mod:`.records`)."""
        return str(self._source.body_glsl())

    # --- meshes and looks ------------------------------------------------------------------
    @serialised
    def add_mesh(self, key: str, rows: np.ndarray) -> int:
        """Put a mesh (``(N, 6)`` float32 rows: position, normal; non-indexed triangles,
        counter-clockwise seen from outside) in the library under `key`; its index. A key
        already there keeps its first mesh."""
        rows = np.asarray(rows, np.float32)
        if rows.ndim != 2 or rows.shape[1] != 6 or len(rows) % 3 or not np.isfinite(rows).all():
            raise self.shape_error(f"mesh {key!r} must be finite (3n, 6) rows, got shape "
                                   f"{rows.shape}")  # fmt: skip
        return self._add_mesh(key, rows)

    def _add_mesh(self, key: str, rows: np.ndarray) -> int:
        index = self._mesh_index.get(key)
        if index is not None:
            return index
        if len(self._mesh_index) >= self._max_meshes:
            raise self.shape_error(f"the renderer holds {self._max_meshes} meshes already "
                                   "(each convex hull, triangle mesh, heightfield and soft "
                                   "body is one): raise max_meshes")  # fmt: skip
        unique, indices = meshes.indexed(rows)
        first, count = self._vertices_used, len(unique)
        first_index = self._indices_used
        if first + count > len(self._vertices) or first_index + len(indices) > len(self._indices):
            left = (len(self._vertices) - first, len(self._indices) - first_index)
            raise self.shape_error(
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
        self._draw_count[0] = index + 1 - self._first_mesh  # the mesh pipeline's commands
        if rows[:, :3].size and key not in {k for k, _, _ in BUILT_IN + RAY_PROXIES}:
            self._mesh_info[index] = (float(np.linalg.norm(rows[:, :3], axis=1).max()), -1, 0, 0)
        return index

    @property
    def max_ids(self) -> int:
        return len(self._looks)

    @property
    def mesh_count(self) -> int:
        return len(self._mesh_index)

    @serialised
    def set_look(
        self,
        body_id: int,
        shape: str,
        size: float | Sequence[float] | None = None,
        color: Sequence[float] | None = None,
    ) -> None:
        """Appearance of the records whose id is `body_id`: a built-in primitive by name
        (:func:`~hypergl.bodies.parts.named_parts`) and its `size`, or ``"none"`` (not
        drawn). :meth:`set_parts` takes any parts and meshes."""
        self._check_id(body_id)
        if shape == "none":
            self._drop_look(int(body_id))
            return
        if not isinstance(shape, str):
            raise self.shape_error(f"shape must be a name, got {shape!r}")
        if size is None:
            raise self.shape_error(f"shape {shape!r} needs a size")
        self.set_parts(body_id, named_parts(shape, size), color=color)

    @serialised
    def set_parts(
        self,
        body_id: int,
        parts: Sequence[Part],
        new_meshes: dict[str, np.ndarray] | None = None,
        color: Sequence[float] | None = None,
        material: Material | None = None,
    ) -> None:
        """Appearance of `body_id` as `parts`, adding `new_meshes` (key -> rows) first;
        `color` None: a colour of the palette by id; `material` (:class:`~hypergl.bodies.
        shading.Material`) None: matte, opaque, untextured."""
        self._check_id(body_id)
        rgb = check_color(PALETTE[int(body_id) % len(PALETTE)] if color is None else color)
        material = DEFAULT_MATERIAL if material is None else material
        if not isinstance(material, Material):
            raise self.shape_error(f"material must be a hypergl.bodies.Material, got {material!r}")
        if material.texture >= self._textures:
            raise self.shape_error(
                f"material texture {material.texture} is not in the "
                f"renderer's atlas ({self._textures} images: set_textures)"
            )
        self._set_parts(int(body_id), list(parts), new_meshes or {}, rgb, material.checked())

    @serialised
    def set_sort_radii(self, radii: Any) -> None:
        """A transparent pass's order: per body id, the radius its distance from each
        view's eye is taken less by (``mjr_render``'s ``camdist``: the distance less the
        geom's bounding radius; -1e10 puts an id last, as MuJoCo's planes). Each view draws
        its rows nearest first, then farthest first, as ``mjr_render`` draws its sorted list
        (ties by id; an id's rows all where its nearest row's key puts it); without
        radii (all 0) by distance alone."""
        try:
            radii = np.asarray(radii, np.float32)
        except (TypeError, ValueError):
            raise errors.BodyError(f"sort radii must be floats, got {radii!r}") from None
        if radii.shape != (len(self._looks),):
            raise errors.BodyError(f"sort radii must be {len(self._looks)} floats (one per "
                                   f"body id), got shape {radii.shape}")  # fmt: skip
        if not np.isfinite(radii).all():
            bad = int(np.flatnonzero(~np.isfinite(radii))[0])
            raise errors.BodyError(f"sort radii must be finite, got {radii[bad]} for body "
                                   f"id {bad}")  # fmt: skip
        self._looks[:, 2] = radii.view(np.uint32)

    def _check_id(self, body_id: Any) -> None:
        if isinstance(body_id, bool) or not isinstance(body_id, (int, np.integer)):
            raise TypeError(f"body id must be an int, got {body_id!r}")
        if not 0 <= body_id < len(self._looks):
            raise ValueError(f"body id {body_id} is outside 0..{len(self._looks) - 1} "
                             f"(raise max_ids)")  # fmt: skip

    def _set_parts(self, body_id: int, parts: list[Part], new_meshes: dict, rgb,
                   material: Material = DEFAULT_MATERIAL) -> None:  # fmt: skip
        old = self._look_parts.get(body_id)
        reuse = old is not None and old[1] == len(parts)  # a new look in the same slots
        if not reuse and self._parts_used + len(parts) > len(self._parts):
            raise self.shape_error(
                f"the renderer's {len(self._parts)} parts are used up (each body "
                "has one per piece: compounds and URDF links more): raise max_parts"
            )
        for key, rows in new_meshes.items():
            self._add_mesh(key, rows)
        meshes_of, modes = [], []
        for part in parts:
            if not isinstance(part, Part):
                raise self.shape_error(f"parts must be hypergl.bodies.Part, got {part!r}")
            if not isinstance(part.smooth, bool):
                raise self.shape_error(f"part {part.mesh!r}: smooth must be True or False, "
                                       f"got {part.smooth!r}")  # fmt: skip
            if part.smooth and part.mode != MODE_SOFT:
                raise self.shape_error(f"part {part.mesh!r}: smooth=True is for soft parts "
                                       f"(mode=MODE_SOFT), not mode {part.mode!r}")  # fmt: skip
            mesh = self._mesh_index.get(part.mesh)
            if mesh is None:
                raise self.shape_error(f"part mesh {part.mesh!r} is not in the renderer's "
                                       "library")  # fmt: skip
            mode = part.mode
            ray = RAYCAST.get((part.mesh, part.mode)) if self.primitives == "raycast" else None
            if ray is not None and min(part.scale) > 0:  # a proxy, intersected per fragment
                mode, mesh = ray[0], self._mesh_index[ray[1]]
            meshes_of.append(mesh)
            modes.append(mode)
        soft_first = self._soft_first(body_id) if any(p.mode == MODE_SOFT for p in parts) else 0
        if reuse:
            first = old[0]
        else:
            self._drop_look(body_id)
            first = self._parts_used
            self._parts_used += len(parts)
        for k, (part, mesh, mode) in enumerate(zip(parts, meshes_of, modes, strict=True)):
            soft = (float(soft_first), float(part.smooth), 0.0)
            scale = soft if part.mode == MODE_SOFT else part.scale
            self._parts[first + k] = (
                (*part.offset, mode), part.rotation, (*scale, mesh),
                (*(rgb * part.shade), material.alpha),
                (material.specular, material.shininess, material.emission, material.reflectance),
                (material.texture, material.mapping, 0.0, material.lit_grid), material.uv_map,
            )  # fmt: skip
            self._part_mesh[first + k] = mesh
        self._look_parts[body_id] = (first, len(parts))
        self._looks[body_id, :2] = (first, len(parts))
        self._regions_dirty = True
        self._check_specialised(f"body {body_id}'s look")

    def _drop_look(self, body_id: int) -> None:
        old = self._look_parts.pop(body_id, None)
        if old is not None:
            self._part_mesh[old[0] : old[0] + old[1]] = -1
            self._regions_dirty = True
        self._looks[body_id, :2] = 0

    def _soft_first(self, body_id: int) -> int:
        if body_id in self._soft_first_of:
            return self._soft_first_of[body_id]
        raise self.shape_error(f"body {body_id} has no soft-body vertices: add them with "
                               "add_soft_vertices first")  # fmt: skip

    @serialised
    def add_soft_vertices(self, body_id: int, count: int, source: Any = None,
                          staging: Buffer | None = None) -> int:  # fmt: skip
        """Room for `count` world-space vertices of soft body `body_id`, copied each frame
        from `staging` after the engine's ``upload(source, staging)``; the first vertex's
        index in :attr:`soft_vertices`. `source` None: the caller fills those rows itself
        (a compute pass of its own, recorded before :meth:`record`'s draws)."""
        if self._recorded_soft is not None:
            raise self.shape_error(
                "a soft body was made after renderer.record(): its vertices are "
                "uploaded by the recorded program, so record the frame again"
            )
        if self._soft_used + count > len(self.soft_vertices_view):
            raise self.shape_error(f"soft body {body_id} has {count} vertices, "
                                   f"{len(self.soft_vertices_view) - self._soft_used} are "
                                   "left: raise max_soft_vertices")  # fmt: skip
        first = self._soft_used
        if source is not None:
            self._soft.append((source, staging, first, count))
        self._soft_first_of[body_id] = first
        self._soft_used += count
        return first

    def _layout_regions(self) -> None:
        """Each mesh's instance list starts where the previous one's largest use ends (a
        part may appear `copies` times per view)."""
        meshes_used = self._part_mesh[: self._parts_used]
        counts = np.bincount(meshes_used[meshes_used >= 0], minlength=self._max_meshes)
        counts = counts[: self._max_meshes].astype(np.int64) * (self._view_count * self._copies)
        coarse = self._mesh_info[:, 1].astype(np.int64)
        sizes = counts.copy()
        for fine in np.nonzero(coarse >= 0)[0]:
            sizes[coarse[fine]] += counts[fine]  # a coarse list holds its fine mesh's too
        bases = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if bases[-1] + sizes[-1] > self._instance_capacity:
            raise self.shape_error("the instance lists outgrow max_parts: raise max_parts")
        self._mesh_info[:, 2] = sizes  # the room the expansion may fill (exact below 2**24)
        self._template[: self._max_meshes, 4] = bases
        self._template[self._max_meshes :, 4] = bases + self._instance_capacity
        for index in range(self._pulled):  # pulled: its list's corners from 4 x its first
            for command_set in (0, 1):
                row = index + command_set * self._max_meshes
                self._template[row, 3] = 4 * self._template[row, 4]
        self._regions_dirty = False

    _recorded_soft: int | None = None  # soft bodies the last record() uploads

    @serialised
    def update(self) -> None:
        """Lay out the instance lists after looks changed. Bridges extend it with their
        own per-frame bookkeeping; call once per frame, before ``submit``."""
        if (self._stale is None and self._recorded_views is not None
                and self._specialised is not None
                and self._light_kinds() != self._specialised.light_kinds):  # fmt: skip
            self._stale = ("the lights' kinds changed after record(): the recorded pipelines "
                           "were made for the kinds before; record the frame again")  # fmt: skip
        if self._stale is not None:
            raise self.shape_error(self._stale)
        if self._regions_dirty:
            self._layout_regions()
        self._write_lights()

    def _write_lights(self) -> None:
        """The lights' looks into their uniform block, every group's poses into the
        shading buffer (position, direction: two NumPy copies)."""
        self._light_looks[:] = self._lights[0]
        self._poses[..., :4] = self._lights["position"]
        self._poses[..., 4:8] = self._lights["direction"]
        if self._shadow_lights:
            self._poses[..., 8:12] = self.shadow_tiles
            self._poses[..., 12:28] = self.shadow_matrices.transpose(0, 1, 3, 2).reshape(
                *self.shadow_matrices.shape[:2], 16
            )  # column-major

    @serialised
    def write_extras(self, rows: Sequence[tuple[Any, int, Any]]) -> None:
        """Extra bodies drawn beside the source's records this frame: (position, id,
        rotation) each (characters, wheels: things a bridge reports only per object). With
        many views every view draws all of them (view ranges select source rows only)."""
        if len(rows) > len(self._extras):
            raise self.shape_error(f"{len(rows)} extra bodies (characters and wheels), more "
                                   f"than max_extras={len(self._extras)}")  # fmt: skip
        for row, (position, body_id, rotation) in enumerate(rows):
            self._extras[row] = (position, body_id, rotation)
        self._extra_count[0] = len(rows)

    @property
    def soft_vertices_view(self) -> np.ndarray:
        return self.soft_vertices.map(np.float32, (self.soft_vertices.size // 16, 4))

    # --- lights and textures ---------------------------------------------------------------
    @property
    def max_lights(self) -> int:
        return self._max_lights

    @property
    def lights(self) -> np.ndarray:
        """The light rows, (light_groups, max_lights) of :data:`~hypergl.bodies.shading.
        LIGHT_DTYPE`: a per-frame pose update is one NumPy write into it (after
        :meth:`set_lights` once, so that :meth:`set_camera` leaves them alone), applied by
        :meth:`update`. Colours, cones and kinds are group 0's for every group (the poses
        are each group's own)."""
        return self._lights

    @serialised
    def set_lights(self, rows: Any) -> None:
        """The lights: ``(max_lights,)`` rows of ``LIGHT_DTYPE`` for every group, or
        ``(light_groups, max_lights)``, one group per (:meth:`set_views`' ``light_groups``)."""
        table = np.asarray(rows)
        if table.dtype != LIGHT_DTYPE:
            raise self.shape_error(f"lights must be rows of hypergl.bodies.LIGHT_DTYPE, got "
                                   f"{table.dtype}")  # fmt: skip
        if table.shape not in ((self._max_lights,), (self._light_groups, self._max_lights)):
            raise self.shape_error(f"lights must be shaped ({self._max_lights},) or "
                                   f"({self._light_groups}, {self._max_lights}) (max_lights, "
                                   f"light_groups), got {table.shape}")  # fmt: skip
        values = table.view(np.float32).reshape(*table.shape, -1)
        if not np.isfinite(values).all():
            raise self.shape_error("light values must be finite")
        self._lights[:] = table
        self._own_lights = True
        self._check_specialised("set_lights")
        self._write_lights()

    @serialised
    def set_textures(self, atlas: TextureAtlas) -> None:
        """The images materials refer to (their indices in `atlas`); before :meth:`record`
        (the program binds the atlas it had then)."""
        if not isinstance(atlas, TextureAtlas):
            raise self.shape_error(f"set_textures takes a TextureAtlas, got {atlas!r}")
        if self._recorded_views is not None:
            raise self.shape_error("set_textures after record(): record the frame again")
        image = atlas.image()
        limit = self._ctx.limits["max_texture_size"]
        if max(image.shape[:2]) > limit:
            raise self.shape_error(f"the texture atlas is {image.shape[1]}x{image.shape[0]}, "
                                   f"above the context's max_texture_size {limit}")  # fmt: skip
        self.atlas.release()
        self.atlas = self._ctx.texture(image, filter="linear", wrap="clamp", name="body_atlas")
        if self.flat_texture is not None:
            self.flat_texture.release()
            self.flat_texture = None
        flat = atlas.flat_images()
        if len(flat) == 1:
            levels = atlas.levels(flat[0])
            self.flat_texture = self._ctx.texture(
                levels[0], mipmaps=levels[1:] or False, wrap="repeat", name="body_flat_texture"
            )
        self._texture_rects[:] = atlas.table()
        self._textures = len(atlas)
        self._atlas = atlas
        if self._sky is not None:  # the sky's faces from the new atlas
            self._make_sky_cube(self._sky[0])
            self._forget_sky()

    @serialised
    def set_sky(self, texture: int, distance: float, axes: Any = None) -> None:
        """Draw a sky behind the bodies: the cube map of the atlas at `texture` (its first
        face) looked up along each view ray, at the depth of a cylinder of radius and half
        height `distance` about the eye (along world z): what lies beyond it is hidden.
        `axes` (3x3, None: identity) turns world directions into the cube's. Before
        :meth:`record`."""
        if self._recorded_views is not None:
            raise self.shape_error("set_sky after record(): record the frame again")
        if not isinstance(distance, (int, float)) or not np.isfinite(distance) or distance <= 0:
            raise self.shape_error(f"sky distance must be a positive number, got {distance!r}")
        rotation = np.eye(3) if axes is None else np.asarray(axes, np.float64)
        if rotation.shape != (3, 3) or not np.isfinite(rotation).all():
            raise self.shape_error(f"sky axes must be a finite 3x3 matrix, got {axes!r}")
        self._make_sky_cube(texture)
        self._sky = (int(texture), float(distance), rotation)
        self._forget_sky()
        self._make_sky_pipeline()

    def _make_sky_cube(self, texture: Any) -> None:
        """The sky's GL cube map: the atlas's six faces from `texture` on with the mip
        chains the atlas built (mip_chain: as Mesa's glGenerateMipmap makes them, which
        llvmpipe took 150-350 ms a cube for), sampled as MuJoCo samples its skybox
        (LINEAR_MIPMAP_LINEAR, clamped to the edge, seamless): one sampler lookup a sky
        pixel, not the atlas's hand-written face choice and trilinear reads (256 cheetah
        worlds at 84x84 on llvmpipe: the sky 67 -> 60 ms CPU of a ~280 ms frame, 94 of 170
        picture views closer to MuJoCo's, none farther)."""
        rects = self._texture_rects[texture : texture + 6] if self._valid_sky(texture) else None
        if rects is None or not (rects[:, 2:] == rects[0, 2]).all():
            raise self.shape_error(
                f"sky texture {texture!r} is not a cube map of the atlas "
                f"({self._textures} images: set_textures first)"
            )
        faces = [self._atlas.levels(texture + f) for f in range(6)]
        levels = [np.stack(level) for level in zip(*faces, strict=True)]  # each (6, s, s, 4)
        if self.sky_cube is not None:
            self.sky_cube.release()
        self.sky_cube = self._ctx.texture(levels[0], cube=True, mipmaps=levels[1:],
                                          wrap="clamp", name="body_sky")  # fmt: skip

    def _valid_sky(self, texture: Any) -> bool:
        return (
            not isinstance(texture, bool)
            and isinstance(texture, (int, np.integer))
            and texture >= 0
            and texture + 6 <= self._textures
        )

    def _make_sky_pipeline(self) -> None:
        """The sky's pipeline, with the ground's test where a haze gives a ground (without
        it the sky's fragments skip it: the discard alone cost ~15% of the sky pass of 64
        cheetah worlds on llvmpipe, though it never fired)."""
        ground = self._haze is not None
        if self.sky_pipeline is not None:
            if self._sky_ground == ground:
                return
            self.sky_pipeline.release()
            self.sky_pipeline = None
        self.sky_pipeline = self._quad_pipeline(
            "sky", SKY_FRAGMENT, f"#define SKY_GROUND {int(ground)}\n#define SKY_UNDER 0",
            depth_test=True, depth_func="less",
        )  # fmt: skip
        self._sky_ground = ground

    def _quad_pipeline(self, key: str, fragment: str, defines: str, *, vertex: str | None = None,
                       **state: Any) -> Pipeline:  # fmt: skip
        """A pipeline of the sky's quads (SKY_VERTEX, or the finished source `vertex`) with
        `fragment` and `defines`, its sources in :attr:`shader_sources` under `key`; no
        depth written."""
        fill = {**self._fill, "defines": self._defines() + "\n#define RAY_KIND 0\n" + defines}
        sources = {"vertex": SKY_VERTEX.format(**fill) if vertex is None else vertex,
                   "fragment": fragment.format(**fill)}  # fmt: skip
        self.shader_sources[key] = sources
        return self._ctx.pipeline(vertex_shader=sources["vertex"],
                                  fragment_shader=sources["fragment"], depth_write=False,
                                  name=f"body_{key}", **state)  # fmt: skip

    @serialised
    def set_haze(self, point: Any, normal: Any, color: Sequence[float], ratio: float) -> None:
        """A haze where the ground plane through `point` (facing `normal`) meets the sky
        (:meth:`set_sky` first): MuJoCo's, a truncated cone about the eye's foot, of
        radius the sky's distance at the eye's height and (1 - `ratio`) of it at the plane,
        `color` (r, g, b, a) at most where its opacity peaks. Before :meth:`record`."""
        if self._sky is None:
            raise self.shape_error("set_haze needs a sky: call set_sky first")
        if self._recorded_views is not None:
            raise self.shape_error("set_haze after record(): record the frame again")
        at = np.asarray(point, np.float64)
        up = np.asarray(normal, np.float64)
        rgba = np.asarray(color, np.float64)
        if (
            at.shape != (3,)
            or up.shape != (3,)
            or rgba.shape != (4,)
            or not (np.isfinite(at).all() and np.isfinite(up).all() and np.isfinite(rgba).all())
            or not np.linalg.norm(up) > 0
        ):
            raise self.shape_error(f"set_haze takes a point, a non-zero normal and (r, g, b, "
                                   f"a), got {point!r}, {normal!r}, {color!r}")  # fmt: skip
        if not isinstance(ratio, (int, float)) or not 0 < ratio < 1:
            raise self.shape_error(f"haze ratio must be in (0, 1), got {ratio!r}")
        # The opaque height: where the cone's wall, seen from its axis at the top, turns
        # from the plane's side to the sky's (MuJoCo's construction of its haze).
        alpha = np.arctan2(1.0, ratio)
        peak = np.sqrt(0.5) * ratio * np.sin(alpha) / np.sin(0.75 * np.pi - alpha)
        self._haze = ((*at, 0.0), (*(up / np.linalg.norm(up)), 0.0), tuple(rgba),
                      (float(ratio), float(peak), 0.0, 0.0))  # fmt: skip
        self._make_sky_pipeline()  # the sky's fragments test the ground now
        if self.haze_pipeline is None:
            self.haze_pipeline = self._quad_pipeline("haze", HAZE_FRAGMENT, "", depth_test=True,
                                                     depth_func="less", blend="alpha")  # fmt: skip

    @serialised
    def set_shadow_map(self, texture: Texture) -> None:
        """The depth texture the shadow lights' maps are tiles of (a framebuffer's
        ``depth_texture``, drawn before this renderer draws: e.g. by a renderer made with
        ``shade=False`` whose views are the lights'); write each light's view-projection
        and tile into :attr:`shadow_matrices` and :attr:`shadow_tiles` (applied by
        :meth:`update`). Before :meth:`record`."""
        if not self._shadow_lights:
            raise self.shape_error("set_shadow_map: the renderer was made without shadow_lights")
        if not isinstance(texture, Texture):
            raise self.shape_error(f"set_shadow_map takes a depth Texture, got {texture!r}")
        if self._recorded_views is not None:
            raise self.shape_error("set_shadow_map after record(): record the frame again")
        self.shadow_map = texture

    def _mirror_plane(self, normal: Any, point: Any) -> tuple[float, ...]:
        """(normal, -normal . point) of a plane, the normal of unit length; BodyError
        naming the values when they are not a finite point and a non-zero normal."""
        n = np.asarray(normal, np.float64)
        p = np.asarray(point, np.float64)
        if (
            n.shape != (3,)
            or p.shape != (3,)
            or not (np.isfinite(n).all() and np.isfinite(p).all())
            or not np.linalg.norm(n) > 0
        ):
            raise self.shape_error(f"a mirror plane takes a finite non-zero normal and a "
                                   f"finite point, got {normal!r}, {point!r}")  # fmt: skip
        n = n / np.linalg.norm(n)
        return (*(float(v) for v in n), float(-n @ p))

    @serialised
    def set_mirror(self, normal: Any, point: Any, reflectance: float) -> None:
        """The plane a renderer made with ``mirror=True`` reflects in (through `point`,
        facing `normal`: its front, where the eye is) and the `reflectance` (0..1] that
        scales the reflected colours. Give it views whose cameras are the main views'
        reflected in the plane (their view-projection times the reflection). Before
        :meth:`record`."""
        if not self._mirror:
            raise self.shape_error("set_mirror: the renderer was made without mirror=True")
        if self._recorded_views is not None:
            raise self.shape_error("set_mirror after record(): record the frame again")
        if not isinstance(reflectance, (int, float)) or not 0 < reflectance <= 1:
            raise self.shape_error(f"reflectance must be in (0, 1], got {reflectance!r}")
        plane = self._mirror_plane(normal, point)
        self._mirror_uniforms = (plane, (float(reflectance), 0.0, 0.0, 0.0))

    @serialised
    def set_reflection(self, texture: Texture, normal: Any, point: Any) -> None:
        """Add the mirror pass's picture (`texture`: the colour of a mirror renderer's
        framebuffer, tiled as this renderer's views) where a reflective part lies on the
        plane through `point` facing `normal`, seen from its front. Before :meth:`record`."""
        if self._mirror:
            raise self.shape_error("set_reflection: a mirror pass reflects nothing itself")
        if not isinstance(texture, Texture):
            raise self.shape_error(f"set_reflection takes a colour Texture, got {texture!r}")
        if self._recorded_views is not None:
            raise self.shape_error("set_reflection after record(): record the frame again")
        plane = self._mirror_plane(normal, point)
        self._mirror_uniforms = (plane, (0.0, 0.0, 0.0, 0.0))
        self.reflection = texture

    @property
    def has_sky(self) -> bool:
        """Whether :meth:`set_sky` gave this renderer a sky."""
        return self._sky is not None

    @property
    def has_haze(self) -> bool:
        """Whether :meth:`set_haze` gave this renderer a haze."""
        return self._haze is not None

    @property
    def receives_shadows(self) -> bool:
        """Whether this renderer was made with ``shadow_lights`` (takes :meth:`set_shadow_map`)."""
        return bool(self._shadow_lights)

    @property
    def view_tiles(self) -> np.ndarray:
        """Each view's tile (xy scale, zw offset of its clip space into the framebuffer's),
        as :meth:`set_views` laid them out."""
        if self.tiling is None:
            raise errors.BodyError("view_tiles: call set_views first")
        return self._views["tile"][: self._view_count].copy()

    @serialised
    def record_resolved_sky(self, cmd: CommandBuffer, resolved: Framebuffer,
                            picture: Framebuffer) -> None:  # fmt: skip
        """Copy `resolved` into `picture` (of its size; bound here) and draw the sky
        single-sampled under it: `resolved` a resolve of the multisampled passes recorded
        with ``sky=False`` after :meth:`record_clear` with ``coverage=True``, its colour's
        alpha the share of each pixel's samples covered. A pixel not covered whole gets its
        colour plus (1 - coverage) of the sky: the multisampled sky's picture without its
        4 samples' raster and depth tests, its lookups only where the sky shows. Nothing is
        hidden behind the sky: the multisampled pass's sky hides what lies beyond its quad
        (nearer than its cylinder), MuJoCo's what lies beyond its cylinder. No haze (it
        blends over the sky and what lies beyond its cone, by depth: draw the sky in the
        multisampled pass). `resolved` may be the multisampled framebuffer itself (its
        :meth:`~hypergl.Framebuffer.sample_texture`): then one pass averages each pixel's
        samples and adds the sky under them, with no resolve and no copy.

        The sky's colours come from a cache (:attr:`sky_cache`, rgba8): a view's sky
        depends on its camera's rotation and projection alone (not where it is), so a
        compute pass compares each view's with those its cached sky was drawn for (on the
        GPU, as the frame runs) and the cube is looked up again only in the views whose
        changed (a fixed or tracking camera's: never after the first frame)."""
        if self._sky is None:
            raise self.shape_error("record_resolved_sky needs a sky: call set_sky first")
        if self._haze is not None:
            raise self.shape_error("record_resolved_sky draws no haze: record the sky in the "
                                   "multisampled pass (record with sky=True)")  # fmt: skip
        for name, target in (("resolved", resolved), ("picture", picture)):
            if not isinstance(target, Framebuffer):
                what = "resolved" if name == "resolved" else "drawn"
                raise TypeError(f"{name} must be the hypergl.Framebuffer {what} into, "
                                f"got {target!r}")  # fmt: skip
        size = tuple(resolved.size)
        if tuple(picture.size) != size:
            raise ValueError(f"picture must be of resolved's size {size}, "
                             f"got {tuple(picture.size)}")  # fmt: skip
        fused = resolved.samples > 0  # the samples themselves: resolved by the sky's pass
        self._make_sky_cache(size, resolved.samples)
        assert self.sky_cache is not None
        views = self._view_count if self._max_views > 1 else 1
        # which views' skies changed since the cache drew them
        cmd.bind_pipeline(self.sky_check_pipeline)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        self._bind_views(cmd)
        cmd.bind_storage_buffer(self.sky_cache, self._bindings["sky"])
        cmd.li(0, views)
        cmd.uniform_i(0, 0)
        cmd.dispatch(-(-views // 64), 1)
        cmd.barrier()  # the stale flags, before the cache pass's vertices read them
        # their skies into the cache (the other views' quads fall outside the framebuffer;
        # what they draw into the picture the copy below replaces)
        cmd.bind_framebuffer(picture)
        self._bind_sky_cache(cmd, self.sky_cache_pipeline, size)
        cmd.draw(6, instances=views)
        cmd.barrier()  # the cache's colours, before the sky under the resolve reads them
        # The sky under the resolve: one full-screen triangle, not a quad a view (its
        # fragments need no view's data, only their pixel's): 256 quads' triangles cost
        # llvmpipe ~4 of the fused pass's ~28 ms CPU in a 256-cheetah frame (their edges'
        # blocks, shaded once a triangle; their vertex stage's inverses).
        if fused:  # every pixel written: the samples averaged, the sky under them
            cmd.bind_framebuffer(picture)
            self._bind_sky_cache(cmd, self.fused_sky_pipeline, size, quads=False)
            cmd.bind_texture(resolved.sample_texture(0), RESOLVED_UNIT)
            cmd.draw(3)
            return
        cmd.resolve_framebuffer(resolved, picture)  # what a pixel covered whole keeps
        cmd.bind_framebuffer(picture)
        self._bind_sky_cache(cmd, self.resolved_sky_pipeline, size, quads=False)
        cmd.bind_texture(resolved.color_texture(0), RESOLVED_UNIT)
        cmd.draw(3)

    def _bind_sky_cache(self, cmd: CommandBuffer, pipeline: Any, size: tuple[int, int], *,
                        quads: bool = True) -> None:  # fmt: skip
        """A sky `pipeline` bound with the cache and its row's width: the sky's quads' with
        their buffers, cube map and uniforms (:meth:`_bind_sky`), or (`quads` False) a
        full-screen triangle's, which has none of those: a location its program does not
        declare may be one GL gave another uniform (the quads' haze_pass, 8, was the fused
        pass's sampler: set to 0, it read unit 0, and the picture lost every body)."""
        if quads:
            self._bind_sky(cmd, pipeline)
        else:
            cmd.bind_pipeline(pipeline)
        cmd.bind_storage_buffer(self.sky_cache, self._bindings["sky"])
        cmd.li(0, size[0])
        cmd.uniform_i(0, 9)

    def _make_sky_cache(self, size: tuple[int, int], samples: int = 0) -> None:
        """record_resolved_sky's pipelines and cache (for a framebuffer of `size`: made
        again, every view's sky forgotten, for another size); `samples` > 0: the pipeline
        that resolves that many samples a pixel with the sky under them."""
        if samples and self._fused_samples != samples:
            if self.fused_sky_pipeline is not None:
                self.fused_sky_pipeline.release()
            self.fused_sky_pipeline = self._quad_pipeline(
                "fused_sky", SKY_FRAGMENT,
                f"#define SKY_GROUND 0\n#define SKY_UNDER 2\n#define SKY_SAMPLES {samples}",
                vertex=FULL_SCREEN_VERTEX, depth_test=False,
            )  # fmt: skip
            self._fused_samples = samples
        if self.resolved_sky_pipeline is None:
            self.resolved_sky_pipeline = self._quad_pipeline(
                "resolved_sky", SKY_FRAGMENT, "#define SKY_GROUND 0\n#define SKY_UNDER 1",
                vertex=FULL_SCREEN_VERTEX, depth_test=False,
            )  # fmt: skip
            self.sky_cache_pipeline = self._quad_pipeline(
                "sky_cache", SKY_FRAGMENT,
                "#define SKY_GROUND 0\n#define SKY_UNDER 0\n#define SKY_CACHE 1",
                depth_test=False,
            )  # fmt: skip
            source = SKY_CHECK.format(**self._fill)
            self.shader_sources["sky_check"] = {"compute": source}
            self.sky_check_pipeline = self._ctx.pipeline(compute_shader=source,
                                                         name="body_sky_check")  # fmt: skip
        if self.sky_cache is None or self._sky_cache_size != size:
            if self.sky_cache is not None:
                self.sky_cache.release()
            colors = size[0] * size[1] * 4  # rgba8 a pixel
            self.sky_cache = self._ctx.buffer(size=self._max_views * SKY_KEY_BYTES + colors,
                                              name="body_sky_cache")  # fmt: skip
            self._sky_cache_size = size
            self._forget_sky()

    def _forget_sky(self) -> None:
        """Every view's cached sky redrawn by the next frame (a new cube, axes or cache)."""
        if self.sky_cache is not None:
            self.sky_cache.write(np.full(self._max_views * SKY_KEY_BYTES, 0xFF, np.uint8))

    def _record_sky(self, cmd: CommandBuffer) -> None:
        """The multisampled pass's sky (its ground test with a haze), then the haze."""
        if self._sky is None or self.sky_pipeline is None:
            return
        sky = self._bind_sky(cmd, self.sky_pipeline)
        if self._haze is not None:  # the ground (the pipeline has its test: SKY_GROUND)
            for location, value in enumerate(self._haze[:2], start=4):
                cmd.uniform_const(location, value, "vec4")
        instances = self._view_count if self._max_views > 1 else 1
        cmd.draw(6, instances=instances)
        if self._haze is not None and self.haze_pipeline is not None:
            cmd.bind_pipeline(self.haze_pipeline)
            cmd.bind_uniform_buffer(self.camera, self._camera_binding)
            self._bind_views(cmd)
            cmd.uniform_const(0, sky, "vec4")
            cmd.li(0, 1)
            cmd.uniform_i(0, 8)
            for location, value in enumerate(self._haze, start=4):
                cmd.uniform_const(location, value, "vec4")
            cmd.draw(6, instances=instances)

    def _bind_sky(self, cmd: CommandBuffer, pipeline: Pipeline) -> tuple[float, ...]:
        """A sky `pipeline` bound with its buffers, cube map and uniforms; the `sky` uniform."""
        assert self._sky is not None and self.sky_cube is not None
        _, distance, rotation = self._sky
        cmd.bind_pipeline(pipeline)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        self._bind_views(cmd)
        cmd.bind_texture(self.sky_cube, SKY_UNIT)
        # The quads' depths: the nearest the cylinder (and the haze's cone, 1 - ratio of it)
        # comes along the view within 60 degrees of it.
        near = SKY_NEAREST * distance
        haze_near = near * (1.0 - self._haze[3][0]) if self._haze is not None else near
        sky = (0.0, distance, near, haze_near)  # x unused
        cmd.uniform_const(0, sky, "vec4")
        cmd.li(0, 0)
        cmd.uniform_i(0, 8)
        for row in range(3):
            cmd.uniform_const(1 + row, (*rotation[row], 0.0), "vec4")
        return sky

    # --- cameras and views -----------------------------------------------------------------
    @staticmethod
    def _checked_matrix(view_proj: Any, what: str = "view_proj") -> np.ndarray:
        try:
            matrix = np.asarray(view_proj, dtype=np.float64)
        except (TypeError, ValueError):
            raise errors.BodyError(f"{what} must be a 4x4 matrix, got {view_proj!r}") from None
        if matrix.shape != (4, 4):
            raise errors.BodyError(f"{what} must be a 4x4 matrix, got shape {matrix.shape}")
        check_within(matrix, lambda _: what, errors.BodyError, items=0)
        return matrix.astype(np.float32)

    @serialised
    def set_camera(self, view_proj: Any, light: Sequence[float] = (0.3, 1.0, 0.5)) -> None:
        """The view-projection matrix (row-major, column vectors) and a light direction."""
        matrix = self._checked_matrix(view_proj)
        direction = np.asarray(light, dtype=np.float64)
        length = float(np.linalg.norm(direction)) if direction.shape == (3,) else 0.0
        if not np.isfinite(length) or length == 0.0:
            raise ValueError(f"light must be a finite, non-zero (x, y, z), got {light!r}")
        if not self._own_lights:  # the one light of a renderer nobody gave lights
            self._lights[:] = lights(1)[0]
            self._lights[:, 0] = default_lights(direction)[0]
            self._write_lights()
        # the light of unit length: the fragment shader skips normalize; the eye: the
        # ray-cast parts' rays' origin
        self.camera.write(camera_record(matrix, eye_of(matrix), direction / length, self._lod))
        if self._regions_dirty:
            self._layout_regions()

    @serialised
    def set_views(
        self,
        cameras: Sequence[Any],
        tile: tuple[int, int],
        *,
        ranges: Sequence[tuple[int, int]] | None = None,
        columns: int | None = None,
        light_groups: Sequence[int] | None = None,
        origin: str = "top",
    ) -> None:
        """Tile ``len(cameras)`` views of ``tile = (width, height)`` pixels into one
        framebuffer (:meth:`framebuffer_size`); view k draws record rows
        ``ranges[k] = (first, count)`` (None: all rows) with ``cameras[k]`` (a 4x4
        view-projection matrix). Needs ``views=`` at least that many at construction.
        ``origin`` (:class:`~hypergl.bodies.views.Tiling`'s): "top", or "bottom" (each view
        upside down, row 0 at the bottom: in one column a read holds the views as
        :meth:`read_views` returns them, with no rearranging pass); another origin than
        the recorded program's pipelines were made for needs a new recording."""
        if self._max_views == 1:
            raise errors.BodyError("set_views needs a renderer made with views > 1 "
                                   "(this one draws one view: set_camera)")  # fmt: skip
        count = len(cameras)
        if not 1 <= count <= self._max_views:
            raise errors.BodyError(f"{count} views asked, the renderer was made for "
                                   f"1..{self._max_views}")  # fmt: skip
        matrices = [self._checked_matrix(c, f"camera {k}") for k, c in enumerate(cameras)]
        capacity = self._source.capacity
        if ranges is None:
            ranges = [(0, capacity)] * count
        if len(ranges) != count:
            raise errors.BodyError(f"{len(ranges)} ranges for {count} views")
        checked = []
        for k, pair in enumerate(ranges):
            try:
                first, rows = (int(v) for v in pair)
            except (TypeError, ValueError):
                raise errors.BodyError(f"range {k} must be (first, count), got {pair!r}") from None
            if first < 0 or rows < 0 or first + rows > capacity:
                raise errors.BodyError(f"range {k} = {pair!r} is outside the source's "
                                       f"{capacity} rows")  # fmt: skip
            checked.append((first, rows))
        width, height = (_positive_int(v, "tile size") for v in tile)
        tiling = Tiling.grid(count, (width, height), columns, origin)
        widest = max(rows for _, rows in checked)
        recorded = self._recorded_views
        if recorded is not None and (count > recorded[0] or widest > recorded[1]):
            raise errors.BodyError("more views or rows than the recorded program "
                                   "dispatches: record the frame again")  # fmt: skip
        groups = np.zeros(count, np.uint32)
        if light_groups is not None:
            groups = np.asarray(light_groups)
            if (
                groups.shape != (count,)
                or groups.dtype.kind not in "iu"
                or (count and not (groups.min() >= 0 and groups.max() < self._light_groups))
            ):
                raise errors.BodyError(
                    f"light_groups must be {count} ints in "
                    f"0..{self._light_groups - 1}, got {light_groups!r}"
                )
        self._views[:count] = tile_views(matrices, checked, tiling)
        self._views["range"][:count, 3] = groups
        self._views[count:] = np.zeros(1, VIEW_DTYPE)
        self._view_count, self._view_rows = count, widest
        self.tiling = tiling
        if recorded is not None and self._specialised and self._specialised.origin != origin:
            self._stale = (f"set_views(origin={origin!r}) after record(): the recorded "
                           "pipelines cull for the other origin; record the frame "
                           "again")  # fmt: skip
        self._regions_dirty = True
        self._layout_regions()

    _recorded_views: tuple[int, int] | None = None  # (views, rows) the recording dispatches
    _recorded_ids = (0, 0, 0)  # the transparent pass's ids when recorded (_sorted_ids)

    @serialised
    def set_view_matrices(self, view_proj: Any, depth: Any = None) -> None:
        """New cameras for the views :meth:`set_views` laid out, keeping their tiles and
        ranges: `view_proj` (views, 4, 4), row-major, written in one NumPy call (a
        per-frame camera update of many views without a Python loop over them).

        `depth` (views, 4): per view, the row whose dot product with a world point (x, y,
        z, 1) is the depth output, metres along the view axis: (forward, -forward .
        camera position). None: each matrix's last row (clip w), which is that for a
        perspective camera; an orthographic camera's clip w is 1, and its matrix does not
        say where the camera is, so its depth in metres needs the row."""
        if self.tiling is None:
            raise errors.BodyError("set_view_matrices: call set_views first")
        try:
            matrices = np.asarray(view_proj, dtype=np.float64)
        except (TypeError, ValueError):
            raise errors.BodyError(f"view_proj must be {self._view_count} finite 4x4 "
                                   f"matrices, got {view_proj!r}") from None  # fmt: skip
        if matrices.shape != (self._view_count, 4, 4):
            raise errors.BodyError(f"view_proj must be {self._view_count} finite 4x4 matrices, "
                                   f"got shape {matrices.shape}")  # fmt: skip
        matrices = check_within(matrices, lambda at: f"view_proj of view {at[0]}",
                                  errors.BodyError).astype(np.float32)  # fmt: skip
        if depth is None:
            rows = matrices[:, 3]
        else:
            try:
                rows = np.asarray(depth, dtype=np.float64)
            except (TypeError, ValueError):
                raise errors.BodyError(f"depth must be {self._view_count} finite rows of 4, "
                                       f"got {depth!r}") from None  # fmt: skip
            if rows.shape != (self._view_count, 4):
                raise errors.BodyError(f"depth must be {self._view_count} finite rows of 4, "
                                       f"got shape {rows.shape}")  # fmt: skip
            rows = check_within(rows, lambda at: f"depth row of view {at[0]}",
                                errors.BodyError).astype(np.float32)  # fmt: skip
        column_major = matrices.transpose(0, 2, 1).reshape(self._view_count, 16)
        self._views["view_proj"][: self._view_count] = column_major
        self._views["eye"][: self._view_count] = eye_of(matrices)  # ray-cast parts' origin
        self._views["depth"][: self._view_count] = rows

    @property
    def framebuffer_size(self) -> tuple[int, int]:
        """(width, height) the tiled views cover (multi-view: after :meth:`set_views`)."""
        if self.tiling is None:
            raise errors.BodyError("framebuffer_size: call set_views first")
        return self.tiling.size

    @serialised
    def framebuffer(self, size: tuple[int, int] | None = None, *, name: str | None = None
                    ) -> Framebuffer:  # fmt: skip
        """A framebuffer with this renderer's outputs as colour attachments and depth24
        (without colour: the depth output in depth32f, no attachment of its own); `size`
        None: :attr:`framebuffer_size`. Multisampled with :attr:`samples` (edges
        antialiased, resolved at each read): for the colour output alone, since a depth or
        id output would resolve to a blend of the surfaces at an edge, not one of them."""
        size = self.framebuffer_size if size is None else size
        if self.samples and self.outputs != ("color",):
            raise errors.BodyError(f"a multisampled framebuffer ({self.samples} samples) "
                                   f"takes the color output alone, not {self.outputs}")  # fmt: skip
        color = tuple(OUTPUT_FORMATS[o] for o in self._attachments())
        return self._ctx.framebuffer(size, color=color, name=name,
                                     depth="depth32f" if self._depth_buffer else "depth24",
                                     samples=self.samples)  # fmt: skip

    @serialised
    def record_clear(self, cmd: CommandBuffer, background: Sequence[float] = (0, 0, 0), *,
                     coverage: bool = False) -> None:  # fmt: skip
        """Clear the bound framebuffer: colour `background`, depth +inf, id -1. `coverage`:
        the colour's alpha 0, so that it holds the share of each pixel the bodies cover
        after a resolve (:meth:`record_resolved_sky`)."""
        rgb = check_color(background)
        if "color" not in self.outputs:  # the ids alone are colour: -1 is none, as they are
            cmd.clear(color=(-1.0, 0.0, 0.0, 0.0), depth=0.0 if self._depth_buffer else 1.0)
            return
        cmd.clear(color=(*rgb, 0.0 if coverage else 1.0), depth=1.0)
        # The depth and id outputs are stored as 1 / metres and id + 1 (see read), so a
        # clear whose red is 0 sets them right; else a full-screen pass writes them (on
        # llvmpipe that pass cost 11 ms of a 39 ms frame of 256 tiled views).
        if self.background_pipeline is not None and rgb[0] != 0.0:
            cmd.bind_pipeline(self.background_pipeline)
            cmd.uniform_const(0, (*rgb, 1.0), "vec4")
            cmd.draw(3)

    @serialised
    def read(self, framebuffer: Framebuffer, *, miss_depth: float = np.inf
             ) -> dict[str, np.ndarray]:  # fmt: skip
        """The outputs, top row first: ``color`` (H, W, 3) uint8, ``depth`` (H, W)
        float32 metres (`miss_depth` where nothing was hit, and never beyond it: the far
        plane's), ``id`` (H, W) int32 (-1: none)."""
        out: dict[str, np.ndarray] = {}
        for name, reader in self._staging_readers(framebuffer).items():
            source = _pixels(reader)[::-1]  # top row first, no copy
            out[name] = self._decoded(name, source, source.shape[:2], miss_depth,
                                      "color" not in self.outputs)  # fmt: skip
        return out

    @serialised
    def read_views(self, framebuffer: Framebuffer, *, miss_depth: float = np.inf
                   ) -> dict[str, np.ndarray]:  # fmt: skip
        """:meth:`read`'s outputs split into the views (:meth:`split_views`), each a new
        contiguous ``(views, H, W, ...)`` array. Each attachment is read bottom row first
        into an array kept for `framebuffer` (checked once), then turned over, split and
        converted by one NumPy pass into the views' own layout: a read, a flip, a
        conversion and a split copy took 4 passes (1.9 of a 7 ms depth and segmentation
        frame of 64 tiled cheetah worlds on llvmpipe). One column tiled from the bottom
        (:meth:`set_views`' ``origin``) is read in that layout already: the pass runs over
        contiguous rows (its 0.5 ms there 0.3)."""
        if self.tiling is None:
            raise errors.BodyError("read_views: call set_views first")
        tiling = self.tiling
        views, (width, height) = tiling.views, tiling.tile
        shape = (tiling.rows * tiling.columns, height, width)
        out: dict[str, np.ndarray] = {}
        for name, reader in self._staging_readers(framebuffer).items():
            read = _pixels(reader)  # bottom row first
            source = tiling.grid_view(read[::-1] if tiling.origin == "top" else read)
            out[name] = self._decoded(name, source, shape, miss_depth,
                                      "color" not in self.outputs)[:views]  # fmt: skip
        return out

    @staticmethod
    def _decoded(name: str, source: np.ndarray, shape: tuple[int, ...], miss_depth: float,
                 bare: bool) -> np.ndarray:  # fmt: skip
        """Output `name` of the pixels `source` (any strides, a component axis last) in a
        new contiguous array of `shape` (then that axis for colour): one NumPy pass from
        `source` into it (colour as read; depth stored as 1 / metres, 0 where nothing was
        hit; ids stored as id + 1, exact as a float below 2^24), then for depth the miss
        value (unless inf) and for ids the 1, in place. `bare` (a renderer without colour):
        the depth buffer's DEPTH_SCALE / metres, and the ids as they are (cleared to -1), in
        the one pass. (NumPy's SIMD loops take two contiguous operands: 1 / x as a divide,
        a miss value as a tile-sized array and the ids' cast apart from their subtraction:
        0.3 of the 1 ms of 64 cheetah worlds'.)"""
        if name == "color":
            image = np.empty((*shape, source.shape[-1]), np.uint8)
            np.copyto(image.reshape(source.shape), source)
        elif name == "depth":
            image = np.empty(shape, np.float32)
            # the depth buffer's DEPTH_SCALE / metres (a float32 of it: exact) or 1 / metres
            scale = np.float32(DEPTH_SCALE if bare else 1.0)
            with np.errstate(divide="ignore"):
                np.divide(scale, source, out=image.reshape(source.shape))
            if miss_depth != np.inf:  # the misses' inf, and no hit lies beyond
                np.minimum(image, np.full(shape[1:], miss_depth, np.float32), out=image)
        else:
            image = np.empty(shape, np.int32)
            np.copyto(image.reshape(source.shape), source, casting="unsafe")
            if not bare:
                np.subtract(image, np.int32(1), out=image)
        return image

    def _staging_readers(self, framebuffer: Framebuffer) -> dict[str, Any]:
        """A reader of each output's attachment of `framebuffer` into an array kept for it,
        made at the first read of that framebuffer: the depth and the ids share one (each
        is decoded before the next is read: a frame touches 1.8 MB less of the caches at 64
        worlds of 84 x 84)."""
        if self._staging is not None and self._staging[0] is framebuffer:
            return self._staging[1]
        if not isinstance(framebuffer, Framebuffer):
            raise TypeError(f"framebuffer must be a hypergl.Framebuffer, got {framebuffer!r}")
        width, height = framebuffer.size
        floats = np.empty((height, width, 1), np.float32)
        readers = {}
        kept = self._attachments()
        for name in self.outputs:
            attachment = "depth" if name not in kept else f"color{kept.index(name)}"
            if name == "color":
                into = np.empty((height, width, 3), np.uint8)
                readers[name] = framebuffer.reader(into, attachment=attachment, components=3)
            else:  # (the depth buffer's reads are (height, width))
                into = floats if attachment != "depth" else floats.reshape(height, width)
                readers[name] = framebuffer.reader(into, attachment=attachment, components=1)
        self._staging = (framebuffer, readers)
        return readers

    def _attachments(self) -> list[str]:
        """The outputs with a colour attachment each, in order (not a depth kept in the
        depth buffer)."""
        return [o for o in self.outputs if not (o == "depth" and self._depth_buffer)]

    @serialised
    def split_views(self, image: np.ndarray) -> np.ndarray:
        """(views, tile height, tile width, ...) of a read of the tiled framebuffer."""
        if self.tiling is None:
            raise errors.BodyError("split_views: call set_views first")
        return self.tiling.split(image)

    # --- recording -------------------------------------------------------------------------
    def _record_sync(self, cmd: CommandBuffer) -> None:
        """The source's sync and the soft bodies' vertex copies."""
        self._source.record(cmd)
        for source, staging, first, count in self._soft:
            cmd.upload(source, staging)
            cmd.copy_buffer(staging, self.soft_vertices, count * 16, dst_offset=first * 16)

    @serialised
    def record_sync(self, cmd: CommandBuffer) -> None:
        """Record the frame's sync alone: a wait for the previous frame's draws (so no
        record is overwritten while the GPU reads it), then the source's sync and the soft
        bodies' vertex copies. A program of it is the snapshot of a pipelined frame
        (:mod:`hypergl.pipelining`), drawn by a program recorded with ``sync=False``."""
        cmd.fence_wait(self.fence)  # no-op the first time
        self._record_sync(cmd)
        self._recorded_soft = len(self._soft)

    @serialised
    def record(
        self,
        cmd: CommandBuffer,
        *,
        sync: bool = True,
        occlusion: Framebuffer | None = None,
        sky: bool = True,
    ) -> None:
        """Record (optionally) the syncs, then the GPU expansion and the multi-draw.

        Bind and clear the framebuffer before (:meth:`record_clear` with extra outputs);
        nothing here depends on the body count. Soft bodies added after this call need a
        new recording; so do more views or a wider row range than :meth:`set_views` gave.

        ``occlusion`` (one view only): the framebuffer bound for these draws (it needs a
        depth texture). The parts seen last frame are drawn first; the rest are tested
        against the depth then on screen (the farthest depth of each 4 x 4 and 16 x 16
        pixel tile), and only those not behind it are drawn: what it culls was hidden, so
        the picture is the same. Draw the other opaque things of the frame (ground,
        scenery) before this call, so that they hide bodies too.

        ``sky`` False: no sky (nor haze) here; :meth:`record_resolved_sky` draws it after
        the multisampled framebuffer is resolved.

        Without colour no sky is drawn (its pass writes the colour's encodings of depth and
        ids), nor, with the depth output (kept in the depth buffer, DEPTH_SCALE / metres),
        occlusion culling (its tiles read a depth buffer of clip depth).
        """
        refused = (sky and self.has_sky) or (self._depth_buffer and occlusion is not None)
        if "color" not in self.outputs and refused:
            raise errors.BodyError("a renderer without colour draws no sky, nor with the "
                                   "depth output takes occlusion culling: record it with "
                                   "sky=False, occlusion=None")  # fmt: skip
        if occlusion is not None and self._max_views > 1:
            raise errors.BodyError("occlusion culling draws one view: make the renderer "
                                   "with views=1 for it")  # fmt: skip
        if self._max_views > 1 and self.tiling is None:
            raise errors.BodyError("record: call set_views first")
        depth = self._occlusion_depth(occlusion)
        self._recorded_soft = None  # a new recording takes in new soft bodies
        self._stale = None
        self._specialise()  # the pipelines for the lights and parts set now
        self.update()
        if sync:
            self.record_sync(cmd)
        bindings = self._bindings
        layers = self._sorted_layers()
        if layers:  # each view's ids one at a time, in mjr_render's order
            # the commands and every recorded view's sort keys reset, then the keys
            keys = self._view_count * self._keys_a_view * 4
            cmd.copy_buffer(self.template, self.indirect, 2 * self._max_meshes * 20 + keys)
            self._record_expand(cmd, phase=0, rank=-2)
            for rank, twice in layers:
                cmd.copy_buffer(self.template, self.indirect, 2 * self._max_meshes * 20)
                self._record_expand(cmd, phase=0, rank=rank)
                self._record_draw(cmd, 0, twice=twice)
        if not layers or self._nearest:
            cmd.copy_buffer(self.template, self.indirect, 2 * self._max_meshes * 20)
            self._record_expand(cmd, phase=0 if depth is None else 1)
        if not layers:
            self._record_draw(cmd, 0)
        if self._nearest:  # every list again, into the depth and ids alone
            self._record_draw(cmd, 0, nearest=True)
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
        if sky:
            self._record_sky(cmd)
        cmd.fence_signal(self.fence)
        self._recorded_soft = len(self._soft)
        self._recorded_views = (self._view_count, self._view_rows)
        self._recorded_ids = self._sorted_ids()

    def _sorted_layers(self) -> list[tuple[int, bool]]:
        """A transparent pass of two or more ids: (rank, drawn twice) of its draws in
        ``mjr_render``'s order, its sorted list nearest first, then farthest first (the
        farthest twice in a row: one draw of alpha a(2 - a)); none otherwise (one id, or
        none: one draw of every part, twice over). A rank is an id's place in a view (its
        rows' least key): every row of the id is drawn in it."""
        count = len(self._look_parts)
        if not self._transparent or count < 2:
            return []
        return (
            [(rank, False) for rank in range(count - 1)]
            + [(count - 1, True)]
            + [(rank, False) for rank in reversed(range(count - 1))]
        )

    def _sorted_ids(self) -> tuple[int, int, int]:
        """The transparent pass's ids: how many have a look, and the least and one past the
        greatest (the ranks count those alone: a layer of rays has ids past the geoms');
        none for fewer than two (no ranks: :meth:`_sorted_layers`)."""
        ids = self._look_parts.keys()
        return (len(ids), min(ids), max(ids) + 1) if len(ids) > 1 else (0, 0, 0)

    def _occlusion_depth(self, target: Any) -> Texture | None:
        """The depth texture of `target` (None: no occlusion culling); tiles sized for it."""
        if target is None:
            return None
        if not isinstance(target, Framebuffer):
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
            self.depth_tiles = self._ctx.buffer(size=4 * floats, name="body_depth_tiles")
            self._tiles_size = size
        return depth

    def _bind_views(self, cmd: CommandBuffer) -> None:
        if self.views is not None:
            cmd.bind_storage_buffer(self.views, self._bindings["views"])

    def _record_expand(self, cmd: CommandBuffer, *, phase: int, rank: int = -1) -> None:
        source, bindings = self._source, self._bindings
        cmd.bind_pipeline(self.expand)
        source.bind(cmd)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        self._bind_views(cmd)
        buffers = {"tables": self.tables, "parts": self.parts, "commands": self.indirect,
                   "instances": self.instances, "visibility": self.visibility,
                   "tiles": self.depth_tiles}  # fmt: skip
        for name, buffer in buffers.items():
            if buffer is not None:
                cmd.bind_storage_buffer(buffer, bindings[name])
        width, height = self._tiles_size or (1, 1)
        # One invocation per row (of a view's range) and view, in one line of work groups;
        # the extras' (row, view) pairs shared out over at most a work group a view.
        rows = self._view_rows if self._max_views > 1 else source.capacity
        views = self._view_count
        _, first_id, end_id = self._sorted_ids()
        for value, location in ((phase, 1), (width, 2), (height, 3), (rank, 4),
                                (max(rows, 1), 5), (views, 6), (first_id, 7),
                                (end_id, 8)):  # fmt: skip
            cmd.li(0, value)
            cmd.uniform_i(0, location)
        extras = min(-(-len(self._extras) * views // 64), views)  # (extras: a line)
        for kind, groups in ((0, max(-(-rows * views // 64), 1)), (1, extras)):
            cmd.li(0, kind)
            cmd.uniform_i(0, 0)
            line = min(groups, MAX_GROUPS)
            cmd.dispatch(line, -(-groups // line))
        cmd.barrier()

    def _record_draw(self, cmd: CommandBuffer, command_set: int, *, nearest: bool = False,
                     twice: bool = True) -> None:  # fmt: skip
        first = command_set * self._max_meshes  # the command set's first command
        keys = self._draw_keys()
        pipelines = (
            self._nearest_draws if nearest else [self.pipeline, *(p for p, _ in self._ray_draws)]
        )
        rays = list(zip(pipelines[1:], self._ray_draws, keys[1:], strict=True))
        if self._single_sampled_planes:
            # before every part that covers it: a part's samples are tested against the
            # plane's, but a plane of one sample would be refused whole where the pixel
            # holds a nearer sample (a part's edge over it left the clear's samples)
            rays.sort(key=lambda ray: ray[2] != "ray_plane")
        for pipeline, (_, command), key in rays:
            self._bind_draw(cmd, pipeline, key)  # one command each
            self._set_layer(cmd, nearest, twice)
            self._commands.draw(cmd, first + command, 1)
        self._bind_draw(cmd, pipelines[0], "draw")
        self._set_layer(cmd, nearest, twice)
        commands = self._max_meshes - self._first_mesh
        self._commands.draw(cmd, first + self._first_mesh, commands, counted=0)

    def _set_layer(self, cmd: CommandBuffer, nearest: bool, twice: bool) -> None:
        """A transparent pass's colour draw: its parts' alpha once (one layer of the
        sorted list) or as drawn twice in a row (the fragment stage's layer_once)."""
        if self._transparent and not nearest:
            cmd.li(0, 0 if twice else 1)
            cmd.uniform_i(0, 2)

    def _bind_draw(self, cmd: CommandBuffer, pipeline: Pipeline, key: str) -> None:
        cmd.bind_pipeline(pipeline)
        self._source.bind(cmd)
        cmd.bind_uniform_buffer(self.camera, self._camera_binding)
        self._bind_views(cmd)
        for name, buffer in (("parts", self.parts), ("tables", self.tables),
                             ("soft", self.soft_vertices)):  # fmt: skip
            cmd.bind_storage_buffer(buffer, self._bindings[name])
        cmd.bind_storage_buffer(self.shading, self._bindings["shading"])
        cmd.bind_uniform_buffer(self.light_block, self._camera_binding + 1)
        cmd.bind_texture(self.atlas, ATLAS_UNIT)
        if self.flat_texture is not None:
            cmd.bind_texture(self.flat_texture, FLAT_UNIT)
        if self.shadow_map is not None:
            cmd.bind_texture(self.shadow_map, SHADOW_UNIT)
        if key not in PULLED_PROXIES:
            cmd.bind_vertex_buffer(self.vertices, 0)
            cmd.bind_vertex_buffer(self.instances, 1)
            cmd.bind_index_buffer(self.indices)
        else:  # a ray-cast proxy's: pulled from its instance list (_pull_proxies)
            cmd.bind_storage_buffer(self.instances, self._bindings["instances"])
            cmd.bind_index_buffer(self.proxy_indices)
        self._commands.bind(cmd)
        # the mirror's uniforms, in the pipelines that declare them (MIRROR, REFLECTION)
        assert self._specialised is not None
        if self.reflection is not None and key in self._specialised.reflective:
            cmd.bind_texture(self.reflection, REFLECTION_UNIT)
        if self._mirror_uniforms is not None and (
            self._mirror or key in self._specialised.reflective
        ):
            plane, look = self._mirror_uniforms
            cmd.uniform_const(0, plane, "vec4")
            cmd.uniform_const(1, look, "vec4")

    @serialised
    def instance_counts(self) -> dict[str, int]:
        """Instances each mesh drew in the last frame (reads the GPU's commands back)."""
        commands = self.indirect.read(np.uint32)[: self._template.size].reshape(2, -1, 5)
        counts = commands[:, :, 1].sum(axis=0)
        counts[: self._pulled] = commands[:, : self._pulled, 0].sum(axis=0) // 6  # pulled
        return {key: int(counts[index]) for key, index in self._mesh_index.items()}

    @property
    def released(self) -> bool:
        return self._guard.closed

    @closing
    def release(self) -> None:
        """Free the renderer's own buffers and pipelines (not the source's); safe to call
        twice, and from another thread than a frame's (it waits for the call in progress;
        later calls raise ResourceError)."""
        optional = (self.depth_tiles, self.views, self.background_pipeline, self.sky_pipeline,
                    self.sky_cube, self.resolved_sky_pipeline, self.haze_pipeline,
                    self.sky_cache, self.sky_check_pipeline,
                    self.sky_cache_pipeline, self.flat_texture, self.fused_sky_pipeline,
                    self.proxy_indices,
                    *[pipeline for pipeline, _ in self._ray_draws],
                    *self._nearest_draws)  # fmt: skip
        own = (self.fence, self.pipeline, self.expand, self.tiles_pipeline, self.camera,
               self.shading, self.light_block, self.atlas,
               self.indirect, self.template, self.indices, self.draw_count, self.visibility,
               *[r for r in optional if r is not None],
               self.instances, self.tables, self.vertices, self.parts,
               self.soft_vertices)  # fmt: skip
        for resource in own:
            if not resource.released:
                resource.release()


def _pixels(reader: Any) -> np.ndarray:
    """A reader's pixels (height, width, components): the depth buffer's with an axis of 1."""
    pixels = reader.read()
    return pixels if pixels.ndim == 3 else pixels[..., None]
