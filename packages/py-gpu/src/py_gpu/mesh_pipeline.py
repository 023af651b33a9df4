"""The stages of :meth:`py_gpu.MeshRenderer.render`, in order, each a function of the last's output.

``transform`` (instances to world-space triangles with their attributes) -> ``clip`` (project,
clip against the near plane, map to the screen of :mod:`py_gpu.convention`) -> ``raster`` (the
backend's visibility buffer: which triangle covers each pixel) -> ``barycentrics``
(perspective-correct weights of each covered pixel in its source triangle) -> ``shade``
(materials, textures, tints, lights) -> ``attachments`` (colour, depth, normal, object and
triangle ids as images).  Needs NumPy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .camera import vec3
from .convention import MAX_SCREEN_COORD
from .geometry import RasterBatch


@dataclass
class WorldTriangles:
    """Every instance's triangles in draw order, world space, with per-corner attributes."""

    positions: np.ndarray  # (T, 3, 3)
    normals: np.ndarray  # (T, 3, 3) per corner (face normals repeated when flat)
    face_normals: np.ndarray  # (T, 3)
    uvs: np.ndarray  # (T, 3, 2)
    colors: np.ndarray  # (T, 3, 3) 0..255
    materials: np.ndarray  # (T,) int64
    objects: np.ndarray  # (T,) int32
    tints: np.ndarray  # (T, 3)


@dataclass
class Projected:
    """``clip``: the source triangles in clip space; ``screen``/``source``: what is drawn."""

    clip: np.ndarray  # (T, 3, 4)
    view_depth: np.ndarray  # (T, 3) distance along the view axis per corner
    screen: np.ndarray  # (M, 3, 3) pixels, y down, z = NDC z
    source: np.ndarray  # (M,) index into the T source triangles


@dataclass
class Fragments:
    """Covered pixels ``(ys, xs)``, their source triangle and perspective-correct weights."""

    ys: np.ndarray
    xs: np.ndarray
    source: np.ndarray
    weights: np.ndarray  # (n, 3)

    def interpolate(self, per_corner: np.ndarray) -> np.ndarray:
        """``(T, 3, k)`` corner values -> ``(n, k)`` values at the pixels."""
        return np.einsum("ni,nij->nj", self.weights, per_corner[self.source])


def transform(parts, shading: str) -> WorldTriangles | None:
    """Stage 1: ``(MeshHandle, Instances)`` pairs to world-space triangles (None when empty)."""
    columns: dict[str, list] = {f: [] for f in WorldTriangles.__dataclass_fields__}
    for handle, inst in parts:
        mesh = handle.mesh
        tri_world = mesh.positions[mesh.indices]  # (T, 3, 3)
        t = mesh.triangle_count
        for k in range(len(inst.transforms)):
            m = inst.transforms[k]
            normal_matrix = inst.normal_matrices[k]  # checked invertible by Instances
            face = handle.face_normals @ normal_matrix.T
            columns["positions"].append(tri_world @ m[:3, :3].T + m[:3, 3])
            columns["face_normals"].append(face)
            if mesh.normals is not None and shading == "smooth":
                columns["normals"].append(mesh.normals[mesh.indices] @ normal_matrix.T)
            else:
                columns["normals"].append(np.repeat(face[:, None, :], 3, axis=1))
            columns["uvs"].append(
                mesh.uvs[mesh.indices] if mesh.uvs is not None else np.zeros((t, 3, 2))
            )
            columns["colors"].append(
                mesh.colors[mesh.indices] if mesh.colors is not None else np.full((t, 3, 3), 255.0)
            )
            columns["materials"].append(
                mesh.material_ids if mesh.material_ids is not None else np.zeros(t, np.int64)
            )
            columns["objects"].append(np.full(t, inst.object_ids[k], dtype=np.int32))
            tint = inst.tints[k] if inst.tints is not None else np.ones(3)
            columns["tints"].append(np.broadcast_to(tint, (t, 3)))
    if not columns["positions"]:
        return None
    return WorldTriangles(**{name: np.concatenate(parts) for name, parts in columns.items()})


