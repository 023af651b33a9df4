"""Planar reflections as ``mjr_render`` draws them (``mjRND_REFLECTION``, on by default).

MuJoCo reflects in one geom: the first plane or box (its top face) that is opaque and has a
reflectance (later ones lose theirs). Where the eye is on the mirror's front, it draws the
scene reflected in the mirror's plane, clipped to the eye's side of it, every colour times
the reflectance, lit by every light at once with no shadows and no sky, inside the
mirror's outline (a stencil); then the mirror itself, added to that picture one to one.
Here the mirror pass is a second body renderer over the same records whose views are the
main views reflected in the plane (:class:`hypergl.bodies.BodyRenderer`'s ``mirror``); it
draws into a framebuffer of its own, and the main pass adds its picture where the mirror's
surface is drawn (``set_reflection``): the outline is the mirror's own pixels, no stencil.

Drawn: the geoms, and the sites, tendons, skins and flexes (a mirror renderer each over its
layer's records, :meth:`Reflections.add_layer`; a skin's or flex's vertices are copied from
its layer's renderer once skinned), in a mirror fixed in the world (a reflective geom on a
moving body reflects nothing here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import BodyRenderer

from .scene import OPAQUE, GeomLook

GEOM = mujoco.mjtGeom


class Mirror(NamedTuple):
    """The geom MuJoCo reflects in: its plane (a point, the unit normal) and reflectance."""

    geom: int
    point: np.ndarray
    normal: np.ndarray
    reflectance: float


def mirror_geom(model: mujoco.MjModel, looks: Sequence[GeomLook]) -> Mirror | None:
    """The first drawn geom MuJoCo reflects in (a plane, or a box's +z face), if it is
    fixed in the world; None when there is none (or it moves)."""
    for look in looks:  # in geom order, as mjv_updateScene adds them
        geom, material = look.geom, look.material
        kind = int(model.geom_type[geom])
        if kind not in (GEOM.mjGEOM_PLANE, GEOM.mjGEOM_BOX):
            continue
        if material.alpha < OPAQUE or not material.reflectance > 0:
            continue
        if model.body_weldid[model.geom_bodyid[geom]] != 0:
            return None  # on a moving body: its plane is per world and per frame
        data = mujoco.MjData(model)
        mujoco.mj_kinematics(model, data)  # a static geom's pose is the same in every state
        normal = np.array(data.geom_xmat[geom].reshape(3, 3)[:, 2], np.float64)
        point = np.array(data.geom_xpos[geom], np.float64)
        if kind == GEOM.mjGEOM_BOX:
            point += float(model.geom_size[geom][2]) * normal  # its top face
        return Mirror(geom, point, normal, min(float(material.reflectance), 1.0))
    return None


def reflection_matrix(mirror: Mirror) -> np.ndarray:
    """The 4x4 that reflects world points in the mirror's plane."""
    n, c = mirror.normal, float(mirror.normal @ mirror.point)
    out = np.eye(4)
    out[:3, :3] -= 2.0 * np.outer(n, n)
    out[:3, 3] = 2.0 * c * n
    return out


class Reflections:
    """The mirror pass: `renderer` (made by the caller with ``mirror=True`` and the main
    views' layout) into a framebuffer of its own, whose colour the main pass adds."""

    def __init__(self, mirror: Mirror, renderer: BodyRenderer) -> None:
        self.mirror: Mirror = mirror
        self.renderer: BodyRenderer = renderer
        self._reflect = reflection_matrix(mirror)
        renderer.set_mirror(mirror.normal, mirror.point, mirror.reflectance)
        self.framebuffer: hypergl.Framebuffer = renderer.framebuffer(name="mujoco_mirror")
        self.layers: list[BodyRenderer] = []  # the other elements' mirror renderers

    @property
    def renderers(self) -> list[BodyRenderer]:
        """Every renderer of the mirror pass: the geoms', then the other elements'."""
        return [self.renderer, *self.layers]

    def add_layer(self, renderer: BodyRenderer) -> None:
        """Reflect another element layer too (`renderer`: made as :attr:`renderer`, over
        that layer's records), drawn after the geoms into the same picture."""
        renderer.set_mirror(self.mirror.normal, self.mirror.point, self.mirror.reflectance)
        self.layers.append(renderer)

    @property
    def texture(self) -> hypergl.Texture:
        """The mirror pass's picture, tiled as the main views."""
        return self.framebuffer.color_texture(0)

    def attach(self, main: BodyRenderer) -> None:
        """The main pass adds the picture where the mirror lies."""
        main.set_reflection(self.texture, self.mirror.normal, self.mirror.point)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The reflected scene (before the main pass), from the records the snapshot
        synced; black where nothing is reflected (MuJoCo reflects no sky)."""
        cmd.bind_framebuffer(self.framebuffer)
        self.renderer.record_clear(cmd, background=(0.0, 0.0, 0.0))
        for renderer in self.renderers:
            renderer.record(cmd, sync=False)

    def update(self, matrices: np.ndarray) -> None:
        """This frame's views: the main views' view-projections (views, 4, 4) reflected."""
        reflected = matrices @ self._reflect
        for renderer in self.renderers:
            renderer.set_view_matrices(reflected)
            renderer.update()

    def release(self) -> None:
        if not self.framebuffer.released:
            self.framebuffer.release()
        for renderer in self.renderers:
            renderer.release()
