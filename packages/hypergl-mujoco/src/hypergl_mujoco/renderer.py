"""``BatchRenderer``: every world of a MuJoCo model, from every camera, in one submit.

Views are worlds x cameras, view ``w * ncam + c`` drawing record rows ``w * ngeom ...
(w + 1) * ngeom`` (world w's geoms) with camera c, tiled into one framebuffer by the shared
body renderer (``hypergl.bodies``). Per ``render(data)``: one C++ upload of the camera
poses, one NumPy call for all view matrices, one submit (whose recorded program syncs the
geoms in C++, culls and draws), one read per output split into views.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import mujoco
import mujoco.batch
import numpy as np

import hypergl
from hypergl.bodies import BodyRenderer
from hypergl.bodies.shaders import VIEW_SHIFT
from hypergl.bodies.views import VIEW_DTYPE
from hypergl.process_safety import new_context

from . import scene
from .cameras import Cameras
from .errors import (
    DataError,
    ModelMismatchError,
    OutputError,
    RendererClosedError,
    SizeError,
    WorldCountError,
)
from .sync import RECORD, GeomRecords, WorldArrays

OUTPUTS = ("rgb", "depth", "segmentation")
BODY_OUTPUT = {"rgb": "color", "depth": "depth", "segmentation": "id"}
MAX_VIEWS = 1 << (32 - VIEW_SHIFT)  # a view sits above the part index in an instance
# Room for the body renderer's own meshes (unit primitives, ray-cast proxies) beside the
# model's meshes and height fields.
BUILT_IN_MESHES, BUILT_IN_ROWS = 32, 1 << 14
LIGHT = (0.3, -0.5, 1.0)  # a light from above and in front (MuJoCo's z is up)


class RenderResult(Mapping[str, np.ndarray]):
    """The outputs of one ``render``, by name (``result["rgb"]``) or attribute
    (``result.rgb``): rgb (worlds, cameras, H, W, 3) uint8, depth (worlds, cameras, H, W)
    float32 metres along the view axis (the far distance where nothing is hit, as
    MuJoCo's renderer), segmentation (worlds, cameras, H, W) int32 geom id or -1."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._arrays = arrays

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._arrays[name]
        except KeyError:
            raise OutputError(f"no output {name!r}: this render has "
                              f"{', '.join(self._arrays)}") from None  # fmt: skip

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)


def _positive_int(value: Any, what: str, error: type[Exception]) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise error(f"{what} must be a positive int, got {value!r}")
    return int(value)


