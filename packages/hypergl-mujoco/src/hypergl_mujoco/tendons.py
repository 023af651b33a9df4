"""Spatial tendons as ``mjv_updateScene`` draws them: a capsule per segment of the path.

A tendon's path is ``wrap_xpos[ten_wrapadr ... + ten_wrapnum]`` (MjData, every step); each
pair of neighbouring points, neither a pulley's break (``wrap_obj`` -2), is a capsule of
radius ``tendon_width`` (half of it inside a wrapping geom: both points' ``wrap_obj`` >= 0)
between them, coloured by ``tendon_rgba`` or ``tendon_matid``. A slack two-site tendon
under gravity with a length limit and no spring, damping, friction or actuator hangs as a
catenary (``mjv_isCatenary``), drawn with ``vis.quality.numslices`` segments
(:func:`catenary_points`, MuJoCo's ``mjv_catenary`` over every world at once).

Each world has a fixed number of rows, the most segments each drawn tendon can have;
``snapshot`` writes them from the worlds' arrays in a few NumPy passes over all worlds
(segments that do not exist this step get an id without a look: drawn as nothing). A row
scales its capsule's part (``BODY_SCALE`` of :mod:`hypergl.bodies.records`): its half
length, and its width's factor 1 or 0.5.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import MODE_CAPSULE, Part

from .element_records import ElementLayer, TailRecords
from .scene import Y_TO_Z, GeomLook, geom_color, geom_material

WRAP_JOINT = int(mujoco.mjtWrap.mjWRAP_JOINT)
MAX_CATENARY = 100  # mjv_catenary's cap on a catenary's points


def spatial(model: mujoco.MjModel, tendon: int) -> bool:
    """Whether `tendon`'s path has sites or geoms (a fixed tendon's is joints)."""
    first = int(model.tendon_adr[tendon])
    return int(model.wrap_type[first]) != WRAP_JOINT if model.tendon_num[tendon] else False


def catenary_candidate(model: mujoco.MjModel, tendon: int) -> bool:
    """``mjv_isCatenary`` but for the tendon's current length (checked each step): two
    sites, gravity, a spring deadband or a length limit from 0 (one of them), no damping,
    no friction loss, no actuator."""
    i = tendon
    stiff = bool(model.tendon_stiffness[i]) or bool(
        np.any(getattr(model, "tendon_stiffnesspoly", np.zeros((model.ntendon, 1)))[i])
    )
    spring = stiff and model.tendon_lengthspring[i][0] == 0 and model.tendon_lengthspring[i][1] > 0
    limit = not stiff and bool(model.tendon_limited[i]) and model.tendon_range[i][0] == 0
    damped = bool(model.tendon_damping[i]) or bool(
        np.any(getattr(model, "tendon_dampingpoly", np.zeros((model.ntendon, 1)))[i])
    )
    gravity = not (model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY) and bool(
        np.linalg.norm(model.opt.gravity) > mujoco.mjMINVAL
    )
    actuated = any(int(model.actuator_trntype[a]) == mujoco.mjtTrn.mjTRN_TENDON
                   and int(model.actuator_trnid[a][0]) == i for a in range(model.nu))  # fmt: skip
    return (gravity and int(model.tendon_num[i]) == 2 and (spring or limit) and not damped
            and model.tendon_frictionloss[i] == 0 and not actuated)  # fmt: skip


def drawn_tendons(model: mujoco.MjModel, groups: tuple[int, ...]) -> list[int]:
    """The spatial tendons of the visible `groups` (``mjvOption.tendongroup``)."""
    return [
        t
        for t in range(model.ntendon)
        if spatial(model, t) and min(max(int(model.tendon_group[t]), 0), 5) in groups
    ]


class Tendons(ElementLayer):
    """The tendon layer of a renderer: its looks (id ``first_id + tendon``), its rows (the
    most segments a world's drawn tendons can have) and their per-step write."""

    element = "tendon"

    def __init__(self, model: mujoco.MjModel, tendons: list[int], first_id: int,
                 worlds: int) -> None:  # fmt: skip
        super().__init__(model, worlds, first_id, first_id + model.ntendon + 1)
        self.none_id: int = first_id + model.ntendon  # an id without a look: nothing drawn
        self.catenary_points: int = min(int(model.vis.quality.numslices) + 1, MAX_CATENARY)
        table: list[tuple[int, int]] = []  # (tendon, segment) per row of a world
        self.catenaries: list[int] = [t for t in tendons if catenary_candidate(model, t)]
        for t in tendons:
            most = 2 * int(model.tendon_num[t]) - 1  # a wrapping geom adds two points
            if t in self.catenaries:
                most = max(most, self.catenary_points - 1)
            table += [(t, s) for s in range(most)]
        self.row_tendon: np.ndarray = np.array([t for t, _ in table], np.int64)
        self.row_segment: np.ndarray = np.array([s for _, s in table], np.int64)
        self.count = len(table)
        self.copies: int = int(np.bincount(self.row_tendon).max()) if table else 1  # per id
        for t in tendons:
            rgba = geom_color(model, t, "tendon")
            if rgba[3] == 0 or model.tendon_width[t] <= 0:
                continue  # nothing to see
            width = float(model.tendon_width[t])
            part = Part("capsule", rotation=Y_TO_Z, scale=(width, 1.0, width), mode=MODE_CAPSULE)
            material = geom_material(model, t, rgba, "tendon")
            self.looks.append(GeomLook(first_id + t, [part], {}, tuple(rgba[:3]), material))

    def arrays(self) -> dict[str, tuple[int, ...]]:
        """The MjData fields each step needs (WorldArrays' (rows, width[, int]))."""
        points = 2 * self.model.nwrap
        needed: dict[str, tuple[int, ...]] = {
            "wrap_xpos": (points, 3), "wrap_obj": (points, 1, 1),
            "ten_wrapadr": (self.model.ntendon, 1, 1), "ten_wrapnum": (self.model.ntendon, 1, 1),
        }  # fmt: skip
        if self.catenaries:
            needed["ten_length"] = (self.model.ntendon, 1)
        return needed

    def memory_per_world(self, cameras: int) -> int:
        """One world's rows, their instance lists and the pulled path arrays."""
        model = self.model
        instances = self.instance_bytes(cameras, len(self.looks), self.copies)
        return self.count * 64 + instances + 2 * model.nwrap * 28 + model.ntendon * 16

    def make_records(self, ctx: hypergl.Context) -> TailRecords:
        records = self._make_records(ctx, "scale", np.full(self.count, self.none_id))
        records.rows["id"] = self.none_id  # the spare row too
        return records

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        """Every world's segments from its pulled arrays, into the records."""
        if self.records is None or not self.count:
            return
        worlds = self.worlds
        xpos = arrays["wrap_xpos"].reshape(worlds, -1, 3)
        obj = arrays["wrap_obj"].reshape(worlds, -1)
        first = arrays["ten_wrapadr"].reshape(worlds, -1)[:, self.row_tendon]
        number = arrays["ten_wrapnum"].reshape(worlds, -1)[:, self.row_tendon]
        length = arrays.get("ten_length")
        last = max(xpos.shape[1] - 2, 0)
        at = np.clip(first + self.row_segment, 0, last)
        world = np.arange(worlds)[:, None]
        a, b = xpos[world, at], xpos[world, at + 1]
        obj_a, obj_b = obj[world, at], obj[world, at + 1]
        valid = (self.row_segment < number - 1) & (obj_a != -2) & (obj_b != -2)
        factor = np.where((obj_a >= 0) & (obj_b >= 0), 0.5, 1.0)
        if self.catenaries and length is not None:
            a, b, valid, factor = self._catenaries(xpos, first, length.reshape(worlds, -1),
                                                   a, b, valid, factor)  # fmt: skip
        rows = self.records.rows[: worlds * self.count]
        position, rotation, half = connectors(a.reshape(-1, 3), b.reshape(-1, 3))
        valid = valid.reshape(-1) & np.isfinite(position).all(axis=1)
        ids = np.where(valid, self.first_id + np.tile(self.row_tendon, worlds), self.none_id)
        rows["position"] = np.where(valid[:, None], position, 0.0)
        rows["rotation"] = np.where(valid[:, None, None], rotation, np.eye(3))
        factor = factor.reshape(-1)
        rows["scale"] = np.stack([factor, np.where(valid, half, 0.0), factor], axis=1)
        rows["id"] = ids

    def _catenaries(self, xpos, first, length, a, b, valid, factor):  # type: ignore[no-untyped-def]
        """The rows of the catenary tendons that hang slack this step, replaced by their
        curve's segments (MuJoCo's mjv_catenary, every world at once)."""
        model = self.model
        for t in self.catenaries:
            rows = np.nonzero(self.row_tendon == t)[0]
            start = xpos[np.arange(self.worlds), first[:, rows[0]]]
            end = xpos[np.arange(self.worlds), first[:, rows[0]] + 1]
            if model.tendon_limited[t] and not model.tendon_stiffness[t]:
                limit = float(model.tendon_range[t][1])
                hanging = length[:, t] < limit  # limited, and not at the limit
            else:
                limit = float(model.tendon_lengthspring[t][1])
                hanging = np.ones(self.worlds, bool)
            points, count = catenary_points(start, end, model.opt.gravity, limit,
                                            self.catenary_points)  # fmt: skip
            curve = hanging & (count > 2)
            k = np.arange(len(rows))
            inside = k[None, :] < (count[:, None] - 1)
            use = curve[:, None]
            seg_a = points[:, np.minimum(k, points.shape[1] - 2)]
            seg_b = points[:, np.minimum(k + 1, points.shape[1] - 1)]
            a[:, rows] = np.where(use[..., None], seg_a, a[:, rows])
            b[:, rows] = np.where(use[..., None], seg_b, b[:, rows])
            valid[:, rows] = np.where(use, inside, valid[:, rows])
            factor[:, rows] = np.where(use, 1.0, factor[:, rows])
        return a, b, valid, factor

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """Nothing on the GPU before the draw: the rows are written by :meth:`write`."""


def connectors(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``mjv_connector``'s capsule from `a` to `b` (n, 3): its centre, a rotation (n, 3, 3,
    row-major) whose z runs along it, and its half length."""
    axis = b - a
    length = np.linalg.norm(axis, axis=1)
    z = np.where(length[:, None] > 1e-12, axis / np.maximum(length, 1e-12)[:, None],
                 (0.0, 0.0, 1.0))  # fmt: skip
    # any x perpendicular to z: from the world axis least along it
    helper = np.where(np.abs(z[:, [0]]) < 0.9, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    x = np.cross(helper, z)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.cross(z, x)
    rotation = np.stack([x, y, z], axis=2)  # columns: the capsule's axes in the world
    return 0.5 * (a + b), rotation, 0.5 * length


def catenary_points(x0: np.ndarray, x1: np.ndarray, gravity: Any, length: float,
                    count: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``mjv_catenary`` for every world: (worlds, count, 3) points of a string of `length`
    hanging from `x0` to `x1` (worlds, 3) and how many of them each world uses (2: taut,
    a straight line; 3: nearly vertical, a bead; else `count`)."""
    worlds = len(x0)
    up = -np.asarray(gravity, np.float64)
    up /= np.linalg.norm(up)
    x01 = x1 - x0
    across = x01 - np.outer(x01 @ up, up)
    norm = np.linalg.norm(across, axis=1)
    across = np.where(
        norm[:, None] < mujoco.mjMINVAL, 0.0, across / np.maximum(norm, 1e-300)[:, None]
    )
    h = np.einsum("ij,ij->i", x01, across)
    v = x01 @ up
    dist = np.linalg.norm(x01, axis=1)
    points = np.repeat(x1[:, None, :], count, axis=1)
    points[:, 0] = x0
    used = np.full(worlds, count)
    taut = dist > length
    used[taut] = 2
    points[taut, 1] = x1[taut]
    bead = ~taut & (length > 100 * h)
    if bead.any():
        d_up = -0.5 * (np.sqrt(np.maximum(length**2 - h**2, 0.0)) - v)
        d_across = h * d_up / (2 * d_up - v)
        middle = x0 + up * d_up[:, None] + across * d_across[:, None]
        points[bead, 1] = middle[bead]
        points[bead, 2] = x1[bead]
        used[bead] = 3
    full = ~taut & ~bead
    if full.any():
        hh, vv = h[full], v[full]
        bh = _solve_catenary(vv, hh, length) * hh
        h_offset = -0.5 * (np.log((length + vv) / (length - vv)) * bh - hh)
        v_offset = -np.cosh(h_offset / bh) * bh
        i = np.arange(1, count - 1)
        horizontal = i[None, :] * hh[:, None] / count
        vertical = (
            bh[:, None] * np.cosh((horizontal - h_offset[:, None]) / bh[:, None])
            + v_offset[:, None]
        )
        inner = (x0[full][:, None, :] + across[full][:, None, :] * horizontal[..., None]
                 + up[None, None, :] * vertical[..., None])  # fmt: skip
        points[np.nonzero(full)[0][:, None], i[None, :]] = inner
    return points, used


def _solve_catenary(v: np.ndarray, h: np.ndarray, length: float) -> np.ndarray:
    """MuJoCo's solve_catenary for every world: Newton steps (each with a backtracking line
    search) on b, the catenary's flatness after its change of variables."""
    intercept = 1.0 / np.sqrt(np.sqrt(length**2 - v**2) / h - 1.0)
    b = intercept / np.sqrt(24.0)
    for _ in range(50):
        res, grad = _residual(b, intercept)
        going = np.abs(res) >= 1e-9
        if not going.any():
            break
        step = -res / grad
        for _ in range(10):
            worse = np.abs(_residual(b + step, intercept)[0]) >= np.abs(res)
            if not worse.any():
                break
            step = np.where(worse, 0.5 * step, step)
        b = np.where(going, b + step, b)
    return b


def _residual(b: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """catenary_residual and its gradient in b."""
    a = 0.5 / b
    with np.errstate(over="ignore", invalid="ignore"):
        sinh, cosh = np.sinh(a), np.cosh(a)
        inner = 2 * b * sinh - 1
        return 1 / np.sqrt(inner) - intercept, (a * cosh - sinh) * inner**-1.5
