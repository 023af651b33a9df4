"""The C++ verifier and hypergl_compiler's Python verifier agree, and nothing crashes the C++ one.

Corpus: valid programs recorded with the builder, then mutated field by field
(opcodes, registers, slots, constants, targets, offsets, subroutines). Both
verifiers must accept the same programs and reject the others at the same
instruction with the same mnemonic and the same reason code (isa.VerifyCode).
"""

from __future__ import annotations

import random
import struct

import pytest

import hypergl
from hypergl import VerifyError
from hypergl_compiler import CommandBuffer, Constant, Resource, Subroutine, isa, verify_parts
from hypergl_compiler.isa import ConstKind, ResourceKind, VerifyCode

FORMAT = struct.Struct("<HHIII")


def recorded_program(rng: random.Random):
    """A valid program using many op families."""
    cmd = CommandBuffer()
    data = cmd.buffer("data", size=64)
    other = cmd.buffer("other", size=32)
    pipe = cmd.pipeline("pipe", "v", "f")
    fb = cmd.framebuffer("fb", (8, 8))
    tex = cmd.texture("tex", (2, 2))
    fence = cmd.fence("fence")
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0.1, 0.2, 0.3, 1.0))
    cmd.bind_pipeline(pipe)
    cmd.bind_texture(tex, rng.randrange(8))
    cmd.bind_uniform_range(data, rng.randrange(8), 0, 16 * rng.randrange(1, 5))
    cmd.bind_storage_range(other, rng.randrange(8), 0, 4 * rng.randrange(1, 9))
    cmd.li(0, rng.randrange(10))
    cmd.label("top")
    cmd.load(1, data, 4 * rng.randrange(16))
    cmd.iadd(2, 1, 0)
    cmd.skip_if_zero(data, 0)
    cmd.draw(3, first=rng.randrange(100))
    cmd.jump_if_not_zero(other, 8, "out")
    cmd.copy_buffer(data, other, 16, src_offset=8, dst_offset=4)
    cmd.jump_table(0, ["top", "out"], "out")
    cmd.call("helper")
    cmd.label("out")
    cmd.fence_signal(fence)
    cmd.viewport(0, 0, 8, 8)
    cmd.uniform_const(rng.randrange(4), (1.0, 2.0, 3.0, 4.0), "vec4")
    # The ops of issue 28 (clock, random, math, stats, debugging, polling, range registers).
    cmd.get_time(4)
    cmd.get_delta(5)
    cmd.gen_rand(6, rng.randrange(2))
    cmd.sin_cos(4, 5, 6)
    cmd.get_stat(7, rng.randrange(6))
    cmd.assert_reg(7)
    cmd.print(rng.randrange(8))
    cmd.dump(data, 0, rng.randrange(1, 65))
    cmd.skip_if_not_ready(fence)
    cmd.li(1, 0)
    cmd.bind_uniform_range_reg(data, rng.randrange(8), 1, 16)
    cmd.bind_storage_range_reg(other, rng.randrange(8), 1, 4 * rng.randrange(1, 9))
    with cmd.define_subroutine("helper"):
        cmd.push(3)
        cmd.pop(3)
        cmd.bind_storage_buffer(data, 2)
    return cmd.end()


def parts(program):
    return (
        program.code,
        list(program.constants),
        list(program.resources),
        list(program.subroutines),
    )


def mutate(rng: random.Random, code: bytes) -> bytes:
    """One random change: a field of one instruction, or a truncation."""
    count = len(code) // 16
    raw = bytearray(code)
    choice = rng.random()
    if choice < 0.05:
        return bytes(raw[: rng.randrange(len(raw) + 1)])
    index = rng.randrange(count)
    fields = list(FORMAT.unpack_from(raw, index * 16))
    field = rng.randrange(5)
    small = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 31, 32, 60, 63, 64, 100])
    big = rng.choice([0xFFFF, 0xFFFFFFFF, 1 << 31, count, count + 1])
    value = small if rng.random() < 0.7 else big
    if field == 0:
        value = rng.choice([*isa.BY_CODE, 0x0B, 0x3F, 0x7F, 0x80, 0xFFFF])
    if field <= 1:
        value &= 0xFFFF
    fields[field] = value
    FORMAT.pack_into(raw, index * 16, *fields)
    return bytes(raw)


def python_verdict(code, constants, resources, subroutines):
    try:
        verify_parts(code, constants, resources, subroutines)
    except VerifyError as exc:
        return (exc.index, exc.mnemonic, exc.code)
    return None


def native_verdict(code, constants, resources, subroutines):
    program = hypergl.Program(
        code=code, constants=constants, resources=resources, subroutines=subroutines
    )
    try:
        hypergl.verify(program)
    except VerifyError as exc:
        return (exc.index, exc.mnemonic, exc.code)
    return None


def test_valid_programs_pass_both():
    rng = random.Random(1)
    for _ in range(20):
        program = recorded_program(rng)
        assert python_verdict(*parts(program)) is None
        assert native_verdict(*parts(program)) is None


