"""A model's compiled textures (``tex_data``) in the body renderer's atlas, and how each
geom maps its material's texture, as ``mjr_render`` does.

* 2D textures on planes and boxes take the built-in shapes' own texture coordinates (a
  plane's 0..1 across, an infinite one's half a unit per metre around the origin; each box
  face 0..1), times ``mat_texrepeat`` (times the geom's size with ``mat_texuniform``).
* Cube textures are looked up along the unit shape's coordinates (times the size with
  ``mat_texuniform``), a capsule's caps beyond 1 along its axis, as MuJoCo's texture
  generation reads the vertices it draws.
* The first skybox texture is the sky (:mod:`hypergl_mujoco.sky`).

Checker, grid and gradient builtins arrive compiled into ``tex_data``: nothing is generated
here. Not drawn yet: 2D textures on spheres, capsules, cylinders, meshes and height fields
(drawn untextured, with their colour).
"""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np

from hypergl.bodies import (
    TEXTURE_BOX,
    TEXTURE_CUBE,
    TEXTURE_CUBE_Y_UP,
    TEXTURE_PLANAR,
    Material,
    TextureAtlas,
)
from hypergl.errors import BodyError

from .errors import DataError

GEOM = mujoco.mjtGeom
KIND = mujoco.mjtTexture
ROLE_RGB = int(mujoco.mjtTextureRole.mjTEXROLE_RGB)
Y_UP = (int(GEOM.mjGEOM_CAPSULE), int(GEOM.mjGEOM_CYLINDER))  # parts made along y
CUBE_ON = (int(GEOM.mjGEOM_SPHERE), int(GEOM.mjGEOM_ELLIPSOID), int(GEOM.mjGEOM_BOX),
           *Y_UP)  # fmt: skip


def texture_pixels(model: mujoco.MjModel, tex: int) -> np.ndarray:
    """(H, W, C) uint8 of texture `tex`, rows as uploaded (GL's t = 0 first)."""
    w, h, c = int(model.tex_width[tex]), int(model.tex_height[tex]), int(model.tex_nchannel[tex])
    if c not in (1, 3, 4):
        raise DataError(f"texture {tex} has {c} channels: the classic picture draws 3 or 4")
    first = int(model.tex_adr[tex])
    return np.asarray(model.tex_data[first : first + w * h * c]).reshape(h, w, c)


def cube_faces(model: mujoco.MjModel, tex: int) -> np.ndarray:
    """(6, S, S, C): a square image repeated on every face, else six faces stacked."""
    pixels = texture_pixels(model, tex)
    h, w = pixels.shape[:2]
    if h == w:
        return np.broadcast_to(pixels, (6, *pixels.shape))
    return pixels.reshape(6, w, w, pixels.shape[2])


def skybox_texture(model: mujoco.MjModel) -> int:
    """The first skybox texture (MuJoCo draws that one), or -1."""
    for tex in range(model.ntex):
        if int(model.tex_type[tex]) == int(KIND.mjTEXTURE_SKYBOX):
            return tex
    return -1


def geom_texture(model: mujoco.MjModel, geom: int, material: int | None = None) -> int:
    """The texture MuJoCo draws `geom` with (its material's rgb role; `material`: that
    material's instead of the geom's), or -1."""
    material = int(model.geom_matid[geom]) if material is None else material
    if material < 0:
        return -1
    return int(model.mat_texid[material][ROLE_RGB])


