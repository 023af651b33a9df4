"""Shadows as ``mjr_render`` casts them: a depth map per shadow-casting light and world.

MuJoCo renders every geom's depth from each light that casts shadows (``light_castshadow``,
with ``mjRND_SHADOW``): a directional light through an orthographic box of half width
``stat.extent * vis.map.shadowclip``, a spot through a perspective of ``min(2 * cutoff *
vis.map.shadowscale, 160)`` degrees; the camera's near and far planes. Where a surface lies
behind its map, that light adds nothing. Here one depth pass (a second body renderer over
the same records, unshaded) draws every world's maps as tiles of one depth texture, the
main pass reads them, every opaque element's layer (geoms, sites, tendons, skins,
flexes) receiving them as mjr_render's do. Every element but a decoration casts, as
mjr_render's shadow pass draws every scene geom not of ``mjCAT_DECOR``: the tendons, skins,
flexes and sites too (a depth renderer each over its layer's records,
:meth:`ShadowMaps.add_layer`; a skin's or flex's vertices copied from its layer's renderer
once skinned). Two shadow lights at most (the first two); a
map's tile is ``shadow_size`` texels square: :func:`map_size` unless given (MuJoCo's
``quality.shadowsize``, 2048 to 4096, costs 16 to 64 times the texels of 512), each map
fitted to its casters (:meth:`ShadowMaps._fitted`). ``exact`` (BatchRenderer's
``shadow_size="model"``) draws MuJoCo's own maps texel for texel instead: its
``quality.shadowsize`` over its whole light box or frustum, its casters as tessellated
meshes, one texel inset (``glViewport(1, 1, size - 2, size - 2)``, looked up over the whole
map); the light's up is ``mjr_orthoVec``'s either way. The lookup's bias is a slope's in
texels, as MuJoCo's glPolygonOffset (see ``hypergl.bodies.shaders.shadow_light``), one
texel compared (MuJoCo's map is GL_NEAREST with its compare mode: no filtering); a map's
border texels read as lit, as MuJoCo's cleared border does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import BodyRenderer, InstanceRecords
from hypergl.bodies.views import Tiling

from .cameras import look_at, projection
from .errors import SizeError
from .lights import SUPPORTED, scene_lights
from .scene import GeomLook, part_count

MAX_SHADOW_LIGHTS = 2
DIRECTIONAL = int(mujoco.mjtLightType.mjLIGHT_DIRECTIONAL)
# A map's texels per pixel of the view's larger side (a power of two at least that), the
# least and the most a map gets by default, and the texels all maps may hold together
# (4 bytes each: 256 MB) before the default halves: see map_size.
TEXELS_PER_PIXEL = 1.5
MIN_SIZE, MAX_SIZE = 128, 512
MAX_TEXELS = 1 << 26


def map_size(model: mujoco.MjModel, width: int, height: int, worlds: int) -> int:
    """The texels across a map by default: a power of two of TEXELS_PER_PIXEL times the
    view's larger side, within MIN_SIZE..MAX_SIZE, never above MuJoCo's
    ``quality.shadowsize``, and halved while every world's maps together would hold more
    than MAX_TEXELS. A map spans the whole light's box (a directional light's is 2 * extent
    wide) while a view sees a part of it, and each map is fitted to its casters (see
    :meth:`ShadowMaps._fitted`): 84x84 views get 128, 240x320 ones 512. Measured at 84x84:
    gym's ant 34.2 / 34.3 dB at 128 / 256 fitted (27.5 / 29.7 unfitted, 34.3 at 2048); the
    suite's spot lights, whose frustum the casters fill, lose up to 1-3 dB at 128 against
    512 (cartpole 33.2 / 36.7). The pass's fragments ray-cast its casters, so its cost
    follows the texels they cover: at 64 worlds of gym's half_cheetah and humanoid it cost
    about 10-12 ms of a 50-60 ms frame at 128, 14-25 ms at 256 (a shared 2-core machine)."""
    wanted = TEXELS_PER_PIXEL * max(int(width), int(height))
    size = MIN_SIZE
    while size < wanted and size < MAX_SIZE:
        size *= 2
    maps = max(len(shadow_slots(model)), 1) * max(int(worlds), 1)
    while size > MIN_SIZE and maps * size * size > MAX_TEXELS:
        size //= 2
    return max(min(size, int(model.vis.quality.shadowsize)), 1)


def ortho_vec(v: np.ndarray) -> np.ndarray:
    """(..., 3) unit vectors orthogonal to `v` (..., 3) as ``mjr_orthoVec`` makes a shadow
    light's up: v x (-1, 0, 0), or v x (0, 1, 0) where that is short (squared length <=
    0.01). The map's texels then lie as MuJoCo's."""
    v = np.asarray(v, np.float64)
    out = np.cross(v, [-1.0, 0.0, 0.0])
    short = (out * out).sum(axis=-1, keepdims=True) <= 0.01
    out = np.where(short, np.cross(v, [0.0, 1.0, 0.0]), out)
    return out / np.linalg.norm(out, axis=-1, keepdims=True)


def map_tiling(maps: int, size: int, limit: int) -> Tiling:
    """The tiles of `maps` shadow maps `size` texels square in one depth framebuffer of at
    most `limit` texels a side (the context's ``max_texture_size``); a :class:`SizeError`
    naming them where they do not fit (BatchRenderer asks before anything is made)."""
    return Tiling.fitted(max(maps, 1), (size, size), limit, error=SizeError,
                         hint=" as shadow maps: a smaller shadow_size, or "
                              "scene_flags={'mjRND_SHADOW': False}")  # fmt: skip


def shadow_slots(model: mujoco.MjModel) -> list[tuple[int, int]]:
    """(slot in the light group, model light) of the lights that cast shadows: none where
    ``quality.shadowsize`` is 0 (MuJoCo makes no shadow map then, and lights them all with
    the rest)."""
    if int(model.vis.quality.shadowsize) <= 0:
        return []
    first = int(bool(model.vis.headlight.active))
    out = []
    for k, light in enumerate(scene_lights(model)):
        if model.light_castshadow[light] and int(model.light_type[light]) in SUPPORTED:
            out.append((first + k, light))
    return out[:MAX_SHADOW_LIGHTS]


def casters(model: mujoco.MjModel, looks: Sequence[GeomLook]) -> list[GeomLook]:
    """The looks drawn into the maps: all but planes'. A plane shadows only what lies
    behind it from the light (under a floor: nothing a camera above it sees), it never
    shadows itself, and a floor covers every texel of its maps: at 64 worlds of 84x84 it was
    most of the pass's cost, which grows with the texels it fills."""
    plane = int(mujoco.mjtGeom.mjGEOM_PLANE)
    return [look for look in looks if int(model.geom_type[look.geom]) != plane]


Spheres = tuple[np.ndarray, np.ndarray]  # (worlds, n, 3) centres, (worlds, n) radii
SpheresOf = Callable[[dict[str, np.ndarray]], Spheres]  # from a frame's pulled arrays


def caster_spheres(model: mujoco.MjModel, layer: Any, looks: Sequence[GeomLook]
                   ) -> tuple[SpheresOf, dict[str, tuple[int, ...]]]:  # fmt: skip
    """The bounding spheres of an element layer's casters from a frame's pulled arrays, and
    the arrays they read: a skin's bones' bodies (each as far as its farthest vertex in the
    bind pose: a skinned vertex, a weighted mean of its bones' placings, lies in the box of
    their spheres), a flex's vertices, a tendon's or edge's segments (`layer` None: the
    sites, each within the sum of its sizes)."""
    element = getattr(layer, "element", "site")
    if element == "site":  # the drawn sites (a site's look's id: ngeom + site)
        sites = np.array(sorted({look.geom - model.ngeom for look in looks}), np.int64)
        reach = model.site_size[sites].sum(axis=1).astype(np.float64)
        return (lambda a: (a["site_xpos"].reshape(len(a["site_xpos"]), -1, 3)[:, sites],
                           np.broadcast_to(reach, (len(a["site_xpos"]), len(reach))))
                ), {"site_xpos": (model.nsite, 3)}  # fmt: skip
    if element == "skin":
        bodies, reach = [], []
        for s in layer.skins:
            first_vertex, inflate = int(model.skin_vertadr[s]), float(abs(model.skin_inflate[s]))
            for j in range(model.skin_boneadr[s], model.skin_boneadr[s] + model.skin_bonenum[s]):
                a, n = int(model.skin_bonevertadr[j]), int(model.skin_bonevertnum[j])
                vertices = model.skin_vert[first_vertex + model.skin_bonevertid[a : a + n]]
                far = np.linalg.norm(vertices - model.skin_bonebindpos[j], axis=1)
                bodies.append(int(model.skin_bonebodyid[j]))
                reach.append((far.max() if n else 0.0) + inflate)
        index, radii = np.array(bodies, np.int64), np.array(reach, np.float64)
        return (lambda a: (a["xpos"].reshape(len(a["xpos"]), -1, 3)[:, index],
                           np.broadcast_to(radii, (len(a["xpos"]), len(radii))))
                ), {"xpos": (model.nbody, 3)}  # fmt: skip
    if element == "flex":
        rows = np.concatenate([np.arange(model.flex_vertadr[f],
                                         model.flex_vertadr[f] + model.flex_vertnum[f])
                               for f in layer.flexes])  # fmt: skip
        radii = np.concatenate([np.full(int(model.flex_vertnum[f]), model.flex_radius[f])
                                for f in layer.flexes]).astype(np.float64)  # fmt: skip
        return (lambda a: (a["flexvert_xpos"].reshape(len(a["flexvert_xpos"]), -1, 3)[:, rows],
                           np.broadcast_to(radii, (len(a["flexvert_xpos"]), len(radii))))
                ), {"flexvert_xpos": (model.nflexvert, 3)}  # fmt: skip
    # segments (tendons, flex edges): each row's centre, half its length plus its width
    width = max(
        (max(abs(part.scale[0]), abs(part.scale[2])) for look in looks for part in look.parts),
        default=0.0,
    )  # across the segment (y: its length)
    none_id = getattr(layer, "none_id", None)

    def segments(_: dict[str, np.ndarray]) -> Spheres:
        rows = layer.records.rows[: layer.worlds * layer.count]
        centres = np.array(rows["position"], np.float64)
        if none_id is not None:  # a tendon's unused segment: no caster
            centres[rows["id"] == none_id] = np.nan
        radii = np.abs(rows["scale"][:, 1]).astype(np.float64) + width
        return centres.reshape(layer.worlds, -1, 3), radii.reshape(layer.worlds, -1)

    return segments, {}


class ShadowMaps:
    """The depth pass of every world's shadow lights, and their matrices per frame."""

    def __init__(self, model: mujoco.MjModel, records: InstanceRecords, worlds: int,
                 looks: Sequence[GeomLook], primitives: str, sizes: tuple[int, int],
                 size: int, exact: bool = False) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        # MuJoCo's whole light box / frustum (True), else fitted to the casters (_fitted)
        self.exact: bool = exact
        self.slots: list[tuple[int, int]] = shadow_slots(model)
        self.worlds: int = worlds
        maps = worlds * len(self.slots)
        ctx = records.context
        self.size: int = size
        tiling = map_tiling(maps, self.size, ctx.limits["max_texture_size"])
        self._tiling, self._primitives = tiling, primitives
        cast = casters(model, looks)
        # (room for every look's parts, planes' too: what memory_per_world counts)
        self.renderer: BodyRenderer = self._depth_renderer(records, model.ngeom, cast,
                                                           model.ngeom, sizes,
                                                           parts=part_count(looks))  # fmt: skip
        # the casters' geoms and bounding radii: what a directional map is fitted to
        self._casters = np.array(sorted({look.geom for look in cast}), np.int64)
        self._radii = model.geom_rbound[self._casters].astype(np.float64)
        # the other casting layers: their depth renderers, the layer whose soft vertices
        # each copies (or None), and their casters' spheres (see add_layer)
        self.layers: list[BodyRenderer] = []
        self._soft: list[tuple[Any, BodyRenderer]] = []
        self._spheres: list[SpheresOf] = []
        self._missing = False  # whether a layer's spheres may be missing (NaN centres)
        self._arrays: dict[str, tuple[int, ...]] = {"geom_xpos": (model.ngeom, 3)}
        # Depth only: no colour attachment for the depth pass to write (on llvmpipe every
        # attachment costs every fragment its store).
        self.framebuffer: hypergl.Framebuffer = ctx.framebuffer(
            self.renderer.framebuffer_size, color=(), name="mujoco_shadows"
        )
        self.tiles: np.ndarray = self.renderer.view_tiles.reshape(worlds, len(self.slots), 4)
        extent = float(model.stat.extent)
        self._near = np.float32(model.vis.map.znear * extent)
        self._far = np.float32(model.vis.map.zfar * extent)
        self._clip = extent * float(model.vis.map.shadowclip)

    def _depth_renderer(self, records: InstanceRecords, count: int, looks: Sequence[GeomLook],
                        ids: int, sizes: tuple[int, int], soft: Any = None,
                        parts: int | None = None) -> BodyRenderer:  # fmt: skip
        """A depth-only renderer of `records` (`count` rows a world) drawing `looks` into
        every world's maps: the same views and tiles as every other caster's (`parts`:
        room for that many, None: the looks')."""
        maps = self.worlds * len(self.slots)
        meshes, rows = sizes
        parts = part_count(looks) if parts is None else parts
        renderer = BodyRenderer(records, max_ids=max(ids, 1), max_parts=parts,
                                max_meshes=meshes, max_vertices=rows, views=max(2, maps),
                                outputs=(), max_extras=1, primitives=self._primitives,
                                max_lights=1, shade=False,
                                max_soft_vertices=max(getattr(soft, "soft_vertices", 1), 1),
                                copies=getattr(soft, "copies", 1))  # fmt: skip
        try:
            if soft is not None and hasattr(soft, "share_soft"):
                soft.share_soft(renderer)  # the layer's soft bodies, filled by a copy
            for look in looks:
                renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color)
            ranges = [(w * count, count) for w in range(self.worlds) for _ in self.slots]
            renderer.set_views([np.eye(4)] * maps, self._tiling.tile, ranges=ranges,
                               columns=self._tiling.columns)  # fmt: skip
        except BaseException:
            renderer.release()
            raise
        return renderer

    def add_layer(self, records: InstanceRecords, count: int, looks: Sequence[GeomLook],
                  ids: int, sizes: tuple[int, int], layer: Any = None) -> None:  # fmt: skip
        """Cast the shadows of another element layer too: its `records` (`count` rows a
        world, ids below `ids`) drawing `looks` (meshes and rows `sizes`); `layer`: its
        ElementLayer (tendons, skins, flexes; None: the sites), whose soft vertices are
        copied each frame and whose casters' spheres the maps are fitted to."""
        renderer = self._depth_renderer(records, count, looks, ids, sizes, soft=layer)
        self.layers.append(renderer)
        if layer is not None and hasattr(layer, "share_soft"):
            self._soft.append((layer, renderer))
        spheres, arrays = caster_spheres(self.model, layer, looks)
        self._spheres.append(spheres)
        self._missing = self._missing or hasattr(layer, "none_id")  # NaN centres (tendons)
        self._arrays.update(arrays)

    @property
    def renderers(self) -> list[BodyRenderer]:
        """Every renderer of the depth pass: the geoms', then the other elements'."""
        return [self.renderer, *self.layers]

    @property
    def texture(self) -> hypergl.Texture:
        return self.framebuffer.depth_texture

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The maps: every light's depth (before the main pass), from the records the
        snapshot synced (BatchRenderer.snapshot: the drawing program syncs nothing)."""
        cmd.bind_framebuffer(self.framebuffer)
        cmd.clear(depth=1.0)  # depth only: the framebuffer has no colour
        for layer, renderer in self._soft:  # this frame's skinned vertices (after skinning)
            layer.record_soft_copy(cmd, renderer)
        for renderer in self.renderers:
            renderer.record(cmd, sync=False)

    def arrays(self) -> dict[str, tuple[int, ...]]:
        """The data's arrays the maps' matrices read each frame (the casters' centres)."""
        return dict(self._arrays)

    def _casters_spheres(self, arrays: dict[str, np.ndarray] | None) -> Spheres | None:
        """(worlds, n, 3) centres, (worlds, n) radii of every caster (NaN centres: none
        there this frame), or None where the centres are not known."""
        if arrays is None or "geom_xpos" not in arrays:
            return None
        worlds = self.worlds
        centres = [arrays["geom_xpos"].reshape(worlds, -1, 3)[:, self._casters]]
        radii = [np.broadcast_to(self._radii, (worlds, len(self._casters)))]
        for spheres in self._spheres:
            at, r = spheres(arrays)
            centres.append(at)
            radii.append(r)
        if len(centres) == 1:  # the geoms alone (no copy)
            return centres[0], radii[0]
        return np.concatenate(centres, axis=1), np.concatenate(radii, axis=1)

    def _fitted(self, view: np.ndarray, spheres: Spheres | None, half: float,
                spot: bool) -> np.ndarray:  # fmt: skip
        """(worlds, 4): the window (left, right, bottom, top) of a light's map (views `view`,
        (worlds, 4, 4)) that the casters' `spheres` cover, within MuJoCo's +-`half` (a
        directional light's box, a spot's frustum at its near plane). Outside it nothing
        casts, so a receiver there is lit in either map: the same shadows in finer texels
        (a directional box is 2 * extent wide, a body a metre or two)."""
        worlds = len(view)
        full = np.tile([-half, half, -half, half], (worlds, 1))
        if spheres is None or not spheres[0].shape[1]:
            return full
        centres, radii = spheres  # (worlds, casters, 3), (worlds, casters)
        at = np.einsum("wij,wgj->wgi", view[:, :3, :3], centres) + view[:, None, :3, 3]
        r = radii[..., None]
        # (worlds, casters, 1) where a caster is this frame (a tendon's unused segment not)
        there = np.isfinite(at).all(axis=2, keepdims=True) if self._missing else None
        xy = at[..., :2]
        low, high = xy - r, xy + r
        behind = np.zeros(worlds, bool)
        if spot:  # where the spheres' boxes fall on the near plane (conservatively)
            d = -at[..., 2:3]  # ahead of the light
            ahead = d - r > self._near
            behind = ~(ahead if there is None else ahead | ~there).all(axis=(1, 2))
            near_d, far_d = np.maximum(d - r, self._near), d + r
            low = np.where(low < 0, low / near_d, low / far_d) * self._near
            high = np.where(high > 0, high / near_d, high / far_d) * self._near
        # a texel's margin, within MuJoCo's window; the whole window where nothing is inside
        if there is not None:
            low, high = np.where(there, low, np.inf), np.where(there, high, -np.inf)
        low, high = low.min(axis=1), high.max(axis=1)
        margin = (high - low) / max(self.size - 2, 1)
        low, high = np.maximum(low - margin, -half), np.minimum(high + margin, half)
        whole = behind | ~(high > low).all(axis=1)
        window = np.stack([low[:, 0], high[:, 0], low[:, 1], high[:, 1]], axis=1)
        window[whole] = full[whole]
        return window

    def matrices(self, light_xpos: np.ndarray, light_xdir: np.ndarray,
                 arrays: dict[str, np.ndarray] | None = None) -> np.ndarray:  # fmt: skip
        """(worlds, maps, 4, 4) view-projections of each world's shadow lights, fitted to
        the casters that `arrays` (:meth:`arrays`' fields, pulled) place."""
        model = self.model
        spheres = self._casters_spheres(arrays)
        lights = [light for _, light in self.slots]
        position = light_xpos[:, lights]
        forward = light_xdir[:, lights]
        view = look_at(position, forward, ortho_vec(forward))  # (worlds, maps, 4, 4)
        worlds = len(view)
        frustums = np.empty((worlds, len(lights), 6))
        ortho = np.zeros((worlds, len(lights)), bool)
        for k, light in enumerate(lights):
            directional = int(model.light_type[light]) == DIRECTIONAL
            if directional:
                half = self._clip
            else:
                fovy = min(2 * float(model.light_cutoff[light]) * float(model.vis.map.shadowscale),
                           160.0)  # fmt: skip
                half = self._near * np.tan(np.radians(fovy) / 2)
            frustums[:, k, :4] = (
                [-half, half, -half, half] if self.exact
                else self._fitted(view[:, k], spheres, half, not directional)
            )  # fmt: skip
            ortho[:, k] = directional
            frustums[:, k, 4:] = (self._near, self._far)
        return projection(frustums, ortho) @ view

    def update(self, receivers: Sequence[BodyRenderer], light_xpos: np.ndarray,
               light_xdir: np.ndarray, arrays: dict[str, np.ndarray] | None = None
               ) -> None:  # fmt: skip
        """This frame's maps' cameras (fitted to what `arrays` place: :meth:`matrices`), and
        the copy of them in each renderer that receives the shadows (every opaque
        element's: geoms, sites, tendons, skins, flexes)."""
        matrices = self.matrices(light_xpos, light_xdir, arrays)
        # exact: MuJoCo's one-texel inset, the maps drawn into their tiles' inner size - 2
        # texels (the light's clip x, y scaled by that) and looked up over the whole tile,
        # whose border reads as lit (shadow_light). Fitted maps keep a texel's margin
        # instead (_fitted): drawn inset they lost 4.7 / 1.5 dB on gym's humanoidstandup
        # camera 1 at 84x84 / 240x320 (their texels fall elsewhere on MuJoCo's anyway).
        inset = np.eye(4)
        if self.exact and self.size > 2:
            inset[0, 0] = inset[1, 1] = (self.size - 2) / self.size
        for renderer in self.renderers:
            renderer.set_view_matrices((inset @ matrices).reshape(-1, 4, 4))
            renderer.update()
        for receiver in receivers:
            for k, (slot, _) in enumerate(self.slots):
                receiver.shadow_matrices[:, slot] = matrices[:, k]
                receiver.shadow_tiles[:, slot] = self.tiles[:, k]

    def release(self) -> None:
        if not self.framebuffer.released:
            self.framebuffer.release()
        for renderer in self.renderers:
            renderer.release()
