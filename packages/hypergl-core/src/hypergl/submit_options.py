"""`SubmitOptions`: the keywords of every submit and prepare, checked once, in one object.

``CommandBuffer.submit`` / ``prepare`` and ``Scene.submit`` / ``prepare`` keep their public
keywords and build one of these with :func:`submit_options`; the Replayer and
``PreparedSubmit`` take it as one argument, and the engine gets its ``RunOptions`` (made
here once) as one argument too. A new option is a field and a check here and a field of
the C++ RunOptions (cpp/bindings/bind_context.cpp), not a keyword at every station.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypergl_compiler.isa import NUM_REGISTERS

from . import _core
from .vm_state import NO_VM, SubmitVM


@dataclass(frozen=True)
class SubmitOptions:
    """One submit's options, every value checked (made by :func:`submit_options`)."""

    registers: tuple[int, ...]  # the eight initial registers as u32 bits
    named: frozenset[int]  # the registers the caller gave (they win over kept ones)
    bindings: Mapping[str, Any]
    run: Any  # the engine's RunOptions (budgets, debug), made here once
    vm: SubmitVM


def submit_options(
    registers: Sequence[Any] | Mapping[int, Any] | None,
    budget: int | None,
    bindings: Mapping[str, Any] | None,
    debug: bool,
    vertex_budget: int,
    group_budget: int,
    clock: float | None,
    seed: int | None,
    keep_registers: bool,
    debug_sink: Callable[[str], Any] | None,
) -> SubmitOptions:
    """Check the keywords of a submit (see CommandBuffer.submit) once, into one object."""
    plain = _plain
    if (  # a plain submit(), every keyword its default: the options made for the last one
        plain is not None and registers is None and budget is None and bindings is None
        and debug is False and clock is None and seed is None and keep_registers is False
        and debug_sink is None and type(vertex_budget) is int and type(group_budget) is int
        and vertex_budget == plain[0] and group_budget == plain[1]
    ):  # fmt: skip
        return plain[2]
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or budget < 0
    ):
        raise ValueError(f"budget must be a non-negative int or None, got {budget!r}")
    _check_u64(vertex_budget, "vertex_budget")
    _check_u64(group_budget, "group_budget")
    values = register_values(registers)
    named = registers.keys() if isinstance(registers, Mapping) else range(len(registers or ()))
    if bindings is not None and not isinstance(bindings, Mapping):
        raise TypeError(f"bindings must map resource names to objects, got {bindings!r}")
    run = _core.RunOptions(budget, bool(debug), vertex_budget, group_budget)
    options = SubmitOptions(tuple(values), frozenset(named), bindings or {}, run,
                            SubmitVM(clock, seed, keep_registers, debug_sink))  # fmt: skip
    if registers is None and budget is None and bindings is None and not debug \
            and options.vm == NO_VM:  # fmt: skip
        _remember_plain(vertex_budget, group_budget, options)
    return options


# The last plain submit's budgets and options (immutable; the engine copies the RunOptions):
# checking and making them cost a plain cmd.submit() 3-4 us a call on this machine, a tenth
# of a 10,000-instruction program's run (benchmarks/vm_dispatch.py).
_plain: tuple[int, int, SubmitOptions] | None = None


def _remember_plain(vertex_budget: int, group_budget: int, options: SubmitOptions) -> None:
    global _plain
    _plain = (vertex_budget, group_budget, options)


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


def _check_u64(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise ValueError(f"{what} must be an int in 0..2**64-1, got {value!r}")
