"""URDF files from anywhere (issue 24, items 6 and 7): bounded before they are read, checked
completely before the first body is made, and a failure leaves the world as it was.

Big files are sparse (``truncate``): no test writes more than a few MiB. Memory is measured
with tracemalloc (NumPy reports its buffers to it), never time.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from hypergl_culverin import CapacityError, UrdfError

culverin = pytest.importorskip("culverin")

pytestmark = pytest.mark.culverin
MIB = 1 << 20
TETRA_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def robot(folder: Path, mesh: str | None = None, *, joint: str = "", mass: str = "1",
          links: int = 2, name: str = "robot.urdf") -> Path:  # fmt: skip
    """A chain of `links` boxes (the last one drawn with `mesh`) and fixed joints."""
    parts = []
    for k in range(links):
        visual = (f'<mesh filename="{mesh}"/>' if mesh is not None and k == links - 1
                  else '<box size="0.2 0.2 0.2"/>')  # fmt: skip
        parts.append(f'<link name="l{k}"><inertial><mass value="{mass}"/></inertial>'
                     f"<visual><geometry>{visual}</geometry></visual></link>")  # fmt: skip
    for k in range(1, links):
        parts.append(joint.format(parent=f"l{k - 1}", child=f"l{k}") or
                     f'<joint name="j{k}" type="fixed"><parent link="l{k - 1}"/>'
                     f'<child link="l{k}"/><origin xyz="0 0 0.3"/></joint>')  # fmt: skip
    path = folder / name
    path.write_text("<robot name='r'>" + "".join(parts) + "</robot>")
    return path


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def peak_of(call) -> tuple[object, int]:
    """(what `call()` raised or returned, the peak of traced memory meanwhile)."""
    tracemalloc.start()
    try:
        try:
            result: object = call()
        except Exception as exc:
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def rejected(bridge, call, error, match: str) -> None:
    """`call` raises `error` matching `match`, and the world has no more bodies after it."""
    world = bridge.world
    before = world.count
    with pytest.raises(error, match=match):
        call()
    world.step(1 / 60)  # destroyed bodies leave at the next step
    assert world.count == before


# --- item 6: meshes bounded before they are read ----------------------------------------------
def test_a_mesh_suffix_is_refused_before_the_file_is_read(bridge, tmp_path):
    sparse(tmp_path / "robot.txt", 300 * MIB)
    path = robot(tmp_path, "robot.txt")
    error, peak = peak_of(lambda: bridge.load_urdf(path))
    assert isinstance(error, UrdfError) and "only .stl and .obj" in str(error)
    assert peak < 8 * MIB  # was the whole 300 MiB file


def test_a_mesh_over_the_memory_limit_is_refused_by_its_size(bridge, tmp_path):
    sparse(tmp_path / "huge.stl", 300 * MIB)  # default memory_limit: 256 MiB
    path = robot(tmp_path, "huge.stl")
    error, peak = peak_of(lambda: bridge.load_urdf(path))
    assert isinstance(error, UrdfError), error
    assert "memory_limit of 268435456" in str(error) and "huge.stl" in str(error)
    assert peak < 8 * MIB  # was 300 MiB of bytes and 300 MiB decoded to text


def test_the_memory_limit_is_the_callers(bridge, tmp_path):
    (tmp_path / "tetra.obj").write_text(TETRA_OBJ)
    path = robot(tmp_path, "tetra.obj")
    rejected(bridge, lambda: bridge.load_urdf(path, memory_limit=300), UrdfError,
             "more than the load's memory_limit of 300")  # fmt: skip
    with pytest.raises(TypeError, match="memory_limit must be a positive int"):
        bridge.load_urdf(path, memory_limit="lots")
    assert len(bridge.load_urdf(path, memory_limit=MIB)) == 2


def test_a_line_without_an_end_is_not_read_whole(bridge, tmp_path):
    sparse(tmp_path / "zeros.stl", 100 * MIB)  # not binary (size), so read as ASCII
    path = robot(tmp_path, "zeros.stl")
    error, peak = peak_of(lambda: bridge.load_urdf(path, memory_limit=200 * MIB))
    assert isinstance(error, UrdfError) and "does not parse" in str(error), error
    assert peak < 8 * MIB


def grid_obj(n: int) -> str:
    """An n x n grid of vertices as OBJ text (2 (n - 1)^2 triangles)."""
    row, col = np.divmod(np.arange(n * n), n)
    v = "".join(f"v {c * 0.01:.4f} {r * 0.01:.4f} 0.1\n" for r, c in zip(row, col, strict=True))
    a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).reshape(-1) + 1
    f = "".join(f"f {x} {x + n} {x + 1}\nf {x + 1} {x + n} {x + n + 1}\n" for x in a)
    return v + f


def test_an_obj_is_parsed_into_memory_proportional_to_what_is_kept(bridge, tmp_path):
    (tmp_path / "grid.obj").write_text(grid_obj(150))  # ~1 MiB of text
    size = (tmp_path / "grid.obj").stat().st_size
    path = robot(tmp_path, "grid.obj")
    handles, peak = peak_of(lambda: bridge.load_urdf(path))
    assert isinstance(handles, dict), handles
    kept = (150 * 150 * 3 + 2 * 149 * 149 * 3) * 8  # float64 coordinates, int64 indices
    assert peak < 2 * kept + 2 * MIB, (peak, kept, size)  # Python lists took ~55x the file


def test_a_binary_stl_is_streamed_into_its_arrays(bridge, tmp_path):
    triangles = 50_000
    rows = np.zeros(triangles, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rng = np.random.default_rng(3)
    rows["v"] = rng.random((triangles, 3, 3))
    with open(tmp_path / "cloud.stl", "wb") as f:
        f.write(bytes(80) + np.uint32(triangles).tobytes() + rows.tobytes())
    path = robot(tmp_path, "cloud.stl")
    handles, peak = peak_of(lambda: bridge.load_urdf(path))
    assert isinstance(handles, dict), handles
    kept = triangles * 3 * (3 * 8 + 8)
    assert peak < 1.5 * kept + 2 * MIB, (peak, kept)  # the bytes, a float copy, a scaled one


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("ABSOLUTE", "outside the folders meshes are read from"),
        ("../outside/tetra.obj", "outside the folders meshes are read from"),
        ("file://ABSOLUTE", "outside the folders meshes are read from"),
        ("package://parts/tetra.obj", "package 'parts' is not in"),
        ("https://example.com/tetra.obj", "only relative paths, file:// and package://"),
        ("link.obj", "outside the folders meshes are read from"),  # a symlink out
    ],
)
def test_mesh_paths_stay_inside_the_allowed_folders(bridge, tmp_path, name, match):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tetra.obj").write_text(TETRA_OBJ)
    folder = tmp_path / "robot"
    folder.mkdir()
    (folder / "link.obj").symlink_to(outside / "tetra.obj")
    name = name.replace("ABSOLUTE", str(outside / "tetra.obj"))
    rejected(bridge, lambda: bridge.load_urdf(robot(folder, name)), UrdfError, match)


def test_mesh_paths_the_caller_allows(bridge, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tetra.obj").write_text(TETRA_OBJ)
    folder = tmp_path / "robot"
    (folder / "meshes").mkdir(parents=True)
    (folder / "meshes" / "tetra.obj").write_text(TETRA_OBJ)
    inside = ["meshes/tetra.obj", "meshes/../meshes/tetra.obj",
              f"file://{folder / 'meshes' / 'tetra.obj'}"]  # fmt: skip
    for k, name in enumerate(inside):
        assert len(bridge.load_urdf(robot(folder, name, name=f"{k}.urdf"))) == 2
    absolute = robot(folder, str(outside / "tetra.obj"), name="abs.urdf")
    assert len(bridge.load_urdf(absolute, mesh_roots=[outside])) == 2
    packaged = robot(folder, "package://parts/tetra.obj", name="pkg.urdf")
    assert len(bridge.load_urdf(packaged, packages={"parts": outside})) == 2
    escape = robot(folder, "package://parts/../robot/meshes/tetra.obj", name="esc.urdf")
    with pytest.raises(UrdfError, match="outside the folders"):
        bridge.load_urdf(escape, packages={"parts": outside})


def test_a_mesh_that_is_not_a_regular_file_is_refused(bridge, tmp_path):
    os.mkfifo(tmp_path / "pipe.obj")  # reading it would wait for a writer forever
    rejected(bridge, lambda: bridge.load_urdf(robot(tmp_path, "pipe.obj")), UrdfError,
             "is not a regular file")  # fmt: skip


@pytest.mark.parametrize("size", [300 * MIB, 20 * MIB])  # its tree: ~13 bytes per byte
def test_a_urdf_over_the_memory_limit_is_refused_by_its_size(bridge, tmp_path, size):
    path = sparse(tmp_path / "big.urdf", size)
    error, peak = peak_of(lambda: bridge.load_urdf(path))
    assert isinstance(error, UrdfError) and "URDF file" in str(error), error
    assert "memory_limit" in str(error) and peak < 8 * MIB


# --- item 7: the whole URDF is checked before the first body ----------------------------------
@pytest.mark.parametrize(
    ("options", "match"),
    [
        (
            {
                "joint": '<joint name="j" type="fixed"><parent link="{parent}"/>'
                '<child link="{child}"/>'
                '<origin xyz="0 nan 0"/></joint>'
            },
            "joint 'j' origin xyz '0 nan 0' must be finite",
        ),
        (
            {
                "joint": '<joint name="j" type="fixed"><parent link="{parent}"/>'
                '<child link="{child}"/>'
                '<origin rpy="0 0 inf"/></joint>'
            },
            "joint 'j' origin rpy",
        ),
        ({"mass": "inf"}, "link 'l0' mass value must be finite"),
        ({"mass": "nan"}, "link 'l0' mass value must be finite"),
        ({"mass": "-3"}, "link 'l0' mass value must be >= 0"),
        ({"mass": "heavy"}, "link 'l0' mass value='heavy' is not a number"),
        (
            {
                "joint": '<joint name="j" type="hover"><parent link="{parent}"/>'
                '<child link="{child}"/></joint>'
            },
            "joint 'j' has unknown type 'hover'",
        ),
        (
            {
                "joint": '<joint name="j" type="revolute"><parent link="{parent}"/>'
                '<child link="{child}"/><limit lower="nan" upper="1"/></joint>'
            },
            "joint 'j' limit lower must be finite",
        ),  # a NaN hinge limit hangs step()
        (
            {
                "joint": '<joint name="j" type="revolute"><parent link="{parent}"/>'
                '<child link="{child}"/><limit lower="1" upper="-1"/></joint>'
            },
            "lower 1.0 is above upper -1.0",
        ),
        (
            {
                "joint": '<joint name="j" type="revolute"><parent link="{parent}"/>'
                '<child link="{child}"/><limit lower="-9" upper="1"/></joint>'
            },
            r"limit lower must be >= -3\.14",
        ),
        (
            {
                "joint": '<joint name="j" type="prismatic"><parent link="{parent}"/>'
                '<child link="{child}"/><limit lower="0" upper="x"/></joint>'
            },
            "limit upper='x' is not a number",
        ),
        (
            {
                "joint": '<joint name="j" type="revolute"><parent link="{parent}"/>'
                '<child link="{child}"/><axis xyz="0 0 0"/></joint>'
            },
            "axis .* is zero",
        ),
    ],
)
def test_a_bad_urdf_value_creates_nothing(bridge, tmp_path, options, match):
    # Before, these made every link's body first (or none failed and steps went NaN).
    path = robot(tmp_path, links=3, **options)
    rejected(bridge, lambda: bridge.load_urdf(path), UrdfError, match)


def test_a_bad_mesh_value_creates_nothing(bridge, tmp_path):
    (tmp_path / "nan.obj").write_text(TETRA_OBJ.replace("v 1 0 0", "v nan 0 0"))
    rejected(bridge, lambda: bridge.load_urdf(robot(tmp_path, "nan.obj", links=3)), UrdfError,
             r"nan\.obj.*point 1 is \(nan, 0\.0, 0\.0\)")  # fmt: skip


def test_a_urdf_structure_error_creates_nothing(bridge, tmp_path):
    twice = robot(tmp_path, links=3, name="twice.urdf").read_text()
    (tmp_path / "twice.urdf").write_text(twice.replace('name="l2"', 'name="l1"', 1))
    rejected(bridge, lambda: bridge.load_urdf(tmp_path / "twice.urdf"), UrdfError,
             "two links are named 'l1'")  # fmt: skip
    text = robot(tmp_path, links=3, name="two_parents.urdf").read_text()
    extra = '<joint name="x" type="fixed"><parent link="l0"/><child link="l2"/></joint>'
    (tmp_path / "two_parents.urdf").write_text(text.replace("</robot>", extra + "</robot>"))
    rejected(bridge, lambda: bridge.load_urdf(tmp_path / "two_parents.urdf"), UrdfError,
             "link 'l2' is already the child of 'l1'")  # fmt: skip


def test_a_robot_too_large_for_the_world_creates_nothing(bridge, tmp_path):
    path = robot(tmp_path, links=100)  # the world holds 64 bodies
    rejected(bridge, lambda: bridge.load_urdf(path), CapacityError,
             r"100 links: 100 more bodies are needed but the world has room for")  # fmt: skip
    assert len(bridge.load_urdf(robot(tmp_path, links=10, name="small.urdf"))) == 10
