"""One py_3d frame on a py_gpu backend, with arrays only (no Python per triangle or pixel).

Stages: py_3d's projection of the cached world triangles (``_CameraProjector``: NDC to
``0.5 * (W - 1)``, pixel centres at ``i + 0.5``, depth the camera-space ``z``), py_3d's culls,
per-face lighting (:mod:`._shading`), then either

* a flat batch drawn by the backend, when every face has one colour, or
* the backend's visibility buffer (``rasterize_ids``) and deferred per-pixel shading for the
  faces py_3d shades per pixel (textures with their UVs, smooth normals, fuzziness), with py_3d's
  screen-space barycentric weights; lines, points and wireframes are py_3d's DDA steps merged by
  depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import radians, tan

import numpy as np

from ...convention import MAX_SCREEN_COORD
from ...geometry import RasterBatch
from . import _shading as shading
from ._geometry import TriangleArrays


@dataclass(frozen=True)
class Screen:
    """py_3d's projection of ``(N, 3)`` world points: pixels ``x, y``, depth ``z``, ``valid``."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    valid: np.ndarray


def vec(v) -> np.ndarray:
    return np.array((v.x, v.y, v.z), dtype=np.float64)


def project(points: np.ndarray, camera, width: int, height: int) -> Screen:
    right, up, forward = (vec(v) for v in camera.basis())
    relative = points - vec(camera.position)
    cx, cy, cz = relative @ right, relative @ up, relative @ forward
    valid = (cz >= camera.near) & (cz <= camera.far)
    focal = 1.0 / tan(radians(camera.fov_degrees) / 2.0)
    safe = np.where(valid, cz, 1.0)
    x = ((cx * focal / (width / height)) / safe + 1.0) * (0.5 * (width - 1))
    y = (1.0 - (cy * focal) / safe) * (0.5 * (height - 1))
    valid &= (np.abs(x) <= MAX_SCREEN_COORD) & (np.abs(y) <= MAX_SCREEN_COORD)
    return Screen(x, y, cz, valid)


@dataclass
class Fragments:
    """Single-pixel fragments (lines, points) in draw order: flat pixel index, depth, colour."""

    pixel: list
    depth: list
    color: list

    def add(self, pixel, depth, color) -> None:
        self.pixel.append(pixel)
        self.depth.append(depth)
        self.color.append(color)

    def resolved(self):
        """``(pixel, depth, rgb)`` of the nearest fragment per pixel (the first drawn on ties,
        as py_3d's strict ``<`` depth test keeps it)."""
        if not self.pixel:
            return None
        pixel, depth = np.concatenate(self.pixel), np.concatenate(self.depth)
        color = np.concatenate(self.color)
        order = np.lexsort((np.arange(len(pixel)), depth, pixel))
        pixel, depth, color = pixel[order], depth[order], color[order]
        first = np.ones(len(pixel), dtype=bool)
        first[1:] = pixel[1:] != pixel[:-1]
        return pixel[first], depth[first], color[first]


def line_fragments(out: Fragments, start: Screen, end: Screen, rgb, width, height, bias=0.0):
    """py_3d's ``_draw_projected_line`` for every segment at once (``rgb`` ``(S, 3)``)."""
    keep = start.valid & end.valid
    if not keep.any():
        return
    x0, y0, z0 = start.x[keep], start.y[keep], start.z[keep]
    dx, dy, dz = end.x[keep] - x0, end.y[keep] - y0, end.z[keep] - z0
    rgb = np.broadcast_to(rgb, (len(start.x), 3))[keep]
    steps = np.maximum(np.maximum(np.abs(dx), np.abs(dy)), 1.0)
    counts = steps.astype(np.int64) + 1
    seg = np.repeat(np.arange(len(steps)), counts)
    first = np.cumsum(counts) - counts
    amount = (np.arange(seg.size) - first[seg]) / steps[seg]
    x = np.rint(x0[seg] + dx[seg] * amount).astype(np.int64)  # round() is half-to-even too
    y = np.rint(y0[seg] + dy[seg] * amount).astype(np.int64)
    z = z0[seg] + dz[seg] * amount - bias
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    out.add((y * width + x)[inside], z[inside], rgb[seg][inside])


def point_fragments(out: Fragments, at: Screen, rgb, width, height):
    """py_3d's ``_draw_point``."""
    x = np.rint(at.x).astype(np.int64)
    y = np.rint(at.y).astype(np.int64)
    inside = at.valid & (x >= 0) & (x < width) & (y >= 0) & (y < height)
    out.add((y * width + x)[inside], at.z[inside], np.broadcast_to(rgb, (len(x), 3))[inside])


