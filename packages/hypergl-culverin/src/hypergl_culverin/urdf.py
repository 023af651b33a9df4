"""URDF robots: one Culverin body per link, drawn with its visual geometry.

Culverin's own ``load_urdf`` reads boxes and cylinders only, ignores joints and meshes and
places every link at its visual origin, so the bridge reads the file itself: links are
placed by the joints' origins (the zero configuration), each link's collision geometry
(else its visual geometry) becomes a compound body, its visuals (boxes, spheres,
cylinders, STL/OBJ meshes) its look, and fixed, revolute, continuous and prismatic
joints become Culverin constraints.

A URDF may come from anywhere, so loading is parse -> plan -> build: :func:`plan` reads
and checks the whole file (every number finite and in range, every joint type and limit,
every mesh under the path policy and the memory limit of :mod:`.mesh_files`) into
:class:`LinkPlan` / :class:`JointPlan` records without touching the world; :func:`build`
checks the world has room for every link, then creates the bodies and constraints, and
removes what it added if Culverin still fails. A failure creates nothing.
"""

from __future__ import annotations

import functools
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import culverin
import numpy as np

from . import shapes, values
from .errors import BridgeError, UrdfError
from .mesh_files import Budget, MeshPaths, load_mesh
from .shapes import Part, Shape, quat_mul, rotate
from .urdf_xml import read_tree

Y_TO_Z = (0.5**0.5, 0.0, 0.0, 0.5**0.5)  # URDF cylinders run along z, Culverin's along y
JOINT_TYPES = ("fixed", "revolute", "continuous", "prismatic", "floating", "planar")


@dataclass
class LinkPlan:
    name: str
    position: tuple[float, ...]
    rotation: tuple[float, ...]
    parts: list[tuple[Any, ...]]  # Culverin compound parts (offset, rotation, SHAPE_*, size)
    look: Shape
    static: bool
    mass: float


@dataclass
class JointPlan:
    name: str
    constraint: int  # culverin.CONSTRAINT_*
    parent: str
    child: str
    params: tuple[Any, ...] | None


def _attr(node: ET.Element, name: str, default: str | None, what: str) -> str:
    text = node.get(name, default)
    if text is None:
        raise UrdfError(f"{what} needs a {name}= attribute")
    return text


def _vec(text: str | None, default: tuple, what: str) -> tuple[float, ...]:
    if text is None:
        return default
    try:
        numbers = tuple(float(x) for x in text.split())
    except ValueError:
        raise UrdfError(f"{what} {text!r} is not a list of numbers") from None
    if len(numbers) != len(default):
        raise UrdfError(f"{what} {text!r} needs {len(default)} numbers")
    if not all(math.isfinite(x) and abs(x) <= values.MAX_COORDINATE for x in numbers):
        raise UrdfError(f"{what} {text!r} must be finite numbers within "
                        f"+-{values.MAX_COORDINATE:g}")  # fmt: skip
    return numbers


def _number(node: ET.Element, name: str, default: str | None, what: str, **bounds: Any) -> float:
    text = _attr(node, name, default, what)
    try:
        x = float(text)
    except ValueError:
        raise UrdfError(f"{what} {name}={text!r} is not a number") from None
    try:
        return values.number(x, f"{what} {name}", **bounds)
    except BridgeError as exc:
        raise UrdfError(str(exc)) from None


def rpy_quat(roll: float, pitch: float, yaw: float) -> tuple[float, ...]:
    """URDF's fixed-axis roll, pitch, yaw (x, then y, then z) as a quaternion."""
    qx = (math.sin(roll / 2), 0.0, 0.0, math.cos(roll / 2))
    qy = (0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2))
    qz = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
    return quat_mul(qz, quat_mul(qy, qx))


def _turn(q: tuple[float, ...], v: Any) -> tuple[float, float, float]:
    """`v` rotated by the unit quaternion `q` (x, y, z, w), in plain floats: the forward
    kinematics does this once a joint, where NumPy's per-call cost was most of a plan."""
    x, y, z, w = q
    vx, vy, vz = float(v[0]), float(v[1]), float(v[2])
    # t = u x v + w v, then v + 2 u x t
    tx, ty, tz = y * vz - z * vy + w * vx, z * vx - x * vz + w * vy, x * vy - y * vx + w * vz
    return (vx + 2.0 * (y * tz - z * ty), vy + 2.0 * (z * tx - x * tz),
            vz + 2.0 * (x * ty - y * tx))  # fmt: skip