class BatchRenderer:
    """`num_worlds` copies of `model` seen by `cameras`, rendered in one submit.

    `cameras`: a sequence of camera names, camera ids or ``mujoco.MjvCamera`` (free, or
    fixed with ``fixedcamid``); None: camera 0, or MuJoCo's default free camera when the
    model has none. `outputs`: any of ``"rgb"``, ``"depth"``, ``"segmentation"``.
    `context`: a ``hypergl.Context`` to draw in (None: a headless one of its own, closed
    by :meth:`close`). `groups`: the geom groups drawn (MuJoCo's default 0, 1, 2).
    `primitives`: ``"raycast"`` draws spheres, ellipsoids, capsules, cylinders and planes
    as a few triangles intersected exactly per fragment (exact silhouettes; on llvmpipe
    the faster: few triangles per world), ``"mesh"`` as tessellated meshes
    (``hypergl.bodies.BodyRenderer``'s ``primitives``).
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        num_worlds: int = 1,
        cameras: Sequence[Any] | None = None,
        width: int = 84,
        height: int = 84,
        outputs: Sequence[str] = OUTPUTS,
        context: hypergl.Context | None = None,
        *,
        groups: Sequence[int] = scene.DEFAULT_GROUPS,
        primitives: str = "raycast",
    ) -> None:
        if not isinstance(model, mujoco.MjModel):
            raise DataError(f"model must be a mujoco.MjModel, got {type(model).__name__}")
        self.model: mujoco.MjModel = model
        self.num_worlds: int = _positive_int(num_worlds, "num_worlds", WorldCountError)
        self.width: int = _positive_int(width, "width", SizeError)
        self.height: int = _positive_int(height, "height", SizeError)
        self.outputs: tuple[str, ...] = self._checked_outputs(outputs)
        self._cameras = self._checked_cameras(cameras)
        if primitives not in ("raycast", "mesh"):
            raise OutputError(f"primitives must be 'raycast' or 'mesh', got {primitives!r}")
        self.primitives: str = primitives
        views = self.num_worlds * len(self._cameras)
        if views > MAX_VIEWS:
            raise WorldCountError(f"{self.num_worlds} worlds x {len(self._cameras)} cameras "
                                  f"= {views} views, more than the {MAX_VIEWS} one "
                                  "renderer tiles")  # fmt: skip
        self._own_context = context is None
        # new_context: refuses a forked child's context (it would hang) and, on llvmpipe,
        # loads triton (torch's own LLVM) deep-bound instead of crashing the process
        self.context: hypergl.Context = (
            new_context() if context is None else self._checked_context(context)
        )
        self._closed = False
        self._renderer: BodyRenderer | None = None
        # (kind, the data object the program syncs, a sequence's items)
        self._bound: tuple[str, Any, tuple[Any, ...]] | None = None
        self._arrays: WorldArrays | None = None  # what the cameras need of each world
        self._records: GeomRecords | None = None
        try:
            self._check_size()
            self._looks = scene.model_looks(model, tuple(groups))
            self._far = scene.far_distance(model)
        except BaseException:
            self.close()
            raise

    # --- checks ----------------------------------------------------------------------------
    @staticmethod
    def _checked_outputs(outputs: Any) -> tuple[str, ...]:
        if isinstance(outputs, str) or not isinstance(outputs, Sequence) or not outputs:
            raise OutputError(f"outputs must be a non-empty sequence of {OUTPUTS}, "
                              f"got {outputs!r}")  # fmt: skip
        unknown = [o for o in outputs if o not in OUTPUTS]
        if unknown:
            raise OutputError(f"unknown outputs {unknown!r}: choose from {OUTPUTS}")
        return tuple(dict.fromkeys(outputs))

    def _checked_cameras(self, cameras: Any) -> Cameras:
        """None: camera 0, or the default free camera (-1) of a model without cameras."""
        if cameras is None:
            cameras = [0 if self.model.ncam else -1]
        return Cameras(self.model, cameras)

    @staticmethod
    def _checked_context(context: Any) -> hypergl.Context:
        if not isinstance(context, hypergl.Context):
            raise TypeError(f"context must be a hypergl.Context, got {context!r}")
        if context.closed:
            raise hypergl.ContextError("the context has been closed")
        return context

    def _check_size(self) -> None:
        """The tiled framebuffer of every view must fit the context's texture limits."""
        limit = self.context.limits["max_texture_size"]
        for value, what in ((self.width, "width"), (self.height, "height")):
            if value > limit:
                raise SizeError(f"{what} {value} is above the context's max_texture_size "
                                f"{limit}")  # fmt: skip
        views = self.num_worlds * len(self._cameras)
        columns = max(1, min(views, limit // self.width))
        rows = -(-views // columns)
        if rows * self.height > limit:
            raise SizeError(f"{views} views of {self.width}x{self.height} do not fit one "
                            f"{limit}x{limit} framebuffer (the context's max_texture_size): "
                            "fewer worlds or cameras, or smaller images")  # fmt: skip
        square = int(np.ceil(np.sqrt(views)))
        self._columns = square if square * self.width <= limit else columns

    def _check_live(self) -> None:
        if self._closed:
            raise RendererClosedError("this BatchRenderer has been closed")
        if self.context.closed:
            raise hypergl.ContextError("the renderer's context has been closed")

    def _kind(self, data: Any) -> str:
        """'data', 'sequence' or 'batch', with the data checked against the model."""
        if isinstance(data, mujoco.MjData):
            if self.num_worlds != 1:
                raise WorldCountError(f"one MjData for {self.num_worlds} worlds: pass a "
                                      "sequence of them or a mujoco.batch.Batch")  # fmt: skip
            self._check_model(data.model, "the data")
            return "data"
        if isinstance(data, mujoco.batch.Batch):
            if data.nsim != self.num_worlds:
                raise WorldCountError(f"a Batch of {data.nsim} simulations for "
                                      f"{self.num_worlds} worlds")  # fmt: skip
            self._check_model(data.model, "the Batch")
            return "batch"
        if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
            if len(data) != self.num_worlds:
                raise WorldCountError(f"{len(data)} MjData for {self.num_worlds} worlds")
            for world, one in enumerate(data):
                if not isinstance(one, mujoco.MjData):
                    raise DataError(f"world {world} is a {type(one).__name__}, not an MjData")
                self._check_model(one.model, f"world {world}'s data")
            return "sequence"
        raise DataError(f"render takes an MjData, a sequence of them or a mujoco.batch.Batch, "
                        f"got {type(data).__name__}")  # fmt: skip

    def _check_model(self, other: mujoco.MjModel, what: str) -> None:
        """`what` (data or a Batch) must be of the renderer's model, or of a model object
        with the same geoms (a gymnasium vector env gives each sub-env its own copy of
        one model): same sizes, geom types, sizes and meshes."""
        model = self.model
        if other is model:
            return
        mine = (model.ngeom, model.nbody, model.ncam)
        theirs = (other.ngeom, other.nbody, other.ncam)
        if mine != theirs:
            raise ModelMismatchError(f"{what} belongs to a model of {theirs[0]} geoms, "
                                     f"{theirs[1]} bodies and {theirs[2]} cameras, not to the "
                                     f"renderer's ({mine[0]}, {mine[1]}, {mine[2]})")  # fmt: skip
        for field in ("geom_type", "geom_size", "geom_dataid"):
            if not np.array_equal(getattr(model, field), getattr(other, field)):
                raise ModelMismatchError(f"{what} belongs to another model: its {field} "
                                         "differs from the renderer's model")  # fmt: skip

    # --- building --------------------------------------------------------------------------
    def _bind(self, data: Any) -> None:
        """(Re)build the syncs and the recorded program for this data (the first render,
        or other MjData objects than the last). The same object as last time is taken as
        it is: nothing per world is checked again."""
        if self._bound is not None and self._bound[1] is data:
            return
        kind = self._kind(data)
        if self._bound is not None and kind == "sequence" == self._bound[0] and all(
            a is b for a, b in zip(self._bound[2], data, strict=True)
        ):  # another sequence of the same MjData
            self._bound = (kind, data, tuple(data))
            return
        self._release_program()
        ctx, model = self.context, self.model
        worlds, ncam = self.num_worlds, len(self._cameras)
        self._records = GeomRecords(ctx, model.ngeom, worlds, data, kind)
        needed = {}
        if model.ncam:
            needed.update(cam_xpos=(model.ncam, 3), cam_xmat=(model.ncam, 9))
        needed["subtree_com"] = (model.nbody, 3)  # tracking MjvCameras look at it
        self._arrays = WorldArrays(ctx, data, kind, needed)
        if kind == "batch":  # a Batch fills a field bound just now from its next call on
            data.forward()
        body_outputs = ["color", *(BODY_OUTPUT[o] for o in self.outputs if o != "rgb")]
        meshes, rows = scene.library_size(self._looks)
        renderer = BodyRenderer(self._records, max_ids=max(model.ngeom, 1),
                                max_parts=max(len(self._looks), 1),
                                max_meshes=BUILT_IN_MESHES + meshes,
                                max_vertices=BUILT_IN_ROWS + rows,
                                # views >= 2: the tiled (multi-view) variant even for one
                                views=max(2, worlds * ncam),
                                outputs=body_outputs, max_extras=1,
                                primitives=self.primitives)  # fmt: skip
        self._renderer = renderer
        for look in self._looks:
            renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color)
        ngeom = model.ngeom
        ranges = [(w * ngeom, ngeom) for w in range(worlds) for _ in range(ncam)]
        identity = [np.eye(4)] * (worlds * ncam)
        renderer.set_views(identity, (self.width, self.height), ranges=ranges,
                           columns=self._columns)  # fmt: skip
        renderer.set_camera(np.eye(4), light=LIGHT)
        self._framebuffer = renderer.framebuffer(name="mujoco_views")
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(self._framebuffer)
        renderer.record_clear(cmd, background=(0.0, 0.0, 0.0))
        renderer.record(cmd)
        cmd.end()
        self._cmd = cmd
        self._bound = (kind, data, tuple(data) if kind == "sequence" else ())

    @property
    def memory_per_world(self) -> int:
        """GPU bytes one more world adds: its geom records, its views' records and
        instance lists, its camera arrays and its pixels (the meshes, looks and programs
        are shared by every world)."""
        ncam, model = len(self._cameras), self.model
        records = model.ngeom * RECORD
        views = ncam * VIEW_DTYPE.itemsize
        instances = ncam * 2 * 2 * max(len(self._looks), 1) * 8  # 2 lists x 2 command sets
        arrays = (model.ncam * 12 + model.nbody * 3) * 8  # cam_xpos, cam_xmat, subtree_com
        pixel = 4 + 4 * (1 + len([o for o in self.outputs if o != "rgb"]))  # + depth24
        return records + views + instances + arrays + ncam * self.width * self.height * pixel

    # --- rendering -------------------------------------------------------------------------
    def _view_matrices(self) -> np.ndarray:
        """(worlds * ncam, 4, 4) view-projections of every view, in one NumPy pass."""
        arrays = self._arrays.pull()  # type: ignore[union-attr]
        matrices = self._cameras.view_projections(self.width / self.height, **arrays)
        return matrices.reshape(-1, 4, 4)

    def render(self, data: Any) -> RenderResult:
        """Every world of `data` (an MjData, a sequence of `num_worlds` of them, or a
        ``mujoco.batch.Batch``) from every camera, in one submit; see :class:`RenderResult`.
        Pass the same sequence object each time: other MjData objects re-record. The first
        render of a Batch runs its ``forward()`` once (it copies out the fields bound for
        the renderer only from its next call on)."""
        self._check_live()
        self._bind(data)
        renderer = self._renderer
        assert renderer is not None
        renderer.set_view_matrices(self._view_matrices())
        renderer.update()
        self._cmd.submit()
        images = renderer.read(self._framebuffer)
        shape = (self.num_worlds, len(self._cameras), self.height, self.width)
        out: dict[str, np.ndarray] = {}
        for name in self.outputs:
            tiles = renderer.split_views(images[BODY_OUTPUT[name]])
            value = tiles.reshape(*shape, *tiles.shape[3:])
            if name == "depth":
                value[np.isinf(value)] = self._far  # nothing hit: the far plane, as MuJoCo
            out[name] = value
        return RenderResult(out)

    # --- closing ---------------------------------------------------------------------------
    def _release_program(self) -> None:
        if self.context.closed:
            return
        if self._renderer is not None:
            self._framebuffer.release()
            self._renderer.release()
        for part in (self._records, self._arrays):
            if part is not None:
                part.release()
        self._renderer, self._records, self._arrays, self._bound = None, None, None, None

    def close(self) -> None:
        """Free the renderer's GPU resources (and its own context); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if getattr(self, "context", None) is None:
            return
        self._release_program()
        if self._own_context and not self.context.closed:
            self.context.close()

    def __enter__(self) -> BatchRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
