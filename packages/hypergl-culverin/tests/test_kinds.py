"""Every body kind on screen, checked against an analytic projection of its shape.

Each test makes one body in a real Culverin world, steps it, renders it with the
GPU-driven renderer, and compares the body's silhouette with the pixels that dense
samples of the shape, placed by the body's *creation* frame (so the centre-of-mass
offsets the renderer applies are checked, not assumed), project to.

Tolerance: a rasterizer lights a pixel when its centre is inside a triangle, and the
renderer draws spheres, capsules and cylinders as 16-sided meshes, so every analytic pixel
must be within 1 pixel of a lit one and every lit pixel within 1 pixel of an analytic one
(``TOLERANCE_PX``); 2 pixels where a sharp tip is thinner than a pixel (hulls, meshes) and
for the curved kinds, whose 16-gon chords fall up to
r * (1 - cos(pi / 16)) ~ 2 % of the radius inside the true outline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hypergl_culverin import BodyRenderer, ShapeError, UrdfError
from hypergl_culverin.camera import look_at, perspective, project
from hypergl_culverin.ragdolls import HUMANOID, humanoid

culverin = pytest.importorskip("culverin")

pytestmark = [pytest.mark.gl, pytest.mark.culverin]

SIZE = (128, 128)
TOLERANCE_PX = 1
CURVED_TOLERANCE_PX = 2
TIP_TOLERANCE_PX = 2  # a tip thinner than a pixel covers no pixel centre for up to 2 px
TILT = np.array([0.2, 0.3, 0.1, 0.9]) / np.linalg.norm([0.2, 0.3, 0.1, 0.9])
VIEW = perspective(45.0, 1.0, 0.5, 100.0) @ look_at((2.5, 4.0, 7.0), (0.0, 0.3, 0.0))


def rotate(q, points):
    u, w = np.asarray(q[:3]), q[3]
    points = np.asarray(points, np.float64)
    return points + 2.0 * np.cross(u, np.cross(u, points) + w * points)


def grid(lo, hi, n=90):
    axes = [np.linspace(a, b, n) for a, b in zip(lo, hi, strict=True)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)


def on_triangles(vertices, faces, n=60):
    u, v = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    keep = u + v <= 1
    u, v = u[keep], v[keep]
    tri = np.asarray(vertices, np.float64)[np.asarray(faces).reshape(-1, 3)]
    points = tri[:, None, 0] + u[None, :, None] * (tri[:, None, 1] - tri[:, None, 0]) + \
        v[None, :, None] * (tri[:, None, 2] - tri[:, None, 0])  # fmt: skip
    return points.reshape(-1, 3)


def analytic_mask(world_points, view=VIEW):
    points = np.asarray(world_points, np.float64)
    clip = np.c_[points, np.ones(len(points))] @ view.T
    points = points[clip[:, 3] > 0]
    xy = np.floor(project(view, points, SIZE)).astype(int)
    inside = (xy >= 0).all(1) & (xy[:, 0] < SIZE[0]) & (xy[:, 1] < SIZE[1])
    mask = np.zeros(SIZE[::-1], bool)
    mask[xy[inside, 1], xy[inside, 0]] = True
    return mask


def dilate(mask, pixels):
    out = mask.copy()
    for _ in range(pixels):
        grown = out.copy()
        grown[1:] |= out[:-1]
        grown[:-1] |= out[1:]
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        out = grown
    return out


def assert_silhouette(drawn, expected, tolerance):
    assert expected.sum() > 50 and drawn.sum() > 50, (expected.sum(), drawn.sum())
    missing = expected & ~dilate(drawn, tolerance)
    extra = drawn & ~dilate(expected, tolerance)
    assert not missing.any(), f"{missing.sum()} analytic pixels not drawn"
    assert not extra.any(), f"{extra.sum()} drawn pixels outside the shape"


class Scene:
    """A world without gravity (bodies stay where they were made), a bridge, a renderer."""

    def __init__(self, ctx, gravity=(0.0, 0.0, 0.0), view=VIEW):
        self.view = view
        self.world = culverin.PhysicsWorld(settings={"max_bodies": 256, "gravity": gravity})
        self.bridge = ctx.bridge("culverin", self.world, capacity=128)
        self.ctx = ctx
        self.renderer = None

    def render(self, steps=1):
        if self.renderer is None:
            self.renderer = BodyRenderer(self.bridge, max_ids=512, lod_threshold=0.0)
            self.renderer.set_camera(self.view)
            self.fb = self.ctx.framebuffer(SIZE)
            self.cmd = self.ctx.command_buffer()
            self.cmd.bind_framebuffer(self.fb)
            self.cmd.clear(color=(0, 0, 0, 1), depth=1.0)
            self.renderer.record(self.cmd)
            self.cmd.end()
        for _ in range(steps):
            self.world.step(1 / 60)
        self.renderer.update()
        self.cmd.submit()
        return self.fb.read(origin="bottom")[..., :3].astype(int)


def placed(local, position=(0.0, 0.5, 0.0), rotation=TILT):
    return rotate(rotation, local) + np.asarray(position)


def box_points(h):
    return grid(-np.asarray(h), np.asarray(h))


def sphere_points(r):
    p = grid((-r,) * 3, (r,) * 3)
    return p[np.linalg.norm(p, axis=1) <= r]


def capsule_points(h, r):
    p = grid((-r, -h - r, -r), (r, h + r, r))
    nearest = np.c_[np.zeros(len(p)), np.clip(p[:, 1], -h, h), np.zeros(len(p))]
    return p[np.linalg.norm(p - nearest, axis=1) <= r]


def cylinder_points(h, r):
    p = grid((-r, -h, -r), (r, h, r))
    return p[np.hypot(p[:, 0], p[:, 2]) <= r]


SIMPLE = {
    "box": (culverin.SHAPE_BOX, (0.8, 0.5, 0.3), box_points, TOLERANCE_PX),
    "sphere": (culverin.SHAPE_SPHERE, 0.7, sphere_points, CURVED_TOLERANCE_PX),
    "capsule": (culverin.SHAPE_CAPSULE, (0.6, 0.3), lambda s: capsule_points(*s),
                CURVED_TOLERANCE_PX),
    "cylinder": (culverin.SHAPE_CYLINDER, (0.6, 0.4), lambda s: cylinder_points(*s),
                 CURVED_TOLERANCE_PX),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(SIMPLE))
def test_primitive_silhouettes(gl_ctx, kind):
    shape, size, sample, tolerance = SIMPLE[kind]
    scene = Scene(gl_ctx)
    scene.bridge.create_body(pos=(0, 0.5, 0), rot=tuple(TILT), size=size, shape=shape)
    image = scene.render()
    assert_silhouette(image.max(2) > 0, analytic_mask(placed(sample(size))), tolerance)


def tetra_points(corners, n=400_000):
    weights = np.random.default_rng(1).dirichlet(np.ones(4), n)
    return np.concatenate([weights @ corners, on_triangles(corners, [0, 1, 2, 0, 1, 3, 0, 2, 3,
                                                                     1, 2, 3])])  # fmt: skip


def test_convex_hull_is_drawn_about_its_centre_of_mass(gl_ctx):
    corners = np.array([[0.3, 0, 0], [1.8, 0, 0], [0.3, 1.5, 0], [0.3, 0, 1.5]])
    scene = Scene(gl_ctx)
    handle = scene.bridge.create_convex_hull((-0.5, 0.0, 0.0), tuple(TILT), corners)
    image = scene.render()
    # Culverin reports the centre of mass, not the origin the points are relative to.
    com = np.asarray(scene.world.get_position(handle)) - (-0.5, 0.0, 0.0)
    assert np.allclose(com, rotate(TILT, corners.mean(0)), atol=1e-3)
    expected = analytic_mask(placed(tetra_points(corners), (-0.5, 0.0, 0.0)))
    assert_silhouette(image.max(2) > 0, expected, TIP_TOLERANCE_PX)


def test_compound_parts_are_each_drawn_about_its_centre_of_mass(gl_ctx):
    scene = Scene(gl_ctx)
    parts = [((0.9, 0, 0), (0, 0, 0, 1), culverin.SHAPE_SPHERE, 0.5),
             ((-0.7, 0, 0), (0, 0, 0, 1), culverin.SHAPE_BOX, (0.3, 0.3, 0.3)),
             ((0, 0.8, 0), (0, 0, 0, 1), culverin.SHAPE_CAPSULE, (0.3, 0.15))]  # fmt: skip
    handle = scene.bridge.create_compound_body((0, 0.3, 0), tuple(TILT), parts)
    image = scene.render()
    assert np.linalg.norm(np.subtract(scene.world.get_position(handle), (0, 0.3, 0))) > 0.1
    local = np.concatenate(
        [
            sphere_points(0.5) + np.array([0.9, 0, 0]),
            box_points((0.3,) * 3) - np.array([0.7, 0, 0]),
            capsule_points(0.3, 0.15) + np.array([0, 0.8, 0]),
        ]
    )
    expected = analytic_mask(placed(local, (0, 0.3, 0)))
    assert_silhouette(image.max(2) > 0, expected, CURVED_TOLERANCE_PX)


def test_triangle_mesh(gl_ctx):
    vertices = np.array([[-1.5, 0, -1], [1.5, 0, -1], [0, 0.3, 1.5], [0, 1.5, 0]], np.float32)
    faces = np.array([0, 2, 1, 0, 1, 3], np.uint32)
    scene = Scene(gl_ctx)
    scene.bridge.create_mesh_body((0, 0, 0), tuple(TILT), vertices, faces)
    image = scene.render()
    expected = analytic_mask(placed(on_triangles(vertices, faces, 200), (0, 0, 0)))
    assert_silhouette(image.max(2) > 0, expected, TIP_TOLERANCE_PX)


def test_heightfield(gl_ctx):
    n = 8
    row, col = np.divmod(np.arange(n * n), n)
    heights = (0.3 * np.sin(col / 2.0) + 0.2 * np.cos(row / 3.0)).astype(np.float32)
    scene = Scene(gl_ctx)
    cell = 3 / (n - 1)
    scene.bridge.create_heightfield((-1.5, 0, -1.5), (0, 0, 0, 1), (cell, 1.0, cell), heights, n)
    image = scene.render()
    # Culverin's own heights: a ray straight down onto every sample.
    samples = []
    axis = np.linspace(-1.499, 1.499, 40)
    for z in axis:
        for x in axis:
            hit = scene.world.raycast((x, 5.0, z), (0, -1, 0), 10.0)
            assert hit is not None, (x, z)
            samples.append((x, 5.0 - 10.0 * hit[1], z))
    samples = np.array(samples)
    lo, hi = samples[:, 1].min(), samples[:, 1].max()
    assert np.isclose(lo, heights.min(), atol=0.02) and np.isclose(hi, heights.max(), atol=0.02)
    # The drawn surface: triangles over Culverin's sampled heights (40 x 40 ray grid).
    verts = samples.reshape(40, 40, 3)
    quads = (np.arange(39)[:, None] * 40 + np.arange(39)[None, :]).reshape(-1)
    faces = np.stack([quads, quads + 40, quads + 1, quads + 1, quads + 40, quads + 41], 1)
    expected = analytic_mask(on_triangles(verts.reshape(-1, 3), faces.reshape(-1), 8))
    assert_silhouette(image.max(2) > 0, expected, 2)


def test_plane(gl_ctx):
    scene = Scene(gl_ctx)
    scene.bridge.create_body(pos=(0, 0, 0), size=(0, 1, 0, 0), shape=culverin.SHAPE_PLANE)
    image = scene.render()
    # Exactly: the pixels whose centre's ray meets y = 0 inside the 50 m half size.
    inverse = np.linalg.inv(VIEW)
    x, y = np.meshgrid((np.arange(SIZE[0]) + 0.5) / SIZE[0] * 2 - 1,
                       (np.arange(SIZE[1]) + 0.5) / SIZE[1] * 2 - 1)  # fmt: skip
    near = np.stack([x, y, -np.ones_like(x), np.ones_like(x)], -1) @ inverse.T
    far = np.stack([x, y, np.ones_like(x), np.ones_like(x)], -1) @ inverse.T
    near, far = near[..., :3] / near[..., 3:], far[..., :3] / far[..., 3:]
    t = near[..., 1] / (near[..., 1] - far[..., 1])
    hit = near + t[..., None] * (far - near)
    expected = (t > 0) & (t < 1) & (np.abs(hit[..., 0]) <= 50) & (np.abs(hit[..., 2]) <= 50)
    assert_silhouette(image.max(2) > 0, expected, TOLERANCE_PX)


def test_ragdoll_falls_onto_a_plane_and_stays_joined_on_screen(gl_ctx):
    scene = Scene(gl_ctx, gravity=(0.0, -9.81, 0.0))
    scene.bridge.create_body(pos=(0, 0, 0), size=(0, 1, 0, 0), shape=culverin.SHAPE_PLANE,
                             color=(0.0, 0.0, 1.0))  # fmt: skip
    tipped = (0.0, 0.0, 0.26, 0.966)  # leaning, so that it topples
    ragdoll = scene.bridge.create_ragdoll(humanoid(scene.bridge), (0.0, 1.5, 0.0), tipped,
                                          color=(1.0, 0.0, 0.0))  # fmt: skip
    handles = ragdoll.get_body_handles()
    assert len(handles) == len(HUMANOID)
    image = scene.render(steps=150)
    heights = [scene.world.get_position(h)[1] for h in handles]
    assert max(heights) < 0.4  # it fell and lies on the plane (hips started at 1.5)
    body = (image[..., 0] > 40) & (image[..., 2] < image[..., 0])
    # Every part's centre is on a ragdoll pixel...
    centres = np.floor(project(VIEW, [scene.world.get_position(h) for h in handles], SIZE))
    for x, y in centres.astype(int):
        assert dilate(body, 1)[y, x], (x, y)
    # ...and the parts form one connected silhouette.
    ys, xs = np.nonzero(body)
    component = np.zeros_like(body)
    component[ys[0], xs[0]] = True
    while True:
        grown = dilate(component, 1) & body
        if (grown == component).all():
            break
        component = grown
    assert component.sum() == body.sum(), (component.sum(), body.sum())


def cloth(n=7, size=2.0):
    g = np.stack(np.meshgrid(np.linspace(0, size, n), np.linspace(0, size, n)), -1).reshape(-1, 2)
    vertices = np.c_[g[:, 0] - size / 2, np.zeros(len(g)), g[:, 1] - size / 2]
    faces = []
    for z in range(n - 1):
        for x in range(n - 1):
            a = z * n + x
            faces += [a, a + n, a + 1, a + 1, a + n, a + n + 1]
    inv_masses = np.ones(len(vertices))
    inv_masses[[0, n - 1]] = 0.0  # pinned corners
    return vertices, np.array(faces), inv_masses


def test_soft_body_deforms_on_screen_as_its_vertices_do(gl_ctx):
    scene = Scene(gl_ctx, gravity=(0.0, -9.81, 0.0))
    vertices, faces, inv_masses = cloth()
    handle = scene.bridge.create_soft_body((0, 1.5, 0), vertices, faces, inv_masses=inv_masses)
    masks = []
    for steps in (1, 60):
        image = scene.render(steps=steps)
        reported = np.frombuffer(scene.world.get_soft_body_vertices(handle), np.float64)
        reported = reported.reshape(-1, 4)[:, :3]
        drawn = image.max(2) > 0
        expected = analytic_mask(on_triangles(reported, faces, 30))
        assert_silhouette(drawn, expected, TIP_TOLERANCE_PX)
        masks.append(drawn)
    assert (masks[0] != masks[1]).sum() > 200  # it sagged, and the picture followed


def test_character_is_drawn_as_its_capsule(gl_ctx):
    scene = Scene(gl_ctx)
    character = scene.bridge.create_character((0.0, 1.0, 0.0), height=1.8, radius=0.4)
    image = scene.render()
    position = np.asarray(scene.world.get_position(character.handle))
    expected = analytic_mask(capsule_points(0.5, 0.4) + position)
    assert_silhouette(image.max(2) > 0, expected, CURVED_TOLERANCE_PX)


@pytest.mark.parametrize("tracked", [False, True])
def test_vehicle_chassis_and_wheels(gl_ctx, tracked):
    side = perspective(45.0, 1.0, 0.5, 100.0) @ look_at((7.0, 1.5, 0.5), (0.0, 0.5, 0.0))
    scene = Scene(gl_ctx, gravity=(0.0, -9.81, 0.0), view=side)
    scene.bridge.create_body(pos=(0, -1, 0), size=(20, 1, 20), shape=culverin.SHAPE_BOX,
                             motion=culverin.MOTION_STATIC, color=(0.0, 0.0, 1.0))  # fmt: skip
    chassis = scene.bridge.create_body(pos=(0, 1.0, 0), size=(0.8, 0.2, 1.4), mass=800.0,
                                       color=(0.0, 1.0, 0.0))  # fmt: skip
    scene.world.step(1 / 60)
    zs = (-1.0, 0.0, 1.0) if tracked else (-1.0, 1.0)
    wheels = [{"pos": (x, -0.2, z), "radius": 0.35} for x in (-0.9, 0.9) for z in zs]
    if tracked:
        tracks = [{"indices": [0, 1, 2], "driven_wheel": 0},
                  {"indices": [3, 4, 5], "driven_wheel": 3}]  # fmt: skip
        vehicle = scene.bridge.create_vehicle(chassis, wheels, tracks=tracks,
                                              color=(1.0, 0.0, 0.0))  # fmt: skip
    else:
        vehicle = scene.bridge.create_vehicle(chassis, wheels, color=(1.0, 0.0, 0.0))
    image = scene.render(steps=30)
    red = (image[..., 0] > 40) & (image[..., 1] < image[..., 0] // 2)
    green = (image[..., 1] > 40) & (image[..., 0] < image[..., 1] // 2)
    x, y = np.floor(project(side, [scene.world.get_position(chassis)], SIZE))[0].astype(int)
    assert dilate(green, 1)[y, x]
    # The near wheels (x = +0.9, facing the camera): each a disc of its radius around
    # the centre Culverin reports, its axle along the chassis' x.
    near = [i for i, w in enumerate(wheels) if w["pos"][0] > 0]
    assert vehicle.wheel_count == len(wheels)
    for index in near:
        centre, _ = vehicle.get_wheel_transform(index)
        axle = rotate(scene.world.get_rotation(chassis), [(1.0, 0.0, 0.0)])[0]
        disc = cylinder_points(0.1, 0.35)[:, [1, 0, 2]]  # its axis along x
        expected = analytic_mask(disc @ _basis(axle).T + centre, side)
        assert (expected & ~dilate(red, CURVED_TOLERANCE_PX)).sum() < 0.05 * expected.sum()


def _basis(x_axis):
    """Columns: x_axis and two perpendicular unit vectors."""
    x_axis = np.asarray(x_axis) / np.linalg.norm(x_axis)
    helper = np.array([0.0, 1.0, 0.0]) if abs(x_axis[1]) < 0.9 else np.array([1.0, 0, 0])
    z_axis = np.cross(x_axis, helper)
    z_axis /= np.linalg.norm(z_axis)
    return np.stack([x_axis, np.cross(z_axis, x_axis), z_axis], 1)


ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base">
    <visual><geometry><box size="1 0.2 1"/></geometry></visual>
    <inertial><mass value="0"/></inertial>
  </link>
  <link name="upper">
    <visual><origin xyz="0 0 0.5"/><geometry><cylinder radius="0.1" length="1"/></geometry>
    </visual>
  </link>
  <link name="hand">
    <visual><geometry><mesh filename="{mesh}" scale="0.3 0.3 0.3"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0.1 0" rpy="-1.5708 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1"/>
  </joint>
  <joint name="wrist" type="fixed">
    <parent link="upper"/><child link="hand"/><origin xyz="0 0 1"/>
  </joint>
</robot>
"""
TETRA_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def write_arm(tmp_path: Path, mesh="tetra.obj") -> Path:
    (tmp_path / "tetra.obj").write_text(TETRA_OBJ)
    path = tmp_path / "arm.urdf"
    path.write_text(ARM.format(mesh=mesh))
    return path


