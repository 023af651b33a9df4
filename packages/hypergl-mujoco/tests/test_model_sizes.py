"""Models at the edges of the renderer's sizes: no geoms at all, and more meshes and
triangles than the body renderer's defaults hold (its library is sized from the model)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl_mujoco

from . import parity

pytestmark = pytest.mark.gl

CAMERA = '<camera name="top" pos="0 0 3" xyaxes="1 0 0 0 1 0"/>'


def sphere_mesh(n: int) -> tuple[str, str]:
    """A UV sphere of about 2 n^2 faces (radius 5 cm) as MJCF vertex and face text."""
    around = np.linspace(0, 2 * np.pi, n, endpoint=False)
    theta, phi = np.meshgrid(np.linspace(0.1, np.pi - 0.1, n), around, indexing="ij")
    vertices = 0.05 * np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi),
                                np.cos(theta)], -1).reshape(-1, 3)  # fmt: skip
    i = np.arange(n * n).reshape(n, n)
    j = np.roll(i, -1, axis=1)
    faces = np.concatenate([np.stack([i[:-1], i[1:], j[1:]], -1).reshape(-1, 3),
                            np.stack([i[:-1], j[1:], j[:-1]], -1).reshape(-1, 3)])  # fmt: skip
    return " ".join(f"{v:.4f}" for v in vertices.ravel()), " ".join(map(str, faces.ravel()))


def forwarded(model, count):
    worlds = [mujoco.MjData(model) for _ in range(count)]
    for data in worlds:
        mujoco.mj_forward(model, data)
    return worlds


def test_a_model_without_geoms_draws_the_background(gl_ctx):
    model = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{CAMERA}</worldbody></mujoco>")
    with hypergl_mujoco.BatchRenderer(model, 2, cameras=["top"], context=gl_ctx) as renderer:
        result = renderer.render(forwarded(model, 2))
    assert (result.segmentation == -1).all()
    assert np.allclose(result.depth, model.vis.map.zfar * model.stat.extent)


def test_more_meshes_and_triangles_than_the_defaults(gl_ctx):
    """300 meshes of 1,012 faces: past the body renderer's default 256 meshes and 2**18
    vertex rows; each drawn where MuJoCo draws it."""
    vertex, face = sphere_mesh(23)
    assets = "".join(f'<mesh name="m{k}" vertex="{vertex}" face="{face}"/>' for k in range(300))
    geoms = "".join(f'<geom type="mesh" mesh="m{k}" contype="0" conaffinity="0" '
                    f'pos="{(k % 20) * 0.12 - 1.14} {(k // 20) * 0.12 - 0.84} 0"/>'
                    for k in range(300))  # fmt: skip
    model = mujoco.MjModel.from_xml_string(
        f"<mujoco><asset>{assets}</asset><worldbody>{geoms}{CAMERA}</worldbody></mujoco>"
    )
    assert model.nmesh == 300 and 3 * len(model.mesh_face) > 1 << 18
    (data,) = forwarded(model, 1)
    with hypergl_mujoco.BatchRenderer(model, cameras=["top"], width=128, height=128,
                                      context=gl_ctx) as renderer:  # fmt: skip
        result = renderer.render(data)
    ids, depth = parity.mujoco_images(model, data, "top", 128, 128)
    stats = parity.check("many_meshes", result.segmentation[0, 0], result.depth[0, 0], ids, depth)
    assert stats["objects"] > 250
