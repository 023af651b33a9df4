"""`ctx.command_buffer()`: hypergl_compiler's recorder bound to live resources.

Resource operands are the context's own objects (buffers, pipelines, ...):
:class:`LiveResources`, a ``hypergl_compiler.ResourceResolver``, gives each one a
slot the first time a program names it. `submit()` verifies the program once
with the C++ verifier, then replays it in one call with the GIL released.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import hypergl_compiler
from hypergl_compiler import CompileError, ResourceTable
from hypergl_compiler.isa import ResourceKind

from .errors import ResourceError
from .replay import (
    DEFAULT_GROUP_BUDGET,
    DEFAULT_VERTEX_BUDGET,
    PreparedSubmit,
    Replayer,
    SubmitStats,
)
from .resources import GPUResource
from .submit_options import submit_options

# The Context facade stands above this module (it makes command buffers): typed Any here.
Context = Any


class LiveResources:
    """The live objects a command buffer's programs name, by slot (a ResourceResolver)."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.objects: list[GPUResource | None] = []  # slot -> object (None: bound at submit)
        self._slot_of: dict[int, int] = {}  # id(object) -> slot; `objects` keeps it alive

    def resolve(self, table: ResourceTable, kind: ResourceKind, value: Any) -> int | None:
        if not isinstance(value, GPUResource):
            return None
        if value.context is not self.context:
            raise ResourceError(f"{value!r} belongs to another context")
        if value.released:
            raise ResourceError(f"{value!r} has been released")
        if value.kind is not kind:
            raise CompileError(
                f"{value!r} is a {value.kind.name.lower()}, expected a {kind.name.lower()}"
            )
        slot = self._slot_of.get(id(value))
        if slot is None:
            slot = table.declare(kind, table.free_name(value.name), value.describe())
            self.objects.extend([None] * (slot + 1 - len(self.objects)))
            self.objects[slot] = value
            self._slot_of[id(value)] = slot
        return slot


class CommandBuffer(hypergl_compiler.CommandBuffer):
    """Records a program over a context's live objects; `submit()` replays it."""

    def __init__(self, context: Context, *, name: str = "program") -> None:
        self._live = LiveResources(context)
        super().__init__(metadata={"name": name}, resolver=self._live)
        self._context = context
        self._replayer = Replayer(context._link)  # the context's handle for its engine

    @property
    def context(self) -> Context:
        return self._context

    def bound_objects(self) -> list[GPUResource | None]:
        """The live object in each slot of the resource table (None: bound at submit)."""
        objects = self._live.objects
        return objects + [None] * (len(self.resources) - len(objects))

    def release(self, what: str) -> None:
        """``cmd.release('all')``: release every live object this command buffer's programs use."""
        if what != "all":
            raise ValueError(f"cmd.release expects 'all', got {what!r}; "
                             "release one object with obj.release()")  # fmt: skip
        for obj in self._live.objects:
            if obj is not None and not obj.released:
                obj.release()

    def submit(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
        group_budget: int = DEFAULT_GROUP_BUDGET,
        clock: float | None = None,
        seed: int | None = None,
        keep_registers: bool = False,
        debug_sink: Callable[[str], Any] | None = None,
    ) -> SubmitStats:
        """Replay the ended program once.

        `registers` sets initial values (the final ones are in the result);
        `budget` caps the instructions executed (VMError when exhausted);
        `vertex_budget` caps the vertices its draws ask for, vertices x
        instances summed over the draws (VMError before the draw that would
        exceed it; default ``hypergl.DEFAULT_VERTEX_BUDGET`` = 2**28; indirect
        draws count too, checked on the GPU: see docs);
        `group_budget` caps the compute work groups its dispatches run, x * y * z
        summed over direct and indirect dispatches (default
        ``hypergl.DEFAULT_GROUP_BUDGET`` = 2**26);
        `bindings` supplies live objects for resources declared by name;
        `debug` checks for GL errors after every instruction and names the one
        that caused it (slower);
        `clock` sets the context's clock (seconds) before the run: ``get_time``
        reads seconds since the context's first submit, ``get_delta`` since its
        previous one (on gl the wall clock when never set; trace and null stand
        still until set: ``ctx.set_clock``);
        `seed` restarts the context's ``gen_rand`` generator (it otherwise carries
        on from the previous submit; ``ctx.seed``);
        `keep_registers` starts from the final registers of this program's
        previous submit (`registers` then overwrite the ones they name), where
        the default starts from zeros each time;
        `debug_sink` receives what ``print`` and ``dump`` wrote (one string per
        submit, at most ``isa.DEBUG_OUTPUT_LIMIT`` bytes; also in the result's
        ``debug_output``); without one they write nothing.
        Ctrl+C stops a running program with KeyboardInterrupt.
        """
        options = submit_options(registers, budget, bindings, debug, vertex_budget, group_budget,
                                 clock, seed, keep_registers, debug_sink)  # fmt: skip
        return self._replayer.submit(self.program, self._live.objects, options)

    def prepare(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
        group_budget: int = DEFAULT_GROUP_BUDGET,
        clock: float | None = None,
        seed: int | None = None,
        keep_registers: bool = False,
        debug_sink: Callable[[str], Any] | None = None,
    ) -> PreparedSubmit:
        """The ended program with its arguments checked once, for hot loops.

        ``prepared.submit()`` then replays it with the least Python per call.
        """
        options = submit_options(registers, budget, bindings, debug, vertex_budget, group_budget,
                                 clock, seed, keep_registers, debug_sink)  # fmt: skip
        return self._replayer.prepare(self.program, self._live.objects, options)
