"""py_3d objects as NumPy triangle arrays, built once per object and kept while it lives.

py_3d's primitives are frozen dataclasses, and its ``CPURenderer(cache_static_geometry=True)``
keeps an object's triangles under ``(type, id, sphere_segments, sphere_rings)`` (spheres, bowls,
capsules, blobs) or ``(type, id, 0, 0)`` (boxes, meshes, planes), checked against a weak
reference to the object.  :class:`GeometryCache` keys the same way (single ``Triangle`` objects
too: they are frozen as well), so a frame whose objects did not change runs no Python per
triangle.  Objects py_3d does not cache (anything else with ``to_triangles``) are rebuilt every
frame, as py_3d rebuilds them.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TriangleArrays:
    """World-space triangles of one object (or of a whole scene, concatenated).

    ``positions`` ``(T, 3, 3)``; ``normals``/``centers`` ``(T, 3)`` (py_3d's ``Triangle.normal()``
    and ``center()``); ``uvs`` ``(T, 3, 2)`` with ``has_uv`` ``(T,)``; ``vertex_normals``
    ``(T, 3, 3)`` with ``has_vertex_normals`` ``(T,)``; ``material_index`` ``(T,)`` into
    ``materials`` (py_3d ``Material`` objects, each once).
    """

    positions: np.ndarray
    normals: np.ndarray
    centers: np.ndarray
    uvs: np.ndarray
    has_uv: np.ndarray
    vertex_normals: np.ndarray
    has_vertex_normals: np.ndarray
    material_index: np.ndarray
    materials: tuple

    def __len__(self) -> int:
        return len(self.positions)


def triangles_of(obj, settings) -> tuple:
    """The py_3d triangles of ``obj`` exactly as py_3d's renderer asks for them."""
    from py_3d import BlobSurface, Bowl, Capsule, Mesh, Sphere, Triangle

    if isinstance(obj, Triangle):
        return (obj,)
    if isinstance(obj, Mesh):
        return obj.to_triangles()
    if isinstance(obj, (BlobSurface, Bowl, Capsule, Sphere)):
        return obj.to_triangles(segments=settings.sphere_segments, rings=settings.sphere_rings)
    to_triangles = getattr(obj, "to_triangles", None)
    if callable(to_triangles):
        return tuple(to_triangles())
    return ()


def cache_key(obj, settings) -> tuple | None:
    """py_3d's ``_cache_key_for`` (plus single triangles); ``None``: rebuild every frame."""
    from py_3d import BlobSurface, Bowl, Box, Capsule, Mesh, Plane, Sphere, Triangle

    if isinstance(obj, (BlobSurface, Bowl, Capsule, Sphere)):
        return (type(obj), id(obj), settings.sphere_segments, settings.sphere_rings)
    if isinstance(obj, (Box, Mesh, Plane, Triangle)):
        return (type(obj), id(obj), 0, 0)
    return None


def build_arrays(triangles) -> TriangleArrays:
    """One pass of Python over ``triangles`` (py_3d ``Triangle`` objects)."""
    count = len(triangles)
    positions = np.empty((count, 3, 3))
    uvs = np.zeros((count, 3, 2))
    has_uv = np.zeros(count, dtype=bool)
    vertex_normals = np.zeros((count, 3, 3))
    has_vn = np.zeros(count, dtype=bool)
    material_index = np.empty(count, dtype=np.int64)
    materials: list = []
    slot: dict[int, int] = {}
    for i, t in enumerate(triangles):
        positions[i] = (t.a.as_tuple(), t.b.as_tuple(), t.c.as_tuple())
        if t.has_texture_coordinates():
            uvs[i] = (t.uv_a, t.uv_b, t.uv_c)
            has_uv[i] = True
        if t.has_vertex_normals():
            vertex_normals[i] = (
                t.normal_a.as_tuple(),
                t.normal_b.as_tuple(),
                t.normal_c.as_tuple(),
            )
            has_vn[i] = True
        material = t.material
        index = slot.get(id(material))
        if index is None:
            index = slot[id(material)] = len(materials)
            materials.append(material)
        material_index[i] = index
    a, b, c = positions[:, 0], positions[:, 1], positions[:, 2]
    return TriangleArrays(
        positions,
        _unit(np.cross(b - a, c - a)),
        (a + b + c) / 3.0,
        uvs,
        has_uv,
        vertex_normals,
        has_vn,
        material_index,
        tuple(materials),
    )


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Row-wise ``Vec3.normalized()``: zero vectors stay zero."""
    length = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))[:, None]
    return np.divide(vectors, length, out=np.zeros_like(vectors), where=length > 0)


def concatenate(parts: list[TriangleArrays]) -> TriangleArrays:
    """The objects' arrays in draw order, with one shared material table."""
    if not parts:
        return build_arrays(())
    if len(parts) == 1:
        return parts[0]
    materials: list = []
    slot: dict[int, int] = {}
    remapped = []
    for part in parts:
        table = np.empty(len(part.materials), dtype=np.int64)
        for k, material in enumerate(part.materials):
            index = slot.get(id(material))
            if index is None:
                index = slot[id(material)] = len(materials)
                materials.append(material)
            table[k] = index
        remapped.append(table[part.material_index] if len(part) else part.material_index)
    join = np.concatenate
    return TriangleArrays(
        join([p.positions for p in parts]),
        join([p.normals for p in parts]),
        join([p.centers for p in parts]),
        join([p.uvs for p in parts]),
        join([p.has_uv for p in parts]),
        join([p.vertex_normals for p in parts]),
        join([p.has_vertex_normals for p in parts]),
        join(remapped),
        tuple(materials),
    )


class GeometryCache:
    """Per-object arrays keyed as py_3d keys them, and the scene's concatenation of them.

    ``stats["triangle_builds"]`` counts triangles converted with Python (tests use it to show a
    static scene costs none after its first frame).
    """

    def __init__(self) -> None:
        self._objects: dict[tuple, tuple[weakref.ref, TriangleArrays]] = {}
        self._scene: tuple[tuple[int, ...], TriangleArrays] | None = None
        self._scene_parts: list[TriangleArrays] = []  # alive while their ids key ``_scene``
        self.stats = {"triangle_builds": 0}

    def clear(self) -> None:
        self._objects.clear()
        self._scene, self._scene_parts = None, []

    def scene_arrays(self, objects, settings) -> TriangleArrays:
        parts = [self._object_arrays(obj, settings) for obj in objects]
        identity = tuple(id(part) for part in parts)
        if self._scene is not None and self._scene[0] == identity:
            return self._scene[1]
        arrays = concatenate(parts)
        self._scene, self._scene_parts = (identity, arrays), parts
        return arrays

    def _object_arrays(self, obj, settings) -> TriangleArrays:
        key = cache_key(obj, settings)
        if key is not None:
            cached = self._objects.get(key)
            if cached is not None and cached[0]() is obj:
                return cached[1]
        triangles = triangles_of(obj, settings)
        self.stats["triangle_builds"] += len(triangles)
        arrays = build_arrays(triangles)
        if key is not None:
            # Not weak-referenceable (TypeError): py_3d does not cache it either.
            with contextlib.suppress(TypeError):
                self._objects[key] = (weakref.ref(obj, self._forget(key)), arrays)
        return arrays

    def _forget(self, key):
        owner = weakref.ref(self)

        def forget(ref) -> None:  # the object died: drop its arrays (unless the key was reused)
            cache = owner()
            if cache is not None and cache._objects.get(key, (None,))[0] is ref:
                del cache._objects[key]

        return forget
