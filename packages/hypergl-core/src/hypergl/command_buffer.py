"""`ctx.command_buffer()`: hypergl_compiler's recorder bound to live resources.

Resource operands are the context's own objects (buffers, pipelines, ...):
each one gets a slot the first time a program names it. `submit()` verifies the
program once with the C++ verifier, then replays it in one call with the GIL
released.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import hypergl_compiler
from hypergl_compiler import CompileError, Program
from hypergl_compiler.isa import NUM_REGISTERS, ResourceKind

from ._native import native_program, translated_errors
from .errors import ResourceError
from .resources import GPUResource

if TYPE_CHECKING:
    from .context import Context


@dataclass(frozen=True)
class SubmitStats:
    """What one submit did. `registers` are the final register values (u32 bits)."""

    instructions: int
    draws: int
    dispatches: int
    binds_issued: int
    binds_skipped: int
    device_calls: int
    registers: tuple[int, ...]

    def signed(self, reg: int) -> int:
        """Register `reg` read as a signed 32-bit integer."""
        value = self.registers[reg]
        return value - (1 << 32) if value >= 1 << 31 else value

    def float(self, reg: int) -> float:
        """Register `reg` read as a 32-bit float."""
        return struct.unpack("<f", struct.pack("<I", self.registers[reg]))[0]


def register_values(registers: Sequence[Any] | Mapping[int, Any] | None) -> list[int]:
    """Initial registers as eight u32 values. Ints (signed or unsigned 32-bit) or floats."""
    values = [0] * NUM_REGISTERS
    if registers is None:
        return values
    if isinstance(registers, Mapping):
        items = list(registers.items())
    elif isinstance(registers, (list, tuple)):
        if len(registers) > NUM_REGISTERS:
            raise ValueError(f"registers: {len(registers)} values given, there are 8 registers")
        items = list(enumerate(registers))
    else:
        raise TypeError(
            f"registers must be a sequence or a mapping, got {type(registers).__name__}"
        )
    for index, value in items:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < NUM_REGISTERS:
            raise ValueError(f"registers: register index {index!r} is outside 0..7")
        if isinstance(value, bool):
            raise TypeError(f"registers: r{index} = {value!r} is a bool, not a number")
        if isinstance(value, int):
            if not -(1 << 31) <= value < 1 << 32:
                raise ValueError(f"registers: r{index} = {value} does not fit in 32 bits")
            values[index] = value & 0xFFFFFFFF
        elif isinstance(value, float):
            values[index] = struct.unpack("<I", struct.pack("<f", value))[0]
        else:
            raise TypeError(f"registers: r{index} = {value!r} is not an int or a float")
    return values


class CommandBuffer(hypergl_compiler.CommandBuffer):
    """Records a program over a context's live objects; `submit()` replays it."""

    def __init__(self, context: Context, *, name: str = "program") -> None:
        super().__init__(metadata={"name": name})
        self._context = context
        self._live: list[GPUResource | None] = []  # slot -> live object (None: bind at submit)
        self._slot_of: dict[int, int] = {}  # id(live object) -> slot
        self._compiled: tuple[Program, Any] | None = None

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

    def _native(self, program: Program) -> Any:
        if self._compiled is None or self._compiled[0] is not program:
            self._compiled = (program, native_program(program))
        return self._compiled[1]

    def submit(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
    ) -> SubmitStats:
        """Replay the ended program once.

        `registers` sets initial values (the final ones are in the result);
        `budget` caps the instructions executed (VMError when exhausted);
        `bindings` supplies live objects for resources declared by name.
        Ctrl+C stops a running program with KeyboardInterrupt.
        """
        program = self.program
        self._context._enter()
        native = self._native(program)
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget < 0
        ):
            raise ValueError(f"budget must be a non-negative int or None, got {budget!r}")
        values = register_values(registers)
        resources = self._bound_resources(program, bindings or {})
        with translated_errors():
            stats, final = self._context._native.submit(native, resources, values, budget)
        return SubmitStats(registers=tuple(final), **stats)

    def _bound_resources(self, program: Program, bindings: Mapping[str, Any]) -> list[Any]:
        if not isinstance(bindings, Mapping):
            raise TypeError(f"bindings must map resource names to objects, got {bindings!r}")
        unknown = set(bindings) - {resource.name for resource in program.resources}
        if unknown:
            raise ResourceError(f"bindings name unknown resources: {sorted(unknown)}")
        natives = []
        for slot, resource in enumerate(program.resources):
            live = bindings.get(resource.name, self._live[slot])
            if live is None:
                raise ResourceError(
                    f"resource '{resource.name}' has no object bound: pass "
                    f"bindings={{'{resource.name}': obj}} to submit()"
                )
            if not isinstance(live, GPUResource):
                raise TypeError(
                    f"binding for '{resource.name}' is not a HyperGL resource: {live!r}"
                )
            natives.append(live._native)
        return natives
