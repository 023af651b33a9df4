"""One text format for programs: ``dis`` writes it, ``asm`` (:mod:`.assembler`) reads it
back to the same bytes.

Layout (``;`` starts a comment on instruction lines)::

    .meta "scene" "demo"
    .resource buffer "vbo" {'size': 64}
    .const k0 f32 0.0, 0.0, 0.0, 1.0, 1.0
    .sub "box" box_entry
    .code
            clear k0, 3, 0
    top:
            bind_vertex_buffer vbo, 0
            loop r0, top
            .raw 0x7f, 0, 0, 0, 0      ; an instruction that has no symbolic form

Operands follow the ISA field order (a, b, c, d), unused fields omitted:
registers ``r0``..``r7``, numbers, labels for targets, ``k<n>`` for constants,
names for resources and subroutines (``#<n>`` when unnamed or ambiguous; ``#<n>``
is also an unlabelled jump target). Floats are written so that they read back to
the same bits; non-finite ones as ``0x`` bit patterns.
"""

from __future__ import annotations

import json
import math
import struct
from collections import Counter

from . import isa
from .isa import BY_CODE, ConstKind, Operand
from .program import Constant, Program
from .resource_table import valid_name

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _float_text(bits: int) -> str:
    """The shortest decimal that reads back to the same f32 bits (0x bits if non-finite)."""
    value = _F32.unpack(_U32.pack(bits))[0]
    if not math.isfinite(value):
        return f"0x{bits:08x}"
    packed = _U32.pack(bits)
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if _F32.pack(float(text)) == packed:
            break
    else:  # pragma: no cover - 9 significant digits always round-trip an f32
        text = repr(value)
    return text if any(ch in text for ch in ".en") else text + ".0"


def _const_text(const: Constant) -> str:
    kind, data = const.kind, const.data
    if kind is ConstKind.UTF8:
        try:
            return json.dumps(data.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    elif kind is not ConstKind.BYTES and len(data) % 4 == 0:
        words = struct.unpack(f"<{len(data) // 4}I", data)
        if kind is ConstKind.U32:
            return ", ".join(str(w) for w in words)
        if kind is ConstKind.I32:
            return ", ".join(str(w - (1 << 32) if w >> 31 else w) for w in words)
        return ", ".join(_float_text(w) for w in words)
    return f"hex {data.hex()}"


def _names(entries, get) -> dict[int, str]:
    """Index -> printable name, for names that are identifiers and unique."""
    counts = Counter(get(e) for e in entries)
    return {i: get(e) for i, e in enumerate(entries) if valid_name(get(e)) and counts[get(e)] == 1}


def _symbolic(program: Program, ins: tuple, n: int) -> bool:
    """Whether every field of ``ins`` has a symbolic form (else it is printed ``.raw``)."""
    op = BY_CODE.get(ins[0])
    if op is None:
        return False
    for field, kind, value in zip(isa.FIELDS, op.operands, ins[1:], strict=True):
        if kind is Operand.NONE and value:
            return False
        if kind is Operand.REG and value >= isa.NUM_REGISTERS:
            return False
        if kind is Operand.U32 and value > op.max_of(field):
            return False
        if kind is Operand.TARGET and value > n:
            return False
        if kind is Operand.CONST and value >= len(program.constants):
            return False
        if kind is Operand.SUB and value >= len(program.subroutines):
            return False
        if kind in isa.SLOT_OPERANDS and (
            value >= len(program.resources)
            or program.resources[value].kind is not isa.SLOT_OPERANDS[kind]
        ):
            return False
    return True


def dis(program: Program) -> str:
    """The program as text: metadata, resources, constants, subroutines, then the code."""
    n = program.instruction_count
    code = program.code[: n * 16]
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for index, name in program.labels.items():
        if 0 <= index <= n and valid_name(name) and name not in seen:
            labels[index] = name
            seen.add(name)
    res_names = _names(program.resources, lambda r: r.name)
    sub_names = _names(program.subroutines, lambda s: s.name)
    entries: dict[int, list[str]] = {}
    for sub in program.subroutines:
        entries.setdefault(sub.entry, []).append(sub.name)

    def target(index: int) -> str:
        return labels.get(index, f"#{index}")

    out = [
        f"; hypergl program: {n} instructions, {len(program.constants)} constants, "
        f"{len(program.resources)} resources, {len(program.subroutines)} subroutines"
    ]
    if len(program.code) % 16:
        out.append(f"; warning: {len(program.code) % 16} trailing code bytes are not shown")
    for key, value in program.metadata.items():
        out.append(f".meta {json.dumps(key)} {json.dumps(value)}")
    for resource in program.resources:
        kind = resource.kind.name.lower()
        out.append(f".resource {kind} {json.dumps(resource.name)} {dict(resource.desc)!r}")
    for i, const in enumerate(program.constants):
        out.append(f".const k{i} {const.kind.name.lower()} {_const_text(const)}".rstrip())
    for sub in program.subroutines:
        out.append(f".sub {json.dumps(sub.name)} {target(sub.entry)}")
    out.append(".code")
    for index, ins in enumerate(struct.iter_unpack("<HHIII", code)):
        for name in entries.get(index, ()):
            out.append(f"; subroutine {name!r}")
        if index in labels:
            out.append(f"{labels[index]}:")
        if not _symbolic(program, ins, n):
            raw = ", ".join([f"0x{ins[0]:02x}", *(str(v) for v in ins[1:])])
            out.append(f"        .raw {raw}")
            continue
        op = BY_CODE[ins[0]]
        parts, notes = [], []
        for kind, value in zip(op.operands, ins[1:], strict=True):
            if kind is Operand.NONE:
                continue
            if kind is Operand.REG:
                parts.append(f"r{value}")
            elif kind is Operand.U32:
                parts.append(str(value))
            elif kind is Operand.I32:
                parts.append(str(value - (1 << 32) if value >> 31 else value))
            elif kind is Operand.F32:
                parts.append(_float_text(value))
            elif kind is Operand.TARGET:
                parts.append(target(value))
            elif kind is Operand.CONST:
                parts.append(f"k{value}")
                notes.append(f"k{value} = {_const_text(program.constants[value])}")
            elif kind is Operand.SUB:
                parts.append(sub_names.get(value, f"#{value}"))
            else:
                parts.append(res_names.get(value, f"#{value}"))
        line = f"        {op.name} {', '.join(parts)}".rstrip()
        if notes:
            line = f"{line:<40} ; {'; '.join(notes)}"
            if len(line) > 160:
                line = line[:157] + "..."
        out.append(line)
    if n in labels:
        out.append(f"{labels[n]}:")
    return "\n".join(out) + "\n"
