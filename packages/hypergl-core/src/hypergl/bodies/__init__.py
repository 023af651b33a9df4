"""One body renderer for every bridge: per-instance records in, colour, metric depth and
object ids out, in one view or many views tiled into one framebuffer, GPU-driven (a compute
pass culls and lists the instances, one multi-draw-indirect-count draws them).

A bridge hands :class:`BodyRenderer` a record source (:mod:`hypergl.bodies.records`) and gives
each id a look (:meth:`BodyRenderer.set_look`, :meth:`BodyRenderer.set_parts`), a material
and a texture of its atlas (:mod:`hypergl.bodies.shading`), lit by lights of its own.
"""

from __future__ import annotations

from ..errors import BodyError
from .parts import MODE_CAPSULE, MODE_SCALED, MODE_SOFT, Part, named_parts
from .records import MATRIX_RECORD_DTYPE, RECORD_DTYPE, InstanceRecords
from .renderer import OUTPUTS, BodyRenderer, list_bytes, sort_key_commands
from .shading import (
    LIGHT_DTYPE,
    LIGHT_HEAD,
    LIGHT_OFF,
    LIGHT_WORLD,
    TEXTURE_BOX,
    TEXTURE_CUBE,
    TEXTURE_CUBE_Y_UP,
    TEXTURE_PLANAR,
    Material,
    TextureAtlas,
    lights,
    set_light,
)
from .soft_vertices import SOFT_VERTEX_GLSL, pack_normals

__all__ = [
    "LIGHT_DTYPE",
    "LIGHT_HEAD",
    "LIGHT_OFF",
    "LIGHT_WORLD",
    "MATRIX_RECORD_DTYPE",
    "MODE_CAPSULE",
    "MODE_SCALED",
    "MODE_SOFT",
    "OUTPUTS",
    "RECORD_DTYPE",
    "SOFT_VERTEX_GLSL",
    "TEXTURE_BOX",
    "TEXTURE_CUBE",
    "TEXTURE_CUBE_Y_UP",
    "TEXTURE_PLANAR",
    "BodyError",
    "BodyRenderer",
    "InstanceRecords",
    "Material",
    "Part",
    "TextureAtlas",
    "lights",
    "list_bytes",
    "named_parts",
    "pack_normals",
    "set_light",
    "sort_key_commands",
]
