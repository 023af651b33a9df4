"""A model's geoms as looks of the shared body renderer, from ``MjModel`` alone.

Each geom is one look (id = geom id, shared by every world): a part of the renderer's
library placed in the geom's frame, sized as MuJoCo sizes it, coloured as MuJoCo colours it
(the material's rgba unless the geom's own differs from the default 0.5, 0.5, 0.5, 1).
MuJoCo's capsules and cylinders run along their local z, the unit meshes along y: the part
turns y onto z. Planes of size 0 are infinite: drawn out to the far plane; a plane is
two-sided, as in MuJoCo's picture: its back is a second quad, mirrored so that it faces the
other way and keeps the front's normal (MuJoCo lights a plane's back as its front), drawn
transparent: ``mjr_render`` gives a plane seen from behind 0.3 of its alpha
(:func:`split_transparent`). A plane is lit per vertex of the grid of quads MuJoCo draws it
with, as fixed-function OpenGL lights it (:func:`plane_lit_grid`, ``Material.lit_grid``).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import mujoco
import numpy as np

from hypergl.bodies import MODE_CAPSULE, Material, Part, meshes
from hypergl.bodies.shading import DEFAULT_MATERIAL

from .errors import DataError, OutputError

# The quaternion (x, y, z, w) of +90 degrees about x: the unit meshes' y axis onto z.
Y_TO_Z = (float(np.sqrt(0.5)), 0.0, 0.0, float(np.sqrt(0.5)))
OPAQUE = 0.995  # mjr_render: a geom with alpha below this is transparent
PLANE_BACK_ALPHA = 0.3  # mjr_render: a plane seen from behind, that share of its alpha
DEFAULT_RGBA = np.array([0.5, 0.5, 0.5, 1.0], np.float32)
DEFAULT_GROUPS = (0, 1, 2)  # mjvOption.geomgroup's default
GEOM = mujoco.mjtGeom


@dataclass(frozen=True)
class GeomLook:
    """What one geom draws: its parts, the meshes they need, its colour and material."""

    geom: int
    parts: list[Part]
    new_meshes: dict[str, np.ndarray]
    color: tuple[float, float, float]
    material: Material = DEFAULT_MATERIAL


def far_distance(model: mujoco.MjModel) -> float:
    """MuJoCo's far clipping distance: ``vis.map.zfar`` times the model's extent."""
    return float(model.vis.map.zfar * model.stat.extent)


def geom_color(model: mujoco.MjModel, geom: int, element: str = "geom") -> np.ndarray:
    """The rgba MuJoCo draws `geom` with (`element` "site": that site)."""
    rgba = np.asarray(getattr(model, f"{element}_rgba")[geom], np.float32)
    material = int(getattr(model, f"{element}_matid")[geom])
    if material >= 0 and np.array_equal(rgba, DEFAULT_RGBA):
        return np.asarray(model.mat_rgba[material], np.float32)
    return rgba


RENDER_FLAGS = ("mjRND_SHADOW", "mjRND_SKYBOX", "mjRND_HAZE", "mjRND_REFLECTION")  # honoured


def render_flags(given: object = None) -> dict[str, bool]:
    """MjvScene's default render flags, updated by `given` (``mujoco.mjtRndFlag`` or
    name -> bool); a name MuJoCo does not have raises :class:`~.errors.OutputError`."""
    defaults = mujoco.MjvScene()
    members = mujoco.mjtRndFlag.__members__
    flags = {name: bool(defaults.flags[int(flag)]) for name, flag in members.items()
             if name != "mjNRNDFLAG" and int(flag) < len(defaults.flags)}  # fmt: skip
    if given is None:
        return flags
    if not isinstance(given, Mapping):
        raise OutputError(f"scene_flags must map mujoco.mjtRndFlag to bool, got {given!r}")
    for key, value in given.items():
        name = key.name if isinstance(key, mujoco.mjtRndFlag) else key
        if name not in flags:
            raise OutputError(f"scene_flags: {key!r} is not a mujoco.mjtRndFlag; choose from "
                              f"{', '.join(flags)}")  # fmt: skip
        flags[name] = bool(value)
    return flags


def haze_plane(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray] | None:
    """(point, normal) of the plane MuJoCo draws its haze over: the first plane infinite
    in both directions, if it is fixed in the world (drawn where the model places it)."""
    for geom in range(model.ngeom):
        if int(model.geom_type[geom]) != GEOM.mjGEOM_PLANE or model.geom_size[geom][:2].any():
            continue
        if int(model.geom_bodyid[geom]) != 0:
            return None  # on a moving body: not drawn (its pose is per world)
        rotation = np.zeros(9)
        mujoco.mju_quat2Mat(rotation, model.geom_quat[geom])
        return np.array(model.geom_pos[geom], np.float64), rotation.reshape(3, 3)[:, 2]
    return None


def geom_material(model: mujoco.MjModel, geom: int, rgba: np.ndarray, element: str = "geom"
                  ) -> Material:  # fmt: skip
    """The geom's specular, shininess, emission and reflectance as ``mjv_updateScene``
    gives them (its material's, else MuJoCo's defaults 0.5, 0.5, 0, 0), and its alpha
    (`element` "tendon", "skin": that one's)."""
    material = int(getattr(model, f"{element}_matid")[geom])
    if material < 0:
        return Material(specular=0.5, shininess=0.5, alpha=float(rgba[3]))
    return Material(specular=float(model.mat_specular[material]),
                    shininess=float(model.mat_shininess[material]),
                    emission=float(model.mat_emission[material]),
                    reflectance=float(model.mat_reflectance[material]),
                    alpha=float(rgba[3]))  # fmt: skip


MAX_PLANE_GRID = 200  # mjMAXPLANEGRID: the most quads a side of a plane's grid


def plane_lit_grid(model: mujoco.MjModel, geom: int, material: int) -> float:
    """``Material.lit_grid`` of plane `geom` drawn with `material` (-1: none): the grid of
    quads ``mjr_makeContext`` draws it with, which fixed-function OpenGL lights per vertex.
    A finite plane: its size[2] (cells of 2 max(size[2], half size / 198)); an infinite one:
    minus its cell, (2.1 zfar + 2 sX) / 200, sX 2 / texrepeat or 2.1 zfar / 198 (x's
    for both axes)."""
    size = model.geom_size[geom]
    if size[0] > 0 and size[1] > 0:
        return max(float(size[2]), 1e-30)
    zfar = far_distance(model)
    repeat = float(model.mat_texrepeat[material][0]) if material >= 0 else 0.0
    step = 2.0 / repeat if repeat > 0 else 2.1 * zfar / (MAX_PLANE_GRID - 2)
    return -(2.1 * zfar + 2.0 * step) / MAX_PLANE_GRID


def mesh_rows(model: mujoco.MjModel, mesh: int) -> np.ndarray:
    """A MuJoCo mesh's triangles (its re-centred vertices), face normals de-indexed."""
    first, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
    face, faces = model.mesh_faceadr[mesh], model.mesh_facenum[mesh]
    vertices = model.mesh_vert[first : first + count]
    return meshes.triangles(vertices, model.mesh_face[face : face + faces])


def grid_samples(count: int, points: int | None) -> np.ndarray:
    """Indices of `count` grid lines, every k-th (and the last) so that at most about
    `points` remain (None: all)."""
    step = 1 if points is None else max(1, (count - 1) // max(points, 1))
    return np.unique(np.r_[np.arange(0, count, step), count - 1])


def hfield_rows(model: mujoco.MjModel, hfield: int, points: int | None = None) -> np.ndarray:
    """A height field as MuJoCo draws it: the surface (elevation times the data, in
    [0, 1]) over x, y in [-size x, size x] x [-size y, size y], its four sides and its
    bottom at -base. `points`: at most about this many grid points a side (every k-th
    row and column: a level of detail for images smaller than the grid; None: all)."""
    nrow, ncol = int(model.hfield_nrow[hfield]), int(model.hfield_ncol[hfield])
    sx, sy, top, base = (float(v) for v in model.hfield_size[hfield])
    first = int(model.hfield_adr[hfield])
    heights = model.hfield_data[first : first + nrow * ncol].reshape(nrow, ncol) * top
    rows, cols = grid_samples(nrow, points), grid_samples(ncol, points)
    heights = heights[np.ix_(rows, cols)]
    x = np.linspace(-sx, sx, ncol)[cols]
    y = np.linspace(-sy, sy, nrow)[rows]
    nrow, ncol = len(rows), len(cols)
    grid = np.stack(np.broadcast_arrays(x[None, :], y[:, None], heights), axis=-1)
    index = np.arange(nrow * ncol).reshape(nrow, ncol)
    a, b, c, d = index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1]
    faces = [np.stack([a, b, c, a, c, d], axis=-1).reshape(-1, 3)]  # up: +z, ccw
    points = [grid.reshape(-1, 3)]
    total = nrow * ncol
    # The sides: each border of the surface down to the base, outward-facing.
    borders = [index[0, :], index[:, -1], index[-1, ::-1], index[::-1, 0]]
    for border in borders:
        upper = points[0][border]
        lower = upper.copy()
        lower[:, 2] = -base
        k = np.arange(len(border) - 1)
        top_k, low_k = total + k, total + len(border) + k
        faces.append(np.stack([top_k, low_k, low_k + 1, top_k, low_k + 1, top_k + 1],
                              axis=-1).reshape(-1, 3))  # fmt: skip
        points += [upper, lower]
        total += 2 * len(border)
    bottom = np.array([[-sx, -sy, -base], [-sx, sy, -base], [sx, sy, -base], [sx, -sy, -base]])
    faces.append(np.array([[total, total + 1, total + 2], [total, total + 2, total + 3]]))
    points.append(bottom)
    return meshes.triangles(np.concatenate(points), np.concatenate(faces))


def geom_parts(model: mujoco.MjModel, geom: int, hfield_points: int | None = None
               ) -> tuple[list[Part], dict[str, np.ndarray]]:  # fmt: skip
    """The parts of one geom (empty: MuJoCo draws nothing for it), and new meshes."""
    return shape_parts(model, int(model.geom_type[geom]), model.geom_size[geom],
                       int(model.geom_dataid[geom]), hfield_points)  # fmt: skip


def with_hfield_points(model: mujoco.MjModel, looks: list[GeomLook], points: int
                       ) -> list[GeomLook]:  # fmt: skip
    """`looks` with their height fields drawn with at most about `points` grid points a
    side (a shadow map of that many texels resolves no more)."""
    out = []
    for look in looks:
        if int(model.geom_type[look.geom]) == GEOM.mjGEOM_HFIELD:
            parts, new_meshes = geom_parts(model, look.geom, points)
            look = replace(look, parts=parts, new_meshes=new_meshes)
        out.append(look)
    return out


def shape_parts(model: mujoco.MjModel, kind: int, sizes: Any, data: int = -1,
                hfield_points: int | None = None
                ) -> tuple[list[Part], dict[str, np.ndarray]]:  # fmt: skip
    """The parts of a shape of mjtGeom `kind` and `sizes` (a geom's or a site's; `data`
    its mesh or height field, drawn with at most about `hfield_points` a side), and new
    meshes."""
    size = [float(v) for v in sizes]
    if kind == GEOM.mjGEOM_PLANE:
        far = far_distance(model)
        x, y = (s if s > 0 else far for s in size[:2])  # size 0: infinite
        # two-sided, as MuJoCo draws it: a wall or a floor seen from behind is there (the
        # back: mirrored in x, its winding turned over and its normal the front's)
        return [Part("quad", rotation=Y_TO_Z, scale=(x, 1.0, y)),
                Part("quad", rotation=Y_TO_Z, scale=(-x, 1.0, y))], {}  # fmt: skip
    if kind in (GEOM.mjGEOM_SPHERE, GEOM.mjGEOM_ELLIPSOID):
        radii = (size[0],) * 3 if kind == GEOM.mjGEOM_SPHERE else tuple(size)
        return [Part("sphere", scale=radii)], {}  # type: ignore[arg-type]
    if kind == GEOM.mjGEOM_CAPSULE:
        radius, half = size[0], size[1]
        return [Part("capsule", rotation=Y_TO_Z, scale=(radius, half, radius),
                     mode=MODE_CAPSULE)], {}  # fmt: skip
    if kind == GEOM.mjGEOM_CYLINDER:
        radius, half = size[0], size[1]
        return [Part("cylinder", rotation=Y_TO_Z, scale=(radius, half, radius))], {}
    if kind == GEOM.mjGEOM_BOX:
        return [Part("box", scale=tuple(size))], {}  # type: ignore[arg-type]
    if kind == GEOM.mjGEOM_HFIELD:
        key = f"mujoco_hfield{data}"
        return [Part(key)], {key: hfield_rows(model, data, hfield_points)}
    if kind in (GEOM.mjGEOM_MESH, GEOM.mjGEOM_SDF) and data >= 0:
        key = f"mujoco_mesh{data}"
        return [Part(key)], {key: mesh_rows(model, data)}
    return [], {}  # an SDF without a mesh: MuJoCo's renderer draws nothing either


def library_size(looks: list[GeomLook]) -> tuple[int, int]:
    """(meshes, triangle rows) the looks add to the renderer's library (a MuJoCo mesh that
    several geoms use is added once): what to size it for."""
    sizes = {key: len(rows) for look in looks for key, rows in look.new_meshes.items()}
    return len(sizes), sum(sizes.values())


def hfield_row_count(model: mujoco.MjModel, hfield: int) -> int:
    """The triangle rows :func:`hfield_rows` makes, from the model's sizes alone."""
    nrow, ncol = int(model.hfield_nrow[hfield]), int(model.hfield_ncol[hfield])
    surface = 2 * max(nrow - 1, 0) * max(ncol - 1, 0)
    sides = 2 * (2 * max(ncol - 1, 0) + 2 * max(nrow - 1, 0))
    return 3 * (surface + sides + 2)


def library_rows_needed(model: mujoco.MjModel, groups: tuple[int, ...] = DEFAULT_GROUPS
                        ) -> list[tuple[str, int]]:  # fmt: skip
    """(what, triangle rows) of every mesh and height field a geom of the visible `groups`
    draws, counted from the model's sizes before any is built: what the memory check of a
    renderer adds up."""
    needed: dict[tuple[int, int], tuple[str, int]] = {}
    for geom in range(model.ngeom):
        kind, data = int(model.geom_type[geom]), int(model.geom_dataid[geom])
        if int(model.geom_group[geom]) not in groups or data < 0 or (kind, data) in needed:
            continue
        if kind == GEOM.mjGEOM_HFIELD:
            size = f"{int(model.hfield_nrow[data])}x{int(model.hfield_ncol[data])}"
            needed[kind, data] = (f"height field {_name(model, mujoco.mjtObj.mjOBJ_HFIELD, data)}"
                                  f" of {size} points", hfield_row_count(model, data))  # fmt: skip
        elif kind in (GEOM.mjGEOM_MESH, GEOM.mjGEOM_SDF):
            needed[kind, data] = (f"mesh {_name(model, mujoco.mjtObj.mjOBJ_MESH, data)} of "
                                  f"{int(model.mesh_facenum[data])} faces",
                                  3 * int(model.mesh_facenum[data]))  # fmt: skip
    return list(needed.values())


def _name(model: mujoco.MjModel, kind: mujoco.mjtObj, index: int) -> str:
    name = mujoco.mj_id2name(model, kind, index)
    return f"{index}" + (f" ({name!r})" if name else "")


def part_count(looks: list[GeomLook]) -> int:
    """The parts the looks place (a plane has two: its front and its back), at least 1."""
    return max(sum(len(look.parts) for look in looks), 1)


def geom_name(model: mujoco.MjModel, geom: int) -> str:
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, geom)
    return f"geom {geom}" + (f" ({name!r})" if name else "")


