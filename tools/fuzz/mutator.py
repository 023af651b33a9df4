"""Structure-aware mutation of .hgb files, for the fuzz target (libFuzzer's custom mutator).

A byte flip in a .hgb file almost always breaks its size or checksum field, and a
random instruction almost never verifies. So a mutation here works on the parsed
program: one instruction's opcode or operand (chosen by the operand's kind: a
register 0..7, a slot of the right resource kind, a jump target inside the code, a
boundary value for immediates), inserted, deleted, duplicated or swapped
instructions, a resource description's numbers or initial data, a constant's bytes,
a subroutine entry, or the raw bytes of one section. The result is written back
with its sizes, offsets and checksum right (hgb.dumps), so that most cases reach
the verifier and the VM. An input that does not parse gets libFuzzer's own byte
mutation and a fixed-up header.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from replay import fix_header

from hypergl_compiler import hgb, isa
from hypergl_compiler.errors import CompileError, HGBError
from hypergl_compiler.program import Constant, Program, Resource, Subroutine

Mutate = Callable[[bytes, int], bytes]  # libFuzzer's byte mutator: (data, max_size)

# Values at the edges of what the verifier and the devices check.
INTERESTING = (0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 255, 256, 1023, 1024, 4096, 16383,
               16384, 65535, 65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)  # fmt: skip
INTERESTING_INTS = (*INTERESTING, -1, -(1 << 31), 1 << 32, 1 << 40, (1 << 63) - 1)
OPS = isa.OPS


def _u32(rng: random.Random) -> int:
    return rng.choice(INTERESTING) if rng.random() < 0.7 else rng.getrandbits(32)


def operand(rng: random.Random, program: Program, kind: isa.Operand, limit: int) -> int:
    """A value for a field of `kind`, valid most of the time."""
    n = program.instruction_count
    if kind is isa.Operand.NONE:
        return 0
    if rng.random() < 0.05:  # sometimes anything at all
        return rng.choice(INTERESTING) & limit
    if kind is isa.Operand.REG:
        return rng.randrange(isa.NUM_REGISTERS)
    if kind is isa.Operand.TARGET:
        return rng.randrange(n + 1)
    if kind is isa.Operand.CONST:
        return rng.randrange(max(1, len(program.constants)))
    if kind is isa.Operand.SUB:
        return rng.randrange(max(1, len(program.subroutines)))
    if kind in isa.SLOT_OPERANDS:
        want = isa.SLOT_OPERANDS[kind]
        slots = [i for i, r in enumerate(program.resources) if r.kind == want]
        return rng.choice(slots) if slots else 0
    if kind is isa.Operand.F32:
        value = rng.choice((0.0, 1.0, -1.0, 0.5, 1e30, float("inf"), float("nan")))
        return struct.unpack("<I", struct.pack("<f", value))[0]
    return min(_u32(rng), limit)


def instruction(rng: random.Random, program: Program, op: isa.Op | None = None) -> bytes:
    """A random instruction whose operands fit their kinds."""
    op = op or rng.choice(OPS)
    fields = [operand(rng, program, kind, op.max_of(name))
              for name, kind in zip(isa.FIELDS, op.operands, strict=True)]  # fmt: skip
    return isa.encode(op, *fields)


def _with_code(program: Program, code: bytes) -> Program:
    n = len(code) // isa.INSTRUCTION_SIZE
    labels = {i: name for i, name in program.labels.items() if i <= n}
    return replace(program, code=code, labels=labels)


def mutate_code(rng: random.Random, program: Program, _mutate: Mutate) -> Program:
    size = isa.INSTRUCTION_SIZE
    code = [program.code[i : i + size] for i in range(0, len(program.code), size)]
    at = rng.randrange(len(code)) if code else 0
    action = rng.randrange(7)
    if action == 0 or not code:  # insert a new instruction
        code.insert(at, instruction(rng, program))
    elif action == 1:  # one field of one instruction, by its kind
        op_code, *fields = isa.decode(code[at])
        op = isa.BY_CODE.get(op_code)
        if op is None:
            code[at] = instruction(rng, program)
        else:
            which = rng.randrange(4)
            fields[which] = operand(rng, program, op.operands[which], op.max_of(isa.FIELDS[which]))
            code[at] = isa.encode(op, *fields)
    elif action == 2:  # another opcode with fitting operands
        code[at] = instruction(rng, program)
    elif action == 3 and len(code) > 1:
        del code[at]
    elif action == 4:
        code.insert(at, code[rng.randrange(len(code))])
    elif action == 5:
        other = rng.randrange(len(code))
        code[at], code[other] = code[other], code[at]
    else:  # a field set to any interesting value
        raw = bytearray(code[at])
        field = rng.randrange(4)
        if field == 0:
            struct.pack_into("<H", raw, 2, rng.choice(INTERESTING) & 0xFFFF)
        else:
            struct.pack_into("<I", raw, 4 * field, _u32(rng))
        code[at] = bytes(raw)
    return _with_code(program, b"".join(code))


def _mutate_value(rng: random.Random, value: Any, mutate: Mutate) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice(INTERESTING_INTS) if rng.random() < 0.8 else value + rng.randint(-4, 4)
    if isinstance(value, float):
        return rng.choice((0.0, -1.0, 1e-30, 1e30, value * 2))
    if isinstance(value, (bytes, bytearray)):
        return bytes(mutate(bytes(value), max(len(value) * 2, 64)))
    if isinstance(value, list) and value:
        out = list(value)
        at = rng.randrange(len(out))
        out[at] = _mutate_value(rng, out[at], mutate)
        return out
    if isinstance(value, dict) and value:
        out = dict(value)
        key = rng.choice(list(out))
        out[key] = _mutate_value(rng, out[key], mutate)
        return out
    return value


def mutate_resource(rng: random.Random, program: Program, mutate: Mutate) -> Program:
    if not program.resources:
        return mutate_code(rng, program, mutate)
    resources = list(program.resources)
    at = rng.randrange(len(resources))
    r = resources[at]
    desc = dict(r.desc)
    if desc and rng.random() < 0.9:
        key = rng.choice(list(desc))
        desc[key] = _mutate_value(rng, desc[key], mutate)
    elif desc:
        del desc[rng.choice(list(desc))]
    resources[at] = Resource(r.kind, r.name, desc)
    return replace(program, resources=tuple(resources))


def mutate_constant(rng: random.Random, program: Program, mutate: Mutate) -> Program:
    if not program.constants:
        return mutate_code(rng, program, mutate)
    constants = list(program.constants)
    at = rng.randrange(len(constants))
    c = constants[at]
    constants[at] = Constant(c.kind, bytes(mutate(c.data, max(len(c.data) * 2, 16))))
    return replace(program, constants=tuple(constants))


def mutate_subroutine(rng: random.Random, program: Program, mutate: Mutate) -> Program:
    if not program.subroutines:
        return mutate_code(rng, program, mutate)
    subs = list(program.subroutines)
    at = rng.randrange(len(subs))
    entry = rng.randrange(program.instruction_count + 1) if rng.random() < 0.8 else _u32(rng)
    subs[at] = Subroutine(subs[at].name, entry)
    return replace(program, subroutines=tuple(subs))


def mutate_section(rng: random.Random, data: bytes, info: hgb.FileInfo, mutate: Mutate) -> bytes:
    """libFuzzer's bytes mutation inside one section, the file laid out again around it."""
    sections = [(ident, data[offset : offset + length]) for ident, offset, length in info.sections]
    at = rng.randrange(len(sections))
    ident, body = sections[at]
    sections[at] = (ident, bytes(mutate(body, max(len(body) * 2, 64))))
    return hgb._assemble(sections, info.flags, info.version)


# Mostly code: that is where the verifier and the interpreter branch.
PROGRAM_MUTATIONS = (
    (mutate_code,) * 6 + (mutate_resource,) * 2 + (mutate_constant, mutate_subroutine)
)


def mutate(data: bytes, max_size: int, seed: int, byte_mutate: Mutate) -> bytes:
    """One structure-aware mutation of `data` (libFuzzer's custom mutator contract)."""
    rng = random.Random(seed)
    try:
        info, program = hgb.inspect(data)
    except (HGBError, CompileError):
        out = bytearray(byte_mutate(data, max_size))
        fix_header(out)
        return bytes(out)
    try:
        if rng.random() < 0.15 and info.sections:
            out = mutate_section(rng, data, info, byte_mutate)
        else:
            for _ in range(1 + (rng.random() < 0.3) * rng.randrange(1, 4)):  # stacked sometimes
                program = rng.choice(PROGRAM_MUTATIONS)(rng, program, byte_mutate)
            out = hgb.dumps(program)
    except (HGBError, CompileError, ValueError, TypeError):  # not storable: bytes instead
        out = bytearray(byte_mutate(data, max_size))
        fix_header(out)
        out = bytes(out)
    return out if len(out) <= max_size else data
