"""Every value the bridge's helpers hand to Culverin is checked first (issue 24, items 2, 8, 12).

Culverin 0.15 segfaults on some of these (a NaN soft-body vertex, a track naming a wheel
that does not exist, a ragdoll joint without a part), hangs on others (10**9 solver
iterations), and raises bare MemoryError / OverflowError / RuntimeError for the rest. Each
case must raise the bridge's own error, naming the value, and create nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from hypergl_culverin import (
    BadValueError,
    CapacityError,
    CulverinError,
    ShapeError,
    UnknownOptionError,
)
from hypergl_culverin import values as checks
from hypergl_culverin.shapes import ConvexHull

culverin = pytest.importorskip("culverin")

pytestmark = pytest.mark.culverin
NAN, INF = float("nan"), float("inf")
TRIANGLE = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


def unchanged(bridge, before: int) -> bool:
    """Nothing was added: the body count after a step is what it was (destroyed bodies
    leave at the next step)."""
    bridge.world.step(1 / 60)
    return bridge.world.count == before


@pytest.mark.parametrize(
    ("vertices", "match"),
    [
        ([[0, 0, 0], [1, 0, 0], [0, 0, NAN]], r"soft body vertices: point 2 is \(0\.0, 0\.0, nan"),
        ([[0, 0, 0], [INF, 0, 0], [0, 0, 1]], r"point 1 is \(inf"),
        ([[0, 0, 0], [1e9, 0, 0], [0, 0, 1]], r"within \+-1e\+06"),
        ([[0, 0, 0], [1, 0, 0]], "at least 3 points"),
        ([[0, 0, 0], [1, 0, 0], ["a", 0, 0]], "must be real numbers"),
    ],
)
def test_soft_body_vertices_are_checked(bridge, vertices, match):
    # Culverin 0.15 segfaults in create_constraints on the NaN vertex.
    before = bridge.world.count
    with pytest.raises(ShapeError, match=match):
        bridge.create_soft_body((0, 1, 0), vertices, [0, 1, 2])
    assert unchanged(bridge, before)


@pytest.mark.parametrize(
    ("vertices", "faces", "match"),
    [
        (TRIANGLE, [0, 1, 7], r"index 7 \(triangle 0\) is outside"),
        (TRIANGLE, [0, 1, 1], r"triangle 0 \(0, 1, 1\) repeats a vertex"),
        ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [0, 1, 2], "has no area"),
        (TRIANGLE, [0, 1], "a multiple of 3"),
        (TRIANGLE, [0.5, 1, 2], "must be ints"),
    ],
)
def test_soft_body_faces_are_checked(bridge, vertices, faces, match):
    with pytest.raises(ShapeError, match=match):
        bridge.create_soft_body((0, 1, 0), vertices, faces)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"inv_masses": [1, NAN, 1]}, r"inv_masses\[1\] is nan"),
        ({"inv_masses": [1, -1, 1]}, r"inv_masses\[1\] is -1\.0"),
        ({"inv_masses": [1, 1]}, "one value per vertex"),
        ({"compliance": NAN}, "compliance must be finite"),
        ({"num_iterations": 10**9}, r"num_iterations must be in 1\.\.1000"),  # hangs step()
        ({"vertex_radius": -1.0}, "vertex_radius must be >= 0"),
        ({"pressure": NAN}, "pressure must be finite"),
        ({"rot": (0, 0, 0, 0)}, "non-zero finite quaternion"),
        ({"update_position": "yes"}, "update_position must be True or False"),
    ],
)
def test_soft_body_values_are_checked(bridge, options, match):
    with pytest.raises(BadValueError, match=match):
        bridge.create_soft_body((0, 1, 0), TRIANGLE, [0, 1, 2], **options)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"mass": NAN}, BadValueError, "create_body mass must be finite, got nan"),
        ({"mass": -2.0}, BadValueError, "create_body mass must be > 0"),
        ({"friction": NAN}, BadValueError, "create_body friction must be finite"),
        ({"restitution": 2.0}, BadValueError, "restitution must be >= 0 and <= 1"),
        ({"rot": (0, 0, 0, 0)}, BadValueError, "create_body rot must be a non-zero"),
        ({"pos": (0, NAN, 0)}, BadValueError, "create_body pos must be finite"),
        ({"motion": 7}, BadValueError, r"create_body motion must be one of \[0, 1, 2\]"),
        ({"category": 2**70}, BadValueError, "category must be in 0..4294967295"),  # Overflow
        ({"allowed_dofs": 64}, BadValueError, "allowed_dofs must be in 0..63"),
        ({"ccd": 1}, BadValueError, "ccd must be True or False"),
        ({"colour": "red"}, UnknownOptionError, "create_body takes no option 'colour'"),
        ({"user_data": 7}, BadValueError, "create_body assigns user_data itself"),
    ],
)
def test_body_options_are_checked(bridge, options, error, match):
    before = bridge.world.count
    with pytest.raises(error, match=match):
        bridge.create_body(**{"pos": (0, 1, 0), "size": 0.5, "shape": 1, **options})
    assert unchanged(bridge, before)


def test_plane_constant_is_checked(bridge):
    with pytest.raises(ShapeError, match="plane constant must be finite, got nan"):
        bridge.create_body(pos=(0, 1, 0), size=(0.0, 1.0, 0.0, NAN), shape=4)


def test_mesh_heightfield_hull_and_compound_values_are_checked(bridge):
    # Culverin raises a bare RuntimeError ("BVH build failed", "HeightField build failed",
    # "Convex Hull build failed") for these, or accepts them and steps NaN.
    world = bridge.world
    before = world.count
    r = (0, 0, 0, 1)
    with pytest.raises(ShapeError, match=r"mesh vertices: point 2 is \(0\.0, 0\.0, nan\)"):
        bridge.create_mesh_body((0, 0, 0), r, [[0, 0, 0], [1, 0, 0], [0, 0, NAN]], [0, 1, 2])
    with pytest.raises(ShapeError, match=r"mesh indices: triangle 0 \(0, 0, 1\) repeats"):
        bridge.create_mesh_body((0, 0, 0), r, TRIANGLE, [0, 0, 1])
    with pytest.raises(ShapeError, match=r"mesh indices: triangle 0 .* has no area"):
        bridge.create_mesh_body((0, 0, 0), r, [[0, 0, 0], [1, 0, 0], [2, 0, 0]], [0, 1, 2])
    with pytest.raises(ShapeError, match="heightfield height 2 is nan"):
        bridge.create_heightfield((0, 0, 0), r, (1, 1, 1), [0, 0, NAN, 0], 2)
    with pytest.raises(ShapeError, match=r"heightfield grid_size must be in 2\.\."):
        bridge.create_heightfield((0, 0, 0), r, (1, 1, 1), [0.0], 1)
    with pytest.raises(ShapeError, match="heightfield scale"):
        bridge.create_heightfield((0, 0, 0), r, (0, 1, 1), [0.0] * 4, 2)
    with pytest.raises(ShapeError, match=r"convex hull points: point 3 is \(0\.0, 0\.0, nan\)"):
        bridge.create_convex_hull((0, 1, 0), r, [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, NAN]])
    with pytest.raises(ShapeError, match="span 1e-06 m, less than"):
        bridge.create_convex_hull((0, 1, 0), r, np.eye(4)[:, :3] * 1e-6)
    with pytest.raises(ShapeError, match="compound part 0 offset must be finite"):
        bridge.create_compound_body((0, 1, 0), r, [((NAN, 0, 0), r, 0, (1, 1, 1))])
    with pytest.raises(ShapeError, match="compound part 0 rotation"):
        bridge.create_compound_body((0, 1, 0), r, [((0, 0, 0), (0, 0, 0, 0), 0, (1, 1, 1))])
    with pytest.raises(BadValueError, match="create_heightfield pos must be finite"):
        bridge.create_heightfield((NAN, 0, 0), r, (1, 1, 1), [0.0] * 4, 2)
    assert unchanged(bridge, before)


def test_character_values_are_checked(bridge):
    # A negative radius made Culverin raise a bare MemoryError.
    with pytest.raises(BadValueError, match="create_character radius must be 1 positive"):
        bridge.create_character((0, 1, 0), radius=-1.0)
    with pytest.raises(BadValueError, match="create_character pos must be finite"):
        bridge.create_character((0, NAN, 0))
    with pytest.raises(BadValueError, match="more than half its height"):
        bridge.create_character((0, 1, 0), height=0.5, radius=1.0)
    with pytest.raises(BadValueError, match=r"max_slope must be >= 0 and <= 90"):
        bridge.create_character((0, 1, 0), max_slope=120.0)


@pytest.fixture
def chassis(bridge):
    handle = bridge.create_body(pos=(0, 2, 0), size=(1, 0.3, 2), mass=800.0)
    bridge.world.step(1 / 60)
    return handle


WHEELS = [{"pos": (1, 0, 1), "radius": 0.4}, {"pos": (-1, 0, 1), "radius": 0.4}]


@pytest.mark.parametrize(
    ("tracks", "match"),
    [
        ([{"indices": [0, 5], "driven_wheel": 0}], r"track 0 wheel index must be in 0\.\.1, got 5"),
        ([{"indices": [0, 1], "driven_wheel": 9}], r"track 0 driven_wheel must be in 0\.\.1"),
        ([{"indices": [], "driven_wheel": 0}], "must list at least 2 wheels"),
        ([{"indices": [0, 0], "driven_wheel": 0}], "names a wheel twice"),
        ([{"indices": [0, 1]}], "must be a dict with 'indices' and 'driven_wheel'"),
    ],
)
def test_tracked_vehicle_tracks_are_checked(bridge, chassis, tracks, match):
    # Each of these segfaults Culverin 0.15 inside create_tracked_vehicle.
    with pytest.raises(BadValueError, match=match):
        bridge.create_vehicle(chassis, WHEELS, tracks=tracks)


@pytest.mark.parametrize(
    ("wheels", "options", "match"),
    [
        ([{"pos": (1, 0, 1), "radius": NAN}] * 2, {}, "wheel 0 radius must be"),
        ([{"pos": (NAN, 0, 1), "radius": 0.4}] * 2, {}, "wheel 0 pos must be finite"),
        (WHEELS[:1], {}, "a list of 2..64 dicts"),
        (WHEELS, {"drive": "XYZ"}, r"drive must be one of \['RWD', 'FWD', 'AWD'\]"),
        (WHEELS, {"wheel_width": -1.0}, "wheel_width must be 1 positive"),
        (WHEELS, {"engine": "V8"}, "create_vehicle engine must be a culverin.Engine"),
    ],
)
def test_vehicle_wheels_are_checked(bridge, chassis, wheels, options, match):
    with pytest.raises(BadValueError, match=match):
        bridge.create_vehicle(chassis, wheels, **options)


def two_joint_settings(bridge):
    skeleton = culverin.Skeleton()
    skeleton.add_joint("root")
    skeleton.add_joint("arm", 0)
    skeleton.finalize()
    settings = bridge.ragdoll_settings(skeleton)
    settings.add_part(0, culverin.SHAPE_BOX, (0.2, 0.2, 0.2), 10.0, -1)
    return settings


def test_ragdoll_joint_without_a_part_is_refused(bridge):
    # Culverin 0.15 segfaults in stabilize() and create_ragdoll() here.
    settings = two_joint_settings(bridge)
    assert settings.joints == 2
    before = bridge.world.count
    with pytest.raises(BadValueError, match=r"ragdoll joints \[1\] have no part"):
        settings.stabilize()
    with pytest.raises(BadValueError, match=r"ragdoll joints \[1\] have no part"):
        bridge.create_ragdoll(settings, (0, 2, 0))
    assert unchanged(bridge, before)
    settings.add_part(1, culverin.SHAPE_CAPSULE, (0.2, 0.1), 5.0, 0)
    assert bridge.create_ragdoll(settings, (0, 2, 0)) is not None


@pytest.mark.parametrize(
    ("args", "options", "match"),
    [
        ((1, 2, (0.2, 0.1), NAN, 0), {}, "part 1 mass must be finite"),
        ((1, 2, (0.2, 0.1), 5.0, 0), {"twist_min": NAN}, "twist_min must be finite"),
        ((1, 2, (0.2, 0.1), 5.0, 0), {"twist_min": 1.0, "twist_max": -1.0}, "above twist_max"),
        ((1, 2, (0.2, 0.1), 5.0, 0), {"cone_angle": -1.0}, "cone_angle must be >= 0"),
        ((1, 2, (0.2, 0.1), 5.0, 0), {"axis": (0, 0, 0)}, "axis must be a non-zero direction"),
        ((1, 2, (0.2, 0.1), 5.0, 7), {}, r"parent_index must be in -1\.\.0"),
        ((5, 2, (0.2, 0.1), 5.0, 0), {}, r"joint_index must be in 0\.\.1"),
        ((0, 2, (0.2, 0.1), 5.0, -1), {}, "joint 0 already has a part"),
    ],
)
def test_ragdoll_part_values_are_checked(bridge, args, options, match):
    settings = two_joint_settings(bridge)
    with pytest.raises((BadValueError, ShapeError), match=match):
        settings.add_part(*args, **options)


def test_handles_are_checked(bridge):
    with pytest.raises(BadValueError, match="assign_id handle must be an int, got 'x'"):
        bridge.assign_id("x")
    with pytest.raises(BadValueError, match="not alive"):
        bridge.assign_id(123456789)
    with pytest.raises(BadValueError, match="chassis: body handle 99999 is not alive"):
        bridge.create_vehicle(99999, WHEELS)


def test_a_full_world_is_a_capacity_error_before_culverin_is_asked(bridge):
    # Culverin's "PhysicsWorld limit reached" is a bare RuntimeError.
    world = bridge.world
    while world.remaining_capacity:
        bridge.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    with pytest.raises(CapacityError, match=r"room for 0 \(max_bodies=64\).*'max_bodies': 128"):
        bridge.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    with pytest.raises(CapacityError, match="max_bodies"):
        bridge.create_character((0, 1, 0))


def test_culverins_raw_errors_become_the_bridges(make_world):
    """The mapping every helper's Culverin call runs under, fed Culverin's real errors."""
    world = make_world(max_bodies=4)
    handle = world.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    memory = pytest.raises(CulverinError, match=r"out of memory for a character \(no message\)")
    with memory, checks.calling("a character"):
        world.create_character((0, 1, 0), radius=-1.0)  # a bare MemoryError
    overflow = pytest.raises(BadValueError, match="user data: a number does not fit")
    with overflow, checks.calling("user data"):
        world.set_user_data(handle, 2**64)  # OverflowError
    runtime = pytest.raises(CulverinError, match="Culverin could not make a body: Failed to")
    with runtime, checks.calling("a body"):
        world.create_body(pos=(0, 1, 0), size=0.5, shape=99)  # RuntimeError
    with pytest.raises(CapacityError, match="the world is full"), checks.calling("a body"):
        for _ in range(5):
            world.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    assert issubclass(CulverinError, RuntimeError) and issubclass(BadValueError, ValueError)


def test_a_hull_of_16000_points_is_reduced_before_the_hull_is_built(bridge):
    # The incremental hull took 42 s on 16,000 points; Culverin keeps 256 anyway.
    rng = np.random.default_rng(7)
    points = rng.normal(size=(16_000, 3))
    points /= np.linalg.norm(points, axis=1)[:, None]
    shape = ConvexHull(points)
    assert len(shape.points) <= 256
    assert set(np.unique(shape.faces)) == set(range(len(shape.points)))  # all are vertices
    assert shape.volume == pytest.approx(4 / 3 * np.pi, rel=0.05)  # the unit sphere's
    inside = points[rng.choice(len(points), 10, replace=False)] * 0.9
    assert ConvexHull(np.concatenate([points[:300], inside])).points.shape[0] <= 256
    handle = bridge.create_convex_hull((0, 5, 0), (0, 0, 0, 1), points)
    assert bridge.world.is_alive(handle)
    with pytest.raises(ShapeError, match="at most 1048576 points"):
        ConvexHull(np.zeros(((1 << 20) + 1, 3)))


@pytest.mark.parametrize(("dt", "match"), [(NAN, "step dt must be finite"),
                                           (-1 / 60, "step dt must be > 0"),
                                           (1e9, "step dt must be > 0 and <= 10")])  # fmt: skip
def test_step_dt_is_checked(bridge, dt, match):
    # Culverin raised its raw ValueError for NaN and stepped the others silently.
    time = bridge.world.time
    with pytest.raises(BadValueError, match=match):
        bridge.step(dt)
    assert bridge.world.time == time
