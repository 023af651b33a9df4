"""Ray-cast primitives of the body renderer (``primitives="raycast"``) on real GL: the same
silhouettes as finely tessellated meshes, exact depth, occlusion against meshes, many views,
the eye near or inside a part."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.bodies import MODE_CAPSULE, BodyError, BodyRenderer, InstanceRecords, Part
from hypergl.multisample_probe import writes_every_sample
from hypergl.testing import draw_bodies
from hypergl.transforms import look_at, perspective

pytestmark = pytest.mark.gl

IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
SIZE = 96
FINE = (64, 64)  # the tessellation the ray-cast silhouettes are held against


def quaternion(axis, degrees):
    axis = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return (*(np.sin(half) * axis), np.cos(half))


ROTATED = quaternion((1.0, 0.3, 0.2), 50.0)
# name -> parts of body 1 (each drawn at the origin)
SHAPES = {
    "sphere": [Part("sphere", scale=(1.0, 1.0, 1.0))],
    "ellipsoid": [Part("sphere", rotation=ROTATED, scale=(1.3, 0.5, 0.8))],
    "capsule": [Part("capsule", rotation=ROTATED, scale=(0.5, 0.8, 0.5), mode=MODE_CAPSULE)],
    "cylinder": [Part("cylinder", rotation=ROTATED, scale=(0.6, 0.9, 0.6))],
}


def view_proj(eye, target=(0.0, 0.0, 0.0), aspect=1.0):
    return perspective(40.0, aspect, 0.1, 100.0) @ look_at(eye, target)


def render(ctx, looks, matrix, primitives, size=(SIZE, SIZE), positions=((0.0, 0.0, 0.0),)):
    """Outputs of one view: `looks` maps an id to its parts; record k draws id k + 1."""
    records = InstanceRecords(ctx, 8)
    records.write(positions, [IDENTITY_Q] * len(positions), list(range(1, len(positions) + 1)))
    renderer = BodyRenderer(records, max_ids=8, outputs=("color", "depth", "id"),
                            sphere_detail=FINE, primitives=primitives)  # fmt: skip
    for body_id, parts in looks.items():
        renderer.set_parts(body_id, parts, color=(0.9, 0.9, 0.9))
    renderer.set_camera(matrix)
    fb = renderer.framebuffer(size)
    out = draw_bodies(renderer, fb)
    for resource in (fb, renderer, records):
        resource.release()
    return out


def interior(ids):
    """Pixels whose 3 x 3 neighbourhood holds one id (away from every edge)."""
    padded = np.pad(ids, 1, mode="edge")
    same = np.ones(ids.shape, bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            same &= padded[dy : dy + ids.shape[0], dx : dx + ids.shape[1]] == ids
    return same


def assert_same_silhouettes(mesh_ids, ray_ids):
    away = interior(mesh_ids) & interior(ray_ids)
    assert away.mean() > 0.8
    agree = (mesh_ids == ray_ids)[away].mean()
    assert agree >= 0.99, f"{agree:.4f} of the pixels away from edges agree"
    # Any disagreement at all lies within a pixel of an edge of one image or the other.
    differs = mesh_ids != ray_ids
    assert not (differs & away).any(), f"{(differs & away).sum()} interior pixels differ"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_ray_cast_silhouettes_match_fine_meshes(gl_ctx, shape):
    matrix = view_proj((1.5, 2.0, 4.5))
    mesh = render(gl_ctx, {1: SHAPES[shape]}, matrix, "mesh")
    ray = render(gl_ctx, {1: SHAPES[shape]}, matrix, "raycast")
    assert (ray["id"] == 1).sum() > 0.1 * SIZE * SIZE
    assert_same_silhouettes(mesh["id"], ray["id"])
    hit = ray["id"] == 1
    assert np.isfinite(ray["depth"][hit]).all() and np.isinf(ray["depth"][~hit]).all()
    # Lit by their true normals: the colours of the fine mesh, up to its facets (and a
    # cylinder's rim, where a pixel may fall on the cap in one and the side in the other).
    both = interior(mesh["id"]) & interior(ray["id"]) & hit
    shade = np.abs(mesh["color"].astype(int) - ray["color"].astype(int)).max(axis=-1)
    assert np.median(shade[both]) <= 2 and (shade[both] > 12).mean() < 0.01


def pixel_ray(matrix, row, column, size):
    """Origin and unit direction of the ray through the centre of pixel (row from the top,
    column) of a `size` x `size` image."""
    x = (column + 0.5) / size * 2 - 1
    y = 1 - (row + 0.5) / size * 2
    inverse = np.linalg.inv(np.asarray(matrix, np.float64))
    near, far = (inverse @ (x, y, z, 1.0) for z in (-1.0, 1.0))
    near, far = near[:3] / near[3], far[:3] / far[3]
    return near, (far - near) / np.linalg.norm(far - near)


def enter_ellipsoid(origin, direction, centre, radii):
    o, d = (origin - centre) / radii, direction / radii
    a, b, c = d @ d, o @ d, o @ o - 1
    return (-b - np.sqrt(b * b - a * c)) / a


EYE = np.array([0.3, 3.0, 4.0])


# (parts, the distance along the ray to the surface that centre pixel meets)
def sphere_case(origin, d):
    return enter_ellipsoid(origin, d, np.zeros(3), np.ones(3))


def ellipsoid_case(origin, d):
    return enter_ellipsoid(origin, d, np.zeros(3), np.array([1.3, 0.5, 0.8]))


def capsule_case(origin, d):  # seen from above, the ray meets the top hemisphere
    return enter_ellipsoid(origin, d, np.array([0.0, 0.8, 0.0]), np.full(3, 0.5))


def cylinder_case(origin, d):  # seen from above, the ray meets the top cap
    return (0.9 - origin[1]) / d[1]


DEPTH_CASES = {
    "sphere": ([Part("sphere")], sphere_case),
    "ellipsoid": ([Part("sphere", scale=(1.3, 0.5, 0.8))], ellipsoid_case),
    "capsule": ([Part("capsule", scale=(0.5, 0.8, 0.5), mode=MODE_CAPSULE)], capsule_case),
    "cylinder": ([Part("cylinder", scale=(0.6, 0.9, 0.6))], cylinder_case),
}


@pytest.mark.parametrize("shape", sorted(DEPTH_CASES))
def test_ray_cast_depth_is_the_analytic_distance(gl_ctx, shape):
    parts, distance = DEPTH_CASES[shape]
    eye = EYE if shape in ("sphere", "ellipsoid") else np.array([0.05, 4.0, 0.3])
    matrix = view_proj(eye)
    out = render(gl_ctx, {1: parts}, matrix, "raycast", size=(64, 64))
    row = column = 32
    origin, d = pixel_ray(matrix, row, column, 64)
    hit = origin + distance(origin, d) * d
    forward = -eye / np.linalg.norm(eye)  # the view axis: the camera looks at the origin
    expected = (hit - eye) @ forward
    assert out["id"][row, column] == 1
    assert out["depth"][row, column] == pytest.approx(expected, rel=1e-4)


def orthographic(half, near, far):
    """OpenGL orthographic projection of a (2 half)-wide square view (clip w = 1)."""
    out = np.diag([1.0 / half, 1.0 / half, -2.0 / (far - near), 1.0])
    out[2, 3] = -(far + near) / (far - near)
    return out


@pytest.mark.parametrize("shape", ["ellipsoid", "capsule", "cylinder"])
def test_ray_cast_parts_in_an_orthographic_view(gl_ctx, shape):
    matrix = orthographic(1.6, 0.1, 20.0) @ look_at((1.5, 2.0, 4.5), (0.0, 0.0, 0.0))
    mesh = render(gl_ctx, {1: SHAPES[shape]}, matrix, "mesh")
    ray = render(gl_ctx, {1: SHAPES[shape]}, matrix, "raycast")
    assert (ray["id"] == 1).sum() > 0.1 * SIZE * SIZE
    assert_same_silhouettes(mesh["id"], ray["id"])


def test_a_ray_cast_sphere_and_a_mesh_box_occlude_each_other_exactly(gl_ctx):
    # A box poking out of a sphere on both sides: their intersection curve decides each pixel.
    looks = {
        1: [Part("sphere", scale=(1.0, 1.0, 1.0))],
        2: [Part("box", rotation=quaternion((0.0, 1.0, 0.0), 30.0), scale=(0.5, 0.6, 1.6))],
    }
    matrix = view_proj((2.5, 1.5, 3.5))
    origin = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    mesh = render(gl_ctx, looks, matrix, "mesh", positions=origin)
    ray = render(gl_ctx, looks, matrix, "raycast", positions=origin)
    assert {1, 2} <= set(np.unique(ray["id"]))
    assert_same_silhouettes(mesh["id"], ray["id"])
    # The box's pixels are its exact faces in both: the depth there agrees to float rounding.
    box = interior(mesh["id"]) & (mesh["id"] == 2) & (ray["id"] == 2)
    assert np.allclose(ray["depth"][box], mesh["depth"][box], rtol=1e-5)


def test_boxes_draw_the_same_in_both_modes(gl_ctx):
    looks = {1: [Part("box", rotation=ROTATED, scale=(0.8, 0.5, 0.6))]}
    matrix = view_proj((1.5, 2.0, 4.5))
    mesh = render(gl_ctx, looks, matrix, "mesh")
    ray = render(gl_ctx, looks, matrix, "raycast")
    for name in ("color", "depth", "id"):
        assert np.array_equal(mesh[name], ray[name]), name


@pytest.mark.parametrize("eye", [(1.5, 2.0, 4.5), (0.5, -1.5, 3.0)])  # above, below
def test_a_ray_cast_plane_matches_its_quad(gl_ctx, eye):
    # A tilted square plane (seen from below: not drawn, as its one-sided quad) and a box
    # standing through it.
    tilt = quaternion((1.0, 0.0, 0.4), 20.0)
    looks = {
        1: [Part("quad", offset=(0.2, -0.5, 0.0), rotation=tilt, scale=(1.5, 1.0, 1.2))],
        2: [Part("box", scale=(0.3, 0.8, 0.3))],
    }
    matrix = view_proj(eye)
    origin = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    mesh = render(gl_ctx, looks, matrix, "mesh", positions=origin)
    ray = render(gl_ctx, looks, matrix, "raycast", positions=origin)
    assert ((ray["id"] == 1).mean() > 0.2) == (eye[1] > 0)
    assert_same_silhouettes(mesh["id"], ray["id"])
    both = interior(mesh["id"]) & (mesh["id"] == 1) & (ray["id"] == 1)
    assert np.allclose(ray["depth"][both], mesh["depth"][both], rtol=1e-4)
    shade = np.abs(mesh["color"].astype(int) - ray["color"].astype(int)).max(axis=-1)
    assert shade[both].max(initial=0) <= 1


def test_a_ray_cast_plane_draws_its_quads_depth_and_ids_exactly(gl_ctx):
    # The plane's pipeline rasterizes the quad itself (flat: its depth needs no ray), so
    # depth and ids are the mesh's to the bit; the colour, lit per vertex, to rounding.
    looks = {1: [Part("quad", rotation=quaternion((1.0, 0.0, 0.4), 20.0), scale=(1.5, 1.0, 1.2))]}
    matrix = view_proj((1.5, 2.0, 4.5))
    mesh = render(gl_ctx, looks, matrix, "mesh")
    ray = render(gl_ctx, looks, matrix, "raycast")
    plane = (mesh["id"] == 1) & (ray["id"] == 1)
    assert plane.mean() > 0.2
    assert np.array_equal(mesh["depth"][plane], ray["depth"][plane])
    assert np.array_equal(mesh["id"] == 1, ray["id"] == 1)
    shade = np.abs(mesh["color"].astype(int) - ray["color"].astype(int)).max(axis=-1)
    assert shade[plane].max() <= 1


def test_the_eye_inside_a_parts_bounding_box_still_sees_the_part(gl_ctx):
    # The eye at (0.85, 0.85, 0.9) is inside the sphere's bounding box (its proxy: the whole
    # view), outside the sphere.
    matrix = view_proj((0.85, 0.85, 0.9))
    mesh = render(gl_ctx, {1: SHAPES["sphere"]}, matrix, "mesh")
    ray = render(gl_ctx, {1: SHAPES["sphere"]}, matrix, "raycast")
    assert (ray["id"] == 1).mean() > 0.5
    assert_same_silhouettes(mesh["id"], ray["id"])


def test_the_eye_inside_a_part_sees_nothing_of_it_as_with_meshes(gl_ctx):
    matrix = view_proj((0.2, 0.1, 0.3), target=(0.0, 0.0, -1.0))
    for primitives in ("mesh", "raycast"):
        out = render(gl_ctx, {1: SHAPES["sphere"]}, matrix, primitives)
        assert (out["id"] == -1).all(), primitives


def test_ray_cast_views_stay_in_their_tiles(gl_ctx):
    records = InstanceRecords(gl_ctx, 4)
    records.write([(10.0 * k, 0.0, 0.0) for k in range(4)], [IDENTITY_Q] * 4, [0, 1, 2, 3])
    renderer = BodyRenderer(records, max_ids=8, views=4, outputs=("color", "depth", "id"),
                            primitives="raycast")  # fmt: skip
    for k, shape in enumerate(("sphere", "ellipsoid", "capsule", "cylinder")):
        renderer.set_parts(k, SHAPES[shape])
    # View 0 is so close that its sphere fills more than its tile: nothing may leak out.
    lens = perspective(40.0, 4 / 3, 0.1, 100.0)
    cameras = [lens @ look_at((0.0, 0.0, 1.2), (0.0, 0.0, 0.0))]
    cameras += [lens @ look_at((10.0 * k, 1.0, 5.0), (10.0 * k, 0.0, 0.0)) for k in (1, 2, 3)]
    renderer.set_views(cameras, (40, 30), ranges=[(k, 1) for k in range(4)], columns=2)
    out = draw_bodies(renderer)
    ids, depth = renderer.split_views(out["id"]), renderer.split_views(out["depth"])
    assert (ids[0] == 0).all()
    assert depth[0][15, 20] == pytest.approx(0.2, rel=1e-3)  # the sphere 0.2 m ahead
    for k in (1, 2, 3):
        assert set(np.unique(ids[k])) == {-1, k}, f"view {k} drew other worlds' rows"
    # Spheres, capsules and cylinders draw as their proxies: no fine or coarse meshes.
    counts = renderer.instance_counts()
    assert counts["sphere"] == counts["sphere_lo"] == counts["capsule"] == 0
    assert counts["ray_sphere"] == 2 and counts["ray_capsule"] == counts["ray_cylinder"] == 1
    assert counts["ray_plane"] == 0
    for resource in (renderer, records):
        resource.release()


@pytest.mark.parametrize("copies", [1, 3])
def test_proxies_are_pulled_one_instance_of_six_indices_a_part(gl_ctx, copies):
    # vertex pulling: a proxy mesh's command draws one instance, 6 indices a listed part;
    # rows sharing an id beyond `copies` are dropped there too, not written over the next list
    records = InstanceRecords(gl_ctx, 4)
    records.write([(-3.0, 0.0, 0.0), (0.0, 0.0, 0.0), (3.0, 0.0, 0.0), (0.0, -2.0, 0.0)],
                  [IDENTITY_Q] * 4, [1, 1, 1, 2])  # fmt: skip
    renderer = BodyRenderer(records, max_ids=4, copies=copies, primitives="raycast",
                            outputs=("depth", "id"))  # fmt: skip
    renderer.set_parts(1, SHAPES["sphere"])
    renderer.set_parts(2, SHAPES["capsule"])  # its list right after the spheres'
    renderer.set_camera(view_proj((0.0, 0.0, 12.0)))
    fb = renderer.framebuffer((SIZE, SIZE))
    out = draw_bodies(renderer, fb)
    commands = renderer.indirect.read(np.uint32).reshape(2, -1, 5)[0]
    for key, parts in (("ray_sphere", copies), ("ray_capsule", 1)):
        count, instances = commands[renderer._mesh_index[key], :2]
        assert (count, instances) == (6 * parts, 1)
        assert renderer.instance_counts()[key] == parts
    assert set(np.unique(out["id"])) == {-1, 1, 2}
    for resource in (fb, renderer, records):
        resource.release()


def test_proxies_numbering_their_vertices_past_2_31_are_refused(gl_ctx):
    # a draw's base vertex is a GLint: refused before any buffer is made
    records = InstanceRecords(gl_ctx, 1)
    before = len(gl_ctx.live_objects())
    with pytest.raises(BodyError, match=r"max_parts=65536 x views=4096 x copies=1 would "
                                        r"number their vertices past 2\^31"):  # fmt: skip
        BodyRenderer(records, max_ids=4, max_parts=1 << 16, views=1 << 12,
                     primitives="raycast", memory_limit=1 << 50)  # fmt: skip
    assert len(gl_ctx.live_objects()) == before
    records.release()


def test_an_unknown_primitives_value_is_refused(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    with pytest.raises(BodyError, match="'rays'"):
        BodyRenderer(records, primitives="rays")
    records.release()


def test_occlusion_culling_keeps_the_ray_cast_picture(gl_ctx):
    # A wall hides a capsule behind it; the others beside it stay in view.
    records = InstanceRecords(gl_ctx, 16)
    positions = [(0.0, 0.0, 0.0)] + [(x, 0.0, -3.0) for x in (-3.0, -1.5, 0.0, 1.5, 3.0)]
    records.write(positions, [IDENTITY_Q] * 6, list(range(1, 7)))
    pictures = []
    for occlusion in (False, True):
        renderer = BodyRenderer(records, max_ids=8, primitives="raycast",
                                outputs=("color", "depth", "id"))  # fmt: skip
        renderer.set_parts(1, [Part("box", scale=(1.2, 1.0, 0.1))])
        for body_id in range(2, 7):
            renderer.set_parts(body_id, [Part("capsule", scale=(0.4, 0.3, 0.4),
                                              mode=MODE_CAPSULE)])  # fmt: skip
        renderer.set_camera(view_proj((0.0, 0.5, 4.0)))
        fb = renderer.framebuffer((SIZE, SIZE))
        for _ in range(3):  # frame 2 finds what frame 3 culls (per part: ids unique)
            cmd = gl_ctx.command_buffer()
            cmd.bind_framebuffer(fb)
            renderer.record_clear(cmd)
            renderer.record(cmd, occlusion=fb if occlusion else None)
            cmd.end()
            cmd.submit()
        pictures.append((renderer.read(fb), renderer.instance_counts()["ray_capsule"]))
        for resource in (fb, renderer):
            resource.release()
    (plain, drawn), (culled, kept) = pictures
    assert kept < drawn == 5  # the capsule behind the wall was culled
    for name in ("color", "depth", "id"):
        assert np.array_equal(plain[name], culled[name]), name
    records.release()


def test_a_flattened_part_stays_a_mesh(gl_ctx):
    # A zero scale has no ray-cast surface (its unit shape would divide by 0): its mesh draws.
    records = InstanceRecords(gl_ctx, 2)
    records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [1])
    renderer = BodyRenderer(records, max_ids=4, primitives="raycast")
    renderer.set_parts(1, [Part("sphere", scale=(1.0, 0.0, 1.0))])
    renderer.set_camera(view_proj((0.0, 3.0, 3.0)))
    fb = renderer.framebuffer((32, 32))
    draw_bodies(renderer, fb)
    counts = renderer.instance_counts()
    assert counts["ray_sphere"] == 0 and counts["sphere"] + counts["sphere_lo"] == 1
    for resource in (fb, renderer, records):
        resource.release()


def rotation_matrix(q):
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


@pytest.mark.parametrize("shape", ["ellipsoid", "capsule", "cylinder"])
def test_a_body_rotation_from_matrix_records_turns_ray_cast_parts(gl_ctx, shape):
    # MuJoCo's records: the pose as a row-major matrix, the part unrotated in the body.
    part = SHAPES[shape][0]
    unrotated = Part(part.mesh, scale=part.scale, mode=part.mode)
    matrix = view_proj((1.5, 2.0, 4.5))
    by_part = render(gl_ctx, {1: [part]}, matrix, "raycast")
    records = InstanceRecords(gl_ctx, 2, rotation="matrix")
    records.write([(0.0, 0.0, 0.0)], [rotation_matrix(ROTATED)], [1])
    renderer = BodyRenderer(records, max_ids=4, outputs=("color", "depth", "id"),
                            primitives="raycast")  # fmt: skip
    renderer.set_parts(1, [unrotated], color=(0.9, 0.9, 0.9))
    renderer.set_camera(matrix)
    fb = renderer.framebuffer((SIZE, SIZE))
    by_body = draw_bodies(renderer, fb)
    assert (by_body["id"] == 1).sum() > 0.1 * SIZE * SIZE
    assert_same_silhouettes(by_part["id"], by_body["id"])
    both = (by_part["id"] == 1) & (by_body["id"] == 1)
    assert np.allclose(by_part["depth"][both], by_body["depth"][both], rtol=1e-4)
    for resource in (fb, renderer, records):
        resource.release()


@pytest.mark.parametrize("outputs", [("depth", "id"), ("color", "depth", "id")])
def test_views_tiled_from_the_bottom_draw_as_from_the_top(gl_ctx, outputs):
    # One column of views upside down (origin "bottom"): each view's pixels as on a grid
    # from the top, every draw's winding turned over with its culling (a floor's back, a
    # box's far faces: culled), and the read in the views' order as it comes.
    records = InstanceRecords(gl_ctx, 4)
    records.write([(10.0 * k, 0.0, 0.0) for k in range(4)], [IDENTITY_Q] * 4, [1, 2, 3, 4])
    floor = [Part("quad", offset=(0.0, -1.0, 0.0), scale=(3.0, 1.0, 3.0)),
             Part("quad", offset=(0.0, -1.0, 0.0), scale=(-3.0, 1.0, 3.0))]  # fmt: skip
    looks = {1: SHAPES["sphere"], 2: SHAPES["capsule"], 3: SHAPES["cylinder"],
             4: [Part("box", rotation=ROTATED, scale=(0.6, 0.5, 0.4))]}  # fmt: skip
    cameras = [view_proj((10.0 * k + 1.0, 2.0, 4.0), (10.0 * k, 0.0, 0.0), 4 / 3)
               for k in range(4)]  # fmt: skip
    read = {}
    for origin, columns in (("top", 2), ("bottom", 1)):
        renderer = BodyRenderer(records, max_ids=8, max_parts=16, views=4, outputs=outputs,
                                primitives="raycast")  # fmt: skip
        for body_id, parts in looks.items():
            renderer.set_parts(body_id, [*parts, *floor], color=(0.8, 0.6, 0.4))
        renderer.set_views(cameras, (40, 30), ranges=[(k, 1) for k in range(4)],
                           columns=columns, origin=origin)  # fmt: skip
        assert renderer.tiling.origin == origin
        fb = renderer.framebuffer()
        draw_bodies(renderer, fb)
        read[origin] = renderer.read_views(fb, miss_depth=100.0)
        for resource in (fb, renderer):
            resource.release()
    records.release()
    top, bottom = read["top"], read["bottom"]
    for k in range(4):
        assert set(np.unique(top["id"][k])) == {-1, k + 1}
    # the same pixels; a ray-cast depth as near as to the analytic distance (its ray
    # through a point the rasterizer interpolates elsewhere on the framebuffer)
    np.testing.assert_array_equal(bottom["id"], top["id"])
    np.testing.assert_allclose(bottom["depth"], top["depth"], rtol=1e-4)
    if "color" in outputs:
        assert np.abs(bottom["color"].astype(int) - top["color"]).max() <= 2


def test_a_bad_tiling_origin_is_refused_and_a_new_one_needs_a_new_recording(gl_ctx):
    records = InstanceRecords(gl_ctx, 2)
    records.write([(0.0, 0.0, 0.0)] * 2, [IDENTITY_Q] * 2, [1, 1])
    renderer = BodyRenderer(records, max_ids=4, views=2, outputs=("depth", "id"),
                            primitives="raycast")  # fmt: skip
    renderer.set_parts(1, SHAPES["sphere"])
    cameras = [view_proj((0.0, 1.0, 5.0))] * 2
    with pytest.raises(BodyError, match=r"origin must be one of \('top', 'bottom'\), got 'up'"):
        renderer.set_views(cameras, (16, 16), origin="up")
    renderer.set_views(cameras, (16, 16), ranges=[(0, 1), (1, 1)], columns=1)
    fb = renderer.framebuffer()
    draw_bodies(renderer, fb)
    renderer.set_views(cameras, (16, 16), ranges=[(0, 1), (1, 1)], columns=1, origin="bottom")
    stale = r"origin='bottom'\) after record\(\).*record the frame again"
    with pytest.raises(BodyError, match=stale):
        renderer.update()
    draw_bodies(renderer, fb)  # recorded again: its pipelines cull for the new origin
    assert (renderer.read_views(fb)["id"] == 1).any()
    for resource in (fb, renderer, records):
        resource.release()


def plane_edges(ctx, single_sampled_planes):
    """The red of a multisampled view of a square plane whose edges cross pixels, a
    sphere before it, over a black clear."""
    records = InstanceRecords(ctx, 2)
    records.write([(0.0, 0.0, 0.0), (0.3, 0.0, 0.0)], [IDENTITY_Q] * 2, [1, 2])
    renderer = BodyRenderer(records, max_ids=8, primitives="raycast", samples=4,
                            single_sampled_planes=single_sampled_planes)  # fmt: skip
    tilt = quaternion((0.3, 1.0, 0.2), 25.0)
    renderer.set_parts(1, [Part("quad", rotation=tilt, scale=(1.0, 1.0, 1.0))],
                       color=(0.5, 0.5, 0.5))  # fmt: skip
    renderer.set_parts(2, SHAPES["sphere"], color=(0.9, 0.9, 0.9))
    renderer.set_camera(view_proj((0.4, 3.0, 1.0)))
    fb = renderer.framebuffer((SIZE, SIZE))
    out = draw_bodies(renderer, fb)["color"][..., 0].astype(int)
    for resource in (fb, renderer, records):
        resource.release()
    return out


def test_single_sampled_planes_keep_the_bodies_edges_antialiased(gl_ctx):
    # The plane rasterized as one sample, written to every sample: its own edges over the
    # clear lose their partly covered pixels; away from the clear (the sphere's edges over
    # the plane, drawn after it, with their own samples) the picture is the multisampled
    # planes' to the bit.
    multi, single = plane_edges(gl_ctx, False), plane_edges(gl_ctx, True)
    if not writes_every_sample(gl_ctx):  # a driver that writes one sample: multisampled
        assert np.array_equal(single, multi)
        return
    half = np.median(single[single > 0]) // 2
    dim = [((out > 0) & (out < half)).sum() for out in (multi, single)]
    assert dim[0] >= dim[1] + SIZE // 2, dim
    covered = single > 0
    inner = covered.copy()  # 3 x 3 neighbourhoods all covered: away from the clear
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            inner &= np.roll(np.roll(covered, dy, 0), dx, 1)
    assert inner.mean() > 0.5 and np.array_equal(single[inner], multi[inner])


def test_single_sampled_planes_must_be_a_bool(gl_ctx):
    records = InstanceRecords(gl_ctx, 1)
    with pytest.raises(BodyError, match="single_sampled_planes must be True or False, got 1"):
        BodyRenderer(records, single_sampled_planes=1)
    with pytest.raises(BodyError, match="a transparent pass blends its planes"):
        BodyRenderer(records, single_sampled_planes=True, transparent=True)
    records.release()
