"""The shared body renderer (hypergl.bodies) on real GL: one view and many views tiled into
one framebuffer, colour, depth in metres along the view axis and object ids."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hypergl.bodies import BodyError, BodyRenderer, InstanceRecords, list_bytes, sort_key_commands
from hypergl.transforms import look_at, perspective

pytestmark = pytest.mark.gl

IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)


def camera(eye, target, aspect, fovy=40.0):
    return perspective(fovy, aspect, 0.1, 100.0) @ look_at(eye, target)


def frame(ctx, renderer, fb):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    renderer.record_clear(cmd, (0.1, 0.2, 0.3))
    renderer.record(cmd)
    cmd.end()
    cmd.submit()
    return renderer.read(fb)


def test_one_view_colour_metric_depth_and_ids(gl_ctx):
    records = InstanceRecords(gl_ctx, 4)
    records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [3])
    renderer = BodyRenderer(records, max_ids=8, outputs=("color", "depth", "id"))
    renderer.set_look(3, "box", (1.0, 1.0, 1.0), color=(1.0, 1.0, 1.0))
    renderer.set_camera(camera((0.0, 0.0, 10.0), (0.0, 0.0, 0.0), 64 / 48))
    fb = renderer.framebuffer((64, 48))
    out = frame(gl_ctx, renderer, fb)
    assert out["color"].shape == (48, 64, 3) and out["color"].dtype == np.uint8
    assert out["depth"].dtype == np.float32 and out["id"].dtype == np.int32
    # The box's front face is at z = 1: 9 m from the eye along the view axis.
    assert out["id"][24, 32] == 3
    assert out["depth"][24, 32] == pytest.approx(9.0, rel=1e-5)
    assert out["id"][0, 0] == -1 and np.isinf(out["depth"][0, 0])
    assert tuple(out["color"][0, 0]) == (26, 51, 76)  # the background
    hit = out["id"] == 3
    assert np.isfinite(out["depth"][hit]).all() and not np.isfinite(out["depth"][~hit]).any()
    assert (out["color"][hit].astype(int).sum(axis=1) > 3 * 76).all()  # lit white, not bg
    renderer.release()
    records.release()


@pytest.mark.parametrize("outputs", [("depth", "id"), ("depth",), ("id",)])
def test_depth_and_ids_without_colour_match_those_with_it(gl_ctx, outputs):
    # no colour attachment, no shading: the same depth and ids as beside a colour output
    records = InstanceRecords(gl_ctx, 4)
    records.write([(0.0, 0.0, 0.0), (1.5, 0.5, -1.0)], [IDENTITY_Q] * 2, [3, 5])
    pictures = []
    for asked in (("color", *outputs), outputs):
        renderer = BodyRenderer(records, max_ids=8, outputs=asked)
        for body in (3, 5):
            renderer.set_look(body, "sphere", 1.0, color=(1.0, 1.0, 1.0))
        renderer.set_camera(camera((0.0, 0.0, 10.0), (0.0, 0.0, 0.0), 64 / 48))
        fb = renderer.framebuffer((64, 48))
        # no colour attachment without colour; a depth without colour in the depth buffer
        kept = [o for o in asked if not (o == "depth" and "color" not in asked)]
        assert len(fb._desc["color"]) == len(kept)
        assert fb._desc["depth"] == ("depth32f" if len(kept) < len(asked) else "depth24")
        pictures.append(frame(gl_ctx, renderer, fb))
        renderer.release()
    with_colour, alone = pictures
    assert set(alone) == set(outputs)
    for name in outputs:
        np.testing.assert_array_equal(alone[name], with_colour[name])
    if "id" in outputs:
        assert set(np.unique(alone["id"])) == {-1, 3, 5}
    records.release()


def test_depth_without_colour_is_the_depth_buffer_and_the_nearest_wins(gl_ctx):
    """Without colour the depth output is the depth buffer (DEPTH_SCALE / metres in
    depth32f, tested greater), and of two faces 20 um apart at 9 m (under one depth24 step
    there, ~50 um) the nearer one's id and metres, drawn last or first."""
    from hypergl.bodies.renderer import DEPTH_SCALE

    records = InstanceRecords(gl_ctx, 4)
    for order in ([3, 5], [5, 3]):
        # box 5's front face 2e-5 m nearer than box 3's (z 1 + 2e-5 vs z 1)
        centres = {3: (0.0, 0.0, 0.0), 5: (0.0, 0.0, 2e-5)}
        records.write([centres[i] for i in order], [IDENTITY_Q] * 2, order)
        renderer = BodyRenderer(records, max_ids=8, outputs=("depth", "id"))
        for body in (3, 5):
            renderer.set_look(body, "box", (1.0, 1.0, 1.0), color=(1.0, 1.0, 1.0))
        renderer.set_camera(camera((0.0, 0.0, 10.0), (0.0, 0.0, 0.0), 64 / 48))
        fb = renderer.framebuffer((64, 48))
        out = frame(gl_ctx, renderer, fb)
        assert out["id"][24, 32] == 5, order
        assert out["depth"][24, 32] == pytest.approx(9.0 - 2e-5, rel=1e-6)
        stored = np.empty((48, 64), np.float32)
        fb.reader(stored, attachment="depth").read()
        assert stored[24, 32] == np.float32(DEPTH_SCALE) / out["depth"][24, 32]
        assert stored[0, 0] == 0.0 and np.isinf(out["depth"][0, 0])  # nothing hit
        renderer.release()
    records.release()


