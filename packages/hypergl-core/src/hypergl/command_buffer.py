"""`ctx.command_buffer()`: hypergl_compiler's recorder bound to live resources.

Resource operands are the context's own objects (buffers, pipelines, ...):
each one gets a slot the first time a program names it. `submit()` verifies the
program once with the C++ verifier, then replays it in one call with the GIL
released.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import hypergl_compiler
from hypergl_compiler import CompileError
from hypergl_compiler.isa import ResourceKind

from .errors import ResourceError
from .replay import DEFAULT_VERTEX_BUDGET, PreparedSubmit, Replayer, SubmitStats
from .resources import GPUResource

if TYPE_CHECKING:
    from .context import Context


class CommandBuffer(hypergl_compiler.CommandBuffer):
    """Records a program over a context's live objects; `submit()` replays it."""

    def __init__(self, context: Context, *, name: str = "program") -> None:
        super().__init__(metadata={"name": name})
        self._context = context
        self._live: list[GPUResource | None] = []  # slot -> live object (None: bind at submit)
        self._slot_of: dict[int, int] = {}  # id(live object) -> slot
        self._replayer = Replayer(context)

    @property
    def context(self) -> Context:
        return self._context

    def _add_resource(self, kind: ResourceKind, name: str | None, desc: Mapping[str, Any]) -> int:
        slot = super()._add_resource(kind, name, desc)
        self._live.append(None)
        return slot

    def _resource_slot(self, kind: ResourceKind, value: Any) -> int:
        if not isinstance(value, GPUResource):
            return super()._resource_slot(kind, value)
        if value.context is not self._context:
            raise ResourceError(f"{value!r} belongs to another context")
        if value.released:
            raise ResourceError(f"{value!r} has been released")
        if value.kind is not kind:
            raise CompileError(
                f"{value!r} is a {value.kind.name.lower()}, expected a {kind.name.lower()}"
            )
        slot = self._slot_of.get(id(value))
        if slot is None:
            slot = self._add_resource(kind, self._free_name(value.name), value.describe())
            self._live[slot] = value
            self._slot_of[id(value)] = slot
        return slot

    def _free_name(self, name: str) -> str:
        """The object's own name, made unique and an identifier for the resource table."""
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "resource"
        if base[0].isdigit():
            base = "_" + base
        taken = {resource.name for resource in self._resources}
        candidate, serial = base, 1
        while candidate in taken:
            candidate, serial = f"{base}_{serial}", serial + 1
        return candidate

    def submit(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
    ) -> SubmitStats:
        """Replay the ended program once.

        `registers` sets initial values (the final ones are in the result);
        `budget` caps the instructions executed (VMError when exhausted);
        `vertex_budget` caps the vertices its draws ask for, vertices x
        instances summed over the draws (VMError before the draw that would
        exceed it; default ``hypergl.DEFAULT_VERTEX_BUDGET`` = 2**28);
        `bindings` supplies live objects for resources declared by name;
        `debug` checks for GL errors after every instruction and names the one
        that caused it (slower).
        Ctrl+C stops a running program with KeyboardInterrupt.
        """
        return self._replayer.submit(
            self.program, self._live, registers, budget, bindings, debug, vertex_budget
        )

    def prepare(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
    ) -> PreparedSubmit:
        """The ended program with its arguments checked once, for hot loops.

        ``prepared.submit()`` then replays it with the least Python per call.
        """
        return self._replayer.prepare(
            self.program, self._live, registers, budget, bindings, debug, vertex_budget
        )
