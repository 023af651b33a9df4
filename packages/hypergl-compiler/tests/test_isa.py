"""The ISA table is consistent with itself."""

from __future__ import annotations

import pytest

from hypergl_compiler import isa


def test_opcodes_and_mnemonics_are_unique():
    assert len({op.code for op in isa.OPS}) == len(isa.OPS)
    assert len({op.name for op in isa.OPS}) == len(isa.OPS)


def test_every_op_family_of_the_design_is_present():
    required = {
        "nop", "halt", "goto", "call", "ret", "jz", "jnz", "loop", "jump_table", "push", "pop",
        "li", "lf", "mov", "iadd", "isub", "imul", "idiv", "fadd", "fsub", "fmul", "fdiv",
        "and", "or", "xor", "shl", "shr", "ieq", "ilt", "flt", "load", "store", "skip_if_zero",
        "skip_if_not_zero", "jump_if_zero", "jump_if_not_zero", "clear", "bind_pipeline",
        "bind_vertex_buffer", "bind_storage_buffer", "bind_texture", "draw", "draw_indexed",
        "draw_indirect", "multi_draw_indirect", "multi_draw_indirect_count", "dispatch",
        "barrier", "uniform_i", "uniform_f", "copy_buffer", "viewport", "fence_signal",
        "fence_wait", "read_framebuffer", "upload",
    }  # fmt: skip
    assert required <= set(isa.BY_NAME)


@pytest.mark.parametrize("op", isa.OPS, ids=lambda op: op.name)
def test_each_op_is_described_and_well_formed(op):
    assert op.meaning
    assert 0 <= op.code < 0x80
    for field in isa.FIELDS:
        assert op.max_of(field) <= isa.FIELD_MAX[field]
    for field, _kind, _count in op.const:
        assert op.operands[isa.FIELDS.index(field)] is isa.Operand.CONST
    if isa.Rule.MEM_U32 in op.rule:
        assert op.b is isa.Operand.BUFFER and op.c is isa.Operand.U32


def test_encode_decode_round_trip():
    op = isa.BY_NAME["draw"]
    raw = isa.encode(op, 0, 3, 0, 1)
    assert len(raw) == isa.INSTRUCTION_SIZE
    assert isa.decode(raw) == (op.code, 0, 3, 0, 1)
