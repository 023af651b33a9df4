"""The Python verifier: accepts valid programs, rejects each rule with index and mnemonic."""

from __future__ import annotations

import importlib
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypergl_compiler import Constant, Program, Resource, Subroutine, VerifyError, isa, verify
from hypergl_compiler.isa import ConstKind, ResourceKind, VerifyCode
from hypergl_compiler.verify import verify_parts

verify_module = importlib.import_module("hypergl_compiler.verify")  # the name is the function

RESOURCES = (
    Resource(ResourceKind.BUFFER, "buf", {"size": 64}),
    Resource(ResourceKind.TEXTURE, "tex", {}),
    Resource(ResourceKind.BUFFER, "small", {"size": 8}),
    Resource(ResourceKind.BUFFER, "nosize", {}),
)
CONSTANTS = (
    Constant(ConstKind.F32, struct.pack("<5f", 0, 0, 0, 1, 1)),  # k0: clear colour
    Constant(ConstKind.U32, struct.pack("<3I", 0, 0, 8)),  # k1: copy range / jump table
    Constant(ConstKind.I32, struct.pack("<4i", 0, 0, 8, 8)),  # k2: viewport
    Constant(ConstKind.U32, b""),  # k3: empty
    Constant(ConstKind.F32, b"\x00\x00\x80"),  # k4: not a whole element
    Constant(ConstKind.U32, struct.pack("<2I", 1, 99)),  # k5: a table with a bad target
    Constant(ConstKind.U32, struct.pack("<3I", 60, 0, 8)),  # k6: source range too far
    Constant(ConstKind.U32, struct.pack("<3I", 0, 4, 8)),  # k7: destination 4+8
    Constant(ConstKind.U32, struct.pack("<2I", 0, 1)),  # k8: a valid jump table
    Constant(ConstKind.U32, struct.pack("<3I", 0, 0, 0)),  # k9: an empty copy
)


def ins(name: str, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> bytes:
    return isa.encode(isa.BY_NAME[name], a, b, c, d)


def program(*instructions: bytes, subs=(), constants=CONSTANTS, resources=RESOURCES) -> Program:
    return Program(
        code=b"".join(instructions),
        constants=constants,
        resources=resources,
        subroutines=tuple(subs),
    )


def rejection(p: Program) -> tuple[int, str, str]:
    with pytest.raises(VerifyError) as info:
        verify(p)
    err = info.value
    assert isinstance(err, ValueError)
    assert isinstance(err.code, VerifyCode)
    return err.index, err.mnemonic, err.reason


def test_scene_verifies(scene):
    verify(scene)


def test_empty_program_verifies():
    verify(Program(code=b""))


def test_code_length_not_multiple_of_16():
    assert rejection(Program(code=bytes(17)))[:2] == (-1, "")


def test_subroutine_entry_outside_code():
    index, mnemonic, reason = rejection(program(ins("halt"), subs=[Subroutine("far", 1)]))
    assert (index, mnemonic) == (-1, "call") and "'far'" in reason


@pytest.mark.parametrize(
    ("code", "constant", "verify_code", "reason"),
    [
        (ins("uniform_const", 0, 0, 0, 7), Constant(ConstKind.U32, bytes(12)),
         VerifyCode.UNIFORM_SIZE, "constant 0 has 12 bytes, uniform type 7 (uint) needs 4"),
        (ins("uniform_const", 0, 0, 0, 4), Constant(ConstKind.F32, bytes(60)),
         VerifyCode.UNIFORM_SIZE, "needs 64"),
        (ins("viewport", 0, 0), Constant(ConstKind.I32, struct.pack("<4i", 0, 0, -1, 8)),
         VerifyCode.VIEWPORT_SIZE, "width -1 and height 8"),
        (ins("viewport", 0, 0), Constant(ConstKind.I32, struct.pack("<4i", -5, -5, 0, -2)),
         VerifyCode.VIEWPORT_SIZE, "height -2"),
    ],
)  # fmt: skip
def test_static_constant_rules_carry_their_code(code, constant, verify_code, reason):
    """Rules the interpreter used to check at run time (UNIFORM_SIZE, VIEWPORT_SIZE)."""
    with pytest.raises(VerifyError) as info:
        verify(program(code, constants=(constant,)))
    assert (info.value.index, info.value.mnemonic, info.value.code) == (
        0, isa.BY_CODE[isa.decode(code)[0]].name, verify_code,
    )  # fmt: skip
    assert reason in info.value.reason


def test_codes_survive_pickling():
    import pickle

    with pytest.raises(VerifyError) as info:
        verify(program(ins("li", a=8)))
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.code, copy.index, copy.reason) == (VerifyCode.REGISTER, 0, info.value.reason)