def test_urdf_links_are_drawn_with_their_visuals(gl_ctx, tmp_path):
    scene = Scene(gl_ctx)
    handles = scene.bridge.load_urdf(write_arm(tmp_path), pos=(0, 0, 0), fixed_base=True)
    assert sorted(handles) == ["base", "hand", "upper"]
    image = scene.render()
    drawn = image.max(2) > 0
    # The upper arm: a cylinder standing on the base (the joint turned URDF's z to y).
    upper = cylinder_points(0.5, 0.1) + np.array([0.0, 0.6, 0.0])
    base = box_points((0.5, 0.1, 0.5))
    hand = tetra_points(0.3 * np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]]), 50_000)
    hand = rotate((-(0.5**0.5), 0, 0, 0.5**0.5), hand) + np.array([0, 1.1, 0])
    expected = analytic_mask(np.concatenate([upper, base, hand]))
    assert_silhouette(drawn, expected, CURVED_TOLERANCE_PX)


def test_urdf_errors_name_the_problem(ctx, tmp_path):
    world = culverin.PhysicsWorld(settings={"max_bodies": 64})
    bridge = ctx.bridge("culverin", world, capacity=32)
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot><link name='a'>")
    with pytest.raises(UrdfError, match="does not parse"):
        bridge.load_urdf(bad)
    with pytest.raises(UrdfError, match="does not exist"):
        bridge.load_urdf(tmp_path / "nowhere.urdf")
    with pytest.raises(UrdfError, match=r"missing\.stl"):
        bridge.load_urdf(write_arm(tmp_path, mesh="missing.stl"))
    bad.write_text("<robot><link name='a'><visual><geometry><torus/></geometry></visual>"
                   "</link></robot>")  # fmt: skip
    with pytest.raises(UrdfError, match="torus"):
        bridge.load_urdf(bad)
    assert issubclass(ShapeError, ValueError) and issubclass(UrdfError, ValueError)