def test_depth_without_colour_refuses_occlusion_culling_and_a_sky(gl_ctx):
    from hypergl.bodies import TextureAtlas

    records = InstanceRecords(gl_ctx, 4)
    records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [3])
    renderer = BodyRenderer(records, max_ids=8, outputs=("depth",))
    renderer.set_look(3, "box", (1.0, 1.0, 1.0))
    renderer.set_camera(camera((0.0, 0.0, 10.0), (0.0, 0.0, 0.0), 1.0))
    fb = renderer.framebuffer((16, 16))
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    with pytest.raises(BodyError, match="occlusion=None"):
        renderer.record(cmd, occlusion=fb)
    atlas = TextureAtlas()
    sky = atlas.add_cube(np.full((6, 4, 4, 3), (40, 90, 160), np.uint8))
    renderer.set_textures(atlas)
    renderer.set_sky(sky, 50.0)
    with pytest.raises(BodyError, match="sky=False"):
        renderer.record(cmd)
    renderer.record(cmd, sky=False)  # without it: drawn
    cmd.end()
    renderer.release()
    records.release()


def test_outputs_must_be_each_once(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    with pytest.raises(BodyError, match="'depth', 'depth'"):
        BodyRenderer(records, outputs=("depth", "depth"))
    records.release()


def four_worlds(ctx, **options):
    """Four 'worlds' of one body each (rows 0..3, ids 0..3) spaced along x."""
    records = InstanceRecords(ctx, 4)
    positions = [(10.0 * k, 0.0, 0.0) for k in range(4)]
    records.write(positions, [IDENTITY_Q] * 4, [0, 1, 2, 3])
    renderer = BodyRenderer(records, max_ids=8, views=4, outputs=("color", "depth", "id"),
                            **options)  # fmt: skip
    for k in range(4):
        renderer.set_look(k, "sphere" if k % 2 else "box", 1.0 if k % 2 else (1.0, 1.0, 1.0))
    return records, renderer


def test_many_views_tile_one_framebuffer_with_their_own_cameras_and_rows(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    tile = (40, 30)
    # View 0 is so close that its box fills more than its tile: nothing may leak out.
    cameras = [camera((0.0, 0.0, 1.5), (0.0, 0.0, 0.0), 4 / 3)]
    cameras += [camera((10.0 * k, 0.0, 6.0 + k), (10.0 * k, 0.0, 0.0), 4 / 3) for k in (1, 2, 3)]
    renderer.set_views(cameras, tile, ranges=[(k, 1) for k in range(4)], columns=2)
    assert renderer.framebuffer_size == (80, 60)
    fb = renderer.framebuffer()
    out = frame(gl_ctx, renderer, fb)
    ids, depth = renderer.split_views(out["id"]), renderer.split_views(out["depth"])
    assert ids.shape == (4, 30, 40) and depth.shape == (4, 30, 40)
    assert (ids[0] == 0).all()  # the box covers all of view 0, and only view 0
    for k in (1, 2, 3):
        assert set(np.unique(ids[k])) == {-1, k}, f"view {k} drew other worlds' rows"
        # The body's nearest point is 1 m in front of its centre: 5 + k m from the eye
        # (a box's face exactly; a sphere's facets, half a pixel off its axis, a few cm behind).
        assert depth[k][15, 20] == pytest.approx(5.0 + k, rel=1e-5, abs=0 if k == 2 else 0.05)
    assert depth[0][15, 20] == pytest.approx(0.5, rel=1e-4)
    renderer.release()
    records.release()


@pytest.mark.parametrize("outputs", [("color", "depth", "id"), ("depth", "id")])
def test_read_views_is_read_then_split_in_the_views_own_layout(gl_ctx, outputs):
    # three views on a grid of 2 x 2: the last tile unused; every output, new contiguous
    # arrays each read, depth the miss value where nothing was hit
    records = InstanceRecords(gl_ctx, 3)
    records.write([(10.0 * k, 0.0, 0.0) for k in range(3)], [IDENTITY_Q] * 3, [0, 1, 2])
    renderer = BodyRenderer(records, max_ids=4, views=3, outputs=outputs)
    for k in range(3):
        renderer.set_look(k, "sphere", 1.0, color=(0.2 * k, 0.5, 1.0))
    cameras = [camera((10.0 * k, 1.0, 5.0 + k), (10.0 * k, 0.0, 0.0), 4 / 3) for k in range(3)]
    renderer.set_views(cameras, (40, 30), ranges=[(k, 1) for k in range(3)], columns=2)
    fb = renderer.framebuffer()
    whole = frame(gl_ctx, renderer, fb)
    first = renderer.read_views(fb, miss_depth=50.0)
    views = renderer.read_views(fb, miss_depth=50.0)
    assert set(views) == set(outputs)
    for name in outputs:
        expected = renderer.split_views(whole[name])
        if name == "depth":
            expected = np.where(np.isinf(expected), np.float32(50.0), expected)
        assert views[name].flags.c_contiguous and views[name].dtype == expected.dtype
        assert views[name].shape == expected.shape == (3, 30, 40, *whole[name].shape[2:])
        np.testing.assert_array_equal(views[name], expected)
        assert not np.shares_memory(views[name], first[name])  # the caller's to keep
    assert set(np.unique(views["id"][2])) == {-1, 2}
    assert np.isinf(renderer.read_views(fb)["depth"]).any()  # by default: +inf, as read()
    renderer.release()
    records.release()


def test_read_views_needs_views_and_a_framebuffer(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    renderer = BodyRenderer(records, max_ids=4, views=2, outputs=("depth",))
    fb = renderer.framebuffer((8, 8))
    with pytest.raises(BodyError, match="read_views: call set_views first"):
        renderer.read_views(fb)
    renderer.set_views([np.eye(4)] * 2, (4, 4), ranges=[(0, 1)] * 2)
    with pytest.raises(TypeError, match=r"framebuffer must be a hypergl\.Framebuffer, got 3"):
        renderer.read_views(3)
    renderer.release()
    records.release()


def test_views_are_clipped_to_their_tiles_by_the_rasterizer(gl_ctx):
    # gl_ClipDistance against each view's frustum sides: no fragment lands on another
    # view's tile, so none is discarded for it (a discard turns early depth testing off).
    records, renderer = four_worlds(gl_ctx)
    assert renderer.pipeline.describe()["clip_distances"] == 4
    assert "gl_ClipDistance[3]" in renderer.shader_sources["draw"]["vertex"]
    assert "gl_FragCoord" not in renderer.shader_sources["draw"]["fragment"]  # no tile test
    renderer.release()
    records.release()


def test_a_tile_matches_the_same_view_drawn_alone(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    cameras = [camera((10.0 * k, 2.0, 5.0), (10.0 * k, 0.0, 0.0), 4 / 3) for k in range(4)]
    renderer.set_views(cameras, (40, 30), ranges=[(k, 1) for k in range(4)], columns=2)
    tiled = renderer.split_views(frame(gl_ctx, renderer, renderer.framebuffer())["color"])
    single = BodyRenderer(records, max_ids=8)
    for k in range(4):
        single.set_look(k, "sphere" if k % 2 else "box", 1.0 if k % 2 else (1.0, 1.0, 1.0))
    single.set_camera(cameras[3])
    fb = gl_ctx.framebuffer((40, 30))
    records.count = 4
    alone = frame(gl_ctx, single, fb)["color"]
    differs = np.abs(tiled[3].astype(int) - alone.astype(int)).max(axis=-1) > 8
    assert differs.sum() <= 6, f"{differs.sum()} pixels differ"  # edge rounding at most
    for resource in (single, renderer, records):
        resource.release()


def test_outputs_must_be_known_names(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    with pytest.raises(BodyError, match="'normal'"):
        BodyRenderer(records, outputs=("color", "normal"))
    records.release()


def test_set_views_needs_a_multi_view_renderer(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    renderer = BodyRenderer(records)
    with pytest.raises(BodyError, match="views > 1"):
        renderer.set_views([np.eye(4)], (8, 8))
    renderer.release()
    records.release()


def test_more_views_than_made_for_are_refused(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    with pytest.raises(BodyError, match="5 views"):
        renderer.set_views([np.eye(4)] * 5, (8, 8))
    renderer.release()
    records.release()


def test_a_view_range_outside_the_records_is_refused(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    with pytest.raises(BodyError, match=r"range 1 = \(3, 2\)"):
        renderer.set_views([np.eye(4)] * 2, (8, 8), ranges=[(0, 1), (3, 2)])
    renderer.release()
    records.release()


def test_occlusion_culling_with_many_views_is_refused(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    renderer.set_views([np.eye(4)] * 4, (8, 8))
    fb = renderer.framebuffer()
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    with pytest.raises(BodyError, match="one view"):
        renderer.record(cmd, occlusion=fb)
    cmd.end()
    renderer.release()
    records.release()


def test_records_refuse_rows_beyond_capacity(gl_ctx):
    records = InstanceRecords(gl_ctx, 2)
    with pytest.raises(BodyError, match="capacity 2"):
        records.write([(0.0, 0.0, 0.0)] * 3, [IDENTITY_Q] * 3, [0, 1, 2])
    records.release()


def test_an_unknown_shape_name_is_refused(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    renderer = BodyRenderer(records, max_ids=2)
    with pytest.raises(BodyError, match="'cone'"):
        renderer.set_look(0, "cone", 1.0)
    renderer.release()
    records.release()


def quaternion_of(axis, degrees):
    axis = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return (*(np.sin(half) * axis), np.cos(half))


def matrix_of(q):
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


# Each branch of the matrix-to-quaternion conversion: trace > 0, then x, y, z largest.
@pytest.mark.parametrize("axis, degrees", [((1, 2, 3), 30), ((1, 0.1, 0.2), 170),
                                           ((0.1, 1, 0.2), 170), ((0.1, 0.2, 1), 170)])  # fmt: skip
def test_matrix_records_draw_as_their_quaternions(gl_ctx, axis, degrees):
    q = quaternion_of(axis, degrees)
    images = []
    for rotation, value in (("quaternion", q), ("matrix", matrix_of(q))):
        records = InstanceRecords(gl_ctx, 1, rotation=rotation)
        records.write([(0.0, 0.0, 0.0)], [value], [0])
        renderer = BodyRenderer(records, max_ids=1)
        renderer.set_look(0, "box", (1.5, 0.4, 0.8))
        renderer.set_camera(camera((0.0, 1.0, 8.0), (0.0, 0.0, 0.0), 1.0))
        fb = gl_ctx.framebuffer((48, 48))
        images.append(frame(gl_ctx, renderer, fb)["color"].astype(int))
        renderer.release()
        records.release()
    assert np.abs(images[0] - images[1]).max() <= 2


def test_an_unknown_rotation_layout_is_refused(gl_ctx):
    with pytest.raises(BodyError, match="'euler'"):
        InstanceRecords(gl_ctx, 1, rotation="euler")


def test_rotations_of_the_wrong_shape_are_refused(gl_ctx):
    records = InstanceRecords(gl_ctx, 2, rotation="matrix")
    with pytest.raises(BodyError, match=r"rotations \(n, 3, 3\)"):
        records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [0])
    records.release()


def test_more_views_than_the_recording_dispatches_are_refused(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    renderer.set_views([np.eye(4)] * 2, (8, 8), ranges=[(0, 1), (1, 1)])
    fb = renderer.framebuffer()
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    renderer.record(cmd)
    cmd.end()
    renderer.set_views([np.eye(4)] * 2, (8, 8), ranges=[(1, 1), (0, 1)])  # same size: fine
    with pytest.raises(BodyError, match="record the frame again"):
        renderer.set_views([np.eye(4)] * 3, (8, 8), ranges=[(0, 1)] * 3)
    renderer.release()
    records.release()


def test_fewer_views_than_recorded_draw_only_those(gl_ctx):
    records, renderer = four_worlds(gl_ctx)
    renderer.write_extras([((0.0, 0.0, 0.0), 0, IDENTITY_Q)])  # drawn in every live view
    cameras = [camera((10.0 * k, 0.0, 6.0), (10.0 * k, 0.0, 0.0), 1.0) for k in range(4)]
    renderer.set_views(cameras, (16, 16), ranges=[(k, 1) for k in range(4)], columns=4)
    fb = renderer.framebuffer()
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    renderer.record_clear(cmd)
    renderer.record(cmd)
    cmd.end()
    renderer.set_views(cameras[:2], (16, 16), ranges=[(0, 1), (1, 1)], columns=4)
    cmd.submit()
    ids = renderer.split_views(renderer.read(fb)["id"])
    assert ids.shape[0] == 2 and (ids[1] != -1).any()
    assert sum(renderer.instance_counts().values()) == 3  # row 0, row 1, the extra in view 0
    renderer.release()
    records.release()


@pytest.mark.parametrize("copies", [1, 3])
def test_rows_sharing_an_id_fit_their_copies_and_no_more(gl_ctx, copies):
    records = InstanceRecords(gl_ctx, 4)
    positions = [(-3.0, 1.5, 0.0), (0.0, 1.5, 0.0), (3.0, 1.5, 0.0), (0.0, -1.5, 0.0)]
    records.write(positions, [IDENTITY_Q] * 4, [0, 0, 0, 1])
    renderer = BodyRenderer(records, max_ids=2, copies=copies, outputs=("color", "id"),
                            lod_threshold=0.0)  # fmt: skip
    renderer.set_look(0, "box", (1.0, 1.0, 1.0))
    renderer.set_look(1, "sphere", 1.0)  # its list comes right after the boxes'
    renderer.set_camera(camera((0.0, 0.0, 12.0), (0.0, 0.0, 0.0), 2.0))
    fb = renderer.framebuffer((64, 32))
    ids = frame(gl_ctx, renderer, fb)["id"]
    # Three rows of one look: with room for one, the other two are dropped, not written
    # over the sphere's list.
    counts = renderer.instance_counts()
    assert counts["box"] == copies and counts["sphere"] == 1
    assert (ids == 0).sum() > 0 and (ids == 1).sum() > 0
    renderer.release()
    records.release()


# GL 4.3's minimums (Mesa 20.3 on Debian 11 gives exactly these): storage blocks per compute
# and fragment shader, and over a program's stages together (a vertex stage may have 0
# elsewhere; Mesa gives it the combined count).
STORAGE_BLOCK_LIMIT = 8


def active_glsl(source):
    """The lines of `source` its #if / #else / #endif keep (#defines of 0/1 expressions)."""
    defines, keep, kept = {}, [True], []
    for line in source.splitlines():
        words = line.split(None, 2)
        head = words[0] if words else ""
        if head == "#define" and all(keep):
            expression = words[2] if len(words) > 2 else "1"
            defines[words[1]] = expression
        elif head == "#if":
            expression = line.split(None, 1)[1]
            for _ in range(4):  # defines naming defines
                for name, value in defines.items():
                    expression = re.sub(rf"\b{name}\b", f"({value})", expression)
            expression = expression.replace("&&", " and ").replace("||", " or ")
            expression = re.sub(r"!(?!=)", " not ", expression)
            keep.append(bool(eval(expression)))  # our own shader text's 0/1 expressions
        elif head == "#ifdef":  # a record source's optional accessors (BODY_SCALE)
            keep.append(words[1] in defines)
        elif head == "#else":
            keep[-1] = not keep[-1]
        elif head == "#endif":
            keep.pop()
        elif all(keep):
            kept.append(line)
    return "\n".join(kept)


def storage_blocks(source):
    return re.findall(r"\bbuffer\s+(\w+)\s*\{", active_glsl(source))


@pytest.mark.parametrize("views", [1, 4])
@pytest.mark.parametrize("rotation", ["quaternion", "matrix"])
@pytest.mark.parametrize("primitives", ["mesh", "raycast"])
def test_every_stage_declares_at_most_8_storage_blocks(gl_ctx, views, rotation, primitives):
    records = InstanceRecords(gl_ctx, 4, rotation=rotation)
    renderer = BodyRenderer(records, views=views, outputs=("color", "depth", "id"),
                            primitives=primitives)  # fmt: skip
    assert len(renderer.shader_sources) == (3 if primitives == "mesh" else 7)
    for pipeline, stages in renderer.shader_sources.items():
        counts = {stage: storage_blocks(text) for stage, text in stages.items()}
        for stage, blocks in counts.items():
            assert len(blocks) <= STORAGE_BLOCK_LIMIT, f"{pipeline} {stage}: {blocks}"
        every = sorted({b for blocks in counts.values() for b in blocks})
        assert len(every) <= STORAGE_BLOCK_LIMIT, f"{pipeline} combined: {every}"
    renderer.release()
    records.release()


def test_soft_vertices_a_caller_fills_itself(gl_ctx):
    """add_soft_vertices without a source: room in soft_vertices, its first index
    returned, nothing uploaded by the renderer (a bridge's compute pass fills it)."""
    records = InstanceRecords(gl_ctx, 4, rotation="matrix")
    renderer = BodyRenderer(records, max_soft_vertices=10)
    assert renderer.add_soft_vertices(1, 4) == 0
    assert renderer.add_soft_vertices(2, 6) == 4
    with pytest.raises(BodyError, match="0 are left"):
        renderer.add_soft_vertices(3, 1)
    cmd = gl_ctx.command_buffer()
    renderer.record(cmd)  # no upload for the two bodies: nothing to sync
    cmd.end()
    renderer.release()
    records.release()


def test_the_memory_helpers_name_a_bad_size_or_primitive():
    assert list_bytes("mesh") == 32 and list_bytes("raycast") == 56
    assert sort_key_commands(1) == 1 and sort_key_commands(10) == 2
    with pytest.raises(BodyError, match="primitives must be 'mesh' or 'raycast', got 'rays'"):
        list_bytes("rays")
    for bad in (0, -3, 2.5, float("nan"), True, "4"):
        with pytest.raises(
            ValueError, match=f"max_ids must be a positive int, got {re.escape(repr(bad))}"
        ):
            sort_key_commands(bad)