def test_message_names_index_and_mnemonic():
    with pytest.raises(VerifyError, match=r"^instruction 2 \(draw_indexed\): "):
        verify(program(ins("nop"), ins("nop"), ins("draw_indexed", a=2)))


@pytest.mark.parametrize(
    ("code", "index", "mnemonic", "reason"),
    [
        ([struct.pack("<HHIII", 0x7F, 0, 0, 0, 0)], 0, "?", "unknown opcode 0x7f"),
        ([ins("nop"), struct.pack("<HHIII", 0x1234, 0, 0, 0, 0)], 1, "?", "0x1234"),
        ([ins("halt", a=1)], 0, "halt", "field a"),
        ([ins("draw", 0, 3, 0, 1), ins("halt", d=5)], 1, "halt", "field d"),
        ([ins("li", a=8)], 0, "li", "register 8"),
        ([ins("iadd", 0, 1, 9)], 0, "iadd", "field c"),
        ([ins("iadd", 9, 9, 0)], 0, "iadd", "field a"),  # fields in order
        ([ins("clear", 0, 0, 8)], 0, "clear", "8 exceeds 7"),
        ([ins("draw_indexed", a=2)], 0, "draw_indexed", "2 exceeds 1"),
        ([ins("bind_vertex_buffer", 0, 0, 64)], 0, "bind_vertex_buffer", "64 exceeds 63"),
        ([ins("goto", b=2)], 0, "goto", "jump target 2"),
        ([ins("clear", 0, 10, 3)], 0, "clear", "constant 10 of 10"),
        ([ins("clear", 0, 1, 3)], 0, "clear", "is u32, expected f32"),
        ([ins("viewport", b=0)], 0, "viewport", "is f32, expected i32"),
        ([ins("clear", 0, 4, 3)], 0, "clear", "whole number"),
        ([ins("copy_buffer", 0, 0, 0, 2)], 0, "copy_buffer", "is i32, expected u32"),
        ([ins("jump_table", 0, 3, 0)], 0, "jump_table", "0 elements, expected at least 1"),
        ([ins("uniform_const", 0, 0, 3, 3)], 0, "uniform_const", "constant 3 has 0 elements"),
        ([ins("call", b=0)], 0, "call", "subroutine 0 of 0"),
        ([ins("bind_pipeline", b=0)], 0, "bind_pipeline", "expected a pipeline"),
        ([ins("bind_texture", b=4)], 0, "bind_texture", "slot 4 of 4"),
        ([ins("bind_texture", b=0)], 0, "bind_texture", "'buf') is a buffer"),
        ([ins("load", 0, 0, 2)], 0, "load", "not a multiple of 4"),
        ([ins("load", 0, 0, 64)], 0, "load", "outside buffer 'buf'"),
        ([ins("store", 0, 2, 8)], 0, "store", "of 8 bytes"),
        ([ins("load", 0, 3, 0)], 0, "load", "'nosize' (no declared size)"),
        ([ins("jump_table", 0, 5, 0)], 0, "jump_table", "target 99"),
        ([ins("copy_buffer", 0, 0, 2, 7)], 0, "copy_buffer", "destination range 4+8"),
        ([ins("copy_buffer", 0, 0, 0, 6)], 0, "copy_buffer", "source range 60+8"),
        ([ins("viewport_reg", a=5)], 0, "viewport_reg", "r5..r8"),
        ([ins("nop"), ins("skip_if_zero", 0, 0, 0)], 1, "skip_if_zero", "no instruction follows"),
        ([ins("skip_if_not_zero", 0, 0, 64)], 0, "skip_if_not_zero", "outside buffer"),
        ([ins("bind_uniform_range", 0, 0, 16, 16)], 0, "bind_uniform_range",
         "range offset 16 is not a multiple of 256"),
        ([ins("bind_uniform_range", 0, 0, 0, 0)], 0, "bind_uniform_range", "range size 0"),
        ([ins("bind_storage_range", 0, 0, 0, 16385)], 0, "bind_storage_range", "1..16384"),
        ([ins("bind_storage_range", 0, 0, 0, 65)], 0, "bind_storage_range",
         "range 0+65 is outside buffer 'buf' of 64 bytes"),
        ([ins("bind_uniform_range", 0, 3, 0, 4)], 0, "bind_uniform_range", "no declared size"),
        ([ins("bind_uniform_range", 64, 0, 0, 4)], 0, "bind_uniform_range", "64"),
        ([ins("bind_storage_range", 0, 1, 0, 4)], 0, "bind_storage_range", "is a texture"),
        ([ins("dispatch", 0, 1, 65536, 1)], 0, "dispatch", "65536"),
    ],
)  # fmt: skip
def test_each_rule_rejects(code, index, mnemonic, reason):
    got = rejection(program(*code))
    assert got[:2] == (index, mnemonic)
    assert reason in got[2]