def test_a_body_made_straight_through_culverin_gets_a_look(gl_ctx):
    from hypergl_culverin.shapes import Capsule

    scene = Scene(gl_ctx)
    handle = scene.world.create_body(pos=(0, 0.5, 0), rot=tuple(TILT), size=(0.6, 0.3),
                                     shape=culverin.SHAPE_CAPSULE)  # fmt: skip
    assert not (scene.render().max(2) > 0).any()  # no look yet: not drawn
    body_id = scene.bridge.set_shape(handle, Capsule(0.6, 0.3))
    assert scene.world.get_user_data(handle) == body_id
    image = scene.render()
    expected = analytic_mask(placed(capsule_points(0.6, 0.3)))
    assert_silhouette(image.max(2) > 0, expected, CURVED_TOLERANCE_PX)


def test_wheels_turn_on_screen(gl_ctx):
    side = perspective(45.0, 1.0, 0.5, 100.0) @ look_at((6.0, 0.6, 0.0), (0.0, 0.4, 0.0))
    scene = Scene(gl_ctx, gravity=(0.0, -9.81, 0.0), view=side)
    scene.bridge.create_body(pos=(0, -1, 0), size=(40, 1, 40), shape=culverin.SHAPE_BOX,
                             motion=culverin.MOTION_STATIC, color=(0.0, 0.0, 1.0))  # fmt: skip
    chassis = scene.bridge.create_body(pos=(0, 0.8, 0), size=(0.8, 0.2, 1.4), mass=800.0,
                                       color=(0.0, 1.0, 0.0))  # fmt: skip
    scene.world.step(1 / 60)
    wheels = [{"pos": (x, -0.2, z), "radius": 0.35} for x in (-0.9, 0.9) for z in (-1.0, 1.0)]
    vehicle = scene.bridge.create_vehicle(chassis, wheels, color=(1.0, 0.0, 0.0))
    vehicle.set_input(forward=1.0)

    def spoke_pattern(image):
        centre, _ = vehicle.get_wheel_transform(3)  # near side (x = +0.9)
        cx, cy = np.floor(project(side, [centre], SIZE))[0].astype(int)
        patch = image[cy - 6 : cy + 7, cx - 6 : cx + 7]
        red = (patch[..., 0] > 30) & (patch[..., 1] < patch[..., 0] // 2)
        dark = red & (patch[..., 0] < 0.7 * patch[..., 0][red].max())
        return red, dark

    red_a, dark_a = spoke_pattern(scene.render(steps=20))
    red_b, dark_b = spoke_pattern(scene.render(steps=6))
    assert red_a.sum() > 60 and red_b.sum() > 60  # the wheel, seen from its side
    assert dark_a.sum() > 5 and dark_b.sum() > 5  # its darker spoke
    assert (dark_a != dark_b).sum() > 5  # the spoke turned between the frames


def test_a_soft_body_made_after_recording_asks_for_a_new_recording(gl_ctx):
    scene = Scene(gl_ctx, gravity=(0.0, -9.81, 0.0))
    scene.render()
    vertices, faces, _ = cloth(3)
    handle = scene.bridge.create_soft_body((0, 1.5, 0), vertices, faces)
    for _ in range(2):  # until it is recorded again
        with pytest.raises(ShapeError, match="record the frame again"):
            scene.renderer.update()
    cmd = scene.ctx.command_buffer()
    cmd.bind_framebuffer(scene.fb)
    cmd.clear(color=(0, 0, 0, 1), depth=1.0)
    scene.renderer.record(cmd)
    cmd.end()
    scene.cmd = cmd
    image = scene.render(steps=2)
    reported = np.frombuffer(scene.world.get_soft_body_vertices(handle), np.float64)
    expected = analytic_mask(on_triangles(reported.reshape(-1, 4)[:, :3], faces, 30))
    assert_silhouette(image.max(2) > 0, expected, TIP_TOLERANCE_PX)
