"""World-space meshes: camera helpers, smooth attributes, instancing, textures, attachments."""

from __future__ import annotations

import numpy as np
import pytest

import py_gpu
from py_gpu import (
    Camera,
    DirectionalLight,
    Instances,
    Material,
    MeshBatch,
    MeshRenderer,
    TextureAtlas,
    look_at,
    perspective,
)
from py_gpu.errors import InvalidGeometryError, InvalidSizeError, TargetSizeError

W, H = 80, 60


def test_camera_matrices():
    view = look_at((0, 0, 5), (0, 0, 0))
    assert np.allclose(view @ [0, 0, 0, 1], [0, 0, -5, 1])
    proj = perspective(90.0, 1.0, 1.0, 10.0)
    near = proj @ [0, 0, -1, 1]
    far = proj @ [0, 0, -10, 1]
    assert np.isclose(near[2] / near[3], -1) and np.isclose(far[2] / far[3], 1)
    edge = proj @ [1, 0, -1, 1]
    assert np.isclose(edge[0] / edge[3], 1)
    with pytest.raises(InvalidGeometryError):
        perspective(60, 1, 0.0, 1)
    with pytest.raises(InvalidGeometryError):
        look_at((0, 0, 0), (0, 0, 0))
    with pytest.raises(InvalidGeometryError):
        look_at((0, 0, 1), (0, 0, 0), up=(0, 0, 1))


def _plane(size=2.0, z=0.0):
    h = size / 2
    positions = [(-h, -h, z), (h, -h, z), (h, h, z), (-h, h, z)]
    uvs = [(0, 1), (1, 1), (1, 0), (0, 0)]
    return MeshBatch(positions, [(0, 1, 2), (0, 2, 3)], normals=[(0, 0, 1)] * 4, uvs=uvs)