@pytest.mark.parametrize(
    "code",
    [
        [ins("goto", b=1)],  # a target equal to the code length means "end"
        [ins("load", 0, 0, 60), ins("store", 0, 2, 4)],  # last word of each buffer
        [ins("skip_if_zero", 0, 0, 0), ins("nop")],
        [ins("uniform_const", 0, 0, 2, 3)],  # BYTES-declared: any kind of the type's size
        [ins("jump_table", 0, 8, 1)],
        [ins("copy_buffer", 0, 0, 2, 1)],  # k1: 8 bytes at 0 into an 8-byte buffer
        [ins("copy_buffer", 0, 3, 3, 9)],  # nothing copied: no declared size needed
        [ins("viewport_reg", a=4), ins("lf", 0, 0xFFFFFFFF), ins("iaddi", 0, 0, 0xFFFFFFFF)],
        [ins("draw_indexed", 1, 2**32 - 1, 0, 0)],
        [ins("bind_uniform_range", 63, 0, 0, 64), ins("bind_storage_range", 0, 2, 0, 8)],
    ],
)
def test_valid_edge_cases_pass(code):
    verify(program(*code))


def test_first_failure_wins():
    got = rejection(program(ins("nop"), ins("li", a=9), ins("halt", a=1)))
    assert got[:2] == (1, "li")


def test_duplicates_of_a_bad_instruction_report_the_first():
    bad = ins("draw_indexed", a=3)
    got = rejection(program(*([ins("nop")] * 50 + [bad] * 50)))
    assert got[:2] == (50, "draw_indexed")


def test_verify_parts_takes_raw_parts():
    verify_parts(ins("halt"), (), (), ())
    with pytest.raises(VerifyError):
        verify_parts(ins("call", b=0), [], [], [])


# ---------------------------------------------------------------- differential property
def reference(p: Program):
    """The rules in their documented order, one instruction after the other."""
    try:
        if len(p.code) % 16 == 0:
            n = len(p.code) // 16
            for sub in p.subroutines:
                if sub.entry >= n:
                    verify(p)  # the whole-program check; raises
            checker = verify_module._Checker(n, p.constants, p.resources, len(p.subroutines))
            verify_module._verify_in_order(p.code, checker)
        else:
            verify(p)
    except VerifyError as err:
        return (err.index, err.mnemonic, err.reason)
    return None


field_values = st.one_of(st.integers(0, 11), st.sampled_from([60, 63, 64, 2**32 - 1]))
instruction = st.builds(
    lambda code, a, b, c, d: struct.pack("<HHIII", code, a, b, c, d),
    st.one_of(st.sampled_from([op.code for op in isa.OPS]), st.integers(0, 0xFFFF)),
    st.integers(0, 9),
    field_values,
    field_values,
    field_values,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(instruction, max_size=12), st.integers(0, 3))
def test_fast_path_agrees_with_in_order_walk(instructions, subs):
    p = program(*instructions, subs=[Subroutine(f"s{i}", i) for i in range(subs)])
    try:
        verify(p)
        fast = None
    except VerifyError as err:
        fast = (err.index, err.mnemonic, err.reason)
    assert fast == reference(p)
