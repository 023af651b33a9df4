"""Shadows as ``mjr_render`` casts them: a depth map per shadow-casting light and world.

MuJoCo renders every geom's depth from each light that casts shadows (``light_castshadow``,
with ``mjRND_SHADOW``): a directional light through an orthographic box of half width
``stat.extent * vis.map.shadowclip``, a spot through a perspective of ``min(2 * cutoff *
vis.map.shadowscale, 160)`` degrees; the camera's near and far planes. Where a surface lies
behind its map, that light adds nothing. Here one depth pass (a second body renderer over
the same records, unshaded) draws every world's maps as tiles of one depth texture, the
main pass reads them, every opaque element's layer (geoms, sites, tendons, skins,
flexes) receiving them as mjr_render's do. Two shadow lights at most (the first two); a
map's tile is ``shadow_size`` texels square: :func:`map_size` unless given (MuJoCo's
``quality.shadowsize``, 2048 to 4096, costs 16 to 64 times the texels of 512). The lookup's
bias is a slope's in texels, as MuJoCo's glPolygonOffset (see
``hypergl.bodies.shaders.shadow_light``); a map's border reads as lit, as MuJoCo's
one-texel inset of the viewport makes it.
"""

from __future__ import annotations

from collections.abc import Sequence

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


class ShadowMaps:
    """The depth pass of every world's shadow lights, and their matrices per frame."""

    def __init__(self, model: mujoco.MjModel, records: InstanceRecords, worlds: int,
                 looks: Sequence[GeomLook], primitives: str, sizes: tuple[int, int],
                 size: int) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        self.slots: list[tuple[int, int]] = shadow_slots(model)
        self.worlds: int = worlds
        maps = worlds * len(self.slots)
        ctx = records.context
        self.size: int = size
        tiling = Tiling.fitted(max(maps, 1), (self.size, self.size),
                               ctx.limits["max_texture_size"], error=SizeError,
                               hint=" as shadow maps: a smaller shadow_size, or "
                                    "scene_flags={'mjRND_SHADOW': False}")  # fmt: skip
        meshes, rows = sizes
        self.renderer: BodyRenderer = BodyRenderer(records, max_ids=max(model.ngeom, 1),
                                     max_parts=part_count(looks), max_meshes=meshes,
                                     max_vertices=rows, views=max(2, maps),
                                     outputs=(), max_extras=1, primitives=primitives,
                                     max_lights=1, shade=False)  # fmt: skip
        cast = casters(model, looks)
        for look in cast:
            self.renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color)
        # the casters' geoms and bounding radii: what a directional map is fitted to
        self._casters = np.array(sorted({look.geom for look in cast}), np.int64)
        self._radii = model.geom_rbound[self._casters].astype(np.float64)
        ngeom = model.ngeom
        ranges = [(w * ngeom, ngeom) for w in range(worlds) for _ in self.slots]
        self.renderer.set_views(
            [np.eye(4)] * maps, tiling.tile, ranges=ranges, columns=tiling.columns
        )
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

    @property
    def texture(self) -> hypergl.Texture:
        return self.framebuffer.depth_texture

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The maps: every light's depth (before the main pass), from the records the
        snapshot synced (BatchRenderer.snapshot: the drawing program syncs nothing)."""
        cmd.bind_framebuffer(self.framebuffer)
        cmd.clear(depth=1.0)  # depth only: the framebuffer has no colour
        self.renderer.record(cmd, sync=False)

    def arrays(self) -> dict[str, tuple[int, ...]]:
        """The data's arrays the maps' matrices read each frame (the casters' centres)."""
        return {"geom_xpos": (self.model.ngeom, 3)}

    def _fitted(self, view: np.ndarray, geom_xpos: np.ndarray | None, half: float,
                spot: bool) -> np.ndarray:  # fmt: skip
        """(worlds, 4): the window (left, right, bottom, top) of a light's map (views `view`,
        (worlds, 4, 4)) that the casters' spheres cover, within MuJoCo's +-`half` (a
        directional light's box, a spot's frustum at its near plane). Outside it nothing
        casts, so a receiver there is lit in either map: the same shadows in finer texels
        (a directional box is 2 * extent wide, a body a metre or two)."""
        worlds = len(view)
        full = np.tile([-half, half, -half, half], (worlds, 1))
        if geom_xpos is None or not len(self._casters):
            return full
        centres = geom_xpos[:, self._casters]  # (worlds, casters, 3)
        at = np.einsum("wij,wgj->wgi", view[:, :3, :3], centres) + view[:, None, :3, 3]
        r = self._radii[None, :, None]
        xy = at[..., :2]
        low, high = xy - r, xy + r
        behind = np.zeros(worlds, bool)
        if spot:  # where the spheres' boxes fall on the near plane (conservatively)
            d = -at[..., 2:3]  # ahead of the light
            behind = ~(d - r > self._near).all(axis=(1, 2))
            near_d, far_d = np.maximum(d - r, self._near), d + r
            low = np.where(low < 0, low / near_d, low / far_d) * self._near
            high = np.where(high > 0, high / near_d, high / far_d) * self._near
        # a texel's margin, within MuJoCo's window; the whole window where nothing is inside
        low, high = low.min(axis=1), high.max(axis=1)
        margin = (high - low) / max(self.size - 2, 1)
        low, high = np.maximum(low - margin, -half), np.minimum(high + margin, half)
        whole = behind | ~(high > low).all(axis=1)
        window = np.stack([low[:, 0], high[:, 0], low[:, 1], high[:, 1]], axis=1)
        window[whole] = full[whole]
        return window

    def matrices(self, light_xpos: np.ndarray, light_xdir: np.ndarray,
                 geom_xpos: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """(worlds, maps, 4, 4) view-projections of each world's shadow lights."""
        model = self.model
        lights = [light for _, light in self.slots]
        position = light_xpos[:, lights]
        forward = light_xdir[:, lights]
        # Any up orthogonal to the light's direction (MuJoCo's mjr_orthoVec's role).
        helper = np.where(np.abs(forward[..., 2:3]) < 0.9, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
        up = np.cross(np.cross(forward, helper), forward)
        view = look_at(position, forward, up)  # (worlds, maps, 4, 4)
        worlds = len(view)
        frustums = np.empty((worlds, len(lights), 6))
        ortho = np.zeros((worlds, len(lights)), bool)
        for k, light in enumerate(lights):
            if int(model.light_type[light]) == int(mujoco.mjtLightType.mjLIGHT_DIRECTIONAL):
                frustums[:, k, :4] = self._fitted(view[:, k], geom_xpos, self._clip, False)
                ortho[:, k] = True
            else:
                fovy = min(2 * float(model.light_cutoff[light]) * float(model.vis.map.shadowscale),
                           160.0)  # fmt: skip
                top = self._near * np.tan(np.radians(fovy) / 2)
                frustums[:, k, :4] = self._fitted(view[:, k], geom_xpos, top, True)
            frustums[:, k, 4:] = (self._near, self._far)
        return projection(frustums, ortho) @ view

    def update(self, receivers: Sequence[BodyRenderer], light_xpos: np.ndarray,
               light_xdir: np.ndarray, geom_xpos: np.ndarray | None = None) -> None:  # fmt: skip
        """This frame's maps' cameras, and the copy of them in each renderer that receives
        the shadows (every opaque element's: geoms, sites, tendons, skins, flexes)."""
        matrices = self.matrices(light_xpos, light_xdir, geom_xpos)
        self.renderer.set_view_matrices(matrices.reshape(-1, 4, 4))
        self.renderer.update()
        for receiver in receivers:
            for k, (slot, _) in enumerate(self.slots):
                receiver.shadow_matrices[:, slot] = matrices[:, k]
                receiver.shadow_tiles[:, slot] = self.tiles[:, k]

    def release(self) -> None:
        if not self.framebuffer.released:
            self.framebuffer.release()
        self.renderer.release()
