"""``BatchRenderer``: every world of a MuJoCo model, from every camera, in one submit.

Views are worlds x cameras, view ``w * ncam + c`` drawing record rows ``w * ngeom ...
(w + 1) * ngeom`` (world w's geoms) with camera c, tiled into one framebuffer by the shared
body renderer (``hypergl.bodies``). Per ``render(data)``: one C++ upload of the camera
poses, one NumPy call for all view matrices, one submit (whose recorded program syncs the
geoms in C++, culls and draws), one read per output split into views.

The RGB is ``mjr_render``'s default picture as far as it is drawn here: the headlight and
the model's lights per world (:mod:`.lights`), materials, the compiled textures, the skybox
and its haze (:mod:`.textures`), shadows (:mod:`.shadows`), under ``scene_flags``. Not drawn
yet: reflections, multisampling, transparency's blending (transparent geoms are drawn
opaque), fog, 2D textures on curved shapes and meshes (benchmarks/mujoco_picture.py
measures how close it is).
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
from hypergl.rl.process_safety import new_context

from . import lights, scene, textures
from .cameras import Cameras
from .errors import (
    DataError,
    ModelMismatchError,
    OutputError,
    RendererClosedError,
    SizeError,
    WorldCountError,
)
from .shadows import DEFAULT_SIZE, ShadowMaps, shadow_slots
from .sync import RECORD, GeomRecords, WorldArrays

OUTPUTS = ("rgb", "depth", "segmentation")
BODY_OUTPUT = {"rgb": "color", "depth": "depth", "segmentation": "id"}
MAX_VIEWS = 1 << (32 - VIEW_SHIFT)  # a view sits above the part index in an instance
# Room for the body renderer's own meshes (unit primitives, ray-cast proxies) beside the
# model's meshes and height fields.
BUILT_IN_MESHES, BUILT_IN_ROWS = 32, 1 << 14
LIGHT = (0.3, -0.5, 1.0)  # a light from above and in front (MuJoCo's z is up)
SKY_DISTANCE = 0.7  # MuJoCo's skybox: a cylinder this share of the far plane about the eye
SKY_AXES = ((1, 0, 0), (0, 0, 1), (0, -1, 0))  # its texture looked up along (x, z, -y)


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
    `scene_flags`: ``mujoco.mjtRndFlag`` (or its name) -> bool, over the defaults of
    ``mujoco.MjvScene`` (what ``mujoco.Renderer.scene.flags`` sets): ``mjRND_SKYBOX``,
    ``mjRND_HAZE`` (with the skybox, as MuJoCo) and ``mjRND_SHADOW`` (on: shadow-casting
    lights are added as MuJoCo's shadow pass adds them; their shadows themselves are not
    drawn yet) are honoured; ``mjRND_REFLECTION``, ``mjRND_FOG`` and the rest are not
    drawn and ignored. `texture`: ``mjVIS_TEXTURE`` (False: every geom untextured).
    `shadow_size`: the texels across one light's shadow map in one world (None: 128; see
    :mod:`.shadows`).
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
        scene_flags: Mapping[Any, bool] | None = None,
        texture: bool = True,
        shadow_size: int | None = None,
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
        self._shadows: ShadowMaps | None = None
        self._shadow_size = (None if shadow_size is None
                             else _positive_int(shadow_size, "shadow_size", SizeError))  # fmt: skip
        try:
            self._check_size()
            self._looks = scene.model_looks(model, tuple(groups))
            self._far = scene.far_distance(model)
            self._flags = scene.render_flags(scene_flags)
            drawn = [look.geom for look in self._looks] if texture else []
            self._textures = textures.ModelTextures(model, drawn, self._far,
                                                    sky=self._flags["mjRND_SKYBOX"])  # fmt: skip
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
        if model.nlight:
            needed.update(light_xpos=(model.nlight, 3), light_xdir=(model.nlight, 3))
        self._arrays = WorldArrays(ctx, data, kind, needed)
        if kind == "batch":  # a Batch fills a field bound just now from its next call on
            data.forward()
        body_outputs = ["color", *(BODY_OUTPUT[o] for o in self.outputs if o != "rgb")]
        meshes, rows = scene.library_size(self._looks)
        slots = shadow_slots(model) if self._flags["mjRND_SHADOW"] else []
        renderer = BodyRenderer(self._records, max_ids=max(model.ngeom, 1),
                                max_parts=max(len(self._looks), 1),
                                max_meshes=BUILT_IN_MESHES + meshes,
                                max_vertices=BUILT_IN_ROWS + rows,
                                # views >= 2: the tiled (multi-view) variant even for one
                                views=max(2, worlds * ncam),
                                outputs=body_outputs, max_extras=1,
                                primitives=self.primitives,
                                max_lights=lights.light_count(model),
                                light_groups=worlds,
                                shadow_lights=[slot for slot, _ in slots])  # fmt: skip
        self._renderer = renderer
        group = lights.model_lights(model, shadows=self._flags["mjRND_SHADOW"])
        renderer.set_lights(np.broadcast_to(group, renderer.lights.shape).copy())
        renderer.set_textures(self._textures.atlas)
        if self._textures.sky >= 0:  # mjr_render's skybox: a cylinder at 0.7 of the far plane
            renderer.set_sky(self._textures.sky, SKY_DISTANCE * self._far, axes=SKY_AXES)
            ground = scene.haze_plane(model) if self._flags["mjRND_HAZE"] else None
            if ground is not None:  # its haze: over the first infinite plane's horizon
                renderer.set_haze(*ground, color=model.vis.rgba.haze,
                                  ratio=float(model.vis.map.haze))  # fmt: skip
        for look in self._looks:
            material = self._textures.material(look.geom, look.material)
            renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color,
                               material=material)  # fmt: skip
        ngeom = model.ngeom
        ranges = [(w * ngeom, ngeom) for w in range(worlds) for _ in range(ncam)]
        identity = [np.eye(4)] * (worlds * ncam)
        groups = [w for w in range(worlds) for _ in range(ncam)]  # each world's lights
        renderer.set_views(identity, (self.width, self.height), ranges=ranges,
                           columns=self._columns, light_groups=groups)  # fmt: skip
        renderer.set_camera(np.eye(4), light=LIGHT)
        self._framebuffer = renderer.framebuffer(name="mujoco_views")
        cmd = ctx.command_buffer()
        if slots:  # the shadow maps first (they sync the records)
            self._shadows = ShadowMaps(model, self._records, worlds, self._looks,
                                       self.primitives, (BUILT_IN_MESHES + meshes,
                                                         BUILT_IN_ROWS + rows),
                                       self._shadow_size)  # fmt: skip
            renderer.set_shadow_map(self._shadows.texture)
            self._shadows.record(cmd)
        cmd.bind_framebuffer(self._framebuffer)
        renderer.record_clear(cmd, background=(0.0, 0.0, 0.0))
        renderer.record(cmd, sync=self._shadows is None)
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
        arrays = (model.ncam * 12 + model.nbody * 3 + model.nlight * 6) * 8  # + light poses
        light_rows = lights.light_count(model) * 112  # the poses of the world's light group
        pixel = 4 + 4 * (1 + len([o for o in self.outputs if o != "rgb"]))  # + depth24
        maps = len(shadow_slots(model)) if self._flags["mjRND_SHADOW"] else 0
        size = self._shadow_size or DEFAULT_SIZE
        shadows = maps * (VIEW_DTYPE.itemsize + 2 * 2 * max(len(self._looks), 1) * 8
                          + size * size * 8)  # views, instance lists, colour + depth24
        return (records + views + instances + arrays + light_rows + shadows
                + ncam * self.width * self.height * pixel)  # fmt: skip

    # --- rendering -------------------------------------------------------------------------
    def _view_matrices(self) -> np.ndarray:
        """(worlds * ncam, 4, 4) view-projections of every view, in one NumPy pass."""
        arrays = self._arrays.pull()  # type: ignore[union-attr]
        light_xpos, light_xdir = arrays.pop("light_xpos", None), arrays.pop("light_xdir", None)
        # the cameras first: they say what is wrong with data never forwarded
        matrices = self._cameras.view_projections(self.width / self.height, **arrays)
        if light_xpos is not None and self._renderer is not None:  # every world's lights
            lights.write_poses(self._renderer.lights, self.model, light_xpos, light_xdir)
            if self._shadows is not None:
                self._shadows.update(self._renderer, light_xpos, light_xdir)
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
        if self._shadows is not None:
            self._shadows.release()
            self._shadows = None
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