def test_attachments_of_a_facing_plane(backend):
    renderer = MeshRenderer(backend)
    camera = Camera(position=(0, 0, 3), fov_y=60)
    result = renderer.render(renderer.upload(_plane(), object_id=7), camera, W, H, shading="unlit")
    covered = result.object_id == 7
    assert covered[H // 2, W // 2] and not covered[0, 0]
    assert np.allclose(result.depth[covered], 3.0, atol=1e-5)
    assert np.isinf(result.depth[~covered]).all()
    assert np.allclose(result.normal[covered], [0, 0, 1], atol=1e-6)
    assert (result.triangle_id[covered] >= 0).all() and (result.triangle_id[~covered] == -1).all()
    color = result.color.to_numpy()
    assert (color[covered] == 255).all() and (color[~covered] == 0).all()
    # The plane spans 2 units at distance 3 with a 60 degree field of view.
    expected_rows = H * 2 / (2 * 3 * np.tan(np.radians(30)))
    assert abs(covered[:, W // 2].sum() - expected_rows) <= 1


def test_backends_agree_on_meshes(backend):
    mesh = MeshBatch.cube().with_smooth_normals()
    camera = Camera(position=(2.2, 1.7, 3.1))
    items = [(mesh, Instances.translations([(0, 0, 0), (1.2, 0.3, -1.5)], object_ids=[3, 4]))]
    ours = MeshRenderer(backend).render(items, camera, W, H)
    ref = MeshRenderer("cpu").render(items, camera, W, H)
    same = ours.triangle_id == ref.triangle_id
    assert same.mean() >= 0.995
    assert np.array_equal(ours.object_id[same], ref.object_id[same])
    assert set(np.unique(ref.object_id)) == {-1, 3, 4}
    assert np.allclose(ours.depth[same], ref.depth[same])


def test_smooth_and_flat_shading_differ():
    # A low-poly "sphere": an octahedron, smooth normals pointing away from the centre.
    pos = np.array([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)], float)
    idx = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    mesh = MeshBatch(pos, idx, normals=pos)
    renderer = MeshRenderer("numpy", materials=[Material((200, 180, 160))])
    camera = Camera(position=(0.3, 0.4, 3))
    light = [DirectionalLight(direction=(-0.3, -0.5, -1))]
    smooth = renderer.render(mesh, camera, W, H, lights=light, shading="smooth")
    flat = renderer.render(mesh, camera, W, H, lights=light, shading="flat")
    face = flat.triangle_id == 0
    flat_colours = flat.color.to_numpy()[face]
    assert len(np.unique(flat_colours, axis=0)) == 1  # one colour per face
    assert len(np.unique(smooth.color.to_numpy()[face], axis=0)) > 5  # a gradient
    assert np.array_equal(smooth.triangle_id, flat.triangle_id)


def test_vertex_colours_interpolate():
    mesh = MeshBatch(
        [(-1, -1, 0), (1, -1, 0), (0, 1, 0)], colors=[(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    )
    result = MeshRenderer("numpy").render(mesh, Camera(position=(0, 0, 2.5)), W, H, shading="unlit")
    colours = result.color.to_numpy()[result.object_id == 0]
    assert colours[:, 0].max() > 200 and colours[:, 1].max() > 200 and colours[:, 2].max() > 200
    assert np.all(np.abs(colours.astype(int).sum(axis=1) - 255) <= 2)  # barycentric blend


def test_texture_atlas_sampling_and_packing():
    red = np.zeros((4, 4, 3), np.uint8)
    red[..., 0] = 255
    quadrants = np.zeros((8, 8, 3), np.uint8)
    quadrants[:4, :4] = (10, 20, 30)  # top-left of the image: uv (0, 0)
    quadrants[:4, 4:] = (40, 50, 60)
    quadrants[4:, :4] = (70, 80, 90)
    quadrants[4:, 4:] = (100, 110, 120)
    atlas = TextureAtlas([red, quadrants])
    x, y, w, h = atlas.regions[1]
    assert np.array_equal(atlas.pixels[y : y + h, x : x + w], quadrants)
    uv = np.array([(0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9), (1.1, 0.1)])
    got = atlas.sample(np.array([1] * 5), uv)
    assert got.tolist() == [[10, 20, 30], [40, 50, 60], [70, 80, 90], [100, 110, 120], [10, 20, 30]]
    assert np.allclose(
        atlas.sample(np.array([0]), np.array([(0.5, 0.5)]), filter="bilinear"), [255, 0, 0]
    )
    # A textured plane facing the camera shows the image upright (v down the image).
    renderer = MeshRenderer("numpy", materials=[Material(texture=1)], atlas=atlas)
    result = renderer.render(_plane(), Camera(position=(0, 0, 2)), W, H, shading="unlit")
    rows, cols = np.nonzero(result.object_id == 0)
    frame = result.color
    assert frame.get_pixel(cols.min() + 1, rows.min() + 1) == (10, 20, 30)
    assert frame.get_pixel(cols.max() - 1, rows.max() - 1) == (100, 110, 120)
    with pytest.raises(InvalidSizeError):
        TextureAtlas([])
    with pytest.raises(InvalidGeometryError):
        MeshRenderer("numpy", materials=[Material(texture=3)], atlas=atlas)


def test_near_plane_clipping_keeps_visible_parts():
    floor = MeshBatch(
        [(-50, 0, -50), (50, 0, -50), (50, 0, 50), (-50, 0, 50)], [(0, 1, 2), (0, 2, 3)]
    )
    camera = Camera(position=(0, 1, 0), target=(0, 0.8, -3), near=0.1, far=200)
    result = MeshRenderer("numpy").render(floor, camera, W, H, shading="unlit")
    covered = result.object_id == 0
    assert covered[-1].all()  # the floor reaches the bottom edge although it passes the camera
    assert not covered[0].any()  # sky above the horizon
    assert (np.diff(result.depth[:, W // 2][covered[:, W // 2]]) < 0).all()  # nearer downwards


def test_handles_and_bad_input():
    renderer = MeshRenderer("numpy")
    handle = renderer.upload(MeshBatch.cube())
    camera = Camera(position=(2, 2, 2))
    first = renderer.render(handle, camera, 32, 24)
    again = renderer.render(handle, camera, 32, 24, target=py_gpu.FrameBuffer.new(32, 24))
    assert first.color.pixels == again.color.pixels
    with pytest.raises(TargetSizeError):
        renderer.render(handle, camera, 32, 24, target=py_gpu.FrameBuffer.new(8, 8))
    with pytest.raises(InvalidGeometryError):
        MeshBatch([(0, 0, np.nan)] * 3)
    with pytest.raises(InvalidGeometryError):
        MeshBatch([(0, 0, 0)] * 3, indices=[(0, 1, 5)])
    with pytest.raises(InvalidGeometryError):
        MeshBatch([(0, 0, 0)] * 3, normals=[(0, 0, 1)])
    with pytest.raises(InvalidGeometryError):
        Instances(np.eye(3))
    with pytest.raises(InvalidGeometryError):
        renderer.upload(MeshBatch([(0, 0, 0)] * 3, material_ids=[2]))
    with pytest.raises(TypeError):
        renderer.render("cube", camera, 32, 24)
    with pytest.raises(InvalidSizeError):
        renderer.render(handle, camera, 0, 24)
    empty = renderer.render([], camera, 4, 4, background=(1, 2, 3))
    assert empty.color.get_pixel(0, 0) == (1, 2, 3) and (empty.object_id == -1).all()


def test_the_lazy_mesh_names_are_the_mesh_module_s():
    """py_gpu lists py_gpu.mesh's names itself (importing py_gpu must not import NumPy): the
    two lists must not drift apart."""
    import py_gpu.mesh

    lazy = set(py_gpu._MESH)  # the list this test guards
    assert lazy == set(py_gpu.mesh.__all__)
    assert all(getattr(py_gpu, name) is getattr(py_gpu.mesh, name) for name in lazy)