@functools.cache
def _bare_link() -> tuple[list[tuple[Any, ...]], shapes.Compound, shapes.Compound]:
    """(parts, compound, look) of every link without geometry: a small body that is not
    drawn (shapes are immutable: one set serves every such link)."""
    parts = [((0.0, 0.0, 0.0), shapes.IDENTITY, culverin.SHAPE_SPHERE, 0.02)]
    compound = shapes.Compound([(o, r, shapes.from_culverin(k, s)) for o, r, k, s in parts])
    look = shapes.Compound([((0.0, 0.0, 0.0), shapes.IDENTITY, shapes.Sphere(1e-3))])
    return parts, compound, look


def _origin(node: ET.Element | None, what: str) -> tuple[np.ndarray, tuple[float, ...]]:
    origin = None if node is None else node.find("origin")
    if origin is None:
        return np.zeros(3), shapes.IDENTITY
    xyz = _vec(origin.get("xyz"), (0.0, 0.0, 0.0), f"{what} origin xyz")
    rpy = _vec(origin.get("rpy"), (0.0, 0.0, 0.0), f"{what} origin rpy")
    return np.array(xyz), rpy_quat(*rpy)


class _LinkLook(Shape):
    """A link's visuals about the centre of mass of its collision compound."""

    kind = "urdf_link"

    def __init__(self, visuals: list[tuple[np.ndarray, tuple, Shape]], com: np.ndarray) -> None:
        self.visuals, self.com = visuals, com

    @property
    def centroid(self) -> np.ndarray:
        return self.com

    def meshes(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for _, _, shape in self.visuals:
            out.update(shape.meshes())
        return out

    def local_parts(self) -> list[Part]:
        parts = []
        for offset, rotation, shape in self.visuals:
            for p in shape.parts():
                placed = offset + rotate(rotation, shape.centroid + np.asarray(p.offset))
                parts.append(replace(p, offset=tuple(float(x) for x in placed),
                                     rotation=quat_mul(rotation, p.rotation)))  # fmt: skip
        return parts


class _Meshes:
    """Meshes of one load: the path policy, the memory budget, each file read once."""

    def __init__(self, paths: MeshPaths, budget: Budget) -> None:
        self.paths, self.budget = paths, budget
        self.loaded: dict[Path, tuple[np.ndarray, np.ndarray]] = {}

    def load(self, filename: str, what: str) -> tuple[np.ndarray, np.ndarray]:
        path = self.paths.resolve(filename, what)
        if path not in self.loaded:
            self.loaded[path] = load_mesh(path, self.budget)
        return self.loaded[path]


def _geometry(element: ET.Element, meshes: _Meshes,
              link: str) -> tuple[Shape, tuple, Any, Any, Any]:  # fmt: skip
    """(drawn shape, extra rotation, Culverin SHAPE_*, size, centre of the simulated
    shape in the element's frame) of a <geometry>."""
    geometry = element.find("geometry")
    if geometry is None or len(geometry) == 0:
        raise UrdfError(f"link {link!r}: a <{element.tag}> without <geometry>")
    node = geometry[0]
    what = f"link {link!r} <{node.tag}>"
    try:
        if node.tag == "box":
            half = tuple(v / 2 for v in _vec(_attr(node, "size", None, what), (1.0,) * 3,
                                             f"{what} size"))  # fmt: skip
            return shapes.Box(half), shapes.IDENTITY, culverin.SHAPE_BOX, half, np.zeros(3)
        if node.tag == "sphere":
            radius = _number(node, "radius", None, what)
            return (shapes.Sphere(radius), shapes.IDENTITY, culverin.SHAPE_SPHERE, radius,
                    np.zeros(3))  # fmt: skip
        if node.tag == "cylinder":
            radius = _number(node, "radius", None, what)
            length = _number(node, "length", None, what)
            size = (length / 2, radius)
            return shapes.Cylinder(*size), Y_TO_Z, culverin.SHAPE_CYLINDER, size, np.zeros(3)
        if node.tag == "mesh":
            filename = node.get("filename")
            if not filename:
                raise UrdfError(f"link {link!r}: <mesh> without a filename")
            scale = np.asarray(_vec(node.get("scale"), (1.0, 1.0, 1.0), f"{what} scale"))
            if (scale == 0).any():
                raise UrdfError(f"{what} scale {node.get('scale')!r} has a zero")
            vertices, indices = meshes.load(filename, f"link {link!r}")
            if (scale != 1).any():  # a scaled copy; the loaded mesh may be used again
                vertices = vertices * scale
            lo, hi = vertices.min(axis=0), vertices.max(axis=0)
            half = tuple(float(x) for x in np.maximum((hi - lo) / 2, 1e-3))
            # Drawn as the mesh; simulated as its bounding box (centred where the mesh is).
            return (shapes.TriangleMesh(vertices, indices), shapes.IDENTITY,
                    culverin.SHAPE_BOX, half, (lo + hi) / 2)  # fmt: skip
    except UrdfError:
        raise
    except BridgeError as exc:
        raise UrdfError(f"{what}: {exc}") from None
    raise UrdfError(f"link {link!r}: unknown geometry <{node.tag}> (box, sphere, cylinder, mesh)")


def plan(
    path: Any,
    pos: Any,
    *,
    fixed_base: bool,
    memory_limit: Any = None,
    mesh_roots: Any = (),
    packages: Any = None,
) -> tuple[list[LinkPlan], list[JointPlan]]:
    """Every link and joint of the URDF at `path`, checked; touches no world."""
    path = Path(path)
    try:
        pos = values.vector(pos, "load_urdf pos")
    except BridgeError as exc:
        raise UrdfError(str(exc)) from None
    budget = Budget(memory_limit)
    root = read_tree(path, budget)
    meshes = _Meshes(MeshPaths(path.parent, mesh_roots, packages), budget)
    links: dict[str, ET.Element] = {}
    for link in root.findall("link"):
        name = link.get("name")
        if not name:
            raise UrdfError(f"{str(path)!r}: a URDF needs named <link>s")
        if name in links:
            raise UrdfError(f"{str(path)!r}: two links are named {name!r}")
        links[name] = link
    if not links:
        raise UrdfError(f"{str(path)!r}: a URDF needs named <link>s")
    joints = []
    parent_of: dict[str, str] = {}
    for joint in root.findall("joint"):
        name = joint.get("name", "?")
        kind = joint.get("type", "fixed")
        if kind not in JOINT_TYPES:
            raise UrdfError(f"joint {name!r} has unknown type {kind!r} "
                            f"(one of {', '.join(JOINT_TYPES)})")  # fmt: skip
        parent, child = joint.find("parent"), joint.find("child")
        if parent is None or child is None:
            raise UrdfError(f"joint {name!r} needs <parent> and <child>")
        p, c = parent.get("link"), child.get("link")
        if p not in links or c not in links:
            raise UrdfError(f"joint {name!r} connects {p!r} and {c!r}, not both links of "
                            "the robot")  # fmt: skip
        if c in parent_of:
            raise UrdfError(f"joint {name!r}: link {c!r} is already the child of {parent_of[c]!r}")
        parent_of[c] = p
        joints.append((name, kind, p, c, joint))
    roots = [name for name in links if name not in parent_of]
    if len(roots) != 1:
        raise UrdfError(f"{str(path)!r}: a URDF needs exactly one root link, found {roots}")
    # Forward kinematics at the zero configuration, parents before children: each joint
    # is placed once, from its parent's pose (linear in the links, in whatever order the
    # file lists its joints).
    world: dict[str, tuple[tuple, tuple]] = {roots[0]: (tuple(pos), shapes.IDENTITY)}
    children: dict[str, list[tuple]] = {}
    for entry in joints:
        children.setdefault(entry[2], []).append(entry)
    reached = [roots[0]]
    while reached:
        parent = reached.pop()
        p_pos, p_rot = world[parent]
        for name, _, _, child, joint in children.get(parent, ()):
            origin, rotation = _origin(joint, f"joint {name!r}")
            turned = _turn(p_rot, origin)
            world[child] = ((p_pos[0] + turned[0], p_pos[1] + turned[1], p_pos[2] + turned[2]),
                            quat_mul(p_rot, rotation))  # fmt: skip
            reached.append(child)
    if len(world) != len(links):  # one parent each and one root: the rest form loops
        looped = [name for name in links if name not in world]
        raise UrdfError(f"{str(path)!r}: the joints form a loop (links {looped[:5]} are not "
                        f"reached from the root {roots[0]!r})")  # fmt: skip
    link_plans = [_link_plan(name, link, meshes, world[name], fixed_base and name == roots[0])
                  for name, link in links.items()]  # fmt: skip
    joint_plans = [j for j in (_joint_plan(*entry, world) for entry in joints) if j is not None]
    return link_plans, joint_plans


def _link_plan(name: str, link: ET.Element, meshes: _Meshes, placed: tuple,
               fixed: bool) -> LinkPlan:  # fmt: skip
    visuals = []
    for visual in link.findall("visual"):
        offset, rotation = _origin(visual, f"link {name!r} visual")
        shape, extra, _, _, _ = _geometry(visual, meshes, name)
        visuals.append((offset, quat_mul(rotation, extra), shape))
    collisions = link.findall("collision") or link.findall("visual")
    parts = []
    for collision in collisions:
        offset, rotation = _origin(collision, f"link {name!r} collision")
        _, extra, kind, size, centre = _geometry(collision, meshes, name)
        at = tuple(float(x) for x in offset + rotate(rotation, centre))
        parts.append((at, quat_mul(rotation, extra), kind, size))
    try:
        if parts:
            compound = shapes.Compound([(o, r, shapes.from_culverin(k, s))
                                        for o, r, k, s in parts])  # fmt: skip
        else:  # a link with no geometry: a small body that is not drawn
            parts, compound, _ = _bare_link()
        position = values.vector(placed[0], f"link {name!r} position")
    except BridgeError as exc:
        raise UrdfError(f"link {name!r}: {exc}") from None
    inertial = link.find("inertial")  # a plain tag: ElementTree's fast find, not a path
    mass_node = None if inertial is None else inertial.find("mass")
    mass = 1.0 if mass_node is None else _number(mass_node, "value", None, f"link {name!r} mass",
                                                 low=0.0, high=values.MAX_MASS)  # fmt: skip
    look = _LinkLook(visuals, compound.centroid) if visuals else _bare_link()[2]
    return LinkPlan(name, position, tuple(placed[1]), parts, look, fixed or mass <= 0,
                    max(mass, 1e-3))  # fmt: skip


def _joint_plan(name: str, kind: str, parent: str, child: str, joint: ET.Element,
                world: dict) -> JointPlan | None:  # fmt: skip
    if kind in ("floating", "planar"):
        return None  # free relative motion: no constraint
    if kind == "fixed":
        return JointPlan(name, culverin.CONSTRAINT_FIXED, parent, child, None)
    position, rotation = world[child]
    axis_node = joint.find("axis")
    axis = np.asarray(_vec(None if axis_node is None else axis_node.get("xyz"),
                           (1.0, 0.0, 0.0), f"joint {name!r} axis"))  # fmt: skip
    if np.linalg.norm(axis) < 1e-9:
        raise UrdfError(f"joint {name!r} axis {tuple(axis.tolist())} is zero")
    world_axis = tuple(float(x) for x in rotate(rotation, axis / np.linalg.norm(axis)))
    params: tuple = (tuple(float(x) for x in position), world_axis)
    limit = joint.find("limit")
    if kind != "continuous" and limit is not None and "lower" in limit.attrib:
        # A NaN limit hangs Culverin's step(); hinge angles beyond +-pi mean nothing.
        span = math.pi if kind == "revolute" else values.MAX_COORDINATE
        what = f"joint {name!r} limit"
        lower = _number(limit, "lower", "0", what, low=-span, high=span)
        upper = _number(limit, "upper", "0", what, low=-span, high=span)
        if lower > upper:
            raise UrdfError(f"{what}: lower {lower} is above upper {upper}")
        params = (*params, lower, upper)
    constraint = culverin.CONSTRAINT_SLIDER if kind == "prismatic" else culverin.CONSTRAINT_HINGE
    return JointPlan(name, constraint, parent, child, params)


def build(bridge: Any, links: list[LinkPlan], joints: list[JointPlan],
          color: Any) -> dict[str, int]:  # fmt: skip
    """The planned bodies and constraints in the world; on a failure, none of them."""
    world = bridge.world
    values.room_for(world, len(links), f"the URDF robot's {len(links)} links")
    made: list[tuple[int, int, LinkPlan]] = []
    constraints: list[int] = []
    try:
        for link in links:
            motion = culverin.MOTION_STATIC if link.static else culverin.MOTION_DYNAMIC
            options = {
                "pos": link.position,
                "rot": link.rotation,
                "parts": link.parts,
                "motion": motion,
                **({} if link.static else {"mass": link.mass}),
            }
            body_id, handle = bridge._create(world.create_compound_body, options,
                                             f"URDF link {link.name!r}")  # fmt: skip
            made.append((body_id, handle, link))
        handles = {link.name: handle for _, handle, link in made}
        for joint in joints:
            with values.calling(f"URDF joint {joint.name!r}"):
                args = () if joint.params is None else (joint.params,)
                a, b = handles[joint.parent], handles[joint.child]
                constraints.append(world.create_constraint(joint.constraint, a, b, *args))
    except BaseException:
        with bridge._lock:  # take back what was added: a failure creates nothing
            for constraint in constraints:
                world.destroy_constraint(constraint)
            for _, handle, _ in made:
                world.destroy_body(handle)
        raise
    for body_id, _, link in made:
        bridge._record(body_id, link.look, color)
    return handles


def load(bridge: Any, path: Any, pos: Any, *, fixed_base: bool, color: Any,
         memory_limit: Any = None, mesh_roots: Any = (),
         packages: Any = None) -> dict[str, int]:  # fmt: skip
    links, joints = plan(path, pos, fixed_base=fixed_base, memory_limit=memory_limit,
                         mesh_roots=mesh_roots, packages=packages)  # fmt: skip
    return build(bridge, links, joints, color)
