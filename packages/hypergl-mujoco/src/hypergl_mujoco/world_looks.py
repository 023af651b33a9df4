"""Per-world looks, for visual domain randomisation: each world's geom colours and
materials, light poses and camera poses, changed between frames without recording anything
again (but once, for a material of a kind a geom was not drawn with: the pipelines are made
for the materials the worlds show, :attr:`WorldLooks.fragment_needs`).

MuJoCo's model fields as if each world had its own copy (what MJWarp's batched model fields
are): ``geom_rgba`` and ``geom_matid`` per (world, geom), drawn as ``mjr_render`` draws
them (the material's rgba where the geom's is the default 0.5, 0.5, 0.5, 1; its specular,
shininess, emission, reflectance and texture). Each geom record has a look row of its own
beside it (``BODY_LOOK`` of :mod:`hypergl.bodies.records`: 64 bytes a geom a world, read
by the vertex stage), so a change is one NumPy write into mapped memory. Light and camera
poses replace what the data says (``light_xpos`` / ``light_xdir``, the camera's frame)
for the worlds given, until :meth:`WorldLooks.reset`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mujoco
import numpy as np

import hypergl
from hypergl.bodies.shading import DEFAULT_MATERIAL, lighting_way

from .errors import LookError
from .lights import scene_lights
from .scene import (
    DEFAULT_RGBA,
    GEOM,
    PLANE_BACK_ALPHA,
    GeomLook,
    plane_lit_grid,
    shows_its_back_transparent,
)
from .sync import GeomRecords
from .textures import ModelTextures

LOOK_DTYPE = np.dtype([("color", np.float32, 4), ("material", np.float32, 4),
                       ("texture", np.float32, 4), ("uv_map", np.float32, 4)])  # fmt: skip
LOOK_BINDING = 7  # after the records' binding (hypergl.bodies.records: BODY_LOOK)
LOOK_GLSL = """#define BODY_LOOK 1
layout(std430, binding = {binding}) readonly buffer BodyLooks {{ vec4 body_looks[]; }};
void body_look(uint row, inout vec4 color, inout vec4 material, inout vec4 texture,
               inout vec4 uv_map) {{
    color = body_looks[4u * row];
    material = body_looks[4u * row + 1u];
    texture = body_looks[4u * row + 2u];
    uv_map = body_looks[4u * row + 3u];
#if TRANSPARENT
    color.a *= texture.z;  // a plane's back: its share of the geom's alpha (else 1)
#endif
}}
"""
DEFAULT_SURFACE = (0.5, 0.5, 0.0, 0.0)  # mjv_updateScene's without a material


class LookRecords(GeomRecords):
    """Geom records with a look row each (:data:`LOOK_DTYPE`, same row order: world *
    ngeom + geom), :attr:`looks` mapped; `fragment_needs`: geom -> the texture mappings
    (and "specular") its rows may switch to (the draw pipelines are made with them):
    :attr:`WorldLooks.fragment_needs`, which grows as worlds are given other materials."""

    def __init__(self, ctx: hypergl.Context, ngeom: int, worlds: int,
                 fragment_needs: dict[int, frozenset[int | str]]) -> None:  # fmt: skip
        super().__init__(ctx, ngeom, worlds)
        self.fragment_needs: dict[int, frozenset[int | str]] = fragment_needs
        self.look_buffer: hypergl.Buffer = ctx.buffer(
            size=self.capacity * LOOK_DTYPE.itemsize, name="mujoco_world_looks"
        )
        self.looks: np.ndarray = self.look_buffer.map(LOOK_DTYPE, self.capacity)

    def body_glsl(self) -> str:
        return super().body_glsl() + LOOK_GLSL.format(binding=self.binding + LOOK_BINDING)

    def bind(self, cmd: hypergl.CommandBuffer) -> None:
        super().bind(cmd)
        cmd.bind_storage_buffer(self.look_buffer, self.binding + LOOK_BINDING)

    def release(self) -> None:
        if not self.look_buffer.released:
            self.look_buffer.release()
        super().release()


def _name_or_id(value: Any, count: int, what: str, names: Any = None) -> int:
    """One id in 0..count - 1; `names`: (model, mjtObj) when a name may stand for it."""
    if isinstance(value, str) and names is not None:
        index = mujoco.mj_name2id(names[0], names[1], value)
        if index < 0:
            raise LookError(f"the model has no {what} named {value!r}")
        return int(index)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        kind = "an int id or a name" if names is not None else "an int"
        raise LookError(f"a {what} must be {kind}, got {value!r}")
    if not 0 <= value < count:
        raise LookError(f"{what} {value} is outside 0..{count - 1}")
    return int(value)


def _indices(value: Any, count: int, what: str, names: Any = None) -> np.ndarray:
    """`value` (None: all; an id, a name or a sequence of them) as ids in 0..count - 1."""
    if value is None:
        return np.arange(count)
    items = [value] if isinstance(value, (str, int, np.integer)) else value
    if not isinstance(items, (Sequence, np.ndarray)) or not len(items):
        raise LookError(f"{what}s must be an id, a non-empty sequence of them or None, "
                        f"got {value!r}")  # fmt: skip
    return np.array([_name_or_id(v, count, what, names) for v in items], np.int64)


def _values(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """`value` broadcast to `shape`, finite float64, else a LookError naming it."""
    try:
        array = np.asarray(value, np.float64)
        out = np.broadcast_to(array, shape)
    except (TypeError, ValueError):
        raise LookError(f"{what} must be numbers broadcastable to {shape}, got "
                        f"{np.shape(value) if not isinstance(value, str) else value!r}"
                        ) from None  # fmt: skip
    if not np.isfinite(out).all():
        at = tuple(int(i) for i in np.argwhere(~np.isfinite(out))[0])
        raise LookError(f"{what} must be finite, got {out[at]} at {at}")
    return out


class WorldLooks:
    """The looks of `worlds` copies of `model`: state kept here, written into the geom
    records' look rows once they exist (:meth:`attach`) and at every change after."""

    def __init__(self, model: mujoco.MjModel, worlds: int, cameras: int,
                 looks: list[GeomLook], textures: ModelTextures) -> None:  # fmt: skip
        self.model: mujoco.MjModel = model
        self.worlds: int = worlds
        self.cameras: int = cameras
        self._textures = textures
        self._drawn = np.array([look.geom for look in looks], np.int64)
        ngeom = model.ngeom
        self.rgba: np.ndarray = np.broadcast_to(np.asarray(model.geom_rgba, np.float32),
                                    (worlds, ngeom, 4)).copy()  # fmt: skip
        self.matid: np.ndarray = np.broadcast_to(np.asarray(model.geom_matid, np.int64),
                                     (worlds, ngeom)).copy()  # fmt: skip
        # per material (row 0: none): specular, shininess, emission, reflectance
        self._surface = np.concatenate([
            np.array([DEFAULT_SURFACE], np.float32),
            np.stack([model.mat_specular, model.mat_shininess, model.mat_emission,
                      model.mat_reflectance], axis=-1).astype(np.float32).reshape(-1, 4),
        ])  # fmt: skip
        # per (geom, material + 1): texture (index, mapping, the share of the geom's alpha
        # its parts in the transparent pass show, 0) and uv_map
        self._texture = np.zeros((ngeom, model.nmat + 1, 4), np.float32)
        self._texture[..., 0] = -1.0
        self._uv_map = np.zeros((ngeom, model.nmat + 1, 4), np.float32)
        # per geom, per material + 1: what drawing the geom with it needs of the pipelines
        self._needs: dict[int, list[frozenset[int | str]]] = {}
        shares = {look.geom: PLANE_BACK_ALPHA if shows_its_back_transparent(model, look) else 1.0
                  for look in looks}  # fmt: skip
        halves = {look.geom: look.parts[0].scale for look in looks if look.parts}
        for geom in self._drawn:
            self._needs[int(geom)] = []
            for material in range(-1, model.nmat):
                needs: set[int | str] = set()
                if self._surface[material + 1, 0] != 0.0:
                    needs.add("specular")
                chosen = textures.material(int(geom), DEFAULT_MATERIAL, material)
                grid = (plane_lit_grid(model, int(geom), material)
                        if int(model.geom_type[geom]) == GEOM.mjGEOM_PLANE else 0.0)  # fmt: skip
                if grid:  # how the renderer lights the plane's part (its half sizes)
                    half = halves[int(geom)]
                    needs.add(lighting_way(grid, half[0], half[2]))
                self._texture[geom, material + 1] = (chosen.texture, chosen.mapping,
                                                     shares[int(geom)], grid)  # fmt: skip
                self._uv_map[geom, material + 1] = chosen.uv_map
                if chosen.texture >= 0:
                    needs.add(int(chosen.mapping))
                self._needs[int(geom)].append(frozenset(needs))
        # What each drawn geom's rows need of the draw pipelines: its own material's, and
        # every material a world was given since (it only grows; the geom records hold
        # this dict). Not every material it could be given: a path no world takes is
        # still paid on llvmpipe (its fragments run every path their pipeline has; the
        # cube lookup of a material the half_cheetah's capsules never show was ~11% of a
        # 256-world frame with shadows, reflection and MSAA off).
        self.fragment_needs: dict[int, frozenset[int | str]] = {
            int(g): self._needs[int(g)][int(model.geom_matid[g]) + 1] for g in self._drawn
        }
        self._rows: np.ndarray | None = None
        self._light_pose: np.ndarray | None = None  # (worlds, nlight, 6), NaN: the data's
        self._camera_pose: np.ndarray | None = None  # (worlds, cameras, 12), NaN: the data's

    def attach(self, records: LookRecords) -> None:
        """Write every world's rows into `records` and keep them written from now on."""
        self._rows = records.looks
        self._write(np.arange(self.worlds), self._drawn)

    def _write(self, worlds: np.ndarray, geoms: np.ndarray) -> None:
        """The look rows of `worlds` x `geoms` (drawn ones only) from the state, in NumPy."""
        if self._rows is None:
            return
        geoms = geoms[np.isin(geoms, self._drawn)]
        if not len(geoms):
            return
        w, g = np.meshgrid(worlds, geoms, indexing="ij")
        rgba, matid = self.rgba[w, g], self.matid[w, g]
        plain = (rgba == DEFAULT_RGBA).all(axis=-1) & (matid >= 0)
        mat_rgba = np.asarray(self.model.mat_rgba, np.float32).reshape(-1, 4)
        color = np.where(plain[..., None], mat_rgba[np.maximum(matid, 0)] if len(mat_rgba)
                         else rgba, rgba)  # fmt: skip
        rows = self._rows[(w * self.model.ngeom + g).ravel()]
        rows["color"] = color.reshape(-1, 4)
        rows["material"] = self._surface[matid + 1].reshape(-1, 4)
        rows["texture"] = self._texture[g, matid + 1].reshape(-1, 4)
        rows["uv_map"] = self._uv_map[g, matid + 1].reshape(-1, 4)
        self._rows[(w * self.model.ngeom + g).ravel()] = rows

    # --- the public calls (BatchRenderer's) ------------------------------------------------
    def _worlds(self, worlds: Any) -> np.ndarray:
        return _indices(worlds, self.worlds, "world")

    def _geoms(self, geoms: Any) -> np.ndarray:
        return _indices(geoms, self.model.ngeom, "geom", (self.model, mujoco.mjtObj.mjOBJ_GEOM))

    def set_geom_rgba(self, rgba: Any, worlds: Any = None, geoms: Any = None) -> None:
        w, g = self._worlds(worlds), self._geoms(geoms)
        values = _values(rgba, (len(w), len(g), 4), "rgba")
        if (values < 0).any() or (values > 1).any():
            at = tuple(int(i) for i in np.argwhere((values < 0) | (values > 1))[0])
            raise LookError(f"rgba must be in 0..1, got {values[at]} at {at}")
        self.rgba[np.ix_(w, g)] = values
        self._write(w, g)

    def set_geom_material(self, material: Any, worlds: Any = None, geoms: Any = None) -> bool:
        """Whether the materials given need more of the draw pipelines than they were made
        with (:attr:`fragment_needs` grew: the frame is to be recorded again)."""
        w, g = self._worlds(worlds), self._geoms(geoms)
        items = np.asarray(material, object) if not isinstance(material, str) else None
        if items is None or items.ndim == 0:
            ids = np.full((len(w), len(g)), self._material(material), np.int64)
        else:
            try:
                ids = np.broadcast_to(np.vectorize(self._material, otypes=[np.int64])(items),
                                      (len(w), len(g)))  # fmt: skip
            except ValueError as error:
                raise LookError(f"material must be one id or name, or an array of them "
                                f"broadcastable to {(len(w), len(g))}, got shape "
                                f"{items.shape}") from error  # fmt: skip
        for geom in g:
            for chosen in np.unique(ids[:, list(g).index(geom)]):
                if not self._textures.has(int(geom), int(chosen)):
                    raise LookError(f"material {int(chosen)}'s texture did not fit the "
                                    f"texture atlas: geom {int(geom)} cannot take it")  # fmt: skip
        self.matid[np.ix_(w, g)] = ids
        self._write(w, g)
        grew = False
        for geom in (int(x) for x in g if int(x) in self._needs):
            needs = self.fragment_needs[geom].union(
                *(self._needs[geom][int(m) + 1] for m in np.unique(self.matid[:, geom]))
            )
            grew = grew or needs != self.fragment_needs[geom]
            self.fragment_needs[geom] = needs
        return grew

    def _material(self, value: Any) -> int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value == -1:
            return -1  # no material: MuJoCo's defaults
        return _name_or_id(
            value, self.model.nmat, "material", (self.model, mujoco.mjtObj.mjOBJ_MATERIAL)
        )

    def set_light_pose(self, position: Any, direction: Any, worlds: Any = None,
                       lights: Any = None) -> None:  # fmt: skip
        model = self.model
        w = self._worlds(worlds)
        drawn = scene_lights(model)
        chosen = _indices(lights, model.nlight, "light", (model, mujoco.mjtObj.mjOBJ_LIGHT)
                          ) if lights is not None else np.array(drawn, np.int64)  # fmt: skip
        for light in chosen:
            if int(light) not in drawn:
                raise LookError(f"light {int(light)} is not drawn (inactive, or past the "
                                f"eight the picture has: {drawn})")  # fmt: skip
        shape = (len(w), len(chosen), 3)
        pos = _values(position, shape, "light position")
        way = _values(direction, shape, "light direction")
        length = np.linalg.norm(way, axis=-1, keepdims=True)
        if (length < 1e-9).any():
            raise LookError("light direction must not be zero")
        if self._light_pose is None:
            self._light_pose = np.full((self.worlds, max(model.nlight, 1), 6), np.nan)
        self._light_pose[np.ix_(w, chosen)] = np.concatenate([pos, way / length], axis=-1)

    def set_camera_pose(self, position: Any, xmat: Any, worlds: Any = None,
                        cameras: Any = None) -> None:  # fmt: skip
        w, c = self._worlds(worlds), _indices(cameras, self.cameras, "camera")
        pos = _values(position, (len(w), len(c), 3), "camera position")
        mat = np.asarray(xmat, np.float64) if not isinstance(xmat, str) else xmat
        if isinstance(mat, np.ndarray) and mat.shape[-1:] == (9,):
            mat = mat.reshape(*mat.shape[:-1], 3, 3)
        mat = _values(mat, (len(w), len(c), 3, 3), "camera xmat")
        error = np.abs(mat @ np.swapaxes(mat, -1, -2) - np.eye(3)).max(axis=(-1, -2))
        if (error > 1e-4).any() or (np.linalg.det(mat) < 0).any():
            at = tuple(int(i) for i in np.argwhere((error > 1e-4) | (np.linalg.det(mat) < 0))[0])
            raise LookError(f"camera xmat must be a rotation (row-major, as MuJoCo's "
                            f"cam_xmat), got {mat[at].tolist()} at {at}")  # fmt: skip
        if self._camera_pose is None:
            self._camera_pose = np.full((self.worlds, self.cameras, 12), np.nan)
        self._camera_pose[np.ix_(w, c)] = np.concatenate([pos, mat.reshape(*mat.shape[:2], 9)],
                                                         axis=-1)  # fmt: skip

    def reset(self) -> None:
        """Every world as the model and the data say."""
        model = self.model
        self.rgba[:] = np.asarray(model.geom_rgba, np.float32)
        self.matid[:] = np.asarray(model.geom_matid, np.int64)
        self._light_pose = self._camera_pose = None
        self._write(np.arange(self.worlds), self._drawn)

    # --- applied each frame ----------------------------------------------------------------
    def light_poses(self, xpos: np.ndarray, xdir: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The data's (worlds, nlight, 3) light poses with the ones set here over them."""
        if self._light_pose is None:
            return xpos, xdir
        given = self._light_pose[:, : xpos.shape[1]]
        mine = ~np.isnan(given[..., 0])
        return (np.where(mine[..., None], given[..., :3], xpos),
                np.where(mine[..., None], given[..., 3:], xdir))  # fmt: skip

    def camera_frames(self, frames: Any) -> Any:
        """The cameras' (position, forward, up), each (worlds, cameras, 3), with the poses
        set here over them (forward: minus xmat's third column, up: its second)."""
        if self._camera_pose is None:
            return frames
        given = self._camera_pose
        mine = ~np.isnan(given[..., :1])
        mat = given[..., 3:].reshape(*given.shape[:2], 3, 3)
        return type(frames)(np.where(mine, given[..., :3], frames.position),
                            np.where(mine, -mat[..., :, 2], frames.forward),
                            np.where(mine, mat[..., :, 1], frames.up))  # fmt: skip