def clip_near(clip: np.ndarray):
    """Clip ``(T, 3, 4)`` clip-space triangles against the near plane ``z >= -w``.

    Returns ``(triangles (M, 3, 4), source (M,))`` keeping the winding.
    """
    d = clip[:, :, 2] + clip[:, :, 3]
    inside = d >= 0
    n_in = inside.sum(axis=1)
    out_tris = [clip[n_in == 3]]
    out_src = [np.flatnonzero(n_in == 3)]
    for count in (1, 2):
        rows = np.flatnonzero(n_in == count)
        if rows.size == 0:
            continue
        # Rotate so that the odd vertex (the inside one for 1, the outside one for 2) is first.
        odd = inside[rows] if count == 1 else ~inside[rows]
        first = np.argmax(odd, axis=1)
        order = (first[:, None] + np.arange(3)[None, :]) % 3
        tri = np.take_along_axis(clip[rows], order[:, :, None], axis=1)
        dd = np.take_along_axis(d[rows], order, axis=1)
        v0, v1, v2 = tri[:, 0], tri[:, 1], tri[:, 2]
        t01 = (dd[:, 0] / (dd[:, 0] - dd[:, 1]))[:, None]
        t02 = (dd[:, 0] / (dd[:, 0] - dd[:, 2]))[:, None]
        p01 = v0 + t01 * (v1 - v0)
        p02 = v0 + t02 * (v2 - v0)
        if count == 1:
            out_tris.append(np.stack([v0, p01, p02], axis=1))
            out_src.append(rows)
        else:
            out_tris.append(np.stack([p01, v1, v2], axis=1))
            out_tris.append(np.stack([p01, v2, p02], axis=1))
            out_src += [rows, rows]
    return np.concatenate(out_tris), np.concatenate(out_src)


def clip(world: WorldTriangles, view: np.ndarray, view_proj: np.ndarray, width: int,
         height: int) -> Projected:  # fmt: skip
    """Stage 2: project, clip against the near plane, map to pixels (y down)."""
    count = len(world.positions)
    homo = np.concatenate([world.positions, np.ones((count, 3, 1))], axis=2)
    clip_space = homo @ view_proj.T  # (T, 3, 4)
    view_depth = -(homo @ view.T)[:, :, 2]
    tris, source = clip_near(clip_space)
    # Drop triangles entirely beyond the far plane or outside the supported screen range.
    far_out = (tris[:, :, 2] > tris[:, :, 3]).all(axis=1)
    ndc = tris[:, :, :3] / tris[:, :, 3:4]
    screen = np.empty_like(ndc)
    screen[:, :, 0] = (ndc[:, :, 0] + 1.0) * (width / 2.0)
    screen[:, :, 1] = (1.0 - ndc[:, :, 1]) * (height / 2.0)
    screen[:, :, 2] = ndc[:, :, 2]
    ok = ~far_out & np.isfinite(screen).all(axis=(1, 2))
    ok &= (np.abs(screen[:, :, :2]) <= MAX_SCREEN_COORD).all(axis=(1, 2))
    return Projected(clip_space, view_depth, screen[ok], source[ok])


def raster(backend, projected: Projected, width: int, height: int):
    """Stage 3: the visibility buffer; ``(ys, xs, source triangle)`` of every covered pixel."""
    ids, _ = backend.rasterize_ids(RasterBatch.from_arrays(projected.screen), width, height)
    ys, xs = np.nonzero(ids >= 0)
    return ys, xs, projected.source[ids[ys, xs]]


