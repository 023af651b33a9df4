"""`ctx.bridge("culverin", world)`: Culverin's shadow buffers into one persistently mapped SSBO.

The copy is HyperGL's external-source conversion: C++, GIL released, float64 -> float32
(or float64) per row, no per-body Python and no intermediate NumPy array. ``bridge.sync()``
runs it now (``ctx.upload``); ``bridge.record(cmd)`` records the VM's ``upload`` instruction so
that every ``cmd.submit()`` runs the very same code.

Culverin's rules, and how the bridge keeps them:

* the views are exported in C++ (no Python frame per sync) and, with ``keep_views=True``
  (the default), held between syncs while ``world.count`` is unchanged: Culverin never
  reallocates a shadow buffer while a view of it is alive (it raises ``BufferError``
  instead of growing), so the held addresses stay valid and a frame costs one count read.
  A changed count re-exports. The bridge's creating helpers and ``bridge.stepping()``
  release the views first, so the world can grow; before growing the world straight
  through Culverin outside ``stepping()``, call ``bridge.drop_views()``;
* rows move when bodies are destroyed (swap-remove at the next step): the record carries the
  body's ``user_data`` as its stable id (``id.x`` low, ``id.y`` high 32 bits);
* physics in another thread: the bridge's lock (``bridge.stepping()`` / ``bridge.step(dt)``)
  is held around ``world.step()``; the upload takes the same lock when it acquires the views
  and drops it when the C++ copy has released them, so a copy never overlaps a step.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import culverin
import numpy as np

import hypergl
from hypergl import ContextError, HyperGLError

from . import shapes, values
from .errors import (
    BadValueError,
    BridgeReleasedError,
    CapacityError,
    EmptyWorldError,
    NotAWorldError,
)
from .layout import PRECISIONS, RecordLayout
from .vehicles import vehicle_tracks, vehicle_wheels

DEFAULT_MIN_CAPACITY = 1024
MAX_SOFT_VERTICES = 1 << 16  # one Python call per vertex at creation
MAX_HEIGHTFIELD_GRID = 1 << 12
MAX_STEP = 10.0  # seconds: Culverin steps NaN dt raw, and negative or huge ones silently

# The Culverin keyword options each helper passes on (checked by values.OPTIONS).
_COMMON = ("category", "mask", "material_id", "friction", "restitution")
BODY_OPTIONS = ("pos", "rot", "motion", "is_sensor", "mass", "ccd", "allowed_dofs", *_COMMON)
HULL_OPTIONS = ("motion", "mass", "is_sensor", "ccd", *_COMMON)
COMPOUND_OPTIONS = HULL_OPTIONS
HEIGHTFIELD_OPTIONS = _COMMON
SOFT_OPTIONS = ("category", "mask", "pressure", "vertex_radius", "linear_damping",
                "num_iterations", "max_linear_velocity", "gravity_factor", "friction",
                "restitution", "make_rotation_identity", "update_position",
                "faces_double_sided")  # fmt: skip
VEHICLE_OPTIONS = ("drive", "engine", "transmission")
TRACKED_OPTIONS = ("max_torque", "max_rpm")
_serial = itertools.count()


# The record source's accessors over the CulverinBody records (layout.py).
ACCESSORS = """uint body_count() { return culverin_count; }
vec3 body_position(uint row) { return vec3(culverin_bodies[row].position.xyz); }
vec4 body_rotation(uint row) { return culverin_bodies[row].rotation; }
uint body_id(uint row) { return culverin_bodies[row].id; }
"""


class _WorldFeed:
    """The lock shared by syncs and steps, and the capacity message.

    Kept apart from the bridge so that the native source (which holds the lock) never
    references the bridge: no reference cycle through C++ objects, which Python's
    collector cannot see into.
    """

    def __init__(self, world: Any, capacity: int) -> None:
        self.world = world
        self.capacity = capacity
        self.lock = threading.RLock()
        self.source: Any = None

    def drop_views(self) -> None:
        """Release views kept between syncs: bodies may be created (the world may grow)."""
        if self.source is not None:
            self.source.drop_views()

    def overflow_message(self, bodies: int) -> str:
        return (f"the world has {bodies} bodies, more than the bridge's capacity of "
                f"{self.capacity}: make the bridge with room for them, e.g. ctx.bridge("
                f"'culverin', world, capacity={max(2 * bodies, 1024)}) (and raise the "
                "world's max_bodies setting if it is smaller)")  # fmt: skip


class CulverinBridge:
    """Feeds a ``culverin.PhysicsWorld`` to a HyperGL context as one storage buffer.

    Options (``ctx.bridge("culverin", world, **options)``):

    ``capacity``   records the buffer holds; fixed at creation. Default: twice the
                   current body count (at least 1024), never more than ``world.max_bodies``.
    ``precision``  ``"f32"`` (vec4 positions, default), ``"f64"`` (dvec4; needs GPU fp64) or
                   ``"auto"`` (f64 where the GPU has fp64).
    ``velocities`` also copy linear velocities (a ``vec4 velocity`` member).
    ``binding``    storage-buffer binding of the records (default 0); the live-row counter
                   is bound at ``binding + 1`` by :meth:`bind`.
    ``count``      ``(buffer, offset)`` that receives the live row count as a u32 at each
                   sync (e.g. an indirect command's instanceCount); default: ``bridge.counter``.
    ``keep_views`` hold Culverin's views between syncs while the body count is unchanged
                   (default True; see the module doc); False exports them at every sync.
    """

    def __init__(
        self,
        ctx: hypergl.Context,
        world: Any,
        *,
        capacity: int | None = None,
        precision: str = "f32",
        velocities: bool = False,
        binding: int = 0,
        count: tuple[hypergl.Buffer, int] | None = None,
        keep_views: bool = True,
    ) -> None:
        if not isinstance(ctx, hypergl.Context):
            raise TypeError(f"CulverinBridge needs a hypergl.Context, got {ctx!r}")
        if not isinstance(world, culverin.PhysicsWorld):
            raise NotAWorldError(
                f"the culverin bridge needs a culverin.PhysicsWorld, got {type(world).__name__}"
            )
        if ctx.closed:
            raise ContextError("this context has been closed")
        if precision not in (*PRECISIONS, "auto"):
            raise ValueError(f"precision must be 'f32', 'f64' or 'auto', got {precision!r}")
        fp64 = ctx.capabilities is None or ctx.capabilities.fp64  # trace/null: no GPU to lack it
        if precision == "auto":
            precision = "f64" if fp64 else "f32"
        elif precision == "f64" and not fp64:
            raise ValueError("precision='f64' needs a GPU with fp64 (GL 4.0 or "
                             "ARB_gpu_shader_fp64); use 'f32' or 'auto'")  # fmt: skip
        if not isinstance(keep_views, bool):
            raise TypeError(f"keep_views must be True or False, got {keep_views!r}")
        if not isinstance(velocities, bool):
            raise TypeError(f"velocities must be True or False, got {velocities!r}")
        if isinstance(binding, bool) or not isinstance(binding, int) or not 0 <= binding < 64:
            raise ValueError(f"binding must be an int in 0..63, got {binding!r}")
        self._layout = RecordLayout.make(precision, velocities)
        self._world = world
        self._capacity = self._checked_capacity(capacity, world)
        self._binding = binding
        self._ctx = ctx
        self._feed = _WorldFeed(world, self._capacity)
        self._lock = self._feed.lock
        self._released = False
        self._next_id = itertools.count(1)
        # Shapes the creating helpers recorded: id -> Shape, and (id, shape, colour) in
        # creation order for renderers to take in incrementally.
        self.shapes: dict[int, shapes.Shape] = {}
        self.shape_log: list[tuple[int, shapes.Shape, Any]] = []
        # Per renderer set_looks has served: how far into shape_log, which soft bodies.
        self._looks_given: weakref.WeakKeyDictionary[Any, tuple[int, set[int]]] = (
            weakref.WeakKeyDictionary()
        )
        # (id, () -> (position, rotation)): objects without a body row (vehicle wheels).
        self.attachments: list[tuple[int, Any]] = []
        self._owned: list[Any] = []  # ragdolls, characters, vehicles: alive while we are
        self._soft_settings: list[Any] = []
        self._soft_handles: list[int] = []
        self._soft_resources: list[Any] = []
        prefix = f"culverin{next(_serial)}"
        self.buffer: hypergl.Buffer = ctx.buffer(
            np.zeros(self._capacity * self._layout.record_size, np.uint8),
            usage="storage",
            name=f"{prefix}_bodies",
        )
        self.counter: hypergl.Buffer | None = None
        if count is None:
            self.counter = ctx.buffer(np.zeros(4, np.uint32), name=f"{prefix}_count")
            count = (self.counter, 0)
        self.count_target: tuple[hypergl.Buffer, int] = count
        self.source: hypergl.ExternalSource = ctx.attribute_source(
            world,
            self._layout.sources,
            self._layout.fields(),
            record_size=self._layout.record_size,
            count_attribute="count",
            lock=self._lock,
            keep_views=keep_views,
            count=count,
            name=f"{prefix}_world",
        )
        self._feed.source = self.source

    @staticmethod
    def _checked_capacity(capacity: Any, world: Any) -> int:
        if capacity is None:
            bodies = world.count
            if bodies == 0:
                raise EmptyWorldError("the world has no bodies yet: pass capacity= (the most "
                                      "bodies it will hold) to bridge an empty world")  # fmt: skip
            return min(world.max_bodies, max(2 * bodies, DEFAULT_MIN_CAPACITY))
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)):
            raise TypeError(f"capacity must be an int, got {capacity!r}")
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        if capacity < world.count:
            raise CapacityError(f"capacity {capacity} is smaller than the world's "
                                f"{world.count} bodies")  # fmt: skip
        return int(capacity)

    # --- synchronising -------------------------------------------------------------------
    def sync(self) -> int:
        """Copy every body into the buffer now (C++, no GIL); returns the rows copied."""
        if self._released:  # the rest is checked only when the copy fails: a lean hot path
            raise BridgeReleasedError("this culverin bridge has been released")
        try:
            self._ctx.upload(self.source, self.buffer)
        except (HyperGLError, ValueError) as exc:
            self._check_live()  # a closed context or released buffer: their own error
            bodies = self._world.count
            if bodies > self._capacity:
                raise CapacityError(self._feed.overflow_message(bodies)) from exc
            raise
        return self.source.rows_uploaded

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """Record the sync as the VM's ``upload`` instruction: each ``submit()`` runs it."""
        self._check_live()
        if getattr(cmd, "context", None) is not self._ctx:
            raise ValueError("record needs a command buffer of the bridge's context")
        cmd.upload(self.source, self.buffer)

    def bind(self, cmd: hypergl.CommandBuffer) -> None:
        """Record binding the records (``binding``) and the counter (``binding + 1``)."""
        self._check_live()
        cmd.bind_storage_buffer(self.buffer, self._binding)
        count_buffer, _ = self.count_target
        cmd.bind_storage_buffer(count_buffer, self._binding + 1)

    # --- threads -------------------------------------------------------------------------
    @contextlib.contextmanager
    def stepping(self) -> Iterator[None]:
        """Hold the bridge's lock: no sync copies while the block runs.

        Wrap ``world.step()`` (and body creation or destruction) in it when physics runs
        on another thread than rendering; it releases the kept views first, so bodies
        may be created inside. Do not call HyperGL inside the block.
        """
        with self._lock:
            self._feed.drop_views()
            yield

    def drop_views(self) -> None:
        """Release the views kept between syncs, so that the world may grow (see the module
        doc); the next sync exports them again."""
        self._feed.drop_views()

    def step(self, dt: float) -> None:
        """``world.step(dt)`` under the bridge's lock (Culverin releases the GIL meanwhile)."""
        dt = values.number(dt, "step dt", above=0.0, high=MAX_STEP)
        with self._lock:
            self._world.step(dt)

    # --- identity and shapes ---------------------------------------------------------------
    def _new_id(self) -> int:
        return next(self._next_id)

    def _record(self, body_id: int, shape: shapes.Shape, color: Any) -> None:
        """Keep a body's shape for renderers (``shape_log`` is append-only)."""
        self.shapes[body_id] = shape
        self.shape_log.append((body_id, shape, color))

    def _tagged(self, create: Any, shape: shapes.Shape, color: Any, options: dict,
                what: str) -> int:  # fmt: skip
        """``create(user_data=id, **options)`` under the lock, then the shape kept."""
        body_id, handle = self._create(create, options, what)
        self._record(body_id, shape, color)
        return handle

    def _create(self, create: Any, options: dict, what: str) -> tuple[int, int]:
        """``(id, handle)`` of ``create(user_data=id, **options)`` (room checked first,
        Culverin's raw errors mapped); the shape is not recorded yet."""
        self._check_live()
        values.room_for(self._world, 1, what)
        body_id = self._new_id()
        with self._lock, values.calling(what):
            self._feed.drop_views()
            handle = create(user_data=body_id, **options)
        return body_id, handle

    def create_body(self, *, shape: int | None = None, size: Any = None, color: Any = None,
                    **options: Any) -> int:  # fmt: skip
        """``world.create_body(**options)`` with a fresh stable id as ``user_data``, its
        shape recorded for renderers (box, sphere, capsule, cylinder, plane).

        Ids count from 1 (0 is what Culverin gives bodies created without user_data).
        Returns the body handle; ``world.get_user_data(handle)`` is its id.
        """
        shape = culverin.SHAPE_BOX if shape is None else shape
        options = values.options(options, BODY_OPTIONS, "create_body")
        if size is None:
            raise shapes.ShapeError("create_body needs size= (half extents, radius, "
                                    "(half_height, radius) or (nx, ny, nz, c))")  # fmt: skip
        recorded = shapes.from_culverin(shape, size)
        if shape == culverin.SHAPE_PLANE:
            options.setdefault("motion", culverin.MOTION_STATIC)
        return self._tagged(self._world.create_body, recorded, color,
                            {"shape": shape, "size": size, **options}, "a body")  # fmt: skip

    def create_convex_hull(self, pos: Any, rot: Any, points: Any, *, color: Any = None,
                           **options: Any) -> int:  # fmt: skip
        """``world.create_convex_hull``; drawn as the hull of `points`, about its centre of
        mass. More than ``hull.MAX_HULL_POINTS`` points are first reduced to extreme ones
        (Culverin keeps at most 256 hull vertices anyway), so drawn and simulated agree."""
        options = values.options(options, HULL_OPTIONS, "create_convex_hull")
        recorded = shapes.ConvexHull(points)  # checks and reduces the points
        return self._tagged(self._world.create_convex_hull, recorded, color,
                            {"pos": values.vector(pos, "create_convex_hull pos"),
                             "rot": values.quaternion(rot, "create_convex_hull rot"),
                             "points": np.ascontiguousarray(recorded.points, np.float32),
                             **options}, "a convex hull")  # fmt: skip

    def create_mesh_body(self, pos: Any, rot: Any, vertices: Any, indices: Any, *,
                         color: Any = None, **options: Any) -> int:  # fmt: skip
        """``world.create_mesh_body`` (static triangles), drawn from both sides."""
        options = values.options(options, ("category", "mask"), "create_mesh_body")
        v = values.points(vertices, "mesh vertices", least=3)
        i = values.triangles(indices, "mesh indices", v)
        recorded = shapes.TriangleMesh(v, i)
        return self._tagged(self._world.create_mesh_body, recorded, color,
                            {"pos": values.vector(pos, "create_mesh_body pos"),
                             "rot": values.quaternion(rot, "create_mesh_body rot"),
                             "vertices": np.ascontiguousarray(v, np.float32),
                             "indices": np.ascontiguousarray(i, np.uint32), **options},
                            "a triangle mesh body")  # fmt: skip

    def create_heightfield(self, pos: Any, rot: Any, scale: Any, heights: Any, grid_size: int,
                           *, color: Any = None, **options: Any) -> int:  # fmt: skip
        """``world.create_heightfield``: ``heights[row * grid_size + col]``."""
        options = values.options(options, HEIGHTFIELD_OPTIONS, "create_heightfield")
        grid_size = values.integer(grid_size, "heightfield grid_size", low=2,
                                   high=MAX_HEIGHTFIELD_GRID, error=shapes.ShapeError)  # fmt: skip
        recorded = shapes.Heightfield(
            values.floats(heights, "heightfield heights", error=shapes.ShapeError), grid_size, scale
        )
        return self._tagged(self._world.create_heightfield, recorded, color,
                            {"pos": values.vector(pos, "create_heightfield pos"),
                             "rot": values.quaternion(rot, "create_heightfield rot"),
                             "scale": recorded.scale,
                             "heights": np.ascontiguousarray(recorded.heights, np.float32),
                             "grid_size": grid_size, **options}, "a heightfield")  # fmt: skip

    def create_compound_body(self, pos: Any, rot: Any, parts: Any, *, color: Any = None,
                             **options: Any) -> int:  # fmt: skip
        """``world.create_compound_body``: parts ``(offset, rotation, SHAPE_*, size)``, each
        drawn; the body is drawn about the compound's centre of mass, as Jolt places it."""
        options = values.options(options, COMPOUND_OPTIONS, "create_compound_body")
        children, native = [], []
        for k, part in enumerate(parts):
            try:
                offset, rotation, kind, size = part
            except (TypeError, ValueError):
                raise shapes.ShapeError(f"a compound part is (offset, rotation, SHAPE_*, size), "
                                        f"got {values.show(part)}") from None  # fmt: skip
            offset = values.vector(offset, f"compound part {k} offset", error=shapes.ShapeError)
            rotation = values.quaternion(rotation, f"compound part {k} rotation",
                                         error=shapes.ShapeError)  # fmt: skip
            children.append((offset, rotation, shapes.from_culverin(kind, size)))
            native.append((offset, rotation, kind, size))
        recorded = shapes.Compound(children)
        return self._tagged(self._world.create_compound_body, recorded, color,
                            {"pos": values.vector(pos, "create_compound_body pos"),
                             "rot": values.quaternion(rot, "create_compound_body rot"),
                             "parts": native, **options}, "a compound body")  # fmt: skip

    def create_soft_body(self, pos: Any, vertices: Any, faces: Any, *, rot: Any = (0, 0, 0, 1),
                         inv_masses: Any = None, compliance: float = 1e-4, color: Any = None,
                         **options: Any) -> int:  # fmt: skip
        """A soft body of `vertices` (local, (N, 3)) and triangle `faces`; drawn from its
        vertices, which the renderer's recorded program moves into a storage buffer."""
        options = values.options(options, SOFT_OPTIONS, "create_soft_body")
        pos = values.vector(pos, "create_soft_body pos")
        rot = values.quaternion(rot, "create_soft_body rot")
        compliance = values.OPTIONS["compliance"](compliance, "create_soft_body compliance")
        # A NaN vertex segfaults Culverin's create_constraints: checked here first.
        v = values.points(vertices, "soft body vertices", least=3, most=MAX_SOFT_VERTICES)
        f = values.triangles(faces, "soft body faces", v)
        recorded = shapes.SoftBody(len(v), f)
        masses = np.ones(len(v)) if inv_masses is None else \
            values.floats(inv_masses, "soft body inv_masses")  # fmt: skip
        if masses.shape != (len(v),):
            raise BadValueError(f"inv_masses needs one value per vertex ({len(v)}), got "
                                f"shape {masses.shape}")  # fmt: skip
        if not np.isfinite(masses).all() or (masses < 0).any() or (masses > 1e6).any():
            k = int(np.argmax(~np.isfinite(masses) | (masses < 0) | (masses > 1e6)))
            raise BadValueError(f"soft body inv_masses[{k}] is {float(masses[k])!r}: inverse "
                                "masses must be finite, in 0..1e6 (0 pins the vertex)")  # fmt: skip
        with values.calling("a soft body's settings"):
            settings = culverin.SoftBodySharedSettings()
            # One call per vertex and face: Culverin 0.15's add_vertices/add_faces arrays
            # produced bodies that crashed the next step here.
            for point, inv_mass in zip(v, masses, strict=True):
                settings.add_vertex(tuple(point), float(inv_mass))
            for a, b, c in f.reshape(-1, 3):
                settings.add_face(int(a), int(b), int(c))
            settings.create_constraints(compliance, culverin.BEND_DISTANCE)
            settings.optimize()
        self._soft_settings.append(settings)
        handle = self._tagged(self._world.create_soft_body, recorded, color,
                              {"shared_settings": settings, "pos": pos, "rot": rot,
                               **options}, "a soft body")  # fmt: skip
        self._soft_handles.append(handle)
        return handle

    def create_character(self, pos: Any, *, height: float = 1.8, radius: float = 0.4,
                         color: Any = None, **options: Any) -> Any:  # fmt: skip
        """``world.create_character``; kept by the bridge, drawn as its standing capsule."""
        options = values.options(options, ("step_height", "max_slope"), "create_character")
        pos = values.vector(pos, "create_character pos")
        height = values.OPTIONS["height"](height, "create_character height")
        radius = values.OPTIONS["radius"](radius, "create_character radius")
        if 2 * radius > height:
            raise BadValueError(f"create_character radius {radius} is more than half its "
                                f"height {height}")  # fmt: skip
        self._check_live()
        values.room_for(self._world, 1, "a character")
        body_id = self._new_id()
        with self._lock, values.calling("a character"):
            self._feed.drop_views()
            character = self._world.create_character(pos, height=height, radius=radius,
                                                     **options)  # fmt: skip
            self._world.set_user_data(character.handle, body_id)
        self._owned.append(character)
        self._record(body_id, shapes.Capsule(max(height / 2 - radius, 1e-3), radius), color)
        return character

    def create_vehicle(self, chassis: int, wheels: list[dict[str, Any]], *,
                       tracks: list[dict[str, Any]] | None = None,
                       wheel_width: float = 0.2, color: Any = None,
                       **options: Any) -> Any:  # fmt: skip
        """``world.create_vehicle`` (or ``create_tracked_vehicle`` with `tracks`) on a chassis
        made by this bridge; the wheels are drawn as cylinders of ``wheel_width``.

        Culverin reports wheel transforms only per wheel (``get_wheel_transform``), so
        ``BodyRenderer.update()`` makes one call per wheel per frame.
        """
        self._check_live()
        caller = "create_vehicle" if tracks is None else "create_vehicle (tracked)"
        options = values.options(options, VEHICLE_OPTIONS if tracks is None
                                 else TRACKED_OPTIONS, caller)  # fmt: skip
        chassis = self._alive(chassis, "the vehicle's chassis")
        if self._world.get_index(chassis) is None:
            raise BadValueError(
                "the chassis is not in the world yet: step the world once after "
                "creating it (Culverin 0.15 crashes on an unstepped chassis)"
            )
        wheel_width = values.positive(wheel_width, "wheel_width", error=BadValueError)[0]
        wheels = vehicle_wheels(wheels)
        tracks = None if tracks is None else vehicle_tracks(tracks, len(wheels))
        with self._lock, values.calling("a vehicle"):
            self._feed.drop_views()
            if tracks is None:
                vehicle = self._world.create_vehicle(chassis, wheels, **options)
            else:
                vehicle = self._world.create_tracked_vehicle(chassis, wheels, tracks, **options)
        self._owned.append(vehicle)
        axle = (0.0, 0.0, 0.5**0.5, 0.5**0.5)  # the cylinder's y axis along the axle (x)
        for index, wheel in enumerate(wheels):
            body_id = self._new_id()
            radius = float(wheel["radius"])
            cylinder = shapes.Cylinder(wheel_width / 2, radius)
            # A spoke standing out of both faces: a spinning cylinder would look still.
            spoke = shapes.Box((wheel_width / 2 + 0.02, 0.85 * radius, 0.12 * radius))
            look = shapes.Shaded(shapes.Compound([((0.0, 0.0, 0.0), axle, cylinder),
                                                  ((0.0, 0.0, 0.0), shapes.IDENTITY, spoke)]),
                                 {1: 0.45})  # fmt: skip
            self._record(body_id, look, color)
            self.attachments.append((body_id, lambda v=vehicle, i=index: v.get_wheel_transform(i)))
        return vehicle

    def create_ragdoll(self, settings: Any, pos: Any, rot: Any = (0, 0, 0, 1), *,
                       color: Any = None) -> Any:  # fmt: skip
        """``world.create_ragdoll`` from :meth:`ragdoll_settings`; the bridge keeps the
        ragdoll alive (Culverin drops it with its Python object) and draws every part."""
        from .ragdolls import RecordingRagdollSettings

        if not isinstance(settings, RecordingRagdollSettings):
            raise TypeError("create_ragdoll needs settings from bridge.ragdoll_settings(...) "
                            f"(they record each part's shape), got {settings!r}")  # fmt: skip
        self._check_live()
        pos = values.vector(pos, "create_ragdoll pos")
        rot = values.quaternion(rot, "create_ragdoll rot")
        settings.check_complete()  # a joint without a part segfaults Culverin
        values.room_for(self._world, len(settings.shapes), "the ragdoll")
        with self._lock, values.calling("a ragdoll"):
            self._feed.drop_views()
            ragdoll = self._world.create_ragdoll(settings.native, pos, rot)
            handles = ragdoll.get_body_handles()
            ids = []
            for handle in handles:
                ids.append(self._new_id())
                self._world.set_user_data(handle, ids[-1])
        self._owned.append(ragdoll)
        for body_id, shape in zip(ids, settings.shapes, strict=True):
            self._record(body_id, shape, color)
        return ragdoll

    def ragdoll_settings(self, skeleton: Any) -> Any:
        """Culverin's ``RagdollSettings`` for `skeleton`, recording each part's shape."""
        from .ragdolls import RecordingRagdollSettings

        if not isinstance(skeleton, culverin.Skeleton):
            raise TypeError(f"ragdoll_settings needs a culverin.Skeleton, got {skeleton!r}")
        with values.calling("ragdoll settings"):
            return RecordingRagdollSettings(self._world, skeleton)

    def load_urdf(self, path: Any, pos: Any = (0.0, 0.0, 0.0), *, fixed_base: bool = False,
                  color: Any = None, memory_limit: int | None = None,
                  mesh_roots: Any = (), packages: Any = None) -> dict[str, int]:  # fmt: skip
        """A URDF robot: one body per link, each drawn with its visual geometry; joints as
        Culverin constraints. Returns ``{link name: handle}``.

        The whole file is checked before the first body is made; a failure leaves the
        world as it was. ``memory_limit`` bounds the bytes of the URDF and its meshes
        (default 256 MiB); mesh paths stay inside the URDF's folder, ``mesh_roots`` (more
        folders) and ``packages`` (``{name: folder}`` for ``package://name/...``).
        """
        from .urdf import load

        return load(self, path, pos, fixed_base=fixed_base, color=color,
                    memory_limit=memory_limit, mesh_roots=mesh_roots,
                    packages=packages)  # fmt: skip

    def set_shape(self, handle: int, shape: shapes.Shape, color: Any = None) -> int:
        """Give a body made straight through Culverin a stable id and a shape to draw."""
        if not isinstance(shape, shapes.Shape):
            raise shapes.ShapeError(f"shape must be a hypergl_culverin.shapes.Shape, got "
                                    f"{shape!r}")  # fmt: skip
        body_id = self.assign_id(handle)
        self._record(body_id, shape, color)
        return body_id

    def _alive(self, handle: Any, what: str) -> int:
        """`handle` as an int naming a live body of this world."""
        handle = values.integer(handle, what, low=0, high=2**64 - 1)
        if not self._world.is_alive(handle):
            raise BadValueError(f"{what}: body handle {handle} is not alive in this world")
        return handle

    def assign_id(self, handle: int) -> int:
        """Give an existing body a fresh stable id (its ``user_data``) and return the id."""
        self._check_live()
        handle = self._alive(handle, "assign_id handle")
        new_id = self._new_id()
        with self._lock:
            self._world.set_user_data(handle, new_id)
        return new_id

    def soft_body_source(self, body_id: int) -> tuple[Any, hypergl.Buffer]:
        """An external source of the soft body's vertices (f64 -> f32 vec4 rows) and the
        mapped buffer it fills; renderers copy that on the GPU into their soft buffer."""
        shape = self.shapes.get(body_id)
        if not isinstance(shape, shapes.SoftBody):
            raise shapes.ShapeError(f"body {body_id} is not a soft body made by this bridge")
        handle = self._handle_of_soft(body_id)
        feed = self._feed
        world = self._world

        def acquire() -> tuple:
            feed.lock.acquire()
            try:
                return (world.get_soft_body_vertices(handle),)
            except BaseException:
                feed.lock.release()
                raise

        staging = self._ctx.buffer(size=shape.vertex_count * 16, name=f"soft{body_id}")
        source = self._ctx.external_source(
            acquire,
            [{"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}],
            record_size=16, release=feed.lock.release, name=f"soft{body_id}_vertices",
        )  # fmt: skip
        self._soft_resources += [source, staging]
        return source, staging

    def set_looks(self, renderer: Any) -> None:
        """The looks of the bodies made since the last call for `renderer` (a
        ``hypergl.bodies.BodyRenderer`` over this bridge): each body's shape and colour as
        its creating helper recorded them, a soft body's vertices added first (the bridge
        contract's looks; :class:`~hypergl_culverin.BodyRenderer` calls it each update)."""
        self._check_live()
        seen, soft = self._looks_given.get(renderer, (0, set()))
        log = self.shape_log
        for body_id, shape, color in log[seen:]:
            if shape.kind == "soft_body" and body_id not in soft:
                source, staging = self.soft_body_source(body_id)
                renderer.add_soft_vertices(body_id, shape.vertex_count, source, staging)
                soft.add(body_id)
            renderer.set_parts(body_id, shape.parts(), shape.meshes(), color)
            seen += 1
            self._looks_given[renderer] = (seen, soft)  # a failure resumes at that body

    def _handle_of_soft(self, body_id: int) -> int:
        # Soft bodies are few: find the handle whose user_data is the id.
        for handle in self._soft_handles:
            if self._world.get_user_data(handle) == body_id:
                return handle
        raise shapes.ShapeError(f"soft body {body_id} is no longer in the world")

    # --- inspection ----------------------------------------------------------------------
    def records(self) -> np.ndarray:
        """The rows of the last sync as a structured NumPy view of the mapped buffer."""
        self._check_live()
        rows = self.source.rows_uploaded
        return self.buffer.map(self._layout.numpy_dtype(), self._capacity)[:rows]

    def glsl(self, binding: int | None = None) -> str:
        """GLSL declaring ``struct CulverinBody``, ``culverin_bodies[]`` and ``culverin_count``."""
        binding = self._binding if binding is None else binding
        return self._layout.glsl(binding, binding + 1)

    def body_glsl(self) -> str:
        """:meth:`glsl` and the accessors a record source defines (``body_count()``,
        ``body_position(row)``, ...): the bridge is a record source of
        ``hypergl.bodies.BodyRenderer`` (the bridge contract)."""
        return self.glsl() + ACCESSORS

    @property
    def world(self) -> Any:
        return self._world

    @property
    def context(self) -> hypergl.Context:
        return self._ctx

    @property
    def layout(self) -> RecordLayout:
        return self._layout

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def record_size(self) -> int:
        return self._layout.record_size

    @property
    def precision(self) -> str:
        return self._layout.precision

    @property
    def binding(self) -> int:
        return self._binding

    @property
    def count(self) -> int:
        """Rows copied by the last sync (also written into ``count_target`` on the GPU side)."""
        return self.source.rows_uploaded

    # --- lifetime ------------------------------------------------------------------------
    @property
    def released(self) -> bool:
        return self._released or self.buffer.released or self.source.released

    def _check_live(self) -> None:
        if self._ctx.closed:
            raise ContextError("the bridge's context has been closed")
        if self.released:
            raise BridgeReleasedError("this culverin bridge (or its buffer) has been released")

    def close(self) -> None:
        """:meth:`release` (the name every bridge of ``ctx.bridge`` has)."""
        self.release()

    def release(self) -> None:
        """Free the buffer, the counter and the external source."""
        if self._released:
            return
        self._released = True
        if self._ctx.closed:
            return
        for resource in (self.source, self.buffer, self.counter, *self._soft_resources):
            if resource is not None and not resource.released:
                resource.release()

    def __repr__(self) -> str:
        state = " released" if self.released else ""
        return (f"<CulverinBridge capacity={self._capacity} precision={self.precision} "
                f"record_size={self.record_size}{state}>")  # fmt: skip
