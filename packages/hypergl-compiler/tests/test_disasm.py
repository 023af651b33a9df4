"""dis/asm: one text format, read back to the same bytes."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypergl_compiler import (
    CommandBuffer,
    CompileError,
    Constant,
    Program,
    Resource,
    Subroutine,
    asm,
    dis,
    hgb,
    isa,
    r0,
)
from hypergl_compiler.isa import ConstKind, ResourceKind


def test_scene_round_trips_exactly(scene):
    text = dis(scene)
    back = asm(text)
    assert back == scene
    assert hgb.dumps(back) == hgb.dumps(scene)
    assert dis(back) == text


def test_listing_shows_labels_resource_names_and_constants(scene):
    text = dis(scene)
    assert "loop.0:" in text and "loop r0, loop.0" in text
    assert "bind_pipeline main" in text
    assert "upload world, flags" in text
    assert "clear k0, 3, 0" in text and "k0 = 0.25, 0.5, 0.75, 1.0, 1.0" in text
    assert '.resource buffer "vbo"' in text
    assert '.sub "_textured_quad" _textured_quad' in text
    assert "lf r2, -1.5" in text and "li r3, 4294967289" in text
    assert '.meta "scene" "test"' in text


def test_unlabelled_targets_and_raw_instructions():
    code = b"".join(
        [
            isa.encode(isa.BY_NAME["goto"], b=2),
            struct.pack("<HHIII", 0x7E, 1, 2, 3, 4),  # unknown op
            isa.encode(isa.BY_NAME["li"], a=9),  # register out of range
            isa.encode(isa.BY_NAME["bind_texture"], b=0),  # slot of the wrong kind
            isa.encode(isa.BY_NAME["lf"], b=0x7FC00001),  # a NaN payload
        ]
    )
    program = Program(
        code=code,
        resources=(Resource(ResourceKind.BUFFER, "b", {"size": 4}),),
    )
    text = dis(program)
    assert "goto #2" in text and ".raw 0x7e, 1, 2, 3, 4" in text
    assert "lf r0, 0x7fc00001" in text
    assert asm(text) == program


def test_constants_of_every_kind_round_trip():
    constants = (
        Constant(ConstKind.BYTES, b"\x00\xffab"),
        Constant(ConstKind.U32, struct.pack("<2I", 0, 2**32 - 1)),
        Constant(ConstKind.I32, struct.pack("<2i", -(2**31), 5)),
        Constant(ConstKind.F32, struct.pack("<4I", 0x80000000, 0x7F800000, 0x00000001, 0x3DCCCCCD)),
        Constant(ConstKind.UTF8, 'héllo "world"\n;'.encode()),
        Constant(ConstKind.UTF8, b"\xff"),
        Constant(ConstKind.F32, b"\x01\x02\x03"),
        Constant(ConstKind.U32, b""),
    )
    program = Program(code=b"", constants=constants)
    assert asm(dis(program)) == program


def test_hand_written_assembly():
    text = """
    ; a comment line
    .resource buffer "flags" {'size': 16}
    .const k0 i32 0, 0, 640, 480
    .sub "sub" body
    .code
    top:
            viewport k0
            jump_if_zero flags, 4, end   ; trailing comment
            call sub
            goto top
    end:
            halt
    body:
            draw 3, 0, 1
            ret
    """
    program = asm(text)
    assert program.instruction_count == 7
    assert program.subroutines == (Subroutine("sub", 5),)
    assert program.labels == {0: "top", 4: "end", 5: "body"}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("frob r0", "'frob'"),
        ("li r9, 1", "'r9'"),
        ("li r0", "takes 2 operands"),
        ("goto nowhere", "'nowhere'"),
        ("draw_indexed 2, 1, 0, 1", "'2'"),
        ("clear k0, 3, 0", "'k0'"),
        ('.resource widget "w" {}', "'widget'"),
        ('.resource buffer "b" [1]', "not a dict"),
        (".const k1 u32 1", "k0"),
        (".const k0 u32 -1", "'-1'"),
        ("x:\nx:", "duplicate label 'x'"),
        ('.sub "s" #5', "outside the code"),
        (".raw 1, 2", "op, a, b, c, d"),
    ],
)
def test_asm_errors_name_the_line_and_value(text, named):
    with pytest.raises(CompileError) as info:
        asm(text)
    assert "line " in str(info.value) and named in str(info.value)


def test_wrong_resource_kind_is_refused_by_asm():
    with pytest.raises(CompileError, match="not a texture"):
        asm(".resource buffer \"b\" {'size': 4}\nbind_texture b, 0")


# ---------------------------------------------------------------- property
def _record(actions) -> Program:
    cmd = CommandBuffer(metadata={"k": "v"})
    buf = cmd.buffer("buf", size=64)
    pipe = cmd.pipeline("pipe", "vs", "fs")
    for kind, value in actions:
        if kind == 0:
            cmd.draw(value, 0, 1)
        elif kind == 1:
            cmd.li(r0, value)
        elif kind == 2:
            cmd.clear((value / 7, 0.5, 0.25, 1.0))
        elif kind == 3:
            cmd.load(r0, buf, (value % 16) * 4)
        elif kind == 4:
            cmd.label(f"l{value}") if f"l{value}" not in cmd._labels else cmd.nop()
        elif kind == 5:
            cmd.bind_pipeline(pipe)
        elif kind == 6:
            cmd.lf(r0, value * 0.1)
    for name, label in list(cmd._labels.items()):
        if not label.placed:
            cmd.label(name)
    return cmd.end()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1000)), max_size=30))
def test_dis_asm_round_trip_property(actions):
    program = _record(actions)
    assert asm(dis(program)) == program


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=16, max_size=16), max_size=10))
def test_any_code_bytes_reassemble(instructions):
    program = Program(
        code=b"".join(instructions),
        constants=(Constant(ConstKind.F32, bytes(20)),),
        resources=(Resource(ResourceKind.BUFFER, "b", {"size": 64}),),
    )
    assert asm(dis(program)).code == program.code