def planes_single_sampled(model: mujoco.MjModel) -> bool:
    """Whether the planes may be rasterized as one sample a pixel (BodyRenderer's
    ``single_sampled_planes``): each is fixed in the world, and no other geom fixed there
    lies across one (a height field at the ground's height, an arena's border sunk in it:
    the line where it meets the plane would be antialiased by the plane's samples, each at
    the depth of the pixel's centre). Moving bodies cross a ground where they touch it."""
    if not isinstance(model, mujoco.MjModel):
        raise DataError(f"model must be a mujoco.MjModel, got {type(model).__name__}")
    types = np.asarray(model.geom_type)
    planes = np.flatnonzero(types == GEOM.mjGEOM_PLANE)
    bodies = np.asarray(model.geom_bodyid)
    welded = np.asarray(model.body_weldid)[bodies] == 0
    fixed = welded & (np.asarray(model.body_mocapid)[bodies] < 0)
    if not planes.size or not fixed[planes].all():
        return False
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)  # the fixed geoms' poses: the same for every qpos
    others = np.flatnonzero(fixed & (types != GEOM.mjGEOM_PLANE))
    for plane in planes:
        normal = data.geom_xmat[plane].reshape(3, 3)[:, 2]
        heights = np.abs((data.geom_xpos[others] - data.geom_xpos[plane]) @ normal)
        if (heights < np.asarray(model.geom_rbound)[others]).any():
            return False
    return True