def test_mutated_programs_get_the_same_verdict():
    rng = random.Random(2)
    rejected = 0
    for trial in range(3000):
        code, constants, resources, subroutines = parts(recorded_program(rng))
        code = mutate(rng, code)
        expected = python_verdict(code, constants, resources, subroutines)
        assert native_verdict(code, constants, resources, subroutines) == expected, trial
        rejected += expected is not None
    assert rejected > 1000  # the corpus really exercises rejections


def test_bad_tables_get_the_same_verdict():
    rng = random.Random(3)
    program = recorded_program(rng)
    code, constants, resources, subroutines = parts(program)
    cases = [
        (code, constants, [Resource(ResourceKind.TEXTURE, r.name, {}) for r in resources],
         subroutines),
        (code, [Constant(ConstKind.U32, b"\x00" * 4)] * len(constants), resources, subroutines),
        (code, constants, resources, [Subroutine("helper", 10_000)]),
        (code, constants, [Resource(r.kind, r.name, {"size": 4}) if r.kind is ResourceKind.BUFFER
                           else r for r in resources], subroutines),
        (code, [], resources, subroutines),
    ]  # fmt: skip
    for case in cases:
        expected = python_verdict(*case)
        assert expected is not None
        assert native_verdict(*case) == expected


def test_mutated_constants_get_the_same_verdict():
    """Constants resized or rewritten: the constant rules, UNIFORM_SIZE and VIEWPORT_SIZE."""
    rng = random.Random(5)
    codes = set()
    for trial in range(600):
        code, constants, resources, subroutines = parts(recorded_program(rng))
        index = rng.randrange(len(constants))
        kind = rng.choice([constants[index].kind, *ConstKind])
        words = rng.choice([0, 1, 2, 3, 4, 5, 16, 17])
        data = struct.pack(f"<{words}i", *(rng.choice([-1, 0, 1, 8, -(1 << 31)])
                                           for _ in range(words)))  # fmt: skip
        constants[index] = Constant(kind, data + b"\x00" * rng.choice([0, 0, 0, 1, 2]))
        expected = python_verdict(code, constants, resources, subroutines)
        assert native_verdict(code, constants, resources, subroutines) == expected, trial
        if expected is not None:
            codes.add(expected[2])
    assert {VerifyCode.UNIFORM_SIZE, VerifyCode.VIEWPORT_SIZE, VerifyCode.CONSTANT_COUNT} <= codes


@pytest.mark.parametrize(
    ("op", "operands", "constant", "code"),
    [
        ("uniform_const", (0, 0, 0, 3), Constant(ConstKind.F32, b"\x00" * 12),
         VerifyCode.UNIFORM_SIZE),
        ("uniform_const", (0, 0, 0, 4), Constant(ConstKind.BYTES, b"\x00" * 60),
         VerifyCode.UNIFORM_SIZE),
        ("viewport", (0, 0, 0, 0), Constant(ConstKind.I32, struct.pack("<4i", 0, 0, -1, 4)),
         VerifyCode.VIEWPORT_SIZE),
        ("viewport", (0, 0, 0, 0), Constant(ConstKind.I32, struct.pack("<4i", 0, 0, 4, -8)),
         VerifyCode.VIEWPORT_SIZE),
    ],
)  # fmt: skip
def test_static_constant_checks_are_verified(op, operands, constant, code):
    """What the interpreter used to check at run time is rejected before any run."""
    program = (isa.encode(isa.BY_NAME[op], *operands), [constant], [], [])
    expected = python_verdict(*program)
    assert expected == (0, op, code)
    assert native_verdict(*program) == expected


def test_every_failure_has_a_code():
    rng = random.Random(6)
    for _ in range(500):
        code, constants, resources, subroutines = parts(recorded_program(rng))
        verdict = native_verdict(mutate(rng, code), constants, resources, subroutines)
        assert verdict is None or isinstance(verdict[2], VerifyCode)


def test_random_instruction_streams_only_raise_verify_error():
    rng = random.Random(4)
    resources = [
        Resource(ResourceKind.BUFFER, "b", {"size": 64}),
        Resource(ResourceKind.PIPELINE, "p", {}),
        Resource(ResourceKind.READBACK, "r", {}),
    ]
    constants = [Constant(ConstKind.F32, b"\x00" * 20), Constant(ConstKind.U32, b"\x01" * 12)]
    accepted = 0
    for _ in range(5000):
        count = rng.randrange(1, 12)
        raw = bytearray()
        for _ in range(count):
            op = rng.choice([*isa.BY_CODE, rng.randrange(0x10000)])
            a = rng.randrange(0x10000) if rng.random() < 0.1 else rng.randrange(8)
            rest = (rng.choice([0, 1, 2, 4, 8, rng.randrange(1 << 32)]) for _ in range(3))
            raw += FORMAT.pack(op, a, *rest)
        verdict = native_verdict(bytes(raw), constants, resources, [Subroutine("s", 0)])
        accepted += verdict is None
    assert accepted > 0


def test_verify_rejects_wrong_types():
    with pytest.raises(TypeError, match="Program"):
        hypergl.verify(b"\x00" * 16)
