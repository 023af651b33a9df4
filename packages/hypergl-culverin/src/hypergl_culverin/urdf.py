"""URDF robots: one Culverin body per link, drawn with its visual geometry.

Culverin's own ``load_urdf`` reads boxes and cylinders only, ignores joints and meshes and
places every link at its visual origin, so the bridge reads the file itself: links are
placed by the joints' origins (the zero configuration), each link's collision geometry
(else its visual geometry) becomes a compound body, its visuals (boxes, spheres,
cylinders, STL/OBJ meshes) its look, and fixed, revolute, continuous and prismatic
joints become Culverin constraints.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import culverin
import numpy as np

from . import shapes
from .errors import UrdfError
from .mesh_files import load_mesh
from .shapes import Part, Shape, quat_mul, rotate

Y_TO_Z = (0.5**0.5, 0.0, 0.0, 0.5**0.5)  # URDF cylinders run along z, Culverin's along y


def _vec(text: str | None, default: tuple, what: str) -> tuple[float, ...]:
    if text is None:
        return default
    try:
        values = tuple(float(x) for x in text.split())
    except ValueError:
        raise UrdfError(f"{what} {text!r} is not a list of numbers") from None
    if len(values) != len(default):
        raise UrdfError(f"{what} {text!r} needs {len(default)} numbers")
    return values


def rpy_quat(roll: float, pitch: float, yaw: float) -> tuple[float, ...]:
    """URDF's fixed-axis roll, pitch, yaw (x, then y, then z) as a quaternion."""
    qx = (np.sin(roll / 2), 0.0, 0.0, np.cos(roll / 2))
    qy = (0.0, np.sin(pitch / 2), 0.0, np.cos(pitch / 2))
    qz = (0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2))
    return quat_mul(qz, quat_mul(qy, qx))


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


def _geometry(element: ET.Element, base: Path, link: str) -> tuple[Shape, tuple, Any, Any, Any]:
    """(drawn shape, extra rotation, Culverin SHAPE_*, size, centre of the simulated
    shape in the element's frame) of a <geometry>."""
    geometry = element.find("geometry")
    if geometry is None or len(geometry) == 0:
        raise UrdfError(f"link {link!r}: a <{element.tag}> without <geometry>")
    node = geometry[0]
    try:
        if node.tag == "box":
            half = tuple(v / 2 for v in _vec(node.get("size"), (1.0, 1.0, 1.0), "box size"))
            return shapes.Box(half), shapes.IDENTITY, culverin.SHAPE_BOX, half, np.zeros(3)
        if node.tag == "sphere":
            radius = float(node.get("radius", "nan"))
            return (
                shapes.Sphere(radius),
                shapes.IDENTITY,
                culverin.SHAPE_SPHERE,
                radius,
                np.zeros(3),
            )
        if node.tag == "cylinder":
            radius, length = float(node.get("radius", "nan")), float(node.get("length", "nan"))
            size = (length / 2, radius)
            return shapes.Cylinder(*size), Y_TO_Z, culverin.SHAPE_CYLINDER, size, np.zeros(3)
    except (ValueError, shapes.ShapeError) as exc:
        raise UrdfError(f"link {link!r}: bad <{node.tag}>: {exc}") from None
    if node.tag == "mesh":
        filename = node.get("filename")
        if not filename:
            raise UrdfError(f"link {link!r}: <mesh> without a filename")
        path = Path(filename.removeprefix("file://").removeprefix("package://"))
        if not path.is_absolute():
            path = base / path
        if not path.is_file():
            raise UrdfError(f"link {link!r} names mesh {filename!r}, which does not exist "
                            f"(looked for {str(path)!r})")  # fmt: skip
        vertices, indices = load_mesh(path)
        vertices = vertices * np.asarray(_vec(node.get("scale"), (1.0, 1.0, 1.0), "mesh scale"))
        lo, hi = vertices.min(axis=0), vertices.max(axis=0)
        half = tuple(float(x) for x in np.maximum((hi - lo) / 2, 1e-3))
        # Drawn as the mesh; simulated as its bounding box (centred where the mesh is).
        return (
            shapes.TriangleMesh(vertices, indices),
            shapes.IDENTITY,
            culverin.SHAPE_BOX,
            half,
            (lo + hi) / 2,
        )
    raise UrdfError(f"link {link!r}: unknown geometry <{node.tag}> (box, sphere, cylinder, mesh)")