@dataclass(frozen=True)
class Faces:
    """The faces drawn this frame (``index`` into the scene arrays) and their flat shading."""

    index: np.ndarray
    normal: np.ndarray  # (F, 3) as lit (flipped towards the camera when two-sided)
    view: np.ndarray  # (F, 3) unit, towards the camera
    diffuse: np.ndarray
    specular: np.ndarray
    shaded: np.ndarray  # uint8 (F, 3): Material.shade of the face
    rgb: np.ndarray  # uint8 (F, 3): the face's final colour (surface attributes, gamma)
    per_pixel: np.ndarray  # (F,) bool: py_3d shades this face per pixel


def render_arrays(geo, materials, lights, scene, lines, camera, settings, raster, fast: bool):
    """The frame as a uint8 ``(H, W, 3)`` array; ``raster`` is the py_gpu backend."""
    width, height = settings.width, settings.height
    background = np.array(settings.background.to_tuple(), dtype=np.uint8)
    eye = vec(camera.position)
    count = len(geo)
    screen = project(geo.positions.reshape(-1, 3), camera, width, height)
    keep = screen.valid.reshape(count, 3).all(axis=1)
    if settings.max_render_distance is not None:
        offset = geo.centers - eye
        keep &= np.sqrt(np.einsum("ij,ij->i", offset, offset)) <= settings.max_render_distance
    xyz = np.stack([screen.x, screen.y, screen.z], axis=1).reshape(count, 3, 3)
    fragments = Fragments([], [], [])
    for obj in lines:
        _line_object_fragments(fragments, obj, camera, settings)
    if settings.wireframe:
        _wireframe_fragments(fragments, geo, materials, keep, screen, settings)
        faces = None
    else:
        faces = _faces(geo, materials, lights, keep, eye, settings, fast)
    resolved = fragments.resolved()
    if faces is not None and not faces.per_pixel.any() and resolved is None:
        batch = RasterBatch.from_arrays(xyz[faces.index], faces.rgb)
        frame = raster.render(batch, width, height, background=tuple(background))
        return np.frombuffer(frame.pixels, dtype=np.uint8).reshape(height, width, 3)
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = background
    depth = np.full(height * width, np.inf)
    if faces is not None and len(faces.index):
        batch = RasterBatch.from_arrays(xyz[faces.index], faces.rgb)
        ids, depth = _rasterize_ids(raster, batch, width, height)
        covered = ids >= 0
        image[covered] = faces.rgb[ids[covered]]
        if faces.per_pixel.any():
            ys, xs = np.nonzero(covered & faces.per_pixel[np.maximum(ids, 0)])
            image[ys, xs] = _shade_pixels(
                geo, materials, lights, faces, ids[ys, xs], xs, ys, xyz, eye, settings
            )
        depth = depth.reshape(-1)
    if resolved is not None:
        pixel, z, rgb = resolved
        wins = z < depth[pixel]
        image.reshape(-1, 3)[pixel[wins]] = rgb[wins]
    return image


def _rasterize_ids(raster, batch, width, height):
    rasterize = getattr(raster, "rasterize_ids", None)
    if rasterize is None:
        from ...backends.numpy_backend import NumpyBackend

        rasterize = NumpyBackend().rasterize_ids
    ids, depth = rasterize(batch, width, height)
    return np.asarray(ids), np.asarray(depth, dtype=np.float64)


def _faces(geo: TriangleArrays, materials, lights, keep, eye, settings, fast) -> Faces:
    """py_3d's ``_draw_triangle`` up to the per-pixel loop, for every face at once."""
    view = shading.unit_rows(eye - geo.centers, (0.0, 0.0, -1.0))
    facing = np.einsum("ij,ij->i", geo.normals, view)
    if settings.cull_backfaces:
        keep = keep & (facing > 0.0)
    index = np.nonzero(keep)[0]
    normal, view, mat = geo.normals[index], view[index], geo.material_index[index]
    if settings.two_sided_lighting:
        normal = np.where((facing[index] < 0.0)[:, None], -normal, normal)
    if fast:  # fast_materials: py_3d benchmark's meaning, no per-triangle lighting
        rgb = shading.gamma(materials.color8[mat], settings.gamma)
        zero = np.zeros((len(index), 3))
        return Faces(index, normal, view, zero, zero, rgb, rgb, np.zeros(len(index), bool))
    diffuse, specular = shading.lighting(
        lights, geo.centers[index], normal, view, materials, mat, settings
    )
    base = materials.color[mat]
    shaded = shading.shade(materials, mat, base, diffuse, specular, settings.ambient)
    rgb = shading.gamma(shading.surface(shaded, materials, mat), settings.gamma)
    textured = geo.has_uv[index] & (materials.texture[mat] >= 0)
    smooth = geo.has_vertex_normals[index] & settings.smooth_shading
    per_pixel = textured | smooth | (materials.fuzziness[mat] != 0.0)
    return Faces(index, normal, view, diffuse, specular, shaded, rgb, per_pixel)


