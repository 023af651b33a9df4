"""The renderer's indexed meshes: welded seams and poles, no degenerate triangles."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl_culverin import meshes


def area(unique, indices):
    corners = unique[indices.reshape(-1, 3), :3].astype(np.float64)
    return 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                         corners[:, 2] - corners[:, 0]), axis=1)  # fmt: skip


@pytest.mark.parametrize(("stacks", "slices"), [(3, 6), (5, 8), (12, 16)])
def test_a_uv_sphere_is_welded_at_its_seam_and_poles(stacks, slices):
    rows = meshes.sphere(stacks, slices)
    unique, indices = meshes.indexed(rows)
    # One vertex per pole, `slices` per inner ring (the seam is one vertex, not two).
    assert len(unique) == 2 + (stacks - 1) * slices
    # Each pole row keeps one triangle per slice, each inner row two.
    assert len(indices) // 3 == 2 * slices * (stacks - 1)
    assert area(unique, indices).min() > 1e-4  # no degenerate triangle is left
    # The same surface: every row is within the weld of a kept vertex.
    gaps = np.abs(rows[:, None, :] - unique[None, :, :]).max(axis=2).min(axis=1)
    assert gaps.max() < meshes.WELD


def test_weld_keeps_distinct_vertices_and_normals():
    box_rows = meshes.box()
    unique, indices = meshes.indexed(box_rows)
    assert (len(unique), len(indices)) == (24, 36)  # a corner is three vertices: 3 normals
    rows = np.array([[0, 0, 0, 0, 1, 0], [1e-3, 0, 0, 0, 1, 0], [0, 0, 1, 0, 1, 0]], np.float32)
    unique, indices = meshes.indexed(rows)
    assert len(unique) == 3 and indices.tolist() == [0, 1, 2]
