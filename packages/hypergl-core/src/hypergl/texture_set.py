"""Texture sets: N same-sized images that shaders sample by index.

With ARB_bindless_texture the images are separate textures whose resident
handles live in a storage buffer; without it they are the layers of one 2D
array texture. A pipeline made with ``texture_set_unit=U`` gets a GLSL function

    vec4 hgl_texture(uint index, vec2 uv);

defined for whichever path the driver has, so the same program and the same
shader source draw the same image on both.
"""

from __future__ import annotations

from .shader_prelude import insert_after_directives

_BINDLESS = """\
#extension GL_ARB_bindless_texture : require
layout(std430, binding = {unit}) readonly buffer HglTextureSet {{ uvec2 hgl_texture_handles[]; }};
vec4 hgl_texture(uint index, vec2 uv) {{
    return texture(sampler2D(hgl_texture_handles[index]), uv);
}}
"""

_ARRAY = """\
layout(binding = {unit}) uniform sampler2DArray hgl_texture_array;
vec4 hgl_texture(uint index, vec2 uv) {{
    return texture(hgl_texture_array, vec3(uv, float(index)));
}}
"""


def preamble(bindless: bool, unit: int) -> str:
    return (_BINDLESS if bindless else _ARRAY).format(unit=unit)


def inject(source: str, bindless: bool, unit: int) -> str:
    """`source` with the texture-set preamble after its #version / #extension lines."""
    return insert_after_directives(source, preamble(bindless, unit), 1)