def load(bridge: Any, path: Any, pos: Any, *, fixed_base: bool, color: Any) -> dict[str, int]:
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise UrdfError(f"URDF file {str(path)!r} does not exist") from None
    except ET.ParseError as exc:
        raise UrdfError(f"URDF file {str(path)!r} does not parse: {exc}") from None
    except OSError as exc:
        raise UrdfError(f"cannot read URDF file {str(path)!r}: {exc}") from None
    if root.tag != "robot":
        raise UrdfError(f"{str(path)!r} is not a URDF file: its root is <{root.tag}>, "
                        "not <robot>")  # fmt: skip
    links = {link.get("name"): link for link in root.findall("link")}
    if not links or None in links:
        raise UrdfError(f"{str(path)!r}: a URDF needs named <link>s")
    joints = []
    for joint in root.findall("joint"):
        name = joint.get("name", "?")
        parent, child = joint.find("parent"), joint.find("child")
        if parent is None or child is None:
            raise UrdfError(f"joint {name!r} needs <parent> and <child>")
        p, c = parent.get("link"), child.get("link")
        if p not in links or c not in links:
            raise UrdfError(f"joint {name!r} connects {p!r} and {c!r}, not both links of "
                            "the robot")  # fmt: skip
        joints.append((name, joint.get("type", "fixed"), p, c, joint))
    children = {c for _, _, _, c, _ in joints}
    roots = [name for name in links if name not in children]
    if len(roots) != 1:
        raise UrdfError(f"{str(path)!r}: a URDF needs exactly one root link, found {roots}")
    # Forward kinematics at the zero configuration.
    world: dict[str, tuple[np.ndarray, tuple]] = {roots[0]: (np.asarray(pos, float),
                                                             shapes.IDENTITY)}  # fmt: skip
    pending = list(joints)
    while pending:
        progressed = False
        for entry in list(pending):
            name, _, parent, child, joint = entry
            if parent in world:
                origin, rotation = _origin(joint, f"joint {name!r}")
                p_pos, p_rot = world[parent]
                world[child] = (p_pos + rotate(p_rot, origin), quat_mul(p_rot, rotation))
                pending.remove(entry)
                progressed = True
        if not progressed:
            raise UrdfError(f"{str(path)!r}: the joints form a loop")
    base = path.parent
    handles: dict[str, int] = {}
    for name, link in links.items():
        visuals = []
        for visual in link.findall("visual"):
            offset, rotation = _origin(visual, f"link {name!r} visual")
            shape, extra, _, _, _ = _geometry(visual, base, name)
            visuals.append((offset, quat_mul(rotation, extra), shape))
        collisions = link.findall("collision") or link.findall("visual")
        parts = []
        for collision in collisions:
            offset, rotation = _origin(collision, f"link {name!r} collision")
            _, extra, kind, size, centre = _geometry(collision, base, name)
            at = tuple(float(x) for x in offset + rotate(rotation, centre))
            parts.append((at, quat_mul(rotation, extra), kind, size))
        if not parts:  # a link with no geometry: a small body that is not drawn
            parts = [((0.0, 0.0, 0.0), shapes.IDENTITY, culverin.SHAPE_SPHERE, 0.02)]
        compound = shapes.Compound([(o, r, shapes.from_culverin(k, s)) for o, r, k, s in parts])
        mass_node = link.find("inertial/mass")
        mass = float(mass_node.get("value", "1")) if mass_node is not None else 1.0
        static = (fixed_base and name == roots[0]) or mass <= 0
        motion = culverin.MOTION_STATIC if static else culverin.MOTION_DYNAMIC
        position, rotation = world[name]
        look = _LinkLook(visuals, compound.centroid) if visuals else shapes.Compound(
            [((0.0, 0.0, 0.0), shapes.IDENTITY, shapes.Sphere(1e-3))])  # fmt: skip
        handle = bridge._tagged(
            bridge.world.create_compound_body, look, color,
            {"pos": tuple(position), "rot": tuple(rotation), "parts": parts, "motion": motion,
             **({} if static else {"mass": max(mass, 1e-3)})},
        )  # fmt: skip
        handles[name] = handle
    for name, kind, parent, child, joint in joints:
        if kind in ("floating", "planar"):
            continue
        position, rotation = world[child]
        axis = np.asarray(_vec((joint.find("axis") if joint.find("axis") is not None
                                else ET.Element("axis")).get("xyz"), (1.0, 0.0, 0.0),
                               f"joint {name!r} axis"))  # fmt: skip
        world_axis = tuple(float(x) for x in rotate(rotation, axis / max(np.linalg.norm(axis),
                                                                          1e-12)))  # fmt: skip
        pivot = tuple(float(x) for x in position)
        a, b = handles[parent], handles[child]
        if kind == "fixed":
            bridge.world.create_constraint(culverin.CONSTRAINT_FIXED, a, b)
        elif kind in ("revolute", "continuous", "prismatic"):
            params: tuple = (pivot, world_axis)
            limit = joint.find("limit")
            if kind != "continuous" and limit is not None and "lower" in limit.attrib:
                params = (*params, float(limit.get("lower", 0)), float(limit.get("upper", 0)))
            constraint = culverin.CONSTRAINT_SLIDER if kind == "prismatic" else \
                culverin.CONSTRAINT_HINGE  # fmt: skip
            bridge.world.create_constraint(constraint, a, b, params)
        else:
            raise UrdfError(f"joint {name!r} has unknown type {kind!r}")
    return handles
