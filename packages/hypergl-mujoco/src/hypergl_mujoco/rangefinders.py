"""Rangefinder rays as ``mjv_updateScene`` adds them (``mjVIS_RANGEFINDER``, on by default).

For each rangefinder sensor on a site whose reading is a distance (not -1: nothing hit),
MuJoCo adds an ``mjGEOM_LINE`` from the site along its z axis to what the ray hit, coloured
``vis.rgba.rangefinder``, and ``mjr_render`` draws it unlit, ``3 * vis.global.linewidth``
pixels wide (``glLineWidth``), casting no shadow, blended where that rgba's alpha is below 0.995
(dm_control's quadruped: 0.1). Here a ray is PIECES ribbons (BLENDED_PIECES blended),
flat boxes as wide as the line across the screen's minor axis at each piece's middle, as
GL rasterises a wide line (a blended ray's pieces share its id: the transparent pass
draws them in the ray's place). The rows are per view (world and camera: one camera's
width is not another's), the view ranges select a view's own, and the widths follow the
view matrices per snapshot (:meth:`Rangefinders.see`). Segmentation id: ``first_id +
sensor id``; of twin rays (the same site, axis and reading) the later sensor's, as
mjr_render's depth test keeps it. Camera-attached rangefinders (MuJoCo 4's) and the hit
points and normals of other data specs are not drawn.
"""

from __future__ import annotations

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import Material, Part

from .element_records import ElementLayer, TailRecords
from .scene import OPAQUE, Y_TO_Z, GeomLook
from .tendons import connectors

LINE_PIXELS = 3.0  # mjv_connector's mjGEOM_LINE width, times vis.global.linewidth
# pieces a ray is drawn in: a line is as wide near as far, a piece's width is metres (its
# middle's). dm_control quadruped's segmentation, camera 1: 98.95 / 99.11% at 8 / 16
PIECES = 16
# a blended ray's (no segmentation): dm_control quadruped's RGB, camera 1 at 84x84 / 240x320
# 26.0 / 31.6 dB in 1 ribbon (facing the view's axis, see write), 26.7 / 32.5 in 2, 26.9 /
# 32.8 in 4, 27.0 / 32.8 in 8 or 16 (one cylinder: 26.1 / 31.8; 16 cylinders 24.9 at
# 84x84, their caps blend over each other seen end on); its frame of 16 worlds x 4
# cameras about 1.05 / 1.15 / 1.4x one cylinder's in 4 / 8 / 16 (the transparent pass:
# each of its 2n - 1 draws expands every piece of every ray; a shared machine, noisy)
BLENDED_PIECES = 4
THIN = 1e-3  # a ribbon's thickness, of its width (none of its own on the screen)


def drawn_rangefinders(model: mujoco.MjModel, flags: dict[str, bool]) -> list[int]:
    """The rangefinder sensors on sites, when ``mjVIS_RANGEFINDER`` is on."""
    if not flags.get("mjVIS_RANGEFINDER", True):
        return []
    kind, site = int(mujoco.mjtSensor.mjSENS_RANGEFINDER), int(mujoco.mjtObj.mjOBJ_SITE)
    types, objects = model.sensor_type, model.sensor_objtype
    return [s for s in range(model.nsensor) if types[s] == kind and objects[s] == site]


def hidden_by_a_later_twin(xpos: np.ndarray, axis: np.ndarray, reading: np.ndarray
                           ) -> np.ndarray:  # fmt: skip
    """(worlds, rays): whether a later sensor draws the very same ray (dm_control's
    quadruped has such twins). mjr_render's depth test (GL_GEQUAL, reversed) lets the later
    one's id win every pixel of it; drawn opaque, only the later is drawn."""
    ray = np.concatenate([xpos, axis, reading[..., None]], axis=-1)  # (worlds, rays, 7)
    same = (ray[:, :, None] == ray[:, None, :]).all(axis=-1)  # (worlds, rays, rays)
    return np.triu(same, k=1).any(axis=2)


