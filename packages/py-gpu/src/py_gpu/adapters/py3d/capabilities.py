"""What the accelerated py_3d path reproduces of py_3d's CPU renderer, and what it does not.

A scene that uses a feature in :data:`NOT_REPRODUCED` is drawn by py_3d's own CPU renderer
unless the caller asked for speed over parity (``reference_compatible=False``), in which case
the feature is left out of the frame.
"""

from __future__ import annotations

from typing import Any

#: Reproduced per face, per vertex or per pixel as py_3d's ``CPURenderer`` does them.
REPRODUCED = (
    "suns",
    "lamps",
    "lamp_radius",
    "ambient",
    "absorption",
    "diffuse",
    "emission",
    "specular",
    "shininess",
    "roughness",
    "fuzziness",
    "light_wrap",
    "bounce_light",
    "smooth_shading",
    "textures",
    "wireframe",
    "lines",
    "points",
    "gamma",
    "text_bulletins",
    "floating_text_bulletins",
    "cull_backfaces",
    "two_sided_lighting",
    "max_render_distance",
)

#: Ray-traced or otherwise not reproduced; each name is what :func:`unsupported_features` says.
NOT_REPRODUCED = (
    "ray_traced_shadows",  # settings.ray_traced_shadows
    "reflections",  # settings.reflection_bounces > 0 on a material with reflectivity
    "edge_highlight",  # settings.edge_highlight
    "custom_lights",  # a light that is neither a py_3d Sun nor a Lamp
)


def unsupported_features(scene: Any, settings: Any, materials: Any) -> tuple[str, ...]:
    """The :data:`NOT_REPRODUCED` features ``scene`` uses (``materials``: its MaterialTable)."""
    from py_3d import Lamp, Sun

    used = []
    if settings.ray_traced_shadows:
        used.append("ray_traced_shadows")
    if settings.reflection_bounces > 0 and (materials.reflectivity > 0.0).any():
        used.append("reflections")
    if settings.edge_highlight and not settings.wireframe:
        used.append("edge_highlight")
    if any(not isinstance(light, (Lamp, Sun)) for light in scene.lights):
        used.append("custom_lights")
    return tuple(used)