def shows_its_back_transparent(model: mujoco.MjModel, look: GeomLook) -> bool:
    """Whether `look` is an opaque plane whose back (its second part) ``mjr_render`` draws
    transparent, with PLANE_BACK_ALPHA of its alpha."""
    return (look.material.alpha >= OPAQUE and len(look.parts) == 2
            and int(model.geom_type[look.geom]) == GEOM.mjGEOM_PLANE)  # fmt: skip


def sort_radii(model: mujoco.MjModel) -> np.ndarray:
    """Per geom, what ``mjr_render`` takes off its distance from the eye to sort the
    transparent geoms (``camdist``): its bounding radius (``geom_rbound``, as
    ``mjv_rbound``); a plane -1e10, last (MuJoCo's camdist of 1e10)."""
    radii = np.asarray(model.geom_rbound, np.float32).copy()
    radii[np.asarray(model.geom_type) == GEOM.mjGEOM_PLANE] = -1e10
    return radii


def split_transparent(model: mujoco.MjModel, looks: list[GeomLook]
                      ) -> tuple[list[GeomLook], list[GeomLook]]:  # fmt: skip
    """(opaque, transparent) looks as ``mjr_render`` sorts them: a geom of alpha below
    0.995 is transparent; a plane's back (seen from behind) is, with 0.3 of its alpha."""
    opaque, clear = [], []
    for look in looks:
        if look.material.alpha < OPAQUE:
            clear.append(look)
            continue
        if shows_its_back_transparent(model, look):
            front, back = look.parts
            opaque.append(dataclasses.replace(look, parts=[front]))
            alpha = PLANE_BACK_ALPHA * look.material.alpha
            material = dataclasses.replace(look.material, alpha=alpha, reflectance=0.0)
            clear.append(dataclasses.replace(look, parts=[back], new_meshes={},
                                             material=material))  # fmt: skip
            continue
        opaque.append(look)
    return opaque, clear


