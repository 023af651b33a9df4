"""Mipmapped textures and cube maps: ``ctx.texture(..., mipmaps=True)`` and ``cube=True``."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl

# Reads a cube map along the six axes (level 0 and the last level) and a mipmapped 2D
# texture at its last level: 6 + 6 + 1 texels into a buffer.
READ = """#version 430
layout(local_size_x = 1) in;
layout(binding = 1) uniform samplerCube cube;
layout(binding = 2) uniform sampler2D flat_texture;
layout(location = 0) uniform float last;
layout(std430, binding = 0) writeonly buffer Out { vec4 texels[]; };
const vec3 AXES[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0),
                             vec3(0, 0, 1), vec3(0, 0, -1));
void main() {
    for (int f = 0; f < 6; ++f) {
        texels[f] = textureLod(cube, AXES[f], 0.0);
        texels[6 + f] = textureLod(cube, AXES[f], last);
    }
    texels[12] = textureLod(flat_texture, vec2(0.5), last);
}
"""


def faces(size: int = 8) -> np.ndarray:
    """Six faces, face f filled with grey 30 f + 10 (a checker of +-10 on face 0)."""
    out = np.zeros((6, size, size, 4), np.uint8)
    for f in range(6):
        out[f] = (30 * f + 10, 255 - 30 * f, 7 * f, 255)
    checker = (np.indices((size, size)).sum(0) % 2) * 20 - 10
    out[0, :, :, 0] = (10 + 10 + checker).astype(np.uint8)  # mean 20
    return out


def read(ctx, cube, flat) -> np.ndarray:
    out = ctx.buffer(size=13 * 16)
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(ctx.pipeline(compute_shader=READ))
    cmd.bind_texture(cube, 1)
    cmd.bind_texture(flat, 2)
    cmd.bind_storage_buffer(out, 0)
    cmd.uniform_const(0, 3.0, "float")  # 8 -> 4 -> 2 -> 1: level 3
    cmd.dispatch(1)
    cmd.end()
    cmd.submit()
    ctx.finish()
    return out.read(np.float32).reshape(13, 4) * 255


@pytest.mark.gl
def test_a_cube_map_has_its_faces_in_gls_order_and_a_mip_chain(gl_ctx):
    pixels = faces()
    cube = gl_ctx.texture(pixels, cube=True, mipmaps=True, wrap="clamp")
    checker = np.indices((8, 8)).sum(0) % 2 * 255
    flat = gl_ctx.texture(np.repeat(checker[..., None], 4, 2).astype(np.uint8), mipmaps=True)
    assert cube.layers == 6 and cube.size == (8, 8)
    texels = read(gl_ctx, cube, flat)
    level0, last = texels[:6], texels[6:12]
    # Level 0 at a face's centre: its 4 middle texels (face 0's checker averages 20).
    assert np.allclose(level0[1:, 0], 30 * np.arange(1, 6) + 10, atol=1)
    assert np.allclose(level0[0, 0], 20, atol=1)
    # The last level: each face's mean (glGenerateTextureMipmap made it).
    assert np.allclose(last[:, 0], [20, *(30 * np.arange(1, 6) + 10)], atol=2)
    assert np.allclose(texels[12, :3], 127.5, atol=2)
    # A write remakes the chain from the new level 0.
    cube.write(np.full((6, 8, 8, 4), 99, np.uint8))
    assert np.allclose(read(gl_ctx, cube, flat)[6:12], 99, atol=1)


@pytest.mark.parametrize("device", ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)])
def test_cube_and_mipmapped_textures_on_every_device(device):
    with hypergl.context(device=device) as ctx:
        cube = ctx.texture(faces(4), cube=True, mipmaps=True)
        empty = ctx.texture(size=(4, 4), cube=True, format="rgba16f")
        mipmapped = ctx.texture(np.zeros((4, 2, 1), np.float32), format="r32f", mipmaps=True)
        assert cube.layers == 6 and empty.layers == 6 and mipmapped.size == (2, 4)
        cmd = ctx.command_buffer()
        cmd.bind_texture(cube, 1)
        cmd.end()
        cmd.submit()
        ctx.finish()


@pytest.mark.parametrize("device", ["trace", pytest.param("gl", marks=pytest.mark.gl)])
def test_cube_and_mipmap_bad_input(device):
    with hypergl.context(device=device) as ctx:
        with pytest.raises(ValueError, match="data has 5 layers, expected 6"):
            ctx.texture(faces()[:5], cube=True)
        with pytest.raises(ValueError, match=r"shape \(layers, H, W, C\)"):
            ctx.texture(faces()[0], cube=True)
        with pytest.raises(ValueError, match="faces must be square, got 8x4"):
            ctx.texture(faces()[:, :4], cube=True)
        with pytest.raises(ValueError, match="faces must be square, got 4x2"):
            ctx.texture(size=(4, 2), cube=True)
        with pytest.raises(ValueError, match="6 faces, not layers=3"):
            ctx.texture(size=(4, 4), cube=True, layers=3)
        with pytest.raises(TypeError, match="rgba8 pixels must be uint8, got float32"):
            ctx.texture(faces().astype(np.float32), cube=True)
        with pytest.raises(ValueError, match="NaN"):
            ctx.texture(np.full((6, 2, 2, 4), np.nan, np.float32), format="rgba32f", cube=True)
        with pytest.raises(ValueError, match="NaN"):
            ctx.texture(np.full((2, 2, 1), np.nan, np.float32), format="r32f", mipmaps=True)
        with pytest.raises(ValueError, match="colour format, got 'depth24'"):
            ctx.texture(size=(4, 4), cube=True, format="depth24")
        with pytest.raises(ValueError, match="'depth24' cannot be mipmapped"):
            ctx.texture(size=(4, 4), format="depth24", mipmaps=True)
        with pytest.raises(ValueError, match="'r32ui' cannot be mipmapped"):
            ctx.texture(size=(4, 4), format="r32ui", mipmaps=True)
        with pytest.raises(TypeError, match="texture cube must be True or False, got 1"):
            ctx.texture(faces(), cube=1)
        with pytest.raises(TypeError, match="texture mipmaps must be True or False, got 'yes'"):
            ctx.texture(faces()[0], mipmaps="yes")
        cube = ctx.texture(faces(), cube=True)
        with pytest.raises(ValueError, match="data has 1 layers, expected 6"):
            cube.write(faces()[:1])


@pytest.mark.gl
def test_a_saved_program_remakes_its_cube_map_and_mip_chain(gl_ctx, tmp_path):
    cube = gl_ctx.texture(faces(), cube=True, mipmaps=True, name="cube")
    flat = gl_ctx.texture(np.full((8, 8, 4), 60, np.uint8), mipmaps=True, name="flat")
    out = gl_ctx.buffer(size=13 * 16, name="out")
    cmd = gl_ctx.command_buffer()
    cmd.bind_pipeline(gl_ctx.pipeline(compute_shader=READ))
    cmd.bind_texture(cube, 1)
    cmd.bind_texture(flat, 2)
    cmd.bind_storage_buffer(out, 0)
    cmd.uniform_const(0, 3.0, "float")
    cmd.dispatch(1)
    cmd.end()
    cmd.submit()
    gl_ctx.finish()
    expected = out.read(np.float32)
    hypergl.save(cmd, tmp_path / "cube.hgb")
    with hypergl.context() as fresh:
        scene = fresh.load(tmp_path / "cube.hgb")
        assert scene["cube"].layers == 6
        scene.submit()
        fresh.finish()
        assert np.allclose(scene["out"].read(np.float32), expected, atol=1e-6)


def test_a_loaded_mip_chain_counts_its_levels():
    """Loading a .hgb checks the memory its textures take: a chain's every level counts."""
    from hypergl.scene_memory import resource_bytes
    from hypergl_compiler import Resource
    from hypergl_compiler.isa import ResourceKind

    desc = {"width": 8, "height": 2, "format": "rgba8", "layers": 6}
    entry = Resource(ResourceKind.TEXTURE, "cube", desc)
    assert resource_bytes(entry) == 8 * 2 * 6 * 4
    chain = Resource(ResourceKind.TEXTURE, "cube", {**desc, "mipmaps": True})
    assert resource_bytes(chain) == (16 + 4 + 2 + 1) * 6 * 4  # 8x2, 4x1, 2x1, 1x1
