"""Rangefinder rays as ``mjv_updateScene`` adds them (``mjVIS_RANGEFINDER``, on by default).

For each rangefinder sensor on a site whose reading is a distance (not -1: nothing hit),
MuJoCo adds an ``mjGEOM_LINE`` from the site along its z axis to what the ray hit, coloured
``vis.rgba.rangefinder``, and ``mjr_render`` draws it unlit, ``3 * vis.global.linewidth``
pixels wide (``glLineWidth``), casting no shadow, blended where that rgba's alpha is below 0.995
(dm_control's quadruped: 0.1). Here each ray is a thin capsule whose
radius is half that width at the ray's middle, in each view: the rows are per view (world
and camera: one camera's width is not another's), the view ranges select a view's own, and
the width follows the view matrices per snapshot (:meth:`Rangefinders.see`). Segmentation
id: ``first_id + sensor id``. Camera-attached rangefinders (MuJoCo 4's) and the hit points
and normals of other data specs are not drawn.
"""

from __future__ import annotations

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import MODE_CAPSULE, Material, Part

from .element_records import ElementLayer, TailRecords
from .scene import OPAQUE, Y_TO_Z, GeomLook
from .tendons import connectors

LINE_PIXELS = 3.0  # mjv_connector's mjGEOM_LINE width, times vis.global.linewidth


def drawn_rangefinders(model: mujoco.MjModel, flags: dict[str, bool]) -> list[int]:
    """The rangefinder sensors on sites, when ``mjVIS_RANGEFINDER`` is on."""
    if not flags.get("mjVIS_RANGEFINDER", True):
        return []
    kind, site = int(mujoco.mjtSensor.mjSENS_RANGEFINDER), int(mujoco.mjtObj.mjOBJ_SITE)
    types, objects = model.sensor_type, model.sensor_objtype
    return [s for s in range(model.nsensor) if types[s] == kind and objects[s] == site]


class Rangefinders(ElementLayer):
    """The rangefinder layer: a row per ray and view (``views`` = worlds x cameras, view
    after view), written per snapshot from the site poses and the sensor readings."""

    element = "rangefinder"
    per_view = True  # the renderer gives each view its own rows
    unlit = True  # mjr_render draws lines with the lighting off: in their colour

    def __init__(self, model: mujoco.MjModel, sensors: list[int], first_id: int,
                 worlds: int, cameras: int, height: int) -> None:  # fmt: skip
        # the rows' "worlds" are the views
        super().__init__(model, worlds * cameras, first_id, first_id + model.nsensor + 1)
        self.worlds_drawn, self.cameras = worlds, cameras
        self.none_id: int = first_id + model.nsensor  # an id without a look: nothing drawn
        self.sensors: np.ndarray = np.asarray(sensors, np.int64)
        self.count = len(sensors)
        self._height = height
        self._width = LINE_PIXELS * float(model.vis.global_.linewidth)
        self._views: np.ndarray | None = None
        rgba = np.asarray(model.vis.rgba.rangefinder, np.float32)
        part = Part("capsule", rotation=Y_TO_Z, scale=(1.0, 1.0, 1.0), mode=MODE_CAPSULE)
        material = Material(alpha=float(rgba[3]))
        self.transparent: bool = bool(rgba[3] < OPAQUE)  # drawn blended
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
        """Every view's rays: from each sensor's site along its z by the reading."""
        if self.records is None or not self.count or self._views is None:
            return
        model, worlds, ncam = self.model, self.worlds_drawn, self.cameras
        sites = model.sensor_objid[self.sensors]
        xpos = arrays["site_xpos"].reshape(worlds, -1, 3)[:, sites]
        axis = arrays["site_xmat"].reshape(worlds, -1, 3, 3)[:, sites][..., 2]  # its z
        reading = arrays["sensordata"].reshape(worlds, -1)[:, model.sensor_adr[self.sensors]]
        valid = reading >= 0  # -1: the ray hit nothing (MuJoCo draws no line)
        a, b = xpos, xpos + axis * np.maximum(reading, 0.0)[..., None]
        position, rotation, half = connectors(a.reshape(-1, 3), b.reshape(-1, 3))
        # the world width of LINE_PIXELS at the ray's middle, per view: 2 w / (P11 H) a pixel
        views = self._views.reshape(worlds, ncam, 4, 4)
        middle = np.concatenate([position.reshape(worlds, 1, -1, 3),
                                 np.ones((worlds, 1, self.count, 1))], axis=-1)  # fmt: skip
        clip_w = np.einsum("wcj,wkj->wck", views[:, :, 3], middle[:, 0])
        focal = np.linalg.norm(views[:, :, 1, :3], axis=-1)[..., None]  # P11, per view
        radius = 0.5 * self._width * 2.0 * np.abs(clip_w) / (focal * self._height)
        valid = np.broadcast_to(valid[:, None], (worlds, ncam, self.count))
        valid = valid & np.isfinite(radius)
        rows = self.records.rows[: worlds * ncam * self.count]
        shape = (worlds, ncam, self.count)
        rows["position"] = np.broadcast_to(position.reshape(worlds, 1, -1, 3),
                                           (*shape, 3)).reshape(-1, 3)  # fmt: skip
        rows["rotation"] = np.broadcast_to(rotation.reshape(worlds, 1, -1, 3, 3),
                                           (*shape, 3, 3)).reshape(-1, 3, 3)  # fmt: skip
        half = np.broadcast_to(half.reshape(worlds, 1, -1), shape)
        r = np.where(valid, radius, 0.0)
        rows["scale"] = np.stack([r, np.where(valid, half, 0.0), r], axis=-1).reshape(-1, 3)
        ids = np.broadcast_to(self.first_id + self.sensors, shape)
        rows["id"] = np.where(valid, ids, self.none_id).reshape(-1)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """Nothing on the GPU before the draw: the rows are written by :meth:`write`."""
