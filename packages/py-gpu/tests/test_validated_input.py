"""Input is bounded before anything is allocated, and stays as it was validated."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import py_gpu
from py_gpu.buffers import MAX_FRAME_PIXELS
from py_gpu.errors import InvalidGeometryError, InvalidSizeError
from py_gpu.mesh import Camera, Instances, MeshBatch, MeshRenderer

HUGE = (100_000, 100_000)  # 10^10 pixels: 37 GiB of depth alone in the NumPy rasterizer


def _batch():
    return py_gpu.RasterBatch.from_arrays([[[1, 1, 1], [9, 1, 1], [1, 9, 1]]], [(200, 10, 10)])


def test_every_backend_refuses_a_frame_over_the_limit_before_allocating(backend):
    for method in ("render", "rasterize_ids"):
        if hasattr(backend, method):
            with pytest.raises(InvalidSizeError, match=r"100000x100000 frame .*MAX_FRAME_PIXELS"):
                getattr(backend, method)(_batch(), *HUGE)


def test_the_frame_limit_is_a_pixel_count():
    side = int(MAX_FRAME_PIXELS**0.5)
    assert side * side == MAX_FRAME_PIXELS  # 8192 x 8192 is allowed, one more row is not
    with pytest.raises(InvalidSizeError, match=f"{side}x{side + 1}"):
        py_gpu.select_backend("numpy").render(_batch(), side, side + 1)
    with pytest.raises(InvalidSizeError, match="MAX_FRAME_PIXELS"):
        py_gpu.FrameBuffer.new(*HUGE)


def test_mesh_renderer_refuses_a_frame_over_the_limit():
    with pytest.raises(InvalidSizeError, match="100000x100000"):
        MeshRenderer("numpy").render(MeshBatch.cube(), Camera(position=(2, 2, 2)), *HUGE)


def test_a_singular_instance_transform_names_the_instance():
    flat = np.diag([1.0, 0.0, 1.0, 1.0])  # y scaled to zero: no inverse for the normals
    with pytest.raises(InvalidGeometryError, match=r"instance 1's transform is singular"):
        Instances(np.stack([np.eye(4), flat]))


def test_mesh_batch_arrays_cannot_change_after_validation():
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float64)
    indices = np.array([[0, 1, 2]], dtype=np.int64)
    mesh = MeshBatch(positions, indices)
    indices[0, 0] = -1  # the caller's arrays are not the mesh's
    positions[0, 0] = np.nan
    assert mesh.indices.tolist() == [[0, 1, 2]] and np.isfinite(mesh.positions).all()
    for name in ("positions", "indices"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(mesh, name)[0, 0] = 7
    with pytest.raises(dataclasses.FrozenInstanceError):
        mesh.indices = np.array([[0, 1, 99]])  # type: ignore[misc]


def test_instances_cannot_change_after_validation():
    transforms = np.stack([np.eye(4), np.eye(4)])
    inst = Instances(transforms)
    transforms[1, 1, 1] = 0.0  # singular now, but not the validated copy
    assert inst.transforms[1, 1, 1] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        inst.transforms[1, 1, 1] = 0.0


def test_raster_batch_of_a_view_is_not_changed_through_the_view():
    flat = np.array([1, 1, 1, 9, 1, 1, 1, 9, 1], dtype=np.float64)  # (9,): reshaped, a view
    batch = py_gpu.RasterBatch.from_arrays(flat)
    flat[0] = np.nan
    assert np.isfinite(batch.arrays()[0]).all()


def test_raster_batch_of_an_nx3x3_array_stays_zero_copy():
    # The per-frame path: the caller's own array is frozen in place, not copied.
    xyz = np.array([[[1, 1, 1], [9, 1, 1], [1, 9, 1]]], dtype=np.float64)
    batch = py_gpu.RasterBatch.from_arrays(xyz)
    assert batch.arrays()[0] is xyz and not xyz.flags.writeable
