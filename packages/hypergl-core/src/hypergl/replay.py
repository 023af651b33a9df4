"""Replaying a verified program against a context's live objects.

Shared by command buffers (recorded in Python) and scenes (loaded from .hgb):
verify once with the C++ verifier, then each submit binds the live objects to
the program's slots and runs it in one call with the GIL released.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hypergl_compiler import Program

from ._native import NATIVE_ERRORS, native_program, translate
from .errors import ResourceError
from .resources import GPUResource
from .submit_options import SubmitOptions

if TYPE_CHECKING:
    from .context_link import ContextLink

# Vertices (vertex count x instance count, summed over direct draws) one submit
# may draw unless submit(vertex_budget=...) says otherwise: 2**28, far above a
# frame of any real scene, far below what keeps a GPU busy for minutes.
DEFAULT_VERTEX_BUDGET = 1 << 28
# Compute work groups (x * y * z, summed over the dispatches, direct and indirect)
# one submit may run unless submit(group_budget=...) says otherwise: 2**26. A 4K
# frame of 8x8 tiles is 130,000 groups and a 10-million-particle step at 256 per
# group 40,000, so no sane frame comes near it on an H200; llvmpipe runs about
# 5 million empty groups a second, so a submit stays within seconds there.
DEFAULT_GROUP_BUDGET = 1 << 26


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
    # What print and dump wrote (only when a debug_sink was given; also passed to it).
    debug_output: str = ""
    # The print and dump instructions whose text was formatted: none without a sink, and
    # none after the sink's output was cut in this submit (the cost of a debug flood).
    debug_formatted: int = 0

    def signed(self, reg: int) -> int:
        """Register `reg` read as a signed 32-bit integer."""
        value = self.registers[reg]
        return value - (1 << 32) if value >= 1 << 31 else value

    def float(self, reg: int) -> float:
        """Register `reg` read as a 32-bit float."""
        return struct.unpack("<f", struct.pack("<I", self.registers[reg]))[0]


class Replayer:
    """Submits one program at a time; caches its verified native image."""

    def __init__(self, link: ContextLink) -> None:
        self._link = link
        self._compiled: tuple[Program, Any] | None = None
        self._kept: list[int] | None = None  # final registers, for keep_registers

    def verified(self, program: Program) -> Any:
        """The engine's verified image of `program` (made once; raises VerifyError)."""
        if self._compiled is None or self._compiled[0] is not program:
            self._compiled = (program, native_program(program))
        return self._compiled[1]

    def prepare(
        self, program: Program, live: Sequence[GPUResource | None], options: SubmitOptions
    ) -> PreparedSubmit:
        """Resolve everything a submit of `program` needs, once (`options` are checked)."""
        self._link.enter()
        native = self.verified(program)
        values = list(options.registers)
        if options.vm.keep_registers and self._kept is not None:  # the named ones win
            named = options.named
            values = [values[i] if i in named else kept for i, kept in enumerate(self._kept)]
        resources = bound_resources(program, live, options.bindings)
        return PreparedSubmit(self._link, native, resources, values, options, self)

    def submit(
        self, program: Program, live: Sequence[GPUResource | None], options: SubmitOptions
    ) -> SubmitStats:
        """Run `program` once with `live[slot]` (or `options.bindings[name]`) in each slot."""
        prepared = self.prepare(program, live, options)
        prepared.submit()
        return prepared.stats


class PreparedSubmit:
    """A program with its resources, registers and options resolved once.

    For hot loops (e.g. thousands of RL steps a second): `submit()` skips the
    per-call argument checks of ``cmd.submit`` (the engine still checks each
    resource is alive and of the right kind). Made by ``cmd.prepare()``.
    """

    def __init__(self, link: ContextLink, native: Any, resources: list[Any], registers: list[Any],
                 options: SubmitOptions, replayer: Replayer | None = None) -> None:  # fmt: skip
        self._link = link
        # The engine's arguments, in its order, resolved once: its RunOptions is one of them.
        self._call = (native, resources, registers, options.run)
        self._vm = options.vm
        self._replayer = replayer  # receives the final registers (keep_registers)
        self._last: tuple | None = None

    def submit(self) -> None:
        """Replay once; the statistics of the last run are in `stats`."""
        link = self._link
        link.enter()
        vm, state = self._vm, link.vm
        sink = vm.debug_sink
        # The clock reading and the generator's state go in and come back under the
        # state's lock: two threads submitting on one context draw different numbers.
        # Reentrant: a callback that submits again reaches the engine's ReentryError.
        state.lock.acquire()
        try:  # not a context manager: this is the hot path
            if vm.seed is not None:
                state.seed(vm.seed)
            elapsed, delta = state.tick(vm.clock)
            self._last = last = link.native.submit(
                *self._call, elapsed, delta, state.random_state, sink is not None
            )
            state.random_state = last[2]
        except NATIVE_ERRORS as exc:
            raise translate(exc) from None
        finally:
            state.lock.release()
        if self._replayer is not None:
            self._replayer._kept = last[1]  # what a later keep_registers submit starts from
        if vm.keep_registers:
            self._call = (*self._call[:2], last[1], *self._call[3:])
        if sink is not None and last[3]:
            sink(last[3])

    @property
    def stats(self) -> SubmitStats | None:
        if self._last is None:
            return None
        stats, final, _random_state, output = self._last
        return SubmitStats(registers=tuple(final), debug_output=output, **stats)


def bound_resources(
    program: Program, live: Sequence[GPUResource | None], bindings: Mapping[str, Any]
) -> list[Any]:
    """The native object for each slot: a binding by name, else the recorded object."""
    if not isinstance(bindings, Mapping):
        raise TypeError(f"bindings must map resource names to objects, got {bindings!r}")
    unknown = bindings and set(bindings) - {resource.name for resource in program.resources}
    if unknown:
        raise ResourceError(f"bindings name unknown resources: {sorted(unknown)}")
    natives = []
    for slot, resource in enumerate(program.resources):
        obj = bindings.get(resource.name, live[slot] if slot < len(live) else None)
        if obj is None:
            raise ResourceError(
                f"resource '{resource.name}' has no object bound: pass "
                f"bindings={{'{resource.name}': obj}} to submit()"
            )
        if not isinstance(obj, GPUResource):
            raise TypeError(f"binding for '{resource.name}' is not a HyperGL resource: {obj!r}")
        natives.append(obj._native)
    return natives