class Rangefinders(ElementLayer):
    """The rangefinder layer: pieces rows per ray and view (``views`` = worlds x cameras, view
    after view), written per snapshot from the site poses and the sensor readings."""

    element = "rangefinder"
    per_view = True  # the renderer gives each view its own rows
    unlit = True  # mjr_render draws lines with the lighting off: in their colour

    def __init__(self, model: mujoco.MjModel, sensors: list[int], first_id: int,
                 worlds: int, cameras: int, width: int, height: int, blended: bool = True
                 ) -> None:  # fmt: skip
        # the rows' "worlds" are the views
        super().__init__(model, worlds * cameras, first_id, first_id + model.nsensor + 1)
        self.worlds_drawn, self.cameras = worlds, cameras
        self.none_id: int = first_id + model.nsensor  # an id without a look: nothing drawn
        self.sensors: np.ndarray = np.asarray(sensors, np.int64)
        rgba = np.asarray(model.vis.rgba.rangefinder, np.float32)
        self.transparent: bool = bool(rgba[3] < OPAQUE) and blended  # drawn blended
        self.pieces: int = BLENDED_PIECES if self.transparent else PIECES
        self.count = len(sensors) * self.pieces  # rows a view
        self.copies: int = self.pieces  # rows a sensor's id has in a view
        self._height, self._width_px = height, width
        self._width = LINE_PIXELS * float(model.vis.global_.linewidth)
        self._views: np.ndarray | None = None
        self._rectangles = int(model.vis.quality.offsamples) > 0  # (see write)
        # a flat box, a ribbon (see write): seen end on, a cylinder's caps show as a disc
        # where a GL line is a few pixels of its minor axis
        part = Part("box", rotation=Y_TO_Z)
        material = Material(alpha=float(rgba[3]))
        for s in sensors:
            self.looks.append(GeomLook(first_id + s, [part], {}, tuple(rgba[:3]), material))

    def arrays(self) -> dict[str, tuple[int, ...]]:
        model = self.model
        return {"site_xpos": (model.nsite, 3), "site_xmat": (model.nsite, 9),
                "sensordata": (model.nsensordata, 1)}  # fmt: skip

    def memory_per_world(self, cameras: int) -> int:
        """One world's rows and instance lists (a row per ray and camera) and its pulled
        site poses and readings."""
        model = self.model
        rows = self.count * cameras
        return (rows * 64 + self.instance_bytes(cameras, self.count)
                + model.nsite * 96 + model.nsensordata * 8)  # fmt: skip

    def make_records(self, ctx: hypergl.Context) -> TailRecords:
        records = self._make_records(ctx, "scale", np.full(self.count, self.none_id))
        records.rows["id"] = self.none_id  # the spare row too
        return records

    def see(self, matrices: np.ndarray) -> None:
        """This snapshot's view-projections (worlds * cameras, 4, 4): the rays' widths."""
        self._views = matrices

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        """Every view's rays: from each sensor's site along its z by the reading, in
        pieces, each as wide as a line is where the piece's middle lies."""
        if self.records is None or not self.count or self._views is None:
            return
        model, worlds, ncam = self.model, self.worlds_drawn, self.cameras
        sites = model.sensor_objid[self.sensors]
        xpos = arrays["site_xpos"].reshape(worlds, -1, 3)[:, sites]
        axis = arrays["site_xmat"].reshape(worlds, -1, 3, 3)[:, sites][..., 2]  # its z
        reading = arrays["sensordata"].reshape(worlds, -1)[:, model.sensor_adr[self.sensors]]
        valid = reading >= 0  # -1: the ray hit nothing (MuJoCo draws no line)
        if not self.transparent:
            valid &= ~hidden_by_a_later_twin(xpos, axis, reading)
        ray = axis * np.maximum(reading, 0.0)[..., None]  # (worlds, rays, 3)
        t = np.arange(self.pieces + 1) / self.pieces
        ends = xpos[:, :, None] + ray[:, :, None] * t[None, None, :, None]  # (w, rays, P+1, 3)
        position = 0.5 * (ends[:, :, :-1] + ends[:, :, 1:]).reshape(-1, 3)
        # every piece of a ray turned as the ray, a piece of its length
        _, turned_ray, half_ray = connectors(xpos.reshape(-1, 3), (xpos + ray).reshape(-1, 3))
        rotation = np.repeat(turned_ray, self.pieces, axis=0)
        half = np.repeat(half_ray / self.pieces, self.pieces)
        shape = (worlds, ncam, self.count)  # count: rays x pieces
        views = self._views.reshape(worlds, ncam, 4, 4)

        # the pieces' ends in every view (w, c, rays, P + 1, 4): a piece's a, b and middle
        h = np.concatenate([ends, np.ones((*ends.shape[:-1], 1))], axis=-1)
        clipped = np.matmul(h.reshape(worlds, 1, -1, 4), views.transpose(0, 1, 3, 2))
        clipped = clipped.reshape(worlds, ncam, *ends.shape[1:3], 4)
        ca = clipped[:, :, :, :-1].reshape(*shape, 4)
        cb = clipped[:, :, :, 1:].reshape(*shape, 4)
        middle = 0.5 * (ca + cb)  # (the clip transform is linear)
        # glLineWidth's line: LINE_PIXELS across its minor axis (y for a line more across
        # than up the screen, else x), its ends cut along that axis. A ribbon spanned by the
        # piece and that screen axis's world direction covers the same pixels (made square
        # to the piece: the same extent across the minor axis, the ends sheared by what the
        # piece runs along that axis)
        pixels = np.array([self._width_px / 2.0, self._height / 2.0])
        screen = (cb[..., :2] / cb[..., 3:4] - ca[..., :2] / ca[..., 3:4]) * pixels
        focal = np.linalg.norm(views[:, :, 1, :3], axis=-1)[..., None]  # P11, per view
        # a pixel at clip w is 2 w / (P11 H) metres
        half_width = 0.5 * self._width * 2.0 * np.abs(middle[..., 3]) / (focal * self._height)
        # mjr_render multisampled (quality.offsamples > 0): GL draws a wide line as a
        # rectangle square to it on the screen (Mesa's line_rectangular): a ribbon facing
        # the view's axis, its width not foreshortened where the ray runs in depth. The
        # blended ray alone (the opaque one is the segmentation's too, single-sampled);
        # dm_control quadruped's views at 84x84 / 240x320: cam 0 36.5 -> 37.7 / 41.7 ->
        # 42.4 dB, cam 3 36.5 -> 36.0 / 42.2 -> 41.7
        square = self.transparent and self._rectangles
        turned = self._ribbons(views, screen, rotation, square)
        across_scale, thickness = half_width, THIN * half_width
        live = np.repeat(valid, self.pieces, axis=1)[:, None] & np.isfinite(half_width)
        live &= (ca[..., 3] > 0) & (cb[..., 3] > 0)  # (a piece behind the eye: not drawn)
        rows = self.records.rows[: worlds * ncam * self.count]
        rows["position"] = np.broadcast_to(position.reshape(worlds, 1, -1, 3),
                                           (*shape, 3)).reshape(-1, 3)  # fmt: skip
        rows["rotation"] = turned.reshape(-1, 3, 3)
        half = np.broadcast_to(half.reshape(worlds, 1, -1), shape)
        rows["scale"] = np.stack(
            [
                np.where(live, across_scale, 0.0),
                np.where(live, half, 0.0),
                np.where(live, thickness, 0.0),
            ],
            axis=-1,
        ).reshape(-1, 3)
        ids = np.broadcast_to(np.repeat(self.first_id + self.sensors, self.pieces), shape)
        rows["id"] = np.where(live, ids, self.none_id).reshape(-1)

    @staticmethod
    def _ribbons(views: np.ndarray, screen: np.ndarray, rotation: np.ndarray,
                 square: bool = False) -> np.ndarray:  # fmt: skip
        """(worlds, cameras, count, 3, 3): each piece's ribbon, its z along the piece (the
        rotation's z) and its x the view's world up (a line more across than up the screen:
        its minor axis y) or right, made square to the piece; `square`: its x across both
        the piece and the view's axis (on the screen, square to the line)."""
        worlds = len(views)
        if square:  # the view's axis: clip w's row
            axis = views[:, :, None, 3, :3]
            across = np.cross(rotation[..., 2].reshape(worlds, 1, -1, 3), axis)
        else:
            x_major = np.abs(screen[..., 0]) >= np.abs(screen[..., 1])  # (w, c, count)
            # the view's world right and up (rows 0 and 1 of a symmetric frustum's matrix)
            axes = views[:, :, :2, :3]
            axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
            across = np.where(x_major[..., None], axes[:, :, None, 1], axes[:, :, None, 0])
        along = np.broadcast_to(rotation[..., 2].reshape(worlds, 1, -1, 3), across.shape)
        across = across - np.sum(across * along, axis=-1, keepdims=True) * along
        norm = np.linalg.norm(across, axis=-1, keepdims=True)
        fallback = np.broadcast_to(rotation[..., 0].reshape(worlds, 1, -1, 3), across.shape)
        across = np.where(norm > 1e-9, across / np.maximum(norm, 1e-9), fallback)
        return np.stack([across, np.cross(along, across), along], axis=-1)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """Nothing on the GPU before the draw: the rows are written by :meth:`write`."""
