"""`ctx.bridge("culverin", world)`: Culverin's shadow buffers into one persistently mapped SSBO.

The copy is HyperGL's external-source conversion: C++, GIL released, float64 -> float32
(or float64) per row, no per-body Python and no intermediate NumPy array. ``bridge.sync()``
runs it now (``ctx.upload``); ``bridge.record(cmd)`` records the VM's ``upload`` instruction so
that every ``cmd.submit()`` runs the very same code.

Culverin's rules, and how the bridge keeps them:

* views are acquired fresh at every sync and released right after the copy: none is held
  across a step;
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
from collections.abc import Iterator
from typing import Any

import culverin
import numpy as np

import hypergl
from hypergl import ContextError, HyperGLError

from .errors import BridgeReleasedError, CapacityError, EmptyWorldError, NotAWorldError
from .layout import PRECISIONS, RecordLayout

DEFAULT_MIN_CAPACITY = 1024
_serial = itertools.count()


class _WorldFeed:
    """The external source's callbacks: the world, the lock and the capacity, nothing more.

    Kept apart from the bridge so that the native source (which holds these callbacks)
    never references the bridge or itself: no reference cycle through C++ objects,
    which Python's collector cannot see into.
    """

    def __init__(self, world: Any, sources: tuple[str, ...], capacity: int) -> None:
        self.world = world
        self.sources = sources
        self.capacity = capacity
        self.lock = threading.RLock()
        self.overflow: int | None = None

    def acquire(self) -> tuple:
        """Take the lock (waiting without the GIL), then fresh views of every shadow buffer."""
        self.lock.acquire()
        try:
            world = self.world
            bodies = world.count
            if bodies > self.capacity:
                self.overflow = bodies
                raise CapacityError(self.overflow_message())
            self.overflow = None
            return tuple(getattr(world, name) for name in self.sources)
        except BaseException:
            self.lock.release()
            raise

    def release(self) -> None:
        """Called by C++ once the views are released: a step may run again."""
        self.lock.release()

    def overflow_message(self) -> str:
        return (f"the world has {self.overflow} bodies, more than the bridge's capacity "
                f"of {self.capacity}")  # fmt: skip


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
        if not isinstance(velocities, bool):
            raise TypeError(f"velocities must be True or False, got {velocities!r}")
        if isinstance(binding, bool) or not isinstance(binding, int) or not 0 <= binding < 64:
            raise ValueError(f"binding must be an int in 0..63, got {binding!r}")
        self._layout = RecordLayout.make(precision, velocities)
        self._world = world
        self._capacity = self._checked_capacity(capacity, world)
        self._binding = binding
        self._ctx = ctx
        self._feed = _WorldFeed(world, self._layout.sources, self._capacity)
        self._lock = self._feed.lock
        self._released = False
        self._next_id = itertools.count(1)
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
        self.source: hypergl.ExternalSource = ctx.external_source(
            self._feed.acquire,
            self._layout.fields(),
            record_size=self._layout.record_size,
            release=self._feed.release,
            count=count,
            name=f"{prefix}_world",
        )

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
        self._check_live()
        try:
            self._ctx.upload(self.source, self.buffer)
        except HyperGLError as exc:
            if self._feed.overflow is not None:
                raise CapacityError(self._feed.overflow_message()) from exc
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
        on another thread than rendering. Do not call HyperGL inside the block.
        """
        with self._lock:
            yield

    def step(self, dt: float) -> None:
        """``world.step(dt)`` under the bridge's lock (Culverin releases the GIL meanwhile)."""
        with self._lock:
            self._world.step(dt)

    # --- identity ------------------------------------------------------------------------
    def create_body(self, **options: Any) -> int:
        """``world.create_body(**options)`` with a fresh stable id as ``user_data``.

        Ids count from 1 (0 is what Culverin gives bodies created without user_data).
        Returns the body handle; ``world.get_user_data(handle)`` is its id.
        """
        if "user_data" in options:
            raise ValueError("create_body assigns user_data itself; call "
                             "world.create_body to choose your own")  # fmt: skip
        with self._lock:
            return self._world.create_body(user_data=next(self._next_id), **options)

    def assign_id(self, handle: int) -> int:
        """Give an existing body a fresh stable id (its ``user_data``) and return the id."""
        new_id = next(self._next_id)
        with self._lock:
            self._world.set_user_data(handle, new_id)
        return new_id

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

    def release(self) -> None:
        """Free the buffer, the counter and the external source."""
        if self._released:
            return
        self._released = True
        if self._ctx.closed:
            return
        for resource in (self.source, self.buffer, self.counter):
            if resource is not None and not resource.released:
                resource.release()

    def __repr__(self) -> str:
        state = " released" if self.released else ""
        return (f"<CulverinBridge capacity={self._capacity} precision={self.precision} "
                f"record_size={self.record_size}{state}>")  # fmt: skip