def site_looks(model: mujoco.MjModel, groups: tuple[int, ...] = DEFAULT_GROUPS
               ) -> list[GeomLook]:  # fmt: skip
    """The look of every site MuJoCo draws with the visible site `groups` (its
    ``mjvOption.sitegroup`` default: 0, 1, 2), with id ``ngeom + site``: a site is drawn as
    the shape of its type (sphere, capsule, ellipsoid, cylinder or box) and size."""
    looks = []
    for site in range(model.nsite):
        rgba = geom_color(model, site, "site")
        if int(model.site_group[site]) not in groups or rgba[3] == 0:
            continue
        parts, _ = shape_parts(model, int(model.site_type[site]), model.site_size[site])
        if parts:
            color = (float(rgba[0]), float(rgba[1]), float(rgba[2]))
            looks.append(GeomLook(model.ngeom + site, parts, {}, color))
    return looks


def model_looks(model: mujoco.MjModel, groups: tuple[int, ...] = DEFAULT_GROUPS,
                hfield_points: int | None = None) -> list[GeomLook]:  # fmt: skip
    """The look of every geom MuJoCo draws with the visible `groups` (height fields with
    at most about `hfield_points` grid points a side); one warning names the geoms it
    cannot draw (SDFs without a mesh)."""
    looks, skipped = [], []
    for geom in range(model.ngeom):
        rgba = geom_color(model, geom)
        if int(model.geom_group[geom]) not in groups or rgba[3] == 0:
            continue
        parts, new_meshes = geom_parts(model, geom, hfield_points)
        if not parts:
            skipped.append(geom_name(model, geom))
            continue
        color = (float(rgba[0]), float(rgba[1]), float(rgba[2]))
        material = geom_material(model, geom, rgba)
        if int(model.geom_type[geom]) == GEOM.mjGEOM_PLANE:
            grid = plane_lit_grid(model, geom, int(model.geom_matid[geom]))
            material = replace(material, lit_grid=grid)
        looks.append(GeomLook(geom, parts, new_meshes, color, material))
    if skipped:
        warnings.warn(f"hypergl-mujoco draws no SDF geom without a mesh (neither does "
                      f"MuJoCo's renderer): skipped {', '.join(skipped)}",
                      stacklevel=3)  # fmt: skip
    return looks
