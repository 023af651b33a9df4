"""Smooth soft bodies: each soft vertex's normal packed into its last word
(hypergl.bodies.soft_vertices), the same packing in GLSL and NumPy, and a smooth part lit
with its vertices' normals where a flat one is lit with its face's."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hypergl.bodies import (
    MODE_SOFT,
    SOFT_VERTEX_GLSL,
    BodyError,
    BodyRenderer,
    InstanceRecords,
    Part,
    meshes,
    pack_normals,
)
from hypergl.testing import draw_bodies
from hypergl.transforms import look_at, perspective

# Each normal packed by the shaders' pack_soft_normal and unpacked by soft_normal.
ROUND_TRIP = (
    "#version 430\nlayout(local_size_x = 64) in;\n"
    + SOFT_VERTEX_GLSL
    + """
layout(std430, binding = 0) readonly buffer Normals { vec4 normals[]; };
layout(std430, binding = 1) writeonly buffer Packed { uint packed_normals[]; };
layout(std430, binding = 2) readonly buffer Given { uint given[]; };
layout(std430, binding = 3) writeonly buffer Unpacked { vec4 unpacked[]; };
layout(location = 0) uniform int count;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(count)) return;
    packed_normals[i] = pack_soft_normal(normals[i].xyz);
    unpacked[i] = vec4(soft_normal(given[i]), 0.0);
}
"""
)


def normals(count: int = 500) -> np.ndarray:
    rng = np.random.default_rng(3)
    axes = np.concatenate([np.eye(3), -np.eye(3), [[1, 1, -1], [-1, 1, -1], [0, -1, -1]]])
    return np.concatenate([axes, rng.normal(size=(count - len(axes), 3)) * rng.uniform(0.1, 9)])


@pytest.mark.gl
def test_normals_pack_alike_in_numpy_and_glsl_and_come_back_within_1e_4_radians(gl_ctx):
    n = normals()
    count = len(n)
    source = gl_ctx.buffer(data=np.column_stack([n, np.zeros(count)]).astype(np.float32))
    packed = gl_ctx.buffer(size=4 * count)
    given = gl_ctx.buffer(data=pack_normals(n))
    unpacked = gl_ctx.buffer(size=16 * count)
    cmd = gl_ctx.command_buffer()
    cmd.bind_pipeline(gl_ctx.pipeline(compute_shader=ROUND_TRIP))
    for binding, buffer in enumerate((source, packed, given, unpacked)):
        cmd.bind_storage_buffer(buffer, binding)
    cmd.li(0, count)
    cmd.uniform_i(0, 0)
    cmd.dispatch(-(-count // 64))
    cmd.end()
    cmd.submit()
    gl_ctx.finish()
    ours, theirs = pack_normals(n), packed.read(np.uint32)
    for shift in (0, 16):  # each snorm16 alike, or one step apart where float32 rounds a tie
        a = ((ours >> shift) & 0xFFFF).astype(np.uint16).view(np.int16).astype(int)
        b = ((theirs >> shift) & 0xFFFF).astype(np.uint16).view(np.int16).astype(int)
        assert np.abs(a - b).max() <= 1
    back = unpacked.read(np.float32).reshape(count, 4)[:, :3].astype(np.float64)
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-6)
    angle = np.arctan2(np.linalg.norm(np.cross(back, n), axis=1), (back * n).sum(1))
    assert angle.max() < 1e-4


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1.0, 0.0, 0.0], "an (N, 3) array, got shape (3,)"),
        (np.ones((2, 2)), "an (N, 3) array, got shape (2, 2)"),
        ([[0.0, float("nan"), 1.0]], "finite"),
        ([[0.0, float("inf"), 1.0]], "finite"),
        ([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], "normal 1 is zero"),
        ([["up", "down", "left"]], "an (N, 3) array of numbers"),
        (None, "an (N, 3) array"),
    ],
)
def test_pack_normals_names_a_bad_normal(bad, message):
    with pytest.raises(BodyError, match=re.escape(message)):
        pack_normals(bad)


def soft_quad(gl_ctx, smooth: bool, lean: float) -> np.ndarray:
    """A 2 x 2 m square of two soft triangles in z = 0 (wound toward +z), its vertices'
    normals leaning out along x by `lean` (left and right: 0 is the face's normal), seen
    from (0, 0, 6): the frame's colour."""
    records = InstanceRecords(gl_ctx, 1)
    records.write([(0.0, 0.0, 0.0)], [(0.0, 0.0, 0.0, 1.0)], [1])
    renderer = BodyRenderer(records, max_ids=2, outputs=("color",), max_soft_vertices=4)
    first = renderer.add_soft_vertices(1, 4)
    corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32)
    view = renderer.soft_vertices_view
    view[first : first + 4, :3] = corners
    normals = np.column_stack([lean * corners[:, 0], np.zeros(4), np.ones(4)])
    view.view(np.uint32)[first : first + 4, 3] = pack_normals(normals)
    rows = meshes.indexed_rows(4, np.array([0, 1, 2, 0, 2, 3]))
    renderer.set_parts(1, [Part("quad_soft", mode=MODE_SOFT, smooth=smooth)],
                       {"quad_soft": rows}, color=(0.8, 0.8, 0.8))  # fmt: skip
    eye = (0.0, 0.0, 6.0)
    renderer.set_camera(perspective(40.0, 1.0, 0.1, 100.0) @ look_at(eye, (0.0, 0.0, 0.0)))
    fb = renderer.framebuffer((64, 64))
    color = draw_bodies(renderer, fb)["color"].astype(int)
    fb.release()
    renderer.release()
    records.release()
    return color


@pytest.mark.gl
def test_a_smooth_soft_part_is_lit_by_its_vertices_normals(gl_ctx):
    """Flat: one shade over the square (its face's normal). Smooth with the face's normal
    at every vertex: the same picture. Smooth with normals leaning out: a shade that
    changes across the square."""
    flat = soft_quad(gl_ctx, False, 1.7)
    square = (slice(20, 44), slice(20, 44))  # inside the square's 18..46
    assert np.ptp(flat[square].sum(-1)) <= 3  # one shade (dithering aside)
    assert np.abs(soft_quad(gl_ctx, True, 0.0) - flat).max() <= 2
    leaning = soft_quad(gl_ctx, True, 1.7)[square].sum(-1)
    assert np.ptp(leaning.mean(axis=0)) > 30  # left to right across the square
    assert (np.abs(np.diff(leaning.mean(axis=0))) > 0).mean() > 0.5  # smooth: a ramp


@pytest.mark.gl
def test_smooth_is_for_soft_parts_and_a_bool(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    renderer = BodyRenderer(records, max_ids=2)
    with pytest.raises(
        BodyError, match=r"smooth=True is for soft parts \(mode=MODE_SOFT\), not mode 0"
    ):
        renderer.set_parts(1, [Part("box", smooth=True)])
    with pytest.raises(BodyError, match="smooth must be True or False, got 1"):
        renderer.set_parts(1, [Part("box", smooth=1)])  # type: ignore[arg-type]
    with pytest.raises(BodyError, match=r"parts must be hypergl\.bodies\.Part, got 'box'"):
        renderer.set_parts(1, ["box"])  # type: ignore[list-item]
    renderer.release()
    records.release()
