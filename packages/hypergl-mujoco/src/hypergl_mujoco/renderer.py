"""``BatchRenderer``: every world of a MuJoCo model, from every camera, in one submit.

Views are worlds x cameras, view ``w * ncam + c`` drawing record rows ``w * ngeom ...
(w + 1) * ngeom`` (world w's geoms) with camera c, tiled into one framebuffer by the shared
body renderer (``hypergl.bodies``). Per ``render(data)``: one C++ upload of the camera
poses, one NumPy call for all view matrices, one submit of the snapshot (a recorded
program syncing the geoms in C++), one submit that culls and draws, one read per output split
into views. ``snapshot(data)`` and ``draw()`` are the two halves, for stepping the physics
while the drawing runs (:class:`hypergl.PhysicsPipeline`).

The RGB is ``mjr_render``'s default picture as far as it is drawn here: the headlight and
the model's lights per world (:mod:`.lights`), materials, the compiled textures, the skybox
and its haze (:mod:`.textures`), shadows (:mod:`.shadows`), the reflection in the first
reflective floor (:mod:`.reflections`: every element, sites, tendons, skins and flexes
too), transparent geoms blended after the opaque ones in each view's order (MuJoCo's
sorted list), the rangefinders' rays (:mod:`.rangefinders`), under ``scene_flags``. Not
drawn yet: fog, 2D textures on curved shapes and meshes (benchmarks/mujoco_picture.py
measures how close it is).

Each world's looks (geom colours and materials, light and camera poses) may differ, set
between frames without recording again (:mod:`.world_looks`, :meth:`BatchRenderer.
set_geom_rgba` and its siblings).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import mujoco
import numpy as np

import hypergl
from hypergl.bodies import BodyRenderer, list_bytes, sort_key_commands
from hypergl.bodies.shaders import VIEW_SHIFT
from hypergl.bodies.views import VIEW_DTYPE, Tiling
from hypergl.finite import check_within
from hypergl.memory_budget import check_memory
from hypergl.memory_budget import memory_limit as checked_memory_limit
from hypergl.process_safety import new_context
from hypergl.serialised import Guard, closing, serialised

from . import lights, scene, textures
from .bridge import check_same_model
from .cameras import Cameras
from .errors import (
    DataError,
    OutputError,
    PoseError,
    RendererClosedError,
    SizeError,
    WorldCountError,
)
from .flexes import FlexEdges, FlexSkins, drawn_flexes
from .options import visual_options
from .rangefinders import Rangefinders, drawn_rangefinders
from .reflections import Reflections, mirror_geom
from .shadows import ShadowMaps, map_size, map_tiling, shadow_slots
from .skins import Skins, drawn_skins
from .sync import RECORD, GeomRecords, WorldArrays, geom_source
from .tendons import Tendons, drawn_tendons
from .versions import batch_type
from .world_looks import LOOK_DTYPE, LookRecords, WorldLooks

BATCH = batch_type()  # mujoco.batch.Batch; None before MuJoCo 3.17

OUTPUTS = ("rgb", "depth", "segmentation")
BODY_OUTPUT = {"rgb": "color", "depth": "depth", "segmentation": "id"}
GEOM, SITE = int(mujoco.mjtObj.mjOBJ_GEOM), int(mujoco.mjtObj.mjOBJ_SITE)
# segmentation ids, kind after kind: geoms, sites, tendons, skins, flexes, sensors (object_ids)
OBJECT_TYPES = (GEOM, SITE, int(mujoco.mjtObj.mjOBJ_TENDON), int(mujoco.mjtObj.mjOBJ_SKIN),
                int(mujoco.mjtObj.mjOBJ_FLEX), int(mujoco.mjtObj.mjOBJ_SENSOR))  # fmt: skip
MAX_VIEWS = 1 << (32 - VIEW_SHIFT)  # a view sits above the part index in an instance
# Room for the body renderer's own meshes (unit primitives, ray-cast proxies) beside the
# model's meshes and height fields.
BUILT_IN_MESHES, BUILT_IN_ROWS = 32, 1 << 14
LIGHT = (0.3, -0.5, 1.0)  # a light from above and in front (MuJoCo's z is up)
# A triangle row of the mesh library: 24 bytes of vertex and 4 of index on the GPU, and
# about 96 while it is built (float64 corners, normals and rows, the float32 copy).
MESH_ROW_BYTES = 24 + 4 + 96
SKY_DISTANCE = 0.7  # MuJoCo's skybox: a cylinder this share of the far plane about the eye
SKY_AXES = ((1, 0, 0), (0, 0, 1), (0, -1, 0))  # its texture looked up along (x, z, -y)


class RenderResult(Mapping[str, np.ndarray]):
    """The outputs of one ``render``, by name (``result["rgb"]``) or attribute
    (``result.rgb``): rgb (worlds, cameras, H, W, 3) uint8, depth (worlds, cameras, H, W)
    float32 metres along the view axis (the far distance where nothing is hit, as
    MuJoCo's renderer), segmentation (worlds, cameras, H, W) int32: a geom's id, ngeom + a
    site's, ngeom + nsite + a tendon's, ngeom + nsite + ntendon + a skin's, ngeom + nsite +
    ntendon + nskin + a flex's, after the flexes a rangefinder sensor's (its ray), or -1
    (:meth:`BatchRenderer.object_ids` gives MuJoCo's (id, type) pairs)."""

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


class _Fed(NamedTuple):
    """What the recorded program syncs: the data (its kind: 'data', 'sequence' or
    'batch'; a sequence's MjData objects), the camera arrays read from it, the drawing
    program and the snapshot's (the geom sync, :meth:`BatchRenderer.snapshot`), each
    also prepared once (``CommandBuffer.prepare``: a frame's submits skip resolving
    their resources again, 0.1 ms of a 5 ms frame of 64 cheetah worlds on llvmpipe)."""

    kind: str
    data: Any
    items: tuple[Any, ...]
    arrays: WorldArrays
    cmd: hypergl.CommandBuffer
    sync: hypergl.CommandBuffer
    draw: Any  # cmd's hypergl.replay.PreparedSubmit
    snapshot: Any  # sync's


def _release(part: Any) -> None:
    """Release a renderer, records, arrays, a source or a framebuffer (None: nothing)."""
    if part is not None and not getattr(part, "released", False):
        part.release()


class BatchRenderer:
    """`num_worlds` copies of `model` seen by `cameras`, rendered in one submit.

    `cameras`: a sequence of camera names, camera ids or ``mujoco.MjvCamera`` (free, or
    fixed with ``fixedcamid``); None: camera 0, or MuJoCo's default free camera when the
    model has none. `outputs`: any of ``"rgb"``, ``"depth"``, ``"segmentation"``.
    `context`: a ``hypergl.Context`` to draw in (None: a headless one of its own, closed
    by :meth:`close`). `groups`: the geom groups drawn (MuJoCo's default 0, 1, 2);
    `site_groups`: the site groups drawn (MuJoCo's default 0, 1, 2; ``()``: no sites). A
    site's pixels have segmentation id ``ngeom + site id``, a spatial tendon's ``ngeom + nsite
    + tendon id``, a skin's ``ngeom + nsite + ntendon + skin id``, a flex's after the skins
    (:meth:`object_ids` gives MuJoCo's (id, type) pairs). `scene_option`: a
    ``mujoco.MjvOption``, as ``mujoco.Renderer.update_scene(scene_option=...)`` takes it,
    for every view: its geom, site, tendon, skin and flex groups and the flags
    ``mjVIS_TENDON``, ``mjVIS_SKIN``, ``mjVIS_FLEXSKIN``, ``mjVIS_FLEXEDGE``,
    ``mjVIS_TEXTURE``, ``mjVIS_STATIC`` and ``mjVIS_RANGEFINDER`` (:mod:`.options`; with
    it, leave `groups`, `site_groups` and `texture` at their defaults).
    `primitives`: ``"raycast"`` draws spheres, ellipsoids, capsules, cylinders and planes
    as a few triangles intersected exactly per fragment (exact silhouettes; on llvmpipe
    the faster: few triangles per world), ``"mesh"`` as tessellated meshes
    (``hypergl.bodies.BodyRenderer``'s ``primitives``). `memory_limit`: the bytes the
    renderer may allocate, every world's records and pixels, the images it returns and the
    model's meshes and height fields added up before anything is made (None:
    ``hypergl.memory_budget.default_memory_limit()``); more raises :class:`SizeError`.
    `scene_flags`: ``mujoco.mjtRndFlag`` (or its name) -> bool, over the defaults of
    ``mujoco.MjvScene`` (what ``mujoco.Renderer.scene.flags`` sets): ``mjRND_SKYBOX``,
    ``mjRND_HAZE`` (with the skybox, as MuJoCo), ``mjRND_SHADOW`` and ``mjRND_REFLECTION``
    are honoured; ``mjRND_FOG`` and the rest are not drawn and ignored. `texture`:
    ``mjVIS_TEXTURE`` (False: every geom untextured). `shadow_size`: the texels across one
    light's shadow map in one world (None: what the view's pixels resolve, see
    :func:`.shadows.map_size`, each map fitted to its casters), or ``"model"``: MuJoCo's
    own maps texel for texel, ``vis.quality.shadowsize`` across (MuJoCo's default 4096: 64
    MB a light and world) over MuJoCo's whole light box or frustum, for parity with
    ``mujoco.Renderer`` at a few worlds (its shadows' edges, a texel's steps, as MuJoCo's:
    benchmarks/mujoco_picture.py's 170 views all at the goal with it, 167 without). Asked
    for, never chosen: its texels cost every frame (gym's humanoidstandup, 84x84, process
    CPU a frame: 9.0 / 29.4 ms at 1 world, 62 / 428 ms at 16, default / "model"; 0.5 /
    67.5 MB a world). `samples`: the RGB
    picture's samples a pixel, its edges antialiased as ``mjr_render``'s (None: the model's
    ``vis.quality.offsamples``, MuJoCo's default 4, lowered to the context's
    ``max_samples`` as MuJoCo lowers it; 0: none), for ``outputs=("rgb",)`` alone: beside a
    depth or segmentation output (single-sampled, exact, as MuJoCo's segmentation) the RGB
    is single-sampled too.
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
        site_groups: Sequence[int] = scene.DEFAULT_GROUPS,
        primitives: str = "raycast",
        memory_limit: int | None = None,
        scene_flags: Mapping[Any, bool] | None = None,
        texture: bool = True,
        shadow_size: int | str | None = None,
        scene_option: mujoco.MjvOption | None = None,
        samples: int | None = None,
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
        # close() (in the except below, or the caller's) goes through the guard.
        self._guard = Guard(RendererClosedError, "this BatchRenderer has been closed")
        self._options = visual_options(scene_option, groups, site_groups, texture,
                                       scene.DEFAULT_GROUPS)  # fmt: skip
        self._groups = self._options.geom_groups
        self._elements = self._checked_elements()  # tendons and skins: their sizes, no GPU yet
        # "model": MuJoCo's own maps, texel for texel (ShadowMaps' exact), their casters
        # drawn as tessellated meshes as MuJoCo draws them: ray-cast exact silhouettes, a
        # fraction of a texel wider than its polygons, left 3 texels of the floor's
        # shadow edge off on gym's humanoidstandup camera 1 (27.2 / 26.4 dB at 84x84 /
        # 240x320; meshes: 56.7 / 30.9 dB)
        self._shadow_exact: bool = isinstance(shadow_size, str) and shadow_size == "model"
        self._shadow_primitives: str = "mesh" if self._shadow_exact else self.primitives
        if shadow_size is None:
            self._shadow_size: int = map_size(model, self.width, self.height, self.num_worlds)
        elif self._shadow_exact:
            self._shadow_size = max(int(model.vis.quality.shadowsize), 1)  # 0: no maps
        elif (
            isinstance(shadow_size, (bool, str))
            or not isinstance(shadow_size, (int, np.integer))
            or shadow_size < 1
        ):
            raise SizeError(f"shadow_size must be a positive int, 'model' or None, "
                            f"got {shadow_size!r}")  # fmt: skip
        else:
            self._shadow_size = int(shadow_size)
        self.samples: int = self._checked_samples(samples)
        self._check_memory(memory_limit)  # before the context, the looks or any buffer
        self._own_context = context is None
        # new_context: refuses a forked child's context (it would hang) and, on llvmpipe,
        # loads triton (torch's own LLVM) deep-bound instead of crashing the process
        self.context: hypergl.Context = (
            new_context() if context is None else self._checked_context(context)
        )
        # Made by the first render: the geom records, the body renderer drawing them.
        self._records: GeomRecords | None = None
        self._renderer: BodyRenderer | None = None
        # (element, records, body renderer) per element kind drawn: geoms, then sites if any
        self._layers: list[tuple[str, GeomRecords, BodyRenderer]] = []
        self._framebuffer: hypergl.Framebuffer | None = None
        # multisampled with a sky and no haze: the samples resolved and the sky drawn
        # single-sampled under them in one pass, into this one (read)
        self._resolved: hypergl.Framebuffer | None = None
        self._fed: _Fed | None = None  # the data the program syncs, and its sources
        # a world was given a material the program's pipelines lack: record it again
        self._looks_grew = False
        self._snapshot_taken = False  # draw() shows a snapshot of the data bound now
        self._shadows: ShadowMaps | None = None
        self._reflections: Reflections | None = None
        self._transparent: BodyRenderer | None = None  # the transparent geoms' pass
        self._mirrored: dict[Any, BodyRenderer] = {}  # an element layer's mirror renderer
        try:
            self._check_size()
            self._fit_samples(samples is None)
            # a height field finer than the image: every k-th grid line, about one a pixel
            # (a 201 x 201 field at 84 x 84: 101 x 101, a quarter of the triangles)
            points = max(self.width, self.height)
            self._looks = self._dynamic(scene.model_looks(model, self._groups, points), "geom")
            self._site_looks = self._dynamic(
                scene.site_looks(model, self._options.site_groups), "site"
            )
            self._far = scene.far_distance(model)
            self._flags = scene.render_flags(scene_flags)
            # depth and segmentation alone: nothing lit, shadowed, textured or sky (what
            # no output shows costs nothing: half of such a frame's time)
            self._rgb = "rgb" in self.outputs
            if not self._rgb:
                # nothing of the colour's: no shadows, sky, haze or mirror pass
                self._flags.update(
                    mjRND_SHADOW=False, mjRND_SKYBOX=False, mjRND_HAZE=False, mjRND_REFLECTION=False
                )
            texture = self._options.texture and self._rgb
            maps = self.num_worlds * len(shadow_slots(model)) if self._flags["mjRND_SHADOW"] else 0
            if maps:  # every world's maps fit one depth framebuffer, else a SizeError now
                map_tiling(maps, self._shadow_size, self.context.limits["max_texture_size"])
            drawn = [look.geom for look in self._looks] if texture else []
            self._textures = textures.ModelTextures(model, drawn, self._far,
                                                    sky=self._flags["mjRND_SKYBOX"],
                                                    choices=texture)  # fmt: skip
            self._world_looks = WorldLooks(model, self.num_worlds, len(self._cameras),
                                           self._looks, self._textures)  # fmt: skip
        except BaseException:
            self.close()
            raise

    # --- checks ----------------------------------------------------------------------------
    def _checked_elements(self) -> list[Any]:
        """The tendon and skin layers the options draw (none: nothing made, nothing paid)."""
        model, options, worlds = self.model, self._options, self.num_worlds
        elements: list[Any] = []
        tendons = drawn_tendons(model, options.tendon_groups) if options.tendons else []
        if tendons:
            layer = Tendons(model, tendons, model.ngeom + model.nsite, worlds)
            if layer.looks and layer.count:
                elements.append(layer)
        skins = drawn_skins(model, options.skin_groups) if options.skins else []
        if skins:
            elements.append(Skins(model, skins, model.ngeom + model.nsite + model.ntendon,
                                  worlds))  # fmt: skip
        surfaces, edges = drawn_flexes(model, options.flex_groups, options.flags)
        first = model.ngeom + model.nsite + model.ntendon + model.nskin
        if surfaces:
            elements.append(FlexSkins(model, surfaces, first, worlds))
        if edges:
            elements.append(FlexEdges(model, edges, first, worlds))
        sensors = drawn_rangefinders(model, options.flags)
        if sensors:
            elements.append(Rangefinders(model, sensors, first + model.nflex, worlds,
                                         len(self._cameras), self.width, self.height,
                                         blended="rgb" in self.outputs))  # fmt: skip
        return elements

    def _dynamic(self, looks: list[scene.GeomLook], element: str) -> list[scene.GeomLook]:
        """`looks` without the static bodies' (welded to the world) when ``mjVIS_STATIC``
        is off."""
        if self._options.flags["mjVIS_STATIC"]:
            return looks
        model = self.model
        first = model.ngeom if element == "site" else 0
        bodies = getattr(model, f"{element}_bodyid")
        return [look for look in looks if model.body_weldid[bodies[look.geom - first]] != 0]

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

    def _checked_samples(self, samples: Any) -> int:
        """The main framebuffer's samples a pixel: None, the model's ``quality.offsamples``
        (with RGB alone: a depth or segmentation output is single-sampled, exact, as
        MuJoCo's segmentation is; with it all is)."""
        rgb_alone = self.outputs == ("rgb",)
        if samples is None:
            return int(self.model.vis.quality.offsamples) if rgb_alone else 0
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
            raise SizeError(f"samples must be an int (0: no multisampling) or None, got "
                            f"{samples!r}")  # fmt: skip
        if samples < 0:
            raise SizeError(f"samples must be 0 (no multisampling) or more, got {samples}")
        if samples and not rgb_alone:
            raise OutputError(f"samples={samples} multisamples the RGB output alone: "
                              f"outputs {self.outputs} have a depth or segmentation "
                              "output, which stays single-sampled (exact); render them "
                              "with samples=0 or in a renderer of their own")  # fmt: skip
        return int(samples)

    def _fit_samples(self, from_model: bool) -> None:
        """At most the context's ``max_samples``: the model's ``offsamples`` lowered to it,
        as MuJoCo lowers it; a `samples` given above it refused."""
        most = self.context.limits.get("max_samples", 0)
        if self.samples <= most:
            return
        if not from_model:
            raise SizeError(f"samples={self.samples} is above this context's max_samples "
                            f"{most}")  # fmt: skip
        self.samples = most

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
        # With depth or segmentation: one column of views upside down, where it fits, so
        # that a read holds them as render() returns them (each output's one NumPy pass
        # contiguous: 0.3 ms of a 5 ms frame of 64 cheetah worlds on llvmpipe, against a
        # grid's turned over and split), the RGB beside them too (drawn as they are: the
        # depth and ids alone are those of the RGB's passes to the bit). The RGB alone
        # (multisampled) keeps the square grid.
        if self.outputs != ("rgb",) and views * self.height <= limit:
            self._tiling = Tiling.grid(views, (self.width, self.height), 1, "bottom")
            return
        self._tiling = Tiling.fitted(
            views,
            (self.width, self.height),
            limit,
            error=SizeError,
            hint=": fewer worlds or cameras, or smaller images",
        )

    def _check_memory(self, memory_limit: Any) -> None:
        """What the model, the worlds and the image size ask for, added up against
        `memory_limit` (hypergl.memory_budget's one check) before any of it is made."""
        try:
            self._memory_limit = limit = checked_memory_limit(memory_limit)
        except TypeError as exc:
            raise SizeError(str(exc)) from None
        worlds, ncam = self.num_worlds, len(self._cameras)
        pixels = worlds * ncam * self.width * self.height
        others = len([o for o in self.outputs if o != "rgb"])
        named = [e for e in self._elements if hasattr(e, "memory")]
        # the skins and flexes first, named (their vertices leave memory_per_world's part)
        parts = [part for e in named for part in e.memory(worlds)]
        rest = self.memory_per_world - sum(e.named_per_world for e in named)
        parts += [(f"{worlds} worlds x memory_per_world {self.memory_per_world} bytes "
                  f"({ncam} cameras of {self.width}x{self.height} pixels, outputs "
                  f"{', '.join(self.outputs)})", worlds * rest),
                 (f"the images render() reads and returns ({pixels} pixels)",
                  pixels * (4 + 3 + 8 * others))]  # fmt: skip
        parts += [
            (f"the model's {what} ({rows} triangle rows)", rows * MESH_ROW_BYTES)
            for what, rows in scene.library_rows_needed(self.model, self._groups)
        ]
        check_memory(parts, limit, whole="the BatchRenderer", error=SizeError,
                     hint="pass BatchRenderer(..., memory_limit=...) to allow more, or "
                          "render fewer worlds or smaller images")  # fmt: skip

    def _kind(self, data: Any) -> str:
        """'data', 'sequence' or 'batch', with the data checked against the model."""
        if isinstance(data, mujoco.MjData):
            if self.num_worlds != 1:
                raise WorldCountError(f"one MjData for {self.num_worlds} worlds: pass a "
                                      "sequence of them or a mujoco.batch.Batch")  # fmt: skip
            self._check_model(data.model, "the data")
            return "data"
        if BATCH is not None and isinstance(data, BATCH):
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
        """`what` (data or a Batch) must be of the renderer's model (bridge.check_same_model)."""
        check_same_model(self.model, other, what, "the renderer's")

    # --- building --------------------------------------------------------------------------
    def _is_bound(self, data: Any) -> bool:
        """Whether the program syncs `data` already: the same MjData or Batch, or a
        sequence of the same MjData objects, in order (a list is a container: an env that
        makes a fresh MjData on reset puts it in the list the renderer was given)."""
        fed = self._fed
        if fed is None or self._looks_grew:
            return False
        if fed.kind != "sequence":
            return data is fed.data
        items = fed.items
        return (
            isinstance(data, Sequence)
            and len(data) == len(items)
            and all(map(operator.is_, data, items))
        )

    def _bind(self, data: Any) -> None:
        """Sync `data` from the next submit on: the first render builds the body renderer
        (its meshes, looks and pipelines depend on the model alone); other data than last
        time get sources and a program of their own, swapped in only once they are made (a
        failure leaves the renderer as it was)."""
        if self._is_bound(data):
            return
        kind = self._kind(data)
        if self._renderer is None:
            self._build()
        ctx, model = self.context, self.model
        renderer = self._renderer
        assert renderer is not None
        needed = {}
        if model.ncam:
            needed.update(cam_xpos=(model.ncam, 3), cam_xmat=(model.ncam, 9))
        needed["subtree_com"] = (model.nbody, 3)  # tracking MjvCameras look at it
        if model.nlight and self._rgb:  # (depth and segmentation alone: nothing lit)
            needed.update(light_xpos=(model.nlight, 3), light_xdir=(model.nlight, 3))
        for element in self._elements:
            needed.update(element.arrays())
        if self._shadows is not None:
            needed.update(self._shadows.arrays())
        made: list[Any] = []
        previous: list[tuple[GeomRecords, Any]] = []  # each layer's source before
        try:
            for element, records, _ in self._layers:
                if element not in ("geom", "site"):
                    continue  # the tendons' and skins' rows are written from NumPy
                count = model.ngeom if element == "geom" else model.nsite
                source = geom_source(ctx, data, kind, element) if count else None
                made.append(source)
                previous.append((records, records.feed(source)))
            arrays = WorldArrays(ctx, data, kind, needed)
            made.append(arrays)
            cmd = ctx.command_buffer()
            # the skinning passes first: the mirror pass draws their vertices too (a copy)
            for element in self._elements:
                element.record(cmd)
                if element in self._mirrored:
                    element.record_soft_copy(cmd, self._mirrored[element])
            if self._shadows is not None:  # the shadow maps first, from the snapshot's records
                self._shadows.record(cmd)
            if self._reflections is not None:  # the mirror pass, before the main pass adds it
                self._reflections.record(cmd)
            cmd.bind_framebuffer(self._framebuffer)
            resolved = self._resolved
            # after a resolve the colour's alpha is the samples' coverage: cleared to 0
            renderer.record_clear(cmd, background=(0.0, 0.0, 0.0), coverage=bool(resolved))
            sync = ctx.command_buffer()  # the snapshot: every world's geom and site poses
            for _, _, layer in self._layers:
                # each depth-tested against those before
                layer.record(cmd, sync=False, sky=resolved is None)
                layer.record_sync(sync)
            if self._transparent is not None:  # last, blended over the rest and the sky
                self._transparent.record(cmd, sync=False)
            if resolved is not None:
                # The sky single-sampled under the resolved passes (MuJoCo draws it before
                # the blended geoms; under them it adds what over it gives): a quarter of
                # its raster and depth tests, and no cube lookup where bodies cover all nor
                # in a view that did not turn (its sky cached), resolved in the same pass.
                renderer.record_resolved_sky(cmd, self._framebuffer, resolved)
            cmd.end()
            sync.end()
            prepared = (cmd.prepare(), sync.prepare())
            if kind == "batch":  # a Batch fills a field bound just now from its next call
                data.forward()
        except BaseException:
            for records, source in previous:
                records.feed(source)
            for part in made:
                _release(part)
            raise
        old = self._fed
        items = tuple(data) if kind == "sequence" else ()
        self._fed = _Fed(kind, data, items, arrays, cmd, sync, *prepared)
        self._looks_grew = False
        self._snapshot_taken = False
        for _, source in previous:
            _release(source)
        if old is not None:
            _release(old.arrays)

    def _build(self) -> None:
        """One body renderer per element kind (geoms, sites, then the tendons, skins and
        flexes drawn), each with the records of every world's elements, drawing into one
        framebuffer."""
        model = self.model
        self._shadow_lights = shadow_slots(model) if self._flags["mjRND_SHADOW"] else []
        self._single_sampled_planes = bool(self.samples) and scene.planes_single_sampled(model)
        # mjr_render's transparent geoms (alpha below 0.995, planes' backs) are drawn after
        # the rest, blended
        opaque, clear = self._opaque_and_clear(self._looks)
        layers = [("geom", model.ngeom, 0, opaque),
                  ("site", model.nsite, model.ngeom, self._site_looks)]  # fmt: skip
        made: list[Any] = []
        try:
            for element, count, first_id, looks in layers:
                if not looks and element != "geom":
                    continue
                records = (LookRecords(self.context, count, self.num_worlds,
                                       self._world_looks.fragment_needs)
                           if element == "geom"
                           else GeomRecords(self.context, count, self.num_worlds, element,
                                            first_id))  # fmt: skip
                made.append(records)
                renderer = self._body_renderer(
                    records, count, looks, first_id + count, geoms=element == "geom"
                )
                made.append(renderer)
                self._layers.append((element, records, renderer))
            # tendons, skins, flexes: a layer each, drawn after the geoms' and sites'
            for layer in self._elements:
                made.append(layer)  # its records and buffers
                renderer = self._body_renderer(layer.make_records(self.context), layer.count,
                                               layer.looks, layer.max_ids, geoms=False,
                                               attach=layer)  # fmt: skip
                made.append(renderer)
                self._layers.append((layer.element, layer.records, renderer))
            framebuffer = self._layers[0][2].framebuffer(name="mujoco_views")
        except BaseException:
            self._layers = []
            for part in reversed(made):
                _release(part)
            raise
        _, self._records, self._renderer = self._layers[0]
        self._world_looks.attach(self._records)  # type: ignore[arg-type]
        self._framebuffer = framebuffer
        if self.samples and self._renderer.has_sky and not self._renderer.has_haze:
            size = self._renderer.framebuffer_size
            self._resolved = self.context.framebuffer(size, color=("rgba8",), depth=None,
                                                      name="mujoco_picture")  # fmt: skip
        if self._shadow_lights:
            # a height field at half the map's texels a side: what the map resolves (its
            # library sized for those, not the main pass's)
            size = self._shadow_size
            looks = scene.with_hfield_points(model, self._looks, max(size // 2, 2))
            meshes, rows = scene.library_size(looks)
            self._shadows = ShadowMaps(model, self._records, self.num_worlds, looks,
                                       self._shadow_primitives, (BUILT_IN_MESHES + meshes,
                                                         BUILT_IN_ROWS + rows),
                                       self._shadow_size, self._shadow_exact)  # fmt: skip
            for _, _, renderer in self._layers:
                if renderer.receives_shadows:  # (a blended layer, rangefinder rays, does not)
                    renderer.set_shadow_map(self._shadows.texture)
            self._cast_layers()
        if clear:
            self._transparent = self._body_renderer(self._records, model.ngeom, clear,
                                                    model.ngeom, geoms=True,
                                                    transparent=True)  # fmt: skip
            # each view draws them in its own order, nearest first (mjr_render's camdist)
            self._transparent.set_sort_radii(scene.sort_radii(model))
        mirror = mirror_geom(model, opaque) if self._flags["mjRND_REFLECTION"] else None
        if mirror is not None:  # mjr_render's reflection: a mirror pass, added on the mirror
            # the mirror itself is not reflected: not drawn there at all (its fragments, a
            # floor's half of every view: the pass cost 18 / 39% of a cheetah / humanoid
            # frame with them, 11 / 15% without)
            reflected = [look for look in opaque if look.geom != mirror.geom]
            renderer = self._body_renderer(self._records, model.ngeom, reflected,
                                           model.ngeom, geoms=True, mirror=True)  # fmt: skip
            try:
                self._reflections = Reflections(mirror, renderer)
            except BaseException:
                renderer.release()
                raise
            self._reflections.attach(self._renderer)
            self._reflect_layers()

    def _cast_layers(self) -> None:
        """The sites, tendons, skins and flexes in the shadow maps too (mjr_render's shadow
        pass draws every scene geom but decorations: rangefinder rays are): a depth renderer
        over each layer's records, a skin's or flex's soft vertices copied each frame."""
        assert self._shadows is not None
        model = self.model
        layers = ([None] if self._site_looks else []) + list(self._elements)  # as _layers[1:]
        for (_, records, _), layer in zip(self._layers[1:], layers, strict=True):
            if isinstance(layer, Rangefinders):
                continue
            count, looks, ids = ((model.nsite, self._site_looks, model.ngeom + model.nsite)
                                 if layer is None
                                 else (layer.count, layer.looks, layer.max_ids))  # fmt: skip
            meshes, rows = scene.library_size(looks)
            self._shadows.add_layer(records, count, looks, ids,
                                    (BUILT_IN_MESHES + meshes, BUILT_IN_ROWS + rows),
                                    layer)  # fmt: skip

    def _reflect_layers(self) -> None:
        """The sites, tendons, skins and flexes in the mirror pass too (``mjr_render``
        reflects every element of the scene): a mirror renderer over each layer's records,
        a skin's or flex's soft vertices copied from its layer's renderer each frame."""
        assert self._reflections is not None
        model = self.model
        layers = ([None] if self._site_looks else []) + list(self._elements)  # as _layers[1:]
        for (_, records, _), layer in zip(self._layers[1:], layers, strict=True):
            if layer is None:
                renderer = self._body_renderer(records, model.nsite, self._site_looks,
                                               model.ngeom + model.nsite, geoms=False,
                                               mirror=True)  # fmt: skip
            else:
                renderer = self._body_renderer(records, layer.count, layer.looks,
                                               layer.max_ids, geoms=False, attach=layer,
                                               mirror=True)  # fmt: skip
                self._mirrored[layer] = renderer
            try:
                self._reflections.add_layer(renderer)
            except BaseException:
                renderer.release()
                raise

    def _opaque_and_clear(self, looks: list[scene.GeomLook]
                          ) -> tuple[list[scene.GeomLook], list[scene.GeomLook]]:  # fmt: skip
        """The opaque looks and the transparent pass's (:func:`scene.split_transparent`);
        depth and segmentation alone: every look opaque, as MuJoCo's segmentation draws
        them (no blended pass: ~1 ms of a 13 ms frame of 64 cheetah worlds)."""
        if "rgb" not in self.outputs:
            return list(looks), []
        return scene.split_transparent(self.model, looks)

    def _body_renderer(self, records: Any, count: int, looks: list[scene.GeomLook],
                       ids: int, geoms: bool, attach: Any = None, mirror: bool = False,
                       transparent: bool = False) -> BodyRenderer:  # fmt: skip
        """The body renderer of one element kind's `records` (`count` a world), its looks
        set, its views laid out as every layer's, lit by each world's lights (the geoms'
        with their materials and textures, the sky, its haze and the shadow lights);
        `attach`: a layer that adds soft vertices (skins) before the looks; `mirror`: the
        geoms' mirror pass (:mod:`.reflections`: no sky, no shadows, colour alone);
        `transparent`: the transparent geoms' pass (blended, no sky, no shadows)."""
        # a layer drawn blended (rangefinder rays of alpha below 0.995), in the RGB alone
        transparent = transparent or (self._rgb and getattr(attach, "transparent", False))
        plain = mirror or transparent  # a pass without the sky and the shadow maps
        model = self.model
        worlds, ncam = self.num_worlds, len(self._cameras)
        # no colour attachment, no shading when RGB is not asked (depth, segmentation alone)
        body_outputs = [BODY_OUTPUT[o] for o in self.outputs]
        if mirror:
            body_outputs = ["color"]
        meshes, rows = scene.library_size(looks)
        renderer = BodyRenderer(records, max_ids=max(ids, 1),
                                max_parts=scene.part_count(looks),
                                max_meshes=BUILT_IN_MESHES + meshes,
                                max_vertices=BUILT_IN_ROWS + rows,
                                # views >= 2: the tiled (multi-view) variant even for one
                                views=max(2, worlds * ncam),
                                outputs=body_outputs, max_extras=1,
                                primitives=self.primitives,
                                memory_limit=self._memory_limit,
                                max_lights=lights.light_count(model), light_groups=worlds,
                                max_soft_vertices=max(getattr(attach, "soft_vertices", 1), 1),
                                # a tendon's segments share its id: that many in a view
                                copies=getattr(attach, "copies", 1),
                                # every opaque element receives shadows, as mjr_render's
                                shadow_lights=[slot for slot, _ in self._shadow_lights]
                                if not plain else (), mirror=mirror,
                                transparent=transparent,
                                # the main framebuffer's passes: multisampled alike
                                samples=0 if mirror else self.samples,
                                # a ground's samples differ only at its edges and where
                                # bodies cross it (9% of a 256-cheetah frame)
                                single_sampled_planes=self._single_sampled_planes
                                and not plain)  # fmt: skip
        try:
            if attach is not None and hasattr(attach, "attach"):
                # a mirror pass: the layer's soft bodies, filled by a copy of its own
                (attach.share_soft if mirror else attach.attach)(renderer)
            shadows = self._flags["mjRND_SHADOW"] and not plain
            shadows = shadows and int(model.vis.quality.shadowsize) > 0  # MuJoCo's: no map
            lit = self._rgb and not getattr(attach, "unlit", False)  # lines: in their colour
            group = lights.model_lights(model, shadows=shadows) if lit else lights.unlit(model)
            renderer.set_lights(np.broadcast_to(group, renderer.lights.shape).copy())
            if getattr(attach, "atlas", None) is not None:  # a layer's own (skins' textures)
                renderer.set_textures(attach.atlas)
            if geoms:
                renderer.set_textures(self._textures.atlas)
                # mjr_render's skybox: a cylinder at 0.7 of far
                if self._textures.sky >= 0 and not plain:
                    renderer.set_sky(self._textures.sky, SKY_DISTANCE * self._far, axes=SKY_AXES)
                    ground = scene.haze_plane(model) if self._flags["mjRND_HAZE"] else None
                    if ground is not None:  # its haze: over the first infinite plane's horizon
                        renderer.set_haze(*ground, color=model.vis.rgba.haze,
                                          ratio=float(model.vis.map.haze))  # fmt: skip
            for look in looks:
                # (a layer's own: its specular, shininess and alpha, untextured)
                material = (self._textures.material(look.geom, look.material) if geoms
                            else look.material)  # fmt: skip
                renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color,
                                   material=material)  # fmt: skip
            ranges = [(w * count, count) for w in range(worlds) for _ in range(ncam)]
            if getattr(attach, "per_view", False):  # rows of each view's own (rangefinders)
                ranges = [(v * count, count) for v in range(worlds * ncam)]
            identity = [np.eye(4)] * (worlds * ncam)
            light_groups = [w for w in range(worlds) for _ in range(ncam)]  # each world's lights
            renderer.set_views(identity, (self.width, self.height), ranges=ranges,
                               columns=self._tiling.columns, light_groups=light_groups,
                               origin=self._tiling.origin)  # fmt: skip
            renderer.set_camera(np.eye(4), light=LIGHT)
        except BaseException:
            renderer.release()
            raise
        return renderer

    def _drawing(self) -> list[BodyRenderer]:
        """Every body renderer lit by the worlds' lights: the layers', the transparent
        geoms' and the mirror pass's."""
        out = [layer for _, _, layer in self._layers]
        if self._transparent is not None:
            out.append(self._transparent)
        if self._reflections is not None:
            out += self._reflections.renderers
        return out

    @property
    def memory_per_world(self) -> int:
        """GPU bytes one more world adds: its geom records, its views' records and
        instance lists, its camera arrays and its pixels, its tendons' segments and its
        skinned vertices (the meshes, looks and programs are shared by every world)."""
        ncam, model = len(self._cameras), self.model
        sites = getattr(self, "_site_looks", True)  # before the looks: at most
        records = model.ngeom * (RECORD + LOOK_DTYPE.itemsize)  # + each geom's look row
        records += (model.nsite if sites else 0) * RECORD
        views = ncam * VIEW_DTYPE.itemsize
        looks = getattr(self, "_looks", None)
        geom_parts = scene.part_count(looks) if looks is not None else 2 * max(model.ngeom, 1)
        # the opaque geoms' parts and the transparent pass's (before the looks: at most all)
        opaque_parts = clear_parts = geom_parts
        if looks is not None:
            opaque, clear = self._opaque_and_clear(looks)
            opaque_parts = scene.part_count(opaque)
            clear_parts = scene.part_count(clear) if clear else 0
        parts = opaque_parts
        if sites:
            parts += scene.part_count(sites) if sites is not True else max(model.nsite, 1)
        per_part = list_bytes(self.primitives)  # a part's instance lists in one view
        instances = ncam * parts * per_part
        # + light poses (pulled for the RGB alone: depth and segmentation light nothing)
        lit = "rgb" in self.outputs
        arrays = (model.ncam * 12 + model.nbody * 3 + model.nlight * 6 * lit) * 8
        light_rows = lights.light_count(model) * 112  # the poses of the world's light group
        pixel = 4 + 4 * len(self.outputs)  # depth24, then rgba8 or r32f each
        if "rgb" not in self.outputs and "depth" in self.outputs:
            pixel -= 4  # the depth in the depth buffer (depth32f: BodyRenderer.framebuffer)
        samples = getattr(self, "samples", 0)
        pixel += 8 * samples  # multisampled: rgba8 and depth24 a sample
        pixel += 20 if samples else 0  # the sky's picture (rgba8), cache (vec4)
        flags = getattr(self, "_flags", None)  # before the flags are read: shadows on
        maps = len(shadow_slots(model)) if flags is None or flags["mjRND_SHADOW"] else 0
        size = self._shadow_size
        if maps:  # the shadow casters' centres (ShadowMaps.arrays)
            arrays += model.ngeom * 3 * 8
        per_cast = list_bytes(self._shadow_primitives)  # a caster's lists in one map
        shadows = maps * (
            VIEW_DTYPE.itemsize + geom_parts * per_cast + size * size * 4
        )  # views, instance lists, depth24 (the maps have no colour)
        elements = sum(e.memory_per_world(ncam) for e in getattr(self, "_elements", ()))
        if maps:  # the other casters' depth renderers: views, instance lists, soft vertices
            site_parts = scene.part_count(sites) if isinstance(sites, list) and sites else 0
            casting = [site_parts] if site_parts else []
            for e in getattr(self, "_elements", ()):
                if not isinstance(e, Rangefinders):
                    casting.append(len(e.looks) * getattr(e, "copies", 1))
                    shadows += getattr(e, "soft_vertices", 0) // max(self.num_worlds, 1) * 16
            shadows += maps * sum(VIEW_DTYPE.itemsize + c * per_cast for c in casting)
            if site_parts:  # the sites' centres
                arrays += model.nsite * 3 * 8

        # the mirror pass (a reflective material, reflections on): its views, instance
        # lists, light poses and pixels (rgba8, depth24); the transparent pass: the same
        # less the pixels
        def lists(count: int) -> int:  # a pass's views, instance lists and light poses
            return ncam * (VIEW_DTYPE.itemsize + count * per_part) + light_rows if count else 0

        reflective = bool(model.nmat) and bool((model.mat_reflectance > 0).any())
        reflective = reflective and (flags is None or flags["mjRND_REFLECTION"])
        # (the mirror pass draws every opaque part but the mirror's one)
        reflected = max(opaque_parts - 1, 1)
        mirror = lists(reflected) + ncam * self.width * self.height * 8 if reflective else 0
        if reflective:  # the other elements' mirror renderers: lists, their soft vertices
            site_parts = scene.part_count(sites) if isinstance(sites, list) and sites else 0
            mirror += lists(site_parts) if site_parts else 0
            for e in getattr(self, "_elements", ()):
                mirror += lists(len(e.looks) * getattr(e, "copies", 1))
                mirror += getattr(e, "soft_vertices", 0) // max(self.num_worlds, 1) * 16
        clear = lists(clear_parts)

        def sort_keys(ids: int) -> int:  # a transparent pass's: per view, template and own
            return 2 * ncam * sort_key_commands(max(ids, 1)) * 20

        clear += sort_keys(model.ngeom) if clear_parts else 0
        for e in getattr(self, "_elements", ()):  # a layer drawn blended (in the RGB alone)
            if "rgb" in self.outputs and getattr(e, "transparent", False):
                clear += sort_keys(e.max_ids)
        return (records + views + instances + arrays + light_rows + shadows + elements
                + mirror + clear + ncam * self.width * self.height * pixel)  # fmt: skip

    # --- rendering -------------------------------------------------------------------------
    def _view_matrices(self, world_arrays: WorldArrays) -> tuple[np.ndarray, np.ndarray]:
        """(worlds * ncam, 4, 4) view-projections of every view and (worlds * ncam, 4)
        depth rows (metres along the view axis, orthographic cameras too), in one NumPy
        pass."""
        arrays = world_arrays.pull()
        light_xpos, light_xdir = arrays.pop("light_xpos", None), arrays.pop("light_xdir", None)
        names = {name for element in self._elements for name in element.arrays()}
        theirs = {name: arrays.pop(name) for name in names}
        # the shadow casters' centres (the geoms', sites', and what the elements pulled)
        wanted = self._shadows.arrays() if self._shadows is not None else {}
        cast = {name: arrays.pop(name) for name in wanted if name in arrays}
        cast.update(theirs)
        # the cameras first: they say what is wrong with data never forwarded
        matrices, depth = self._cameras.views(self.width / self.height, **arrays,
                                              adjust=self._world_looks.camera_frames)  # fmt: skip
        for element in self._elements:  # the tendons' rows, the skins' bones
            element.see(matrices.reshape(-1, 4, 4))
            element.write(theirs)
        reflections = self._reflections
        if light_xpos is not None:  # every world's lights, in every layer
            light_xpos, light_xdir = self._world_looks.light_poses(light_xpos, light_xdir)
            for layer in self._drawing():
                lights.write_poses(layer.lights, self.model, light_xpos, light_xdir)
            if self._shadows is not None:
                self._shadows.update([r for _, _, r in self._layers], light_xpos, light_xdir,
                                     cast)  # fmt: skip
        if reflections is not None:
            reflections.update(matrices.reshape(-1, 4, 4))
        return matrices.reshape(-1, 4, 4), depth.reshape(-1, 4)

    @serialised
    def render(self, data: Any) -> RenderResult:
        """Every world of `data` (an MjData, a sequence of `num_worlds` of them, or a
        ``mujoco.batch.Batch``) from every camera, in one drawing submit; see
        :class:`RenderResult`. Other MjData objects than last time (in a sequence: any of
        them) get new sources and a new program (the meshes and pipelines stay). The first
        render of a Batch runs its ``forward()`` once (it copies out the fields bound for
        the renderer only from its next call on). Threads take turns: one render at a
        time, and a :meth:`close` waits for the render in progress. The same as
        :meth:`snapshot` then :meth:`draw`, under one turn."""
        self.snapshot(data)
        return self.draw()

    @serialised
    def snapshot(self, data: Any) -> None:
        """Copy what the next :meth:`draw` shows of `data` (every world's geom and camera
        poses, in C++) into the renderer's records: after it `data` may be stepped while
        the draw runs (:class:`hypergl.PhysicsPipeline`). Data as for :meth:`render`."""
        if self.context.closed:
            raise hypergl.ContextError("the renderer's context has been closed")
        self._bind(data)
        renderer, fed = self._renderer, self._fed
        assert renderer is not None and fed is not None
        matrices, depth = self._view_matrices(fed.arrays)
        for _, _, layer in self._layers:
            layer.set_view_matrices(matrices, depth)
            layer.update()
        if self._transparent is not None:
            self._transparent.set_view_matrices(matrices, depth)
            self._transparent.update()
        fed.snapshot.submit()
        self._check_poses()
        self._snapshot_taken = True

    @serialised
    def draw(self) -> RenderResult:
        """Render the last :meth:`snapshot`, in one submit; see :class:`RenderResult`."""
        if self.context.closed:
            raise hypergl.ContextError("the renderer's context has been closed")
        renderer, fed = self._renderer, self._fed
        if renderer is None or fed is None or not self._snapshot_taken:
            raise DataError("draw() shows the last snapshot(data): take one first (or call "
                            "render(data), which does both)")  # fmt: skip
        fed.draw.submit()
        # nothing hit: the far plane, as MuJoCo
        picture = self._framebuffer if self._resolved is None else self._resolved
        images = renderer.read_views(picture, miss_depth=self._far)
        shape = (self.num_worlds, len(self._cameras), self.height, self.width)
        out: dict[str, np.ndarray] = {}
        for name in self.outputs:
            tiles = images[BODY_OUTPUT[name]]
            out[name] = tiles.reshape(*shape, *tiles.shape[3:])
        return RenderResult(out)

    # --- per-world looks (hypergl_mujoco.world_looks) -----------------------------------
    @serialised
    def set_geom_rgba(self, rgba: Any, worlds: Any = None, geoms: Any = None) -> None:
        """Give `geoms` (ids or names; None: all) in `worlds` (ids; None: all) the colour
        `rgba` (broadcast to (worlds, geoms, 4), each in 0..1), as if each world's
        ``model.geom_rgba`` were its own: seen from the next frame on, nothing recorded
        again. A :class:`~.errors.LookError` names a bad world, geom or value."""
        self._world_looks.set_geom_rgba(rgba, worlds, geoms)

    @serialised
    def set_geom_material(self, material: Any, worlds: Any = None, geoms: Any = None) -> None:
        """Give `geoms` in `worlds` the model's `material` (an id or name, -1: none; or an
        array of them broadcast to (worlds, geoms)), as if each world's
        ``model.geom_matid`` were its own: its specular, shininess, emission,
        reflectance, texture and, where the geom's rgba is MuJoCo's default, its rgba.
        A material unlike any the geom was drawn with so far (another texture mapping, a
        specular term) has the frame recorded again once, at the next render or snapshot
        (its pipelines made with that path: until then no world pays for it)."""
        if self._world_looks.set_geom_material(material, worlds, geoms):
            self._looks_grew = True

    @serialised
    def set_light_pose(self, position: Any, direction: Any, worlds: Any = None,
                       lights: Any = None) -> None:  # fmt: skip
        """Place the model's `lights` (ids or names; None: every light drawn) of `worlds`
        at `position` facing `direction` (each broadcast to (worlds, lights, 3), world
        frame), over the data's ``light_xpos`` / ``light_xdir`` until
        :meth:`reset_looks`."""
        self._world_looks.set_light_pose(position, direction, worlds, lights)

    @serialised
    def set_camera_pose(self, position: Any, xmat: Any, worlds: Any = None,
                        cameras: Any = None) -> None:  # fmt: skip
        """Place this renderer's `cameras` (indices into its cameras; None: all) of
        `worlds` at `position` with the rotation `xmat` (3x3 or 9 row-major, as MuJoCo's
        ``cam_xmat``: the camera looks along minus its third column), over what the data
        or the MjvCamera says, until :meth:`reset_looks`."""
        self._world_looks.set_camera_pose(position, xmat, worlds, cameras)

    @serialised
    def reset_looks(self) -> None:
        """Every world's looks as the model and the data say again."""
        self._world_looks.reset()

    def object_ids(self, segmentation: np.ndarray) -> np.ndarray:
        """`segmentation` (of :meth:`render`) as MuJoCo's segmentation gives it: (..., 2)
        int32 object id and ``mjtObj`` type (``mjOBJ_GEOM``, ``mjOBJ_SITE``,
        ``mjOBJ_TENDON``, ``mjOBJ_SKIN``, ``mjOBJ_FLEX``, ``mjOBJ_SENSOR``: a rangefinder's
        ray), -1 and -1 where nothing is."""
        ids = np.asarray(segmentation, np.int32)
        model = self.model
        firsts = np.cumsum([0, model.ngeom, model.nsite, model.ntendon, model.nskin,
                            model.nflex])  # fmt: skip
        kind_index = np.searchsorted(firsts, ids, side="right") - 1  # the kind's range
        kind_index = np.clip(kind_index, 0, len(firsts) - 1)
        kind = np.where(ids < 0, -1, np.asarray(OBJECT_TYPES, np.int32)[kind_index])
        local = np.where(ids < 0, -1, ids - firsts[kind_index])
        return np.stack([local, kind], axis=-1).astype(np.int32)

    def _check_poses(self) -> None:
        """The geom poses this submit synced (the records' mapped rows, all worlds in one
        NumPy pass) finite on the GPU: a world whose simulation diverged is named rather
        than drawn as garbage (hypergl.finite, as the cameras are)."""
        records = self._records.records[: self._records.count]  # type: ignore[union-attr]
        ngeom, model = max(self.model.ngeom, 1), self.model

        def geom(at: tuple[int, ...]) -> str:
            world, index = divmod(at[0], ngeom)
            body = int(model.geom_bodyid[index])
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body)
            return (
                f"the pose of {scene.geom_name(model, index)} of body {body}"
                f"{f' ({name!r})' if name else ''} in world {world}"
            )

        for field in ("position", "rotation"):
            check_within(records[field], geom, PoseError)

    # --- closing ---------------------------------------------------------------------------
    @closing
    def close(self) -> None:
        """Free the renderer's GPU resources (and its own context); safe to call twice, and
        from another thread than a render's (it waits for that render to end; later
        renders raise RendererClosedError)."""
        context = getattr(self, "context", None)
        if context is None or context.closed:
            return
        fed, self._fed = self._fed, None
        parts = [fed.arrays if fed else None, self._framebuffer, self._resolved,
                 self._shadows, self._reflections, self._transparent]  # fmt: skip
        parts += getattr(self, "_elements", [])
        self._shadows = self._reflections = self._transparent = None
        for _, records, renderer in self._layers:
            parts += [renderer, records]
        self._layers = []
        self._renderer = self._records = self._framebuffer = self._resolved = None
        for part in parts:
            _release(part)
        if self._own_context:
            context.close()

    def __enter__(self) -> BatchRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
