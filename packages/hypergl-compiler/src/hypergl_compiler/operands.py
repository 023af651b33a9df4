"""Operand checks: each turns a recorded value into an instruction field or raises
CompileError naming the value and what it was for (``what``)."""

from __future__ import annotations

import operator
import struct
from typing import Any

from . import isa
from .errors import ArgumentError, CompileError

_U32 = struct.Struct("<I")
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
INDEX_TYPES = {"u16": 0, "u32": 1, 0: 0, 1: 1}


class Reg(int):
    """A register index; distinguishes ``r2`` from the immediate ``2`` in the DSL."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"r{int(self)}"


REGISTERS: tuple[Reg, ...] = tuple(Reg(i) for i in range(isa.NUM_REGISTERS))
r0: Reg
r1: Reg
r2: Reg
r3: Reg
r4: Reg
r5: Reg
r6: Reg
r7: Reg
r0, r1, r2, r3, r4, r5, r6, r7 = REGISTERS


def as_int(value: Any) -> int | None:
    """An integer operand (int, NumPy integer, ...); None for bools, registers, floats."""
    if isinstance(value, (bool, Reg)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def reg(value: Any, what: str) -> int:
    """A register r0..r7 (a Reg or a plain int 0..7)."""
    if type(value) is Reg or (type(value) is int and 0 <= value < 8):
        return int(value)
    raise CompileError(f"{what}: register {value!r} is outside r0..r7")


def u32(value: Any, what: str, maximum: int = isa.U32_MAX) -> int:
    """An unsigned immediate in 0..maximum."""
    if type(value) is int and 0 <= value <= maximum:
        return value
    number = as_int(value)
    if number is None or not 0 <= number <= maximum:
        raise CompileError(f"{what}: {value!r} is not an integer in 0..{maximum}")
    return number


def i32(value: Any, what: str) -> int:
    """A signed 32-bit immediate, as its two's complement bits."""
    number = as_int(value)
    if number is None or not I32_MIN <= number <= I32_MAX:
        raise CompileError(f"{what}: {value!r} is not a 32-bit signed integer")
    return number & 0xFFFFFFFF


def imm(value: Any, what: str) -> int:
    """A 32-bit immediate given as signed or unsigned int."""
    number = as_int(value)
    if number is None or not I32_MIN <= number <= isa.U32_MAX:
        raise CompileError(f"{what}: {value!r} is not a 32-bit integer")
    return number & 0xFFFFFFFF


def f32(value: Any, what: str) -> int:
    """A number, as the bits of a 32-bit float."""
    if isinstance(value, (bool, str, bytes, Reg)):
        raise CompileError(f"{what}: {value!r} is not a number")
    try:
        return _U32.unpack(struct.pack("<f", float(value)))[0]
    except (TypeError, ValueError):
        raise CompileError(f"{what}: {value!r} is not a number") from None
    except OverflowError:
        raise CompileError(f"{what}: {value!r} overflows a 32-bit float") from None


def index_type(value: Any, what: str) -> int:
    """The index type of an indexed draw: 'u16' or 'u32' (or its code 0 or 1)."""
    code = INDEX_TYPES.get(value) if isinstance(value, (str, int)) else None
    if code is None or isinstance(value, bool):
        raise CompileError(f"{what}: index type {value!r} is not 'u16' or 'u32'")
    return code


def check_size(size: Any, what: str) -> tuple[int, int]:
    """A (width, height) pair of positive ints; the one check of sizes for ``ctx`` and ``cmd``.

    Raises ArgumentError naming ``what`` and the value.
    """
    try:
        width, height = size
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be (width, height), got {size!r}") from None
    pair = (as_int(width), as_int(height))
    if None in pair:
        raise ArgumentError(f"{what} must be integers, got {size!r}")
    if pair[0] <= 0 or pair[1] <= 0:
        raise ArgumentError(f"{what} must be positive, got {size!r}")
    return pair  # type: ignore[return-value]
