"""A look's drawn pieces: each a mesh of the renderer's library placed in the body's frame.

A bridge turns its shapes into parts (Culverin: :mod:`hypergl_culverin.shapes`; MuJoCo: one
part per geom); :func:`named_parts` gives the built-in primitives by name. Sizes follow the
unit meshes (:mod:`hypergl.bodies.meshes`): box half extents, sphere radius, capsule and
cylinder ``(half_height, radius)`` along the body's y axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BodyError

# How the vertex stage places a part's mesh: scaled, capsule (hemispheres moved to the half
# height, the rest scaled by the radius), soft (vertices from the soft-vertex buffer).
MODE_SCALED, MODE_CAPSULE, MODE_SOFT = 0, 1, 2
# The renderer's own, with primitives="raycast": a part drawn as two triangles over its
# screen rectangle (clamped to its view) and intersected exactly per fragment: a sphere of
# any scale (an ellipsoid), a capsule, a cylinder; and a plane, drawn as its own quad
# (exact depth without a ray: it is flat) lit once per vertex, in a pipeline of its own.
MODE_RAY_SPHERE, MODE_RAY_CAPSULE, MODE_RAY_CYLINDER, MODE_RAY_PLANE = 3, 4, 5, 6
# (mesh, mode) of a part -> (its ray-cast mode, the proxy mesh that draws it)
RAYCAST = {("sphere", MODE_SCALED): (MODE_RAY_SPHERE, "ray_sphere"),
           ("sphere_lo", MODE_SCALED): (MODE_RAY_SPHERE, "ray_sphere"),
           ("capsule", MODE_CAPSULE): (MODE_RAY_CAPSULE, "ray_capsule"),
           ("capsule_lo", MODE_CAPSULE): (MODE_RAY_CAPSULE, "ray_capsule"),
           ("cylinder", MODE_SCALED): (MODE_RAY_CYLINDER, "ray_cylinder"),
           ("quad", MODE_SCALED): (MODE_RAY_PLANE, "ray_plane")}  # fmt: skip
IDENTITY = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class Part:
    """One drawn piece of a body: a mesh of the renderer's library and its placement."""

    mesh: str
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)  # from the record's position, body frame
    rotation: tuple[float, float, float, float] = IDENTITY
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    mode: int = MODE_SCALED
    shade: float = 1.0  # the look's colour times this (e.g. a darker spoke on a wheel)
    # MODE_SOFT only: lit with each soft vertex's own normal (soft_vertices.py), interpolated
    # over a face (smooth, as MuJoCo shades skins), not with its face's (flat)
    smooth: bool = False


def _sizes(name: str, size: Any, count: int) -> tuple[float, ...]:
    try:
        values = np.broadcast_to(np.asarray(size, dtype=np.float64), (count,))
    except (TypeError, ValueError):
        raise BodyError(f"{name} size must be {count} positive numbers, got {size!r}") from None
    if not (np.isfinite(values).all() and (values > 0).all()):
        raise BodyError(f"{name} size must be {count} positive numbers, got {size!r}")
    return tuple(float(v) for v in values)


def named_parts(name: str, size: Any) -> list[Part]:
    """The single part of a built-in primitive: ``"box"`` (half extents), ``"sphere"``
    (radius), ``"capsule"`` / ``"cylinder"`` (half height, radius), ``"plane"`` (half
    extents x, z of a square facing +y)."""
    if name == "box":
        return [Part("box", scale=_sizes(name, size, 3))]  # type: ignore[arg-type]
    if name == "sphere":
        (radius,) = _sizes(name, size, 1)
        return [Part("sphere", scale=(radius, radius, radius))]
    if name in ("capsule", "cylinder"):
        half, radius = _sizes(name, size, 2)
        if name == "capsule":
            return [Part("capsule", scale=(radius, half, radius), mode=MODE_CAPSULE)]
        return [Part("cylinder", scale=(radius, half, radius))]
    if name == "plane":
        x, z = _sizes(name, size, 2)
        return [Part("quad", scale=(x, 1.0, z))]
    raise BodyError(f"shape {name!r} is not one of 'box', 'sphere', 'capsule', 'cylinder', "
                    "'plane', 'none'")  # fmt: skip


def check_color(color: Sequence[float]) -> np.ndarray:
    rgb = np.asarray(color, dtype=np.float32)
    if rgb.shape != (3,) or not np.isfinite(rgb).all():
        raise ValueError(f"color must be (r, g, b), got {color!r}")
    return rgb
