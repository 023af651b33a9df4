"""Shadows as ``mjr_render`` casts them: a depth map per shadow-casting light and world.

MuJoCo renders every geom's depth from each light that casts shadows (``light_castshadow``,
with ``mjRND_SHADOW``): a directional light through an orthographic box of half width
``stat.extent * vis.map.shadowclip``, a spot through a perspective of ``min(2 * cutoff *
vis.map.shadowscale, 160)`` degrees; the camera's near and far planes. Where a surface lies
behind its map, that light adds nothing. Here one depth pass (a second body renderer over
the same records, unshaded) draws every world's maps as tiles of one depth texture, the
main pass reads them. Two shadow lights at most (the first two); a map's tile is
``shadow_size`` texels square: DEFAULT_SIZE unless given (MuJoCo's ``quality.shadowsize``,
2048 to 4096, costs 256 to 1024 times the pixels per world: a world looks the same however
many are drawn, so the size does not follow the world count; shadow edges are softer-edged
blocks than MuJoCo's at the default).
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
DEFAULT_SIZE = 128  # 256: 0.01-0.07 dB closer to MuJoCo on 4 models, 4 times the pixels


def shadow_slots(model: mujoco.MjModel) -> list[tuple[int, int]]:
    """(slot in the light group, model light) of the lights that cast shadows."""
    first = int(bool(model.vis.headlight.active))
    out = []
    for k, light in enumerate(scene_lights(model)):
        if model.light_castshadow[light] and int(model.light_type[light]) in SUPPORTED:
            out.append((first + k, light))
    return out[:MAX_SHADOW_LIGHTS]


class ShadowMaps:
    """The depth pass of every world's shadow lights, and their matrices per frame."""

    def __init__(self, model: mujoco.MjModel, records: InstanceRecords, worlds: int,
                 looks: Sequence[GeomLook], primitives: str, sizes: tuple[int, int],
                 size: int | None) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        self.slots: list[tuple[int, int]] = shadow_slots(model)
        self.worlds: int = worlds
        maps = worlds * len(self.slots)
        ctx = records.context
        self.size: int = size or DEFAULT_SIZE
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
        for look in looks:
            self.renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color)
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

    def matrices(self, light_xpos: np.ndarray, light_xdir: np.ndarray) -> np.ndarray:
        """(worlds, maps, 4, 4) view-projections of each world's shadow lights."""
        model = self.model
        lights = [light for _, light in self.slots]
        position = light_xpos[:, lights]
        forward = light_xdir[:, lights]
        # Any up orthogonal to the light's direction (MuJoCo's mjr_orthoVec's role).
        helper = np.where(np.abs(forward[..., 2:3]) < 0.9, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
        up = np.cross(np.cross(forward, helper), forward)
        view = look_at(position, forward, up)
        frustums = np.empty((len(lights), 6))
        ortho = np.zeros(len(lights), bool)
        for k, light in enumerate(lights):
            if int(model.light_type[light]) == int(mujoco.mjtLightType.mjLIGHT_DIRECTIONAL):
                c = self._clip
                frustums[k], ortho[k] = (-c, c, -c, c, self._near, self._far), True
            else:
                fovy = min(2 * float(model.light_cutoff[light]) * float(model.vis.map.shadowscale),
                           160.0)  # fmt: skip
                top = self._near * np.tan(np.radians(fovy) / 2)
                frustums[k] = (-top, top, -top, top, self._near, self._far)
        return projection(frustums, ortho)[None] @ view

    def update(self, main: BodyRenderer, light_xpos: np.ndarray, light_xdir: np.ndarray) -> None:
        """This frame's maps' cameras, and the main renderer's copy of them."""
        matrices = self.matrices(light_xpos, light_xdir)
        self.renderer.set_view_matrices(matrices.reshape(-1, 4, 4))
        self.renderer.update()
        for k, (slot, _) in enumerate(self.slots):
            main.shadow_matrices[:, slot] = matrices[:, k]
            main.shadow_tiles[:, slot] = self.tiles[:, k]

    def release(self) -> None:
        if not self.framebuffer.released:
            self.framebuffer.release()
        self.renderer.release()