class ModelTextures:
    """The atlas of the textures the drawn geoms use and the sky; each geom's mapping.
    `choices`: also every other material's texture a drawn geom could be given (per-world
    looks, :mod:`.world_looks`), as far as the atlas has room."""

    def __init__(self, model: mujoco.MjModel, geoms: list[int], far: float, *,
                 sky: bool = True, choices: bool = False) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        self.far: float = far
        self.atlas: TextureAtlas = TextureAtlas()
        self._index: dict[int, int] = {}
        self.sky: int = -1  # the sky's first face in the atlas
        skybox = skybox_texture(model) if sky else -1
        if skybox >= 0:
            self.sky = self.atlas.add_cube(cube_faces(model, skybox))
        for geom in geoms:
            self._add(geom, int(model.geom_matid[geom]))
        for material in range(model.nmat) if choices else ():
            for geom in geoms:  # the model's own first: a choice that does not fit is left
                try:
                    self._add(geom, material)
                except BodyError:
                    break

    def _add(self, geom: int, material: int) -> None:
        """`material`'s texture into the atlas, if `geom` maps it and it is not there."""
        model = self.model
        tex = geom_texture(model, geom, material)
        if tex >= 0 and tex not in self._index and self._mapping(geom, tex, material) is not None:
            if int(model.tex_type[tex]) == int(KIND.mjTEXTURE_2D):
                self._index[tex] = self.atlas.add_2d(texture_pixels(model, tex))
            else:
                self._index[tex] = self.atlas.add_cube(cube_faces(model, tex))

    def _mapping(self, geom: int, tex: int, material: int
                 ) -> tuple[int, tuple[float, ...]] | None:  # fmt: skip
        """(mapping, uv_map) of `geom` drawn with texture `tex` of `material`; None: drawn
        untextured."""
        model = self.model
        kind, shape = int(model.tex_type[tex]), int(model.geom_type[geom])
        uniform = bool(model.mat_texuniform[material])
        repeat = [float(r) if r > 0 else 1.0 for r in model.mat_texrepeat[material]]
        size = [float(v) for v in model.geom_size[geom]]
        if kind == int(KIND.mjTEXTURE_2D):
            if shape == int(GEOM.mjGEOM_PLANE):
                # The part's unit x is the plane's x, its unit z minus the plane's y.
                numbers = []
                for k in range(2):
                    if size[k] > 0:  # 0..1 across, times the repeat (and the size)
                        scale = repeat[k] * (size[k] if uniform else 1.0)
                        numbers.append((scale / 2, scale / 2))
                    else:  # infinite: half a unit per metre about the origin, less 0.5
                        numbers.append((repeat[k] * 0.5 * self.far, -0.5))
                (su, ou), (sv, ov) = numbers
                return TEXTURE_PLANAR, (su, sv, ou, ov)
            if shape == int(GEOM.mjGEOM_BOX):
                su = repeat[0] * (size[0] if uniform and size[0] > 0 else 1.0)
                sv = repeat[1] * (size[1] if uniform and size[1] > 0 else 1.0)
                return TEXTURE_BOX, (su, sv, 0.0, 0.0)
            return None
        if shape not in CUBE_ON:
            return None
        radii = {
            int(GEOM.mjGEOM_SPHERE): (size[0],) * 3,
            int(GEOM.mjGEOM_CAPSULE): (size[0], size[0], size[1]),
            int(GEOM.mjGEOM_CYLINDER): (size[0], size[0], size[1]),
        }.get(shape, size)
        scale = radii if uniform else (1.0, 1.0, 1.0)
        if shape in Y_UP:  # the part's axes: x, then the axis (MuJoCo's z), then y
            return TEXTURE_CUBE_Y_UP, (scale[0], scale[2], scale[1], 0.0)
        return TEXTURE_CUBE, (*scale, 0.0)

    def has(self, geom: int, material: int) -> bool:
        """Whether `geom` given `material` draws its texture as MuJoCo would (False: the
        texture did not fit the atlas)."""
        tex = geom_texture(self.model, geom, material)
        return tex < 0 or tex in self._index or self._mapping(geom, tex, material) is None

    def material(self, geom: int, base: Material, material: int | None = None) -> Material:
        """`base` with `geom`'s texture and mapping, where it has one drawn (`material`:
        that material's texture, not the geom's own)."""
        material = int(self.model.geom_matid[geom]) if material is None else material
        tex = geom_texture(self.model, geom, material)
        mapped = self._mapping(geom, tex, material) if tex in self._index else None
        if mapped is None:  # no texture, or one this shape does not map: untextured
            return base
        mapping, uv_map = mapped
        # replace: base's lit_grid too (a textured plane's: without it the part table had
        # the plane lit per fragment, and its pipeline ran both ways of lighting, LIT_GRID 1)
        return replace(base, texture=self._index[tex], mapping=mapping,
                       uv_map=uv_map)  # type: ignore[arg-type]  # fmt: skip