def _shade_pixels(geo, materials, lights, faces: Faces, face, xs, ys, xyz, eye, settings):
    """The per-pixel branch of py_3d's ``_draw_triangle`` for pixels of face rows ``face``."""
    g = faces.index[face]
    mat = geo.material_index[g]
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = (xyz[g, k].T for k in range(3))
    px, py = xs + 0.5, ys + 0.5
    inv_area = 1.0 / ((cx - ax) * (by - ay) - (cy - ay) * (bx - ax))
    w0 = ((px - bx) * (cy - by) - (py - by) * (cx - bx)) * inv_area
    w1 = ((px - cx) * (ay - cy) - (py - cy) * (ax - cx)) * inv_area
    w2 = ((px - ax) * (by - ay) - (py - ay) * (bx - ax)) * inv_area
    z = w0 * az + w1 * bz + w2 * cz
    w = np.stack([w0, w1, w2], axis=1)[:, :, None]
    diffuse, specular = faces.diffuse[face], faces.specular[face]
    smooth = geo.has_vertex_normals[g] & settings.smooth_shading
    if smooth.any():
        s = np.nonzero(smooth)[0]
        p = geo.positions[g[s]]
        world = p[:, 0] * w[s, 0] + p[:, 1] * w[s, 1] + p[:, 2] * w[s, 2]
        vn = geo.vertex_normals[g[s]]
        fallback = faces.normal[face[s]]
        normal = shading.unit_rows(vn[:, 0] * w[s, 0] + vn[:, 1] * w[s, 1] + vn[:, 2] * w[s, 2], 0)
        normal = np.where((np.abs(normal).sum(axis=1) == 0)[:, None], fallback, normal)
        view = shading.unit_rows(eye - world, 0)
        view = np.where((np.abs(view).sum(axis=1) == 0)[:, None], faces.view[face[s]], view)
        if settings.two_sided_lighting:
            flip = np.einsum("ij,ij->i", normal, view) < 0.0
            normal = np.where(flip[:, None], -normal, normal)
        diffuse, specular = diffuse.copy(), specular.copy()
        diffuse[s], specular[s] = shading.lighting(
            lights, world, normal, view, materials, mat[s], settings
        )
    base = materials.color[mat]
    textured = geo.has_uv[g] & (materials.texture[mat] >= 0)
    if textured.any():
        t = np.nonzero(textured)[0]
        uv = geo.uvs[g[t]]
        uv = uv[:, 0] * w[t, 0] + uv[:, 1] * w[t, 1] + uv[:, 2] * w[t, 2]
        base = base.copy()
        base[t] = shading.sample_textures(materials, materials.texture[mat[t]], uv)
    fresh = textured | smooth  # other per-pixel faces keep their face's Material.shade
    shaded = faces.shaded[face].copy()
    if fresh.any():
        f = np.nonzero(fresh)[0]
        shaded[f] = shading.shade(
            materials, mat[f], base[f], diffuse[f], specular[f], settings.ambient
        )
    rgb = shading.surface(shaded, materials, mat, xs, ys, z)
    return shading.gamma(rgb, settings.gamma)


def _wireframe_fragments(out, geo, materials, keep, screen, settings):
    """py_3d's ``_draw_triangle_wireframe``: edges a-b, b-c, c-a of every drawn face."""
    index = np.nonzero(keep)[0]
    if not len(index):
        return
    rgb = shading.gamma(materials.color8[geo.material_index[index]], settings.gamma)
    corner = index[:, None, None] * 3 + np.array([[0, 1], [1, 2], [2, 0]])[None]  # (F, 3 edges, 2)

    def at(k):
        rows = corner[:, :, k].reshape(-1)
        return Screen(screen.x[rows], screen.y[rows], screen.z[rows], screen.valid[rows])

    line_fragments(out, at(0), at(1), np.repeat(rgb, 3, axis=0), settings.width, settings.height)


def _line_object_fragments(out, obj, camera, settings):
    from py_3d import Line3, LineSet3, Point3

    width, height = settings.width, settings.height
    rgb = shading.gamma(np.array([obj.material.color.to_tuple()], dtype=np.uint8), settings.gamma)
    if isinstance(obj, Point3):
        point_fragments(
            out, project(vec(obj.position)[None], camera, width, height), rgb, width, height
        )
        return
    pairs = [(obj.start, obj.end)] if isinstance(obj, Line3) else list(obj.segments)
    if not pairs or not isinstance(obj, (Line3, LineSet3)):
        return
    starts = np.array([vec(a) for a, _ in pairs])
    ends = np.array([vec(b) for _, b in pairs])
    line_fragments(
        out,
        project(starts, camera, width, height),
        project(ends, camera, width, height),
        rgb,
        width,
        height,
    )
