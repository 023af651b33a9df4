"""World-space meshes: per-vertex (smooth) attributes, instancing, texture atlases and depth /
normal / object-id attachments (camera helpers: :mod:`py_gpu.camera`).  Needs NumPy.

Pipeline (:class:`MeshRenderer`, its stages in :mod:`py_gpu.mesh_pipeline`): instances are
transformed to world space, projected with the camera, clipped against the near plane, mapped
to screen space (y down, the :mod:`py_gpu.convention`), and rasterised by the chosen backend
into a *visibility buffer* (which triangle covers each pixel: ``rasterize_ids``).  Shading is
deferred: per covered pixel the perspective-correct barycentric coordinates of its triangle are
solved in clip space and used to interpolate normals, UVs and vertex colours, sample the texture
atlas and light the pixel.  Every backend therefore gets the same attributes and attachments.

Conventions: right-handed world, the camera looks down its -Z axis, OpenGL clip space
(NDC ``z`` in [-1, 1]); the screen ``z`` of a vertex is its NDC ``z`` (linear in screen space,
smaller is nearer).  UV ``(0, 0)`` is the top-left of a texture image, ``u`` to the right, ``v``
down (as in glTF); UVs repeat.  Colours are 0..255.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from . import mesh_pipeline as stages
from .buffers import ColorLike, FrameBuffer, as_rgb, check_frame_size
from .camera import Camera, look_at, orthographic, perspective
from .errors import InvalidColorError, InvalidGeometryError, InvalidSizeError
from .frozen import frozen

if TYPE_CHECKING:
    from .backends import RasterBackend

__all__ = [
    "Camera",
    "DirectionalLight",
    "Instances",
    "Material",
    "MeshBatch",
    "MeshHandle",
    "MeshRenderer",
    "RenderResult",
    "TextureAtlas",
    "look_at",
    "orthographic",
    "perspective",
]

# --------------------------------------------------------------------------- scene data


@dataclass(frozen=True)
class Material:
    """Base colour (0..255) and optionally the index of an image in the :class:`TextureAtlas`."""

    color: ColorLike = (255, 255, 255)
    texture: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "color", as_rgb(self.color))
        if self.texture is not None and (not isinstance(self.texture, int) or self.texture < 0):
            raise InvalidGeometryError(f"material texture must be an index >= 0: {self.texture!r}")


@dataclass(frozen=True)
class DirectionalLight:
    """Light travelling along ``direction`` with an RGB ``color`` in 0..1 and ``intensity``."""

    direction: Sequence[float] = (-0.4, -1.0, -0.6)
    color: Sequence[float] = (1.0, 1.0, 1.0)
    intensity: float = 1.0


class TextureAtlas:
    """Several RGB images packed into one (shelf packing); sampled per material.

    ``regions[i]`` is ``(x, y, width, height)`` of image ``i`` in :attr:`pixels`.  Sampling never
    reads outside an image's region, so neighbours do not bleed into each other.
    """

    def __init__(self, images: Sequence, *, max_width: int | None = None) -> None:
        arrays = []
        for index, image in enumerate(images):
            array = np.asarray(image)
            if array.ndim != 3 or array.shape[2] not in (3, 4) or 0 in array.shape[:2]:
                raise InvalidSizeError(
                    f"atlas image {index} must be (height, width, 3|4), got {array.shape}"
                )
            arrays.append(np.ascontiguousarray(array[:, :, :3], dtype=np.uint8))
        if not arrays:
            raise InvalidSizeError("a texture atlas needs at least one image")
        widest = max(a.shape[1] for a in arrays)
        total = sum(a.shape[0] * a.shape[1] for a in arrays)
        limit = max(widest, max_width or math.ceil(math.sqrt(total) * 1.25))
        order = sorted(range(len(arrays)), key=lambda i: -arrays[i].shape[0])
        regions = np.zeros((len(arrays), 4), dtype=np.int64)
        x = y = shelf = 0
        for i in order:
            h, w = arrays[i].shape[:2]
            if x + w > limit:
                x, y, shelf = 0, y + shelf, 0
            regions[i] = (x, y, w, h)
            x, shelf = x + w, max(shelf, h)
        width = int((regions[:, 0] + regions[:, 2]).max())
        height = int((regions[:, 1] + regions[:, 3]).max())
        self.pixels: np.ndarray = np.zeros((height, width, 3), dtype=np.uint8)
        for i, array in enumerate(arrays):
            rx, ry, rw, rh = regions[i]
            self.pixels[ry : ry + rh, rx : rx + rw] = array
        self.regions = regions

    def __len__(self) -> int:
        return len(self.regions)

    def sample(self, texture: np.ndarray, uv: np.ndarray, *, filter: str = "nearest") -> np.ndarray:
        """RGB float64 ``(n, 3)`` of image ``texture[i]`` at ``uv[i]`` (repeat wrapping)."""
        texture = np.asarray(texture, dtype=np.int64)
        if texture.size and (texture.min() < 0 or texture.max() >= len(self.regions)):
            raise InvalidGeometryError(
                f"texture index out of range 0..{len(self.regions) - 1}: {texture.max()}"
            )
        rx, ry, rw, rh = (self.regions[texture, k] for k in range(4))
        u = np.mod(uv[:, 0], 1.0) * rw
        v = np.mod(uv[:, 1], 1.0) * rh
        if filter == "nearest":
            ix = np.minimum(u.astype(np.int64), rw - 1)
            iy = np.minimum(v.astype(np.int64), rh - 1)
            return self.pixels[ry + iy, rx + ix].astype(np.float64)
        if filter != "bilinear":
            raise ValueError(f"filter must be 'nearest' or 'bilinear', got {filter!r}")
        fx, fy = u - 0.5, v - 0.5
        x0, y0 = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
        tx, ty = (fx - x0)[:, None], (fy - y0)[:, None]

        def texel(ix, iy):
            return self.pixels[ry + np.mod(iy, rh), rx + np.mod(ix, rw)].astype(np.float64)

        top = texel(x0, y0) * (1 - tx) + texel(x0 + 1, y0) * tx
        bottom = texel(x0, y0 + 1) * (1 - tx) + texel(x0 + 1, y0 + 1) * tx
        return top * (1 - ty) + bottom * ty


def _array(value, shape_tail: tuple, label: str, dtype=np.float64, rows: int | None = None):
    if value is None:
        return None
    array = np.asarray(value, dtype=dtype)
    if array.ndim == 1 and len(shape_tail) == 1 and array.size % shape_tail[0] == 0:
        array = array.reshape(-1, *shape_tail)
    if array.shape[1:] != shape_tail or (rows is not None and array.shape[0] != rows):
        want = f"({rows if rows is not None else 'N'}, {', '.join(map(str, shape_tail))})"
        raise InvalidGeometryError(f"{label} must have shape {want}, got {array.shape}")
    if dtype == np.float64 and not np.isfinite(array).all():
        raise InvalidGeometryError(f"{label} must be finite")
    return frozen(np.ascontiguousarray(array), value)


def _set(obj: Any, **fields: Any) -> None:
    """Set the fields of a frozen dataclass (in its own ``__post_init__``)."""
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class MeshBatch:
    """Indexed triangles in world (model) space with optional per-vertex attributes.

    Immutable once validated: the fields cannot be reassigned and the arrays are read-only
    copies (made once, here; a mesh is drawn many times from its :class:`MeshHandle`), so
    nothing can change the indices or positions after they were checked.

    ``positions`` ``(V, 3)``; ``indices`` ``(T, 3)`` (default: consecutive triples);
    ``normals`` ``(V, 3)`` (smooth shading; without them faces are shaded flat); ``uvs`` ``(V, 2)``;
    ``colors`` ``(V, 3)`` per-vertex colours 0..255 (interpolated); ``material_ids`` ``(T,)``
    indices into the renderer's material list.
    """

    positions: np.ndarray
    indices: np.ndarray | None = None
    normals: np.ndarray | None = None
    uvs: np.ndarray | None = None
    colors: np.ndarray | None = None
    material_ids: np.ndarray | None = None

    def __post_init__(self) -> None:
        _set(self, positions=_array(self.positions, (3,), "positions"))
        count = len(self.positions)
        source = self.indices
        if source is None:
            if count % 3:
                raise InvalidGeometryError(f"without indices, need 3N positions, got {count}")
            source = np.arange(count, dtype=np.int64).reshape(-1, 3)
        indices = np.asarray(source)
        if indices.dtype.kind not in "iu":
            raise InvalidGeometryError(f"indices must be integers, got {indices.dtype}")
        indices = _array(indices, (3,), "indices", dtype=np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= count):
            raise InvalidGeometryError(
                f"indices must lie in 0..{count - 1}, got {indices.min()}..{indices.max()}"
            )
        _set(self, indices=indices)
        _set(self, normals=_array(self.normals, (3,), "normals", rows=count),
             uvs=_array(self.uvs, (2,), "uvs", rows=count),
             colors=_array(self.colors, (3,), "colors", rows=count))  # fmt: skip
        if self.colors is not None and ((self.colors < 0).any() or (self.colors > 255).any()):
            raise InvalidColorError("vertex colours must lie in 0..255")
        if self.material_ids is not None:
            ids = np.asarray(self.material_ids)
            if ids.dtype.kind not in "iu" or ids.shape != (len(self.indices),) or (ids < 0).any():
                raise InvalidGeometryError(
                    f"material_ids must be ({len(self.indices)},) non-negative integers"
                )
            _set(self, material_ids=frozen(ids.astype(np.int64), self.material_ids))

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    def with_smooth_normals(self) -> MeshBatch:
        """A copy with area-weighted per-vertex normals."""
        p = self.positions[self.indices]
        face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        normals = np.zeros_like(self.positions)
        for k in range(3):
            np.add.at(normals, self.indices[:, k], face)
        length = np.linalg.norm(normals, axis=1, keepdims=True)
        normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
        return MeshBatch(
            self.positions, self.indices, normals, self.uvs, self.colors, self.material_ids
        )

    @classmethod
    def cube(cls, size: float = 1.0) -> MeshBatch:
        """A cube centred at the origin with flat normals and per-face UVs (24 vertices)."""
        h = size / 2.0
        faces = [  # normal, u axis, v axis (v down the image)
            ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
            ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
            ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
            ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
            ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
            ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
        ]
        positions, normals, uvs, indices = [], [], [], []
        for n, u, v in faces:
            n, u, v = np.array(n, float), np.array(u, float), np.array(v, float)
            base = len(positions)
            for su, sv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                positions.append(h * n + h * (2 * su - 1) * u + h * (2 * sv - 1) * v)
                normals.append(n)
                uvs.append((su, sv))
            indices += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
        return cls(np.array(positions), np.array(indices), np.array(normals), np.array(uvs))


@dataclass(frozen=True)
class Instances:
    """``K`` copies of one mesh: ``transforms`` ``(K, 4, 4)`` model matrices, per-instance
    ``object_ids`` (default ``0..K-1``) and optional RGB ``tints`` in 0..1.

    Each transform's 3x3 part must be invertible (normals are transformed by its inverse
    transpose, computed here once: ``normal_matrices``).  Immutable, like :class:`MeshBatch`.
    """

    transforms: np.ndarray
    object_ids: np.ndarray | None = None
    tints: np.ndarray | None = None
    normal_matrices: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        source = self.transforms
        t = np.asarray(source, dtype=np.float64)
        if t.shape == (4, 4):
            t = t[None]
        if t.ndim != 3 or t.shape[1:] != (4, 4) or not np.isfinite(t).all():
            raise InvalidGeometryError(f"transforms must be finite (K, 4, 4), got {t.shape}")
        _set(self, transforms=frozen(np.ascontiguousarray(t), source),
             normal_matrices=frozen(_normal_matrices(t), None))  # fmt: skip
        k = len(t)
        ids = np.arange(k) if self.object_ids is None else np.asarray(self.object_ids)
        if ids.shape != (k,) or ids.dtype.kind not in "iu":
            raise InvalidGeometryError(f"object_ids must be ({k},) integers, got {ids.shape}")
        _set(self, object_ids=frozen(ids.astype(np.int32), None))
        if self.tints is not None:
            _set(self, tints=_array(self.tints, (3,), "tints", rows=k))

    @classmethod
    def translations(
        cls, offsets: ArrayLike, object_ids: ArrayLike | None = None, tints: ArrayLike | None = None
    ) -> Instances:
        offsets = _array(offsets, (3,), "offsets")
        transforms = np.repeat(np.eye(4)[None], len(offsets), axis=0)
        transforms[:, :3, 3] = offsets
        return cls(transforms, object_ids, tints)


def _normal_matrices(transforms: np.ndarray) -> np.ndarray:
    """``inv(M[:3, :3]).T`` per transform; InvalidGeometryError names a singular instance."""
    linear = transforms[:, :3, :3]
    det = np.linalg.det(linear)
    singular = np.flatnonzero(det == 0)  # exact zero pivots: where np.linalg.inv would raise
    if singular.size == 0:
        inverse = np.linalg.inv(linear)
        singular = np.flatnonzero(~np.isfinite(inverse).all(axis=(1, 2)))
    if singular.size:
        k = int(singular[0])
        raise InvalidGeometryError(
            f"instance {k}'s transform is singular (the determinant of its 3x3 part is "
            f"{det[k]:g}): {linear[k].tolist()}; normals need an invertible transform"
        )
    return np.ascontiguousarray(inverse.transpose(0, 2, 1))


@dataclass(frozen=True)
class MeshHandle:
    """A mesh validated and prepared once; render it every frame without re-processing."""

    mesh: MeshBatch
    object_id: int = 0
    face_normals: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        p = self.mesh.positions[self.mesh.indices]
        face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        length = np.linalg.norm(face, axis=1, keepdims=True)
        normals = np.divide(face, length, out=np.zeros_like(face), where=length > 0)
        _set(self, face_normals=frozen(normals, None))


@dataclass
class RenderResult:
    """Colour plus attachments as NumPy arrays (row 0 at the top).

    ``depth``: view-space distance along the camera axis (``inf`` on background), float32
    ``(H, W)``; ``normal``: unit world-space normals, float32 ``(H, W, 3)`` (zero on background);
    ``object_id``: int32 ``(H, W)`` (``-1`` on background); ``triangle_id``: int32 index of the
    triangle in draw order (instances expanded; ``-1`` on background).
    """

    color: FrameBuffer
    depth: np.ndarray
    normal: np.ndarray
    object_id: np.ndarray
    triangle_id: np.ndarray


# --------------------------------------------------------------------------- renderer


class MeshRenderer:
    """Renders world-space meshes through any backend (see the module documentation)."""

    def __init__(
        self,
        backend: str | RasterBackend = "auto",
        *,
        materials: Sequence[Material] = (Material(),),
        atlas: TextureAtlas | None = None,
        texture_filter: str = "nearest",
    ) -> None:
        from .backends import select_backend

        self.backend: Any = select_backend(backend) if isinstance(backend, str) else backend
        if getattr(self.backend, "rasterize_ids", None) is None:
            from .backends.numpy_backend import NumpyBackend

            self._raster = NumpyBackend()
        else:
            self._raster = self.backend
        self.materials: tuple[Material, ...] = tuple(materials)
        if not self.materials or not all(isinstance(m, Material) for m in self.materials):
            raise InvalidGeometryError("materials must be a non-empty sequence of Material")
        for m in self.materials:
            if m.texture is not None and (atlas is None or m.texture >= len(atlas)):
                raise InvalidGeometryError(f"material texture {m.texture} is not in the atlas")
        self.atlas = atlas
        self.texture_filter = texture_filter
        self._material_colors = np.array([m.color for m in self.materials], dtype=np.float64)
        self._material_textures = np.array(
            [-1 if m.texture is None else m.texture for m in self.materials], dtype=np.int64
        )

    def upload(self, mesh: MeshBatch, *, object_id: int = 0) -> MeshHandle:
        if not isinstance(mesh, MeshBatch):
            raise TypeError(f"upload() needs a MeshBatch, got {type(mesh).__name__}")
        ids = mesh.material_ids
        if ids is not None and ids.size and ids.max() >= len(self.materials):
            raise InvalidGeometryError(
                f"material id {ids.max()} but only {len(self.materials)} materials"
            )
        return MeshHandle(mesh, object_id)

    def render(
        self,
        items: Any,
        camera: Camera,
        width: int,
        height: int,
        *,
        lights: Iterable[DirectionalLight] = (DirectionalLight(),),
        ambient: float = 0.25,
        background: ColorLike = (0, 0, 0),
        shading: str = "smooth",
        target: FrameBuffer | None = None,
    ) -> RenderResult:
        """Render ``items``: a :class:`MeshHandle`/:class:`MeshBatch`, a ``(handle, Instances)``
        pair, or a list of those.  ``shading``: ``"smooth"`` (interpolated vertex normals),
        ``"flat"`` (face normals) or ``"unlit"``.  Runs the stages of :mod:`py_gpu.mesh_pipeline`.
        """
        width, height = check_frame_size(width, height)
        bg = np.array(as_rgb(background), dtype=np.uint8)
        if target is not None:
            target.check_size(width, height)
        if shading not in ("smooth", "flat", "unlit"):
            raise ValueError(f"shading must be 'smooth', 'flat' or 'unlit', got {shading!r}")
        view = camera.view_matrix()
        view_proj = camera.projection_matrix(width / height) @ view
        world = stages.transform(self._gather(items), shading)
        projected = frags = rgb = None
        if world is not None:
            projected = stages.clip(world, view, view_proj, width, height)
            ys, xs, source = stages.raster(self._raster, projected, width, height)
            frags = stages.barycentrics(projected, ys, xs, source, width, height)
            eye = np.asarray(camera.position, dtype=np.float64)
            look = stages.Look(self._material_colors, self._material_textures, self.atlas,
                               self.texture_filter, shading, eye, lights, ambient)  # fmt: skip
            rgb = stages.shade(world, frags, look)
        color, *images = stages.attachments(world, projected, frags, rgb, width, height, bg)
        return RenderResult(self._frame(color, target), *images)

    @staticmethod
    def _frame(color: np.ndarray, target: FrameBuffer | None) -> FrameBuffer:
        if target is not None:
            target.pixels[:] = color.tobytes()
            return target
        return FrameBuffer.from_numpy(color)

    def _gather(self, items) -> list[tuple[MeshHandle, Instances]]:
        if isinstance(items, (MeshHandle, MeshBatch, tuple)):
            items = [items]
        parts = []
        for item in items:
            inst = None
            if isinstance(item, tuple):
                if len(item) != 2 or not isinstance(item[1], Instances):
                    raise TypeError("an instanced item is a (mesh or handle, Instances) pair")
                item, inst = item
            if isinstance(item, MeshBatch):
                item = self.upload(item)
            if not isinstance(item, MeshHandle):
                raise TypeError(f"cannot render {type(item).__name__}; expected a MeshHandle")
            if inst is None:
                inst = Instances(np.eye(4), np.array([item.object_id], dtype=np.int32))
            parts.append((item, inst))
        return parts