def barycentrics(projected: Projected, ys, xs, source, width: int, height: int) -> Fragments:
    """Stage 4: perspective-correct weights of each pixel centre in its source triangle."""
    clip_space = projected.clip
    m = np.stack([clip_space[:, :, 0], clip_space[:, :, 1], clip_space[:, :, 3]], axis=1)
    used = np.unique(source)
    inv = np.zeros_like(m)
    det = np.linalg.det(m[used])
    good = np.abs(det) > 1e-300
    inv[used[good]] = np.linalg.inv(m[used[good]])
    px = (xs + 0.5) * (2.0 / width) - 1.0
    py = 1.0 - (ys + 0.5) * (2.0 / height)
    lam = np.einsum("nij,nj->ni", inv[source], np.stack([px, py, np.ones_like(px)], axis=1))
    total = lam.sum(axis=1, keepdims=True)
    lam = np.divide(lam, total, out=np.full_like(lam, 1.0 / 3.0), where=total != 0)
    return Fragments(ys, xs, source, lam)


def unit(vectors: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, length, out=np.zeros_like(vectors), where=length > 0)


@dataclass(frozen=True)
class Look:
    """How :func:`shade` colours fragments (the renderer's materials and the frame's lights)."""

    material_colors: np.ndarray  # (materials, 3)
    material_textures: np.ndarray  # (materials,) atlas image or -1
    atlas: object
    texture_filter: str
    shading: str
    eye: np.ndarray
    lights: Iterable
    ambient: float


def shade(world: WorldTriangles, frags: Fragments, look: Look) -> np.ndarray:
    """Stage 5: uint8 ``(n, 3)`` colours: material x vertex colour x texture x tint x light."""
    src = frags.source
    mat = world.materials[src]
    base = look.material_colors[mat] * (frags.interpolate(world.colors) / 255.0)
    texture = look.material_textures[mat]
    textured = texture >= 0
    if textured.any():
        uv_px = frags.interpolate(world.uvs)[textured]
        sample = look.atlas.sample(texture[textured], uv_px, filter=look.texture_filter)
        base[textured] *= sample / 255.0
    base *= world.tints[src]
    if look.shading == "unlit":
        light = np.ones((len(src), 3))
    else:
        if look.shading == "smooth":
            shade_n = unit(frags.interpolate(world.normals))
        else:
            shade_n = world.face_normals[src]
        world_px = frags.interpolate(world.positions)
        facing = np.einsum("nj,nj->n", shade_n, look.eye - world_px)
        shade_n = np.where((facing < 0)[:, None], -shade_n, shade_n)  # two-sided lighting
        light = np.full((len(src), 3), float(look.ambient))
        for lt in look.lights:
            direction = vec3(lt.direction, "light direction")
            direction = -direction / np.linalg.norm(direction)
            lambert = np.clip(shade_n @ direction, 0.0, None) * float(lt.intensity)
            light += lambert[:, None] * np.asarray(lt.color, dtype=np.float64)
    return np.clip(np.rint(base * light), 0, 255).astype(np.uint8)


def attachments(world: WorldTriangles | None, projected: Projected | None,
                frags: Fragments | None, rgb, width: int, height: int, background):  # fmt: skip
    """Stage 6: ``(color uint8 (H, W, 3), depth, normal, object_id, triangle_id)`` images."""
    color = np.empty((height, width, 3), dtype=np.uint8)
    color[:] = background
    depth = np.full((height, width), np.inf, dtype=np.float32)
    normal = np.zeros((height, width, 3), dtype=np.float32)
    object_id = np.full((height, width), -1, dtype=np.int32)
    triangle_id = np.full((height, width), -1, dtype=np.int32)
    if frags is not None:
        ys, xs, src = frags.ys, frags.xs, frags.source
        color[ys, xs] = rgb
        depth[ys, xs] = np.einsum("ni,ni->n", frags.weights, projected.view_depth[src])
        normal[ys, xs] = unit(frags.interpolate(world.normals))
        object_id[ys, xs] = world.objects[src]
        triangle_id[ys, xs] = src
    return color, depth, normal, object_id, triangle_id
