"""MuJoCo's cameras as OpenGL view-projection matrices, for many worlds and cameras at once.

What MuJoCo 4 does, mirrored exactly (``mjv_updateCamera``, ``mjv_cameraFrame``,
``mjv_cameraFrustum``; ``mjr_render`` draws a mono frame with the average of the two
eyes, which cancels ``ipd``):

- a model camera (``mjCAMERA_FIXED``; fixed and tracking modes alike, since ``mj_kinematics``
  has already moved it): position ``cam_xpos``, forward minus the third column of ``cam_xmat``,
  up its second column; vertical field of view ``cam_fovy`` (orthographic: ``cam_fovy`` is the
  height in metres), or the sensor's intrinsics (``cam_sensorsize``, ``cam_intrinsic``: an
  asymmetric frustum whose width does not follow the image's aspect);
- a free camera (``mujoco.MjvCamera``, ``mjCAMERA_FREE``): forward from azimuth and elevation,
  the eye ``distance`` behind ``lookat``, the field of view ``model.vis.global_.fovy``,
  orthographic when the camera's ``orthographic`` is set (MuJoCo 3: when the model's
  ``vis.global_.orthographic`` is); ``mjCAMERA_TRACKING`` is the same
  looking at ``data.subtree_com[trackbodyid]`` of each world;
- near and far ``model.vis.map.znear`` / ``zfar`` times ``model.stat.extent``.

Matrices are row-major for column vectors, OpenGL clip space with depth -1..1 (not MuJoCo's
reversed depth): ``hypergl.bodies.BodyRenderer.set_views`` takes them as they are. All worlds
are computed in one vectorised NumPy call; Python loops only over the cameras (to read each
``MjvCamera``, which the caller may move between frames).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import mujoco
import numpy as np

from hypergl import transforms
from hypergl.finite import check_within

from .errors import CameraError
from .versions import parse

# A free camera is orthographic by its own ``orthographic`` from MuJoCo 4 on; before,
# mjv_updateScene took the model's ``vis.global_.orthographic`` (and ignored the camera's).
FREE_CAMERA_PROJECTION = parse(mujoco.__version__) >= (4, 0, 0)
# A sensor camera's principal point cy counts down from the image's top from MuJoCo 4 on
# (mjv_cameraFrustum); MuJoCo 3 counted it up: its frustum's top and bottom are swapped.
PRINCIPAL_FROM_TOP = FREE_CAMERA_PROJECTION

FREE = int(mujoco.mjtCamera.mjCAMERA_FREE)
TRACKING = int(mujoco.mjtCamera.mjCAMERA_TRACKING)
FIXED = int(mujoco.mjtCamera.mjCAMERA_FIXED)
ORTHOGRAPHIC = int(mujoco.mjtProjection.mjPROJ_ORTHOGRAPHIC)

# forward = -(third column), up = second column of a row-major 3x3 (MuJoCo's cam_xmat)
_THIRD_COLUMN = [2, 5, 8]
_SECOND_COLUMN = [1, 4, 7]


class CameraFrames(NamedTuple):
    """Per world and camera, float64 arrays shaped (worlds, cameras, 3)."""

    position: np.ndarray
    forward: np.ndarray
    up: np.ndarray


def _choices(model: Any) -> str:
    names = [f"{mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_CAMERA, i) or '(unnamed)'!r} ({i})"
             for i in range(model.ncam)]  # fmt: skip
    cameras = f"its cameras: {', '.join(names)}" if names else "the model has no cameras"
    return f"{cameras}; or -1 / a mujoco.MjvCamera for a free or tracking camera"


def camera_id(model: Any, item: Any) -> int:
    """The model camera ``item`` names: a camera name, an id in ``0..ncam-1`` or an
    ``MjvCamera`` of type ``mjCAMERA_FIXED`` (its ``fixedcamid``); -1 for a free or tracking
    camera (an ``MjvCamera`` of that type, or -1 itself, gymnasium's free camera). Raises
    :class:`CameraError` naming the valid choices."""
    if isinstance(item, mujoco.MjvCamera):
        kind = int(item.type)
        if kind == FIXED:
            return camera_id(model, int(item.fixedcamid))
        if kind == TRACKING:
            body = int(item.trackbodyid)
            if not 0 <= body < model.nbody:
                raise CameraError(f"tracking camera: trackbodyid {body} is not a body of the "
                                  f"model (0..{model.nbody - 1})")  # fmt: skip
            return -1
        if kind == FREE:
            return -1
        raise CameraError(f"MjvCamera of type {kind} (mjCAMERA_USER) has no pose MuJoCo "
                          "computes; use mjCAMERA_FREE, mjCAMERA_TRACKING or "
                          "mjCAMERA_FIXED")  # fmt: skip
    if isinstance(item, str):
        found = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, item)
        if found < 0:
            raise CameraError(f"camera {item!r} is not in the model; {_choices(model)}")
        return int(found)
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        if -1 <= int(item) < model.ncam:
            return int(item)
        raise CameraError(f"camera id {int(item)} is not in the model; {_choices(model)}")
    raise CameraError(f"a camera is a name, an id or a mujoco.MjvCamera, got {item!r}; "
                      f"{_choices(model)}")  # fmt: skip


def _default_free_camera(model: Any) -> Any:
    camera = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, camera)
    return camera


def _world_array(value: Any, name: str, rows: int, width: int) -> np.ndarray:
    """`value` as (worlds, rows, width) float64; one world may come as (rows, width)."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 2:
        array = array[None]
    if array.ndim == 4 and array.shape[-2:] == (3, 3) and width == 9:
        array = array.reshape(*array.shape[:2], 9)
    if array.ndim != 3 or array.shape[1:] != (rows, width):
        raise CameraError(f"{name} must be shaped (worlds, {rows}, {width}) or ({rows}, "
                          f"{width}), got {np.shape(value)}")  # fmt: skip
    return array


def look_at(position: np.ndarray, forward: np.ndarray, up: np.ndarray) -> np.ndarray:
    """View matrices (..., 4, 4) as ``mjr_lookAt`` builds them (up re-orthogonalised):
    hypergl's camera math (:func:`hypergl.transforms.look_along`)."""
    return transforms.look_along(position, forward, up)


def projection(frustum: np.ndarray, orthographic: np.ndarray) -> np.ndarray:
    """glFrustum / glOrtho matrices (..., 4, 4) from (..., 6) frustums
    (left, right, bottom, top, near, far); depth -1..1: hypergl's camera math
    (:func:`hypergl.transforms.frustum_projection`)."""
    return transforms.frustum_projection(frustum, orthographic)


class Cameras:
    """The cameras a batch renders, resolved once against ``model``: each item a camera name,
    a camera id (-1: the model's default free camera), or a ``mujoco.MjvCamera`` (kept by
    reference: moving it moves the view; never written to). A single item is one camera."""

    def __init__(self, model: Any, cameras: Any) -> None:
        if isinstance(cameras, (str, int, np.integer, mujoco.MjvCamera)):
            cameras = [cameras]
        if not isinstance(cameras, Sequence) or len(cameras) == 0:
            raise CameraError(f"cameras must be a non-empty sequence of names, ids or "
                              f"mujoco.MjvCamera, got {cameras!r}; {_choices(model)}")  # fmt: skip
        self._model = model
        self._projections: tuple[Any, np.ndarray] | None = None  # (frustums, matrices)
        self._items: list[Any] = []  # ids (int) and MjvCamera
        for item in cameras:
            found = camera_id(model, item)
            if isinstance(item, mujoco.MjvCamera):
                self._items.append(item)
            else:
                self._items.append(found if found >= 0 else _default_free_camera(model))

    def __len__(self) -> int:
        return len(self._items)

    def _resolved(self) -> list[Any]:
        """Each camera as a model camera id or a free/tracking MjvCamera, as of now."""
        return [item if isinstance(item, int) or camera_id(self._model, item) < 0
                else int(item.fixedcamid) for item in self._items]  # fmt: skip

    @property
    def model_cameras(self) -> np.ndarray:
        """The model camera id of each camera, -1 for free and tracking ones."""
        return np.array([item if isinstance(item, int) else -1 for item in self._resolved()])

    @property
    def tracked_bodies(self) -> np.ndarray:
        """The body each tracking camera follows (its ``subtree_com``), -1 for the others."""
        return np.array([int(item.trackbodyid) if not isinstance(item, int)
                         and int(item.type) == TRACKING else -1
                         for item in self._resolved()])  # fmt: skip

    def frames(self, cam_xpos: Any = None, cam_xmat: Any = None, subtree_com: Any = None
               ) -> CameraFrames:  # fmt: skip
        """Position, forward and up of every (world, camera). ``cam_xpos`` (worlds, ncam, 3)
        and ``cam_xmat`` (worlds, ncam, 9) are needed when a model camera is used,
        ``subtree_com`` (worlds, nbody, 3) when a tracking one is; the worlds are the leading
        dimension of what is given (1 when nothing is)."""
        model, items = self._model, self._resolved()
        fixed = [k for k, item in enumerate(items) if isinstance(item, int)]
        free = [k for k, item in enumerate(items) if not isinstance(item, int)]
        given = {}
        if cam_xpos is not None or fixed:
            given["cam_xpos"] = _world_array(cam_xpos, "cam_xpos", model.ncam, 3)
        if cam_xmat is not None or fixed:
            given["cam_xmat"] = _world_array(cam_xmat, "cam_xmat", model.ncam, 9)
        tracked = [k for k in free if int(items[k].type) == TRACKING]
        if subtree_com is not None or tracked:
            given["subtree_com"] = _world_array(subtree_com, "subtree_com", model.nbody, 3)
        worlds = {name: array.shape[0] for name, array in given.items()}
        if len(set(worlds.values())) > 1:
            raise CameraError(f"world arrays disagree on the number of worlds: {worlds}")
        count = next(iter(worlds.values()), 1)
        shape = (count, len(items), 3)
        position, forward, up = np.empty(shape), np.empty(shape), np.empty(shape)
        if fixed:
            ids = [items[k] for k in fixed]
            mat = given["cam_xmat"][:, ids]
            position[:, fixed] = given["cam_xpos"][:, ids]
            forward[:, fixed] = -mat[..., _THIRD_COLUMN]
            up[:, fixed] = mat[..., _SECOND_COLUMN]
        if free:
            angles = np.radians([[items[k].azimuth, items[k].elevation] for k in free])
            ca, sa = np.cos(angles[:, 0]), np.sin(angles[:, 0])
            ce, se = np.cos(angles[:, 1]), np.sin(angles[:, 1])
            ahead = np.stack([ce * ca, ce * sa, se], axis=-1)
            forward[:, free] = ahead
            up[:, free] = np.stack([-se * ca, -se * sa, ce], axis=-1)
            lookat = np.broadcast_to(np.array([items[k].lookat for k in free]),
                                     (count, len(free), 3)).copy()  # fmt: skip
            if tracked:
                where = np.array([free.index(k) for k in tracked])
                lookat[:, where] = given["subtree_com"][:, [int(items[k].trackbodyid)
                                                            for k in tracked]]  # fmt: skip
            distance = np.array([items[k].distance for k in free])[:, None]
            position[:, free] = lookat - ahead * distance
        # say what is wrong rather than draw through NaN: a data never forwarded (zero
        # cam_xmat), a free camera with non-finite numbers
        unit = np.abs(np.einsum("...i,...i", forward, forward) - 1.0) < 1e-3
        bad = np.argwhere(~(unit & np.isfinite(position).all(axis=-1)))
        if len(bad):
            world, camera = (int(v) for v in bad[0])
            item = items[camera]
            if isinstance(item, int):
                raise CameraError(f"camera {camera} of world {world} has no pose (cam_xpos "
                                  f"{given['cam_xpos'][world, item].tolist()}, cam_xmat "
                                  f"{given['cam_xmat'][world, item].tolist()}): run "
                                  "mujoco.mj_forward on the data first")  # fmt: skip
            raise CameraError(f"camera {camera} (an MjvCamera) has non-finite numbers: "
                              f"azimuth {item.azimuth}, elevation {item.elevation}, distance "
                              f"{item.distance}, lookat {list(item.lookat)}")  # fmt: skip
        return CameraFrames(position, forward, up)

    def frustums(self, aspect: float) -> tuple[np.ndarray, np.ndarray]:
        """(cameras, 6) frustums (left, right, bottom, top, near, far) in metres at the near
        plane (orthographic: the view volume) for images of width/height ``aspect``, and
        (cameras,) bool: orthographic."""
        aspect = float(aspect)
        if not np.isfinite(aspect) or aspect <= 0.0:
            raise CameraError(f"aspect must be a finite width/height > 0, got {aspect!r}")
        model, items = self._model, self._resolved()
        extent = model.stat.extent
        # float32 as MuJoCo stores them (its frustum is float); past float32: refused below
        with np.errstate(over="ignore"):
            near = np.float32(model.vis.map.znear * extent)
            far = np.float32(model.vis.map.zfar * extent)
        out = np.empty((len(items), 6))
        ortho = np.zeros(len(items), bool)
        for k, item in enumerate(items):
            with np.errstate(all="ignore"):  # a zero fx, fovy or extent: refused just below
                fovy, sensor = self._frustum(k, item, aspect, near, far, out, ortho)
            left, right, bottom, top = out[k, :4]
            if not (np.isfinite(out[k]).all() and left < right and bottom < top
                    and 0 < near < far):  # fmt: skip
                lens = f"fovy {fovy:g}" if sensor is None else (
                    f"sensorsize {sensor[0].tolist()}, intrinsic {sensor[1].tolist()}")  # fmt: skip
                raise CameraError(
                    f"camera {k} ({self._name(item)}) sees nothing: {lens}, near {near:g} and "
                    f"far {far:g} (vis.map.znear {model.vis.map.znear:g} and zfar "
                    f"{model.vis.map.zfar:g} x stat.extent {extent:g}) give the frustum left "
                    f"{left:g}, right {right:g}, bottom {bottom:g}, top {top:g}"
                )
        return out, ortho

    def _name(self, item: Any) -> str:
        if not isinstance(item, int):
            return "an MjvCamera"
        name = mujoco.mj_id2name(self._model, mujoco.mjtObj.mjOBJ_CAMERA, item)
        return f"model camera {item}" + (f" {name!r}" if name else "")

    def _frustum(self, k: int, item: Any, aspect: float, near: Any, far: Any, out: np.ndarray,
                 ortho: np.ndarray) -> tuple[float, Any]:  # fmt: skip
        """Camera k's frustum into ``out[k]``, ``ortho[k]``; (its fovy, its sensor or None)."""
        model = self._model
        sensor = None
        if isinstance(item, int):
            ortho[k] = model.cam_projection[item] == ORTHOGRAPHIC
            fovy = float(model.cam_fovy[item])
            if model.cam_sensorsize[item][1]:
                sensor = (model.cam_sensorsize[item], model.cam_intrinsic[item])
        else:
            ortho[k] = bool(item.orthographic if FREE_CAMERA_PROJECTION
                            else model.vis.global_.orthographic)  # fmt: skip
            fovy = float(model.vis.global_.fovy)
        if ortho[k]:
            top = bottom = np.float32(fovy / 2)
        elif sensor is not None:
            (sx, sy), (fx, fy, cx, cy) = sensor
            top, bottom = near / fy * (sy / 2 - cy), near / fy * (sy / 2 + cy)
            if not PRINCIPAL_FROM_TOP:
                top, bottom = bottom, top
            hor = (near / fx * (sx / 2 - cx), near / fx * (sx / 2 + cx))
        else:
            top = bottom = np.float32(near * np.tan(fovy * np.pi / 360.0))
        if sensor is not None and not ortho[k]:
            left, right = -hor[0], hor[1]  # MuJoCo: center -/+ width from zhor
        else:
            half = 0.5 * aspect * (top + bottom)
            left, right = -half, half
        out[k] = (left, right, -bottom, top, near, far)
        return fovy, sensor

    def view_projections(self, aspect: float, cam_xpos: Any = None, cam_xmat: Any = None,
                         subtree_com: Any = None) -> np.ndarray:  # fmt: skip
        """(worlds, cameras, 4, 4) float64 view-projection matrices (see :meth:`frames` for
        the arrays) for images of width/height ``aspect``."""
        return self.views(aspect, cam_xpos, cam_xmat, subtree_com)[0]

    def views(self, aspect: float, cam_xpos: Any = None, cam_xmat: Any = None,
              subtree_com: Any = None, adjust: Any = None
              ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The view-projection matrices of :meth:`view_projections` and (worlds, cameras,
        4) depth rows: a point's distance along the view axis (what MuJoCo's depth is, for
        perspective and orthographic cameras alike) is the row's dot product with (x, y,
        z, 1). `adjust`: frames -> frames (per-world camera poses set over the data's)."""
        frames = self.frames(cam_xpos, cam_xmat, subtree_com)
        if adjust is not None:
            frames = adjust(frames)
        frustum, ortho = self.frustums(aspect)
        # the projections, made again only when a frustum changes (the model's fovy, an
        # MjvCamera's projection): 80 us of ~20 small NumPy calls a frame otherwise
        key = (frustum.tobytes(), ortho.tobytes())
        if self._projections is None or self._projections[0] != key:
            self._projections = (key, projection(frustum, ortho))
        with np.errstate(all="ignore"):  # what overflows is refused just below
            matrices = self._projections[1][None] @ look_at(*frames)
            forward = frames.forward / np.linalg.norm(frames.forward, axis=-1, keepdims=True)
            offset = -np.einsum("...i,...i", forward, frames.position)[..., None]

        def camera(at: tuple[int, ...]) -> str:
            world, k = at
            return (
                f"the view-projection of camera {k} ({self._name(self._resolved()[k])}) of "
                f"world {world}, at {frames.position[world, k].tolist()}, looking "
                f"{frames.forward[world, k].tolist()},"
            )

        # the float32 the views store: a camera 1e300 away, a 1e38 pose, would overflow there
        matrices = check_within(matrices, camera, CameraError, items=2, show=False)
        return matrices, np.concatenate([forward, offset], axis=-1)


def world_arrays(data: Any) -> dict[str, np.ndarray]:
    """``cam_xpos``, ``cam_xmat`` and ``subtree_com`` of one ``MjData`` (one world), a
    sequence of them or a ``mujoco.batch.Batch``, stacked over worlds. A convenience that
    copies: a renderer reads the live arrays instead."""
    names = ("cam_xpos", "cam_xmat", "subtree_com")
    if isinstance(data, mujoco.MjData):
        return {name: np.asarray(getattr(data, name))[None] for name in names}
    if hasattr(data, "bind") and hasattr(data, "nsim"):
        return {name: np.array(data.bind(name)) for name in names}
    if isinstance(data, Sequence) and len(data) and all(isinstance(d, mujoco.MjData) for d in data):
        return {name: np.stack([getattr(d, name) for d in data]) for name in names}
    raise CameraError(f"data must be an MjData, a non-empty sequence of them or a "
                      f"mujoco.batch.Batch, got {type(data).__name__}")  # fmt: skip


def camera_matrices(model: Any, data: Any, cameras: Any, aspect: float) -> np.ndarray:
    """(worlds, cameras, 4, 4) view-projection matrices of ``cameras`` for ``data`` (see
    :func:`world_arrays`): the one-call form of :class:`Cameras`."""
    return Cameras(model, cameras).view_projections(aspect, **world_arrays(data))


__all__ = ["CameraError", "CameraFrames", "Cameras", "camera_id", "camera_matrices",
           "look_at", "projection", "world_arrays"]  # fmt: skip
