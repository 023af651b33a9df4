"""How the body renderer shades: materials, lights and textures, for any bridge.

Lighting is OpenGL's fixed-function model (what ``mjr_render`` and most classic renderers
draw with), evaluated per fragment: for a surface of colour ``c`` (the look's rgb times its
texel), material ``(specular s, shininess h, emission e)``, normal N, position P and the
direction V to the eye, each light adds ``att * spot * (ambient * c + max(N.L, 0) *
diffuse * c + [N.L > 0] max(N.H, 0)^(128 h) * specular * s)`` (H: the half vector of L and V),
and the sum plus ``e * c`` is clamped, then multiplied by the texel's rgb.

* :class:`Material` per part (``set_parts(..., material=...)``): specular, shininess,
  emission, reflectance, alpha, and a texture of the renderer's atlas with its mapping.
* Lights are rows of :data:`LIGHT_DTYPE` in groups of ``max_lights``
  (:meth:`~hypergl.bodies.BodyRenderer.set_lights`); each view uses one group (many worlds:
  a group per world, their poses written in one NumPy call per frame). A light is
  directional, positional (a spot with a cone and exponent, attenuated by distance) or the
  *headlight*: directional along the view's own camera, whatever the view.
* Textures live in one atlas (:class:`TextureAtlas`): 2D images and cube maps (six faces),
  each with its mip chain (made as Mesa's glGenerateMipmap makes it), sampled in the
  fragment stage with trilinear filtering (repeat for 2D, clamped per cube face), whatever
  their sizes. Each level carries a one-texel
  border (the opposite edge: repeat; its own edge: clamp), so the sampler's own bilinear
  filter reads each level, two lookups a fragment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BodyError

# std430 struct Light (96 bytes), see shaders.SHADING.
LIGHT_DTYPE = np.dtype([("position", np.float32, 4), ("direction", np.float32, 4),
                        ("ambient", np.float32, 4), ("diffuse", np.float32, 4),
                        ("specular", np.float32, 4), ("attenuation", np.float32, 4)])  # fmt: skip
LIGHT_OFF, LIGHT_WORLD, LIGHT_HEAD = 0, 1, 2  # diffuse.w: what kind of light a row is
NO_CONE = -2.0  # direction.w (the cosine of the cutoff) of a light without a cone

# Texture mappings (Material.mapping): how a fragment's unit-shape coordinates X (the
# part's frame, divided by its scale) give the texture coordinates.
TEXTURE_PLANAR = 1  # 2D: (u, v) = (X.x * su + ou, X.z * sv + ov), uv_map = (su, sv, ou, ov)
TEXTURE_BOX = 2  # 2D per face of a box, (u, v) in 0..1 per face times (su, sv)
TEXTURE_CUBE = 3  # a cube map looked up along X * uv_map.xyz (the part's axes)
TEXTURE_CUBE_Y_UP = 4  # the same, the part's y as the cube's z (meshes made along y)
MAPPINGS = (0, TEXTURE_PLANAR, TEXTURE_BOX, TEXTURE_CUBE, TEXTURE_CUBE_Y_UP)
MAX_TEXTURES = 64  # rectangles in the atlas table: a 2D texture takes one, a cube six
ATLAS_WIDTH = 8192


@dataclass(frozen=True)
class Material:
    """How a part's surface answers light. ``shininess`` in 0..1 (128 times it is the
    specular exponent); ``texture``: an index :meth:`TextureAtlas.add_2d` / ``add_cube``
    gave (-1: none), mapped by ``mapping`` with ``uv_map`` (see ``TEXTURE_*``).
    ``lit_grid`` (a flat quad ray-cast alone, a MuJoCo plane): 0 lights it per fragment;
    else per vertex of a grid of cells, as fixed-function OpenGL lights MuJoCo's planes:
    > 0 cells of 2 max(lit_grid, half size / 198) (a finite plane's size[2]), < 0 cells of
    -lit_grid (an infinite one's)."""

    specular: float = 0.0
    shininess: float = 0.0
    emission: float = 0.0
    reflectance: float = 0.0
    alpha: float = 1.0
    texture: int = -1
    mapping: int = 0
    uv_map: tuple[float, float, float, float] = (1.0, 1.0, 0.0, 0.0)
    lit_grid: float = 0.0

    def checked(self) -> Material:
        values = (self.specular, self.shininess, self.emission, self.reflectance, self.alpha,
                  *self.uv_map, self.lit_grid)  # fmt: skip
        if not np.isfinite(np.asarray(values, np.float64)).all():
            raise BodyError(f"material values must be finite, got {self!r}")
        if self.mapping not in MAPPINGS:
            raise BodyError(f"material mapping must be one of {MAPPINGS}, got {self.mapping!r}")
        if self.texture >= 0 and self.mapping == 0:
            raise BodyError(f"material texture {self.texture} needs a mapping")
        return self


DEFAULT_MATERIAL = Material()


def lighting_way(lit_grid: float, half_x: float, half_z: float) -> str:
    """How a part of ``Material.lit_grid`` `lit_grid` and half sizes `half_x`, `half_z` is
    lit: "lit_point" (per fragment), "lit_grid" (per vertex of its grid: each fragment
    lights its cell's corners) or "lit_quadrants" (a finite plane whose cells, counted from
    its centre, are its four quadrants: the vertex stage lights the corners of the plane's
    quad of 2 x 2 cells, as fixed-function OpenGL does, interpolated (Gouraud); lighting
    three corners per fragment was about a third of a frame of 256 gym half_cheetah worlds
    on llvmpipe)."""
    if lit_grid == 0.0:
        return "lit_point"
    if lit_grid > 0.0 and lit_grid >= max(abs(half_x), abs(half_z)):
        return "lit_quadrants"
    return "lit_grid"


def lights(count: int) -> np.ndarray:
    """`count` rows of :data:`LIGHT_DTYPE`, all off."""
    rows = np.zeros(count, LIGHT_DTYPE)
    rows["attenuation"][:, 0] = 1.0
    rows["direction"][:, 3] = NO_CONE
    return rows


def _rgb(value: Any, what: str) -> np.ndarray:
    rgb = np.asarray(value, np.float32)
    if rgb.shape != (3,) or not np.isfinite(rgb).all():
        raise BodyError(f"light {what} must be (r, g, b), got {value!r}")
    return rgb


def set_light(row: np.ndarray, *, kind: int, direction: Sequence[float] = (0.0, 0.0, -1.0),
              position: Sequence[float] | None = None, ambient: Sequence[float] = (0, 0, 0),
              diffuse: Sequence[float] = (1, 1, 1), specular: Sequence[float] = (0, 0, 0),
              cutoff: float | None = None, exponent: float = 0.0,
              attenuation: Sequence[float] = (1.0, 0.0, 0.0),
              castshadow: bool = False) -> None:  # fmt: skip
    """Fill one light row: `kind` LIGHT_WORLD (directional when `position` is None, else
    positional, a spot when `cutoff` (degrees) is given) or LIGHT_HEAD (the view's
    camera: `direction` and `position` unused)."""
    d = np.asarray(direction, np.float64)
    norm = float(np.linalg.norm(d)) if d.shape == (3,) else 0.0
    if not np.isfinite(norm) or norm == 0.0:
        raise BodyError(f"light direction must be a finite non-zero (x, y, z), got {direction!r}")
    row["direction"][:3] = d / norm
    row["direction"][3] = NO_CONE if cutoff is None else np.cos(np.radians(float(cutoff)))
    row["position"] = (0, 0, 0, 0) if position is None else (*position, 1.0)
    row["ambient"] = (*_rgb(ambient, "ambient"), float(exponent))
    row["diffuse"] = (*_rgb(diffuse, "diffuse"), float(kind))
    row["specular"] = (*_rgb(specular, "specular"), float(bool(castshadow)))
    row["attenuation"] = (*attenuation, 0.0)


def default_lights(direction: Sequence[float]) -> np.ndarray:
    """One directional light giving ``0.35 + 0.65 * max(N.L, 0)`` (the renderer's look
    before materials): a Culverin world as it always was."""
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_WORLD, direction=-np.asarray(direction, np.float64),
              ambient=(0.35, 0.35, 0.35), diffuse=(0.65, 0.65, 0.65))  # fmt: skip
    return rows


def _resampled(image: np.ndarray, axis: int) -> np.ndarray:
    """`image` (int64 texels) halved (floored) along `axis` as Mesa's glGenerateMipmap does
    on llvmpipe: a bilinear blit, each new texel read at its centre's place in the old
    level (for an even size the 2 x 2 box; for an odd one not a box: 25 -> 12 keeps a
    checker's edges sharp, where folding the last row blurred them and moved every far edge
    by a line), in llvmpipe's 8-bit fixed point: ``a + ((b - a) * round(256 w) + 128) >> 8``
    (a rounding that leans up: a box mean of the rounded 8-bit mean, 0.5 a level low)."""
    old = image.shape[axis]
    if old == 1:
        return image
    new = old // 2
    at = (np.arange(new) + 0.5) * (old / new) - 0.5  # in the old level's texel centres
    low = np.clip(np.floor(at).astype(np.int64), 0, old - 1)
    high = np.minimum(low + 1, old - 1)
    weight = np.rint((at - low) * 256).astype(np.int64)
    weight = weight.reshape([-1 if k == axis else 1 for k in range(image.ndim)])
    first, second = np.take(image, low, axis), np.take(image, high, axis)
    return first + (((second - first) * weight + 128) >> 8)


def mip_chain(image: np.ndarray) -> list[np.ndarray]:
    """(H, W, 4) uint8 levels, level 0 first, down to 1 x 1, bit for bit those Mesa's
    glGenerateMipmap makes on llvmpipe: each level from the one above, along x then y."""
    levels = [np.asarray(image, np.uint8)]
    while max(levels[-1].shape[:2]) > 1:
        texels = levels[-1].astype(np.int64)
        levels.append(_resampled(_resampled(texels, 1), 0).astype(np.uint8))
    return levels


class TextureAtlas:
    """2D images and cube maps with their mip chains, packed into one image.

    Each image is a column of its levels (each with a one-texel border), level 0 on top; a
    cube map's six columns sit side by side (face f at ``x + f * (width + 2)``). Columns are
    placed left to right in shelves. :meth:`table` gives each image's column corner and
    level-0 size ``(x, y, width, height)``, the shaders' index; :meth:`image` the pixels.
    """

    def __init__(self, max_size: int = ATLAS_WIDTH) -> None:
        self.max_size = int(max_size)
        self._blocks: list[np.ndarray] = []  # columns (a cube's six side by side), uint8
        self._images: list[tuple[int, int, int, int]] = []  # (block, dx, width, height)

    def __len__(self) -> int:
        return len(self._images)

    @staticmethod
    def _rgba(pixels: Any, what: str) -> np.ndarray:
        image = np.asarray(pixels)
        if image.ndim != 3 or image.shape[2] not in (1, 3, 4) or image.dtype != np.uint8:
            raise BodyError(f"{what} must be (H, W, 1, 3 or 4) uint8, got {image.shape} "
                            f"{image.dtype}")  # fmt: skip
        if image.shape[2] == 1:
            image = np.repeat(image, 3, axis=2)
        if image.shape[2] == 3:
            image = np.concatenate([image, np.full((*image.shape[:2], 1), 255, np.uint8)], 2)
        return image

    def _column(self, image: np.ndarray, repeat: bool) -> np.ndarray:
        h, w = image.shape[:2]
        if max(h, w) > self.max_size // 2:
            raise BodyError(f"texture of {w}x{h} is larger than the atlas allows "
                            f"({self.max_size // 2} per side)")  # fmt: skip
        levels = mip_chain(image)
        column = np.zeros((sum(level.shape[0] + 2 for level in levels), w + 2, 4), np.uint8)
        y = 0
        for level in levels:
            bordered = np.pad(level, ((1, 1), (1, 1), (0, 0)), mode="wrap" if repeat else "edge")
            column[y : y + bordered.shape[0], : bordered.shape[1]] = bordered
            y += bordered.shape[0]
        return column

    def _room(self, images: int) -> None:
        if len(self._images) + images > MAX_TEXTURES:
            raise BodyError(f"more than {MAX_TEXTURES} texture images (a cube map is six)")

    def add_2d(self, pixels: Any) -> int:
        """A 2D texture, rows top first as GL's t = 0 up (``(H, W, C)`` uint8); its index."""
        self._room(1)
        image = self._rgba(pixels, "a 2D texture")
        self._blocks.append(self._column(image, repeat=True))
        self._images.append((len(self._blocks) - 1, 0, image.shape[1], image.shape[0]))
        return len(self._images) - 1

    def add_cube(self, faces: Any) -> int:
        """A cube map: six square faces ``(6, S, S, C)`` uint8 in GL's order (+x, -x, +y,
        -y, +z, -z); the index of its first face (the others follow)."""
        faces = np.asarray(faces)
        if faces.ndim != 4 or faces.shape[0] != 6 or faces.shape[1] != faces.shape[2]:
            raise BodyError(f"a cube map is six square faces (6, S, S, C), got {faces.shape}")
        self._room(6)
        columns = [self._column(self._rgba(face, "a cube face"), repeat=False) for face in faces]
        self._blocks.append(np.concatenate(columns, axis=1))
        first = len(self._images)
        size = faces.shape[1]
        for f in range(6):
            self._images.append((len(self._blocks) - 1, f * (size + 2), size, size))
        return first

    def _layout(self) -> tuple[list[tuple[int, int]], int, int]:
        """Each block's corner, and the atlas's width and height."""
        x = y = shelf = 0
        corners = []
        for block in self._blocks:
            h, w = block.shape[:2]
            if x + w > self.max_size:
                x, y, shelf = 0, y + shelf, 0
            corners.append((x, y))
            x += w
            shelf = max(shelf, h)
        ends = [cx + b.shape[1] for (cx, _), b in zip(corners, self._blocks, strict=True)]
        width, height = max(ends, default=1), y + shelf
        if height > self.max_size:
            raise BodyError(f"the textures need a {width}x{height} atlas, more than "
                            f"{self.max_size} high")  # fmt: skip
        return corners, max(width, 1), max(height, 1)

    def table(self) -> np.ndarray:
        """(MAX_TEXTURES, 4) uint32: x, y of each image's column, its level-0 width, height."""
        out = np.zeros((MAX_TEXTURES, 4), np.uint32)
        corners, _, _ = self._layout()
        for k, (block, dx, w, h) in enumerate(self._images):
            x, y = corners[block]
            out[k] = (x + dx, y, w, h)
        return out

    def flat_images(self) -> list[int]:
        """The indices of the 2D images (not a cube map's faces), in the order added."""
        return [k for k, (block, _, w, _) in enumerate(self._images)
                if self._blocks[block].shape[1] == w + 2]  # fmt: skip

    def levels(self, index: int) -> list[np.ndarray]:
        """Image `index`'s mip chain as the atlas holds it: (H, W, 4) uint8 levels, level 0
        first, down to 1 x 1 (a GL texture's levels given, not generated, as the sky's)."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise BodyError(f"atlas image index must be an int, got {index!r}")
        if not 0 <= index < len(self._images):
            raise BodyError(f"atlas image {index} out of range ({len(self._images)} images)")
        block, dx, w, h = self._images[index]
        column, y, out = self._blocks[block], 0, []
        while True:  # each level inside its one-texel border, the next below it
            out.append(column[y + 1 : y + 1 + h, dx + 1 : dx + 1 + w])
            if w == 1 and h == 1:
                return out
            y, w, h = y + h + 2, max(w // 2, 1), max(h // 2, 1)

    def image(self) -> np.ndarray:
        """The packed atlas, (H, W, 4) uint8."""
        corners, width, height = self._layout()
        atlas = np.zeros((height, width, 4), np.uint8)
        for (x, y), block in zip(corners, self._blocks, strict=True):
            atlas[y : y + block.shape[0], x : x + block.shape[1]] = block
        return atlas
