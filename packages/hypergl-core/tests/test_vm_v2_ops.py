"""The ops of issue 28 (HyperGL v2's instruction set): clock, random numbers, sin_cos,
statistics, asserts, debug output, fence polling, register range offsets, and registers
kept across submits. Exact on the trace device (fixed clock and seed)."""

from __future__ import annotations

import math
import struct

import pytest

import hypergl
from hypergl import CompileError, SceneCompiler, VMError
from hypergl_compiler import hgb, isa
from hypergl_compiler.disasm import dis

MASK64 = (1 << 64) - 1


def splitmix(state: int) -> tuple[int, int]:
    """(next u32, new state) of SplitMix64's high half: the engine's gen_rand, in Python."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return (z ^ (z >> 31)) >> 32, state


def f32(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def as_float(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def every_new_op(ctx, pipeline):
    data = ctx.buffer(size=512, name="data")
    data.map()[256:260] = [1, 2, 3, 254]
    fence = ctx.fence(name="done")
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(pipeline)
    cmd.get_time(0)
    cmd.get_delta(1)
    cmd.gen_rand(2, 0)
    cmd.gen_rand(3, 1)
    cmd.sin_cos(4, 5, 0)
    cmd.fence_signal(fence)
    cmd.skip_if_not_ready(fence)
    cmd.draw(3)
    cmd.get_stat(6, 1)  # draws so far
    cmd.assert_reg(6)
    cmd.li(7, 256)
    cmd.bind_uniform_range_reg(data, 2, 7, 16)
    cmd.bind_storage_range_reg(data, 3, 7, 32)
    cmd.print(6)
    cmd.dump(data, 7, 4)
    cmd.end()
    return cmd


def test_every_new_op_gives_exact_calls_and_registers(trace_ctx, pipeline):
    cmd = every_new_op(trace_ctx, pipeline)
    out: list[str] = []
    cmd.submit(clock=10.0, seed=7)  # the first submit: time 0, delta 0
    trace_ctx.trace.clear()
    stats = cmd.submit(clock=10.5, debug_sink=out.append)
    assert trace_ctx.trace == [
        ("bind_pipeline", "main"),
        ("fence_signal", "done"),
        ("fence_ready", "done"),
        ("draw", 3, 0, 1),
        ("bind_uniform_range", "data", 2, 256, 16),
        ("bind_storage_range", "data", 3, 256, 32),
    ]
    r = stats.registers
    assert (as_float(r[0]), as_float(r[1])) == (0.5, 0.5)
    state = 7
    _, state = splitmix(state)
    _, state = splitmix(state)  # the first submit drew two numbers
    first, state = splitmix(state)
    second, state = splitmix(state)
    assert r[2] == first
    assert as_float(r[3]) == (second >> 8) / (1 << 24)
    assert as_float(r[4]) == pytest.approx(math.sin(0.5), abs=1e-6)
    assert as_float(r[5]) == pytest.approx(math.cos(0.5), abs=1e-6)
    assert r[6] == 1 and r[7] == 256
    assert out == [stats.debug_output]
    assert stats.debug_output == (
        "[14] r6 = 1 (i32 1, f32 1.40129846e-45)\n[15] data[256..260]: 01 02 03 fe\n"
    )


def test_the_null_device_runs_every_new_op(null_ctx):
    pipe = null_ctx.pipeline(vertex_shader="v", fragment_shader="f", name="main")
    stats = every_new_op(null_ctx, pipe).submit(seed=1)
    assert stats.draws == 1 and stats.registers[6] == 1


def test_same_seed_same_numbers_and_the_stream_carries_on(trace_ctx):
    cmd = trace_ctx.command_buffer()
    cmd.gen_rand(0)
    cmd.end()
    a = [cmd.submit(seed=3).registers[0]] + [cmd.submit().registers[0] for _ in range(3)]
    b = [cmd.submit(seed=3).registers[0]] + [cmd.submit().registers[0] for _ in range(3)]
    assert a == b and len(set(a)) == 4
    trace_ctx.seed(3)
    assert cmd.submit().registers[0] == a[0]


def test_the_trace_clock_stands_still_until_set(trace_ctx):
    cmd = trace_ctx.command_buffer()
    cmd.get_time(0)
    cmd.get_delta(1)
    cmd.end()
    assert cmd.submit().registers[:2] == (0, 0)
    trace_ctx.set_clock(2.0)
    assert cmd.submit().registers[:2] == (f32(2.0), f32(2.0))
    assert cmd.submit().registers[:2] == (f32(2.0), 0)


def test_get_stat_counts_this_submit_so_far(trace_ctx):
    cmd = trace_ctx.command_buffer()
    cmd.nop()
    cmd.get_stat(0, 0)  # instructions, this one included
    cmd.end()
    assert cmd.submit().registers[0] == 2


def test_assert_reg_names_the_register_and_its_value(trace_ctx):
    cmd = trace_ctx.command_buffer()
    cmd.li(3, 0)
    cmd.assert_reg(3)
    cmd.end()
    with pytest.raises(VMError, match=r"assertion failed: r3 = 0") as info:
        cmd.submit()
    assert info.value.index == 1 and info.value.mnemonic == "assert_reg"


@pytest.mark.parametrize(
    ("offset", "size", "message"),
    [
        (128, 16, r"range offset r1 \(128\) is not a multiple of 256"),
        (256, 512, r"range r1 \(256\) \+ 512 is outside buffer 'data' of 512 bytes"),
        (0, 0, r"range size 0"),
    ],
)
def test_a_register_range_is_checked_at_run_time(trace_ctx, offset, size, message):
    data = trace_ctx.buffer(size=512, name="data")
    cmd = trace_ctx.command_buffer()
    cmd.li(1, offset)
    cmd.bind_uniform_range_reg(data, 0, 1, size)
    cmd.end()
    with pytest.raises(VMError, match=message):
        cmd.submit()
    assert trace_ctx.trace == []


def test_a_storage_register_range_outside_the_buffer_is_refused(trace_ctx):
    data = trace_ctx.buffer(size=256, name="data")
    cmd = trace_ctx.command_buffer()
    cmd.li(1, 256)
    cmd.bind_storage_range_reg(data, 0, 1, 4)
    cmd.end()
    with pytest.raises(VMError, match=r"outside buffer 'data' of 256 bytes"):
        cmd.submit()


def test_a_dump_outside_the_buffer_is_refused(trace_ctx):
    data = trace_ctx.buffer(size=16, name="data")
    cmd = trace_ctx.command_buffer()
    cmd.li(1, 12)
    cmd.dump(data, 1, 8)
    cmd.end()
    with pytest.raises(VMError, match=r"dump range r1 \(12\) \+ 8 is outside buffer 'data'"):
        cmd.submit(debug_sink=print)


def test_debug_output_is_bounded_per_submit(trace_ctx):
    cmd = trace_ctx.command_buffer()
    sc = SceneCompiler(cmd)
    with sc.loop(0, 5000):
        cmd.print(0)
    cmd.end()
    out = cmd.submit(debug_sink=lambda text: None).debug_output
    assert len(out) <= isa.DEBUG_OUTPUT_LIMIT + 4 and out.endswith("...\n")
    assert cmd.submit().debug_output == ""  # no sink: nothing is written


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"seed": -1}, ValueError),
        ({"clock": float("nan")}, ValueError),
        ({"clock": "now"}, TypeError),
        ({"debug_sink": "stdout"}, TypeError),
        ({"keep_registers": 1}, TypeError),
    ],
)
def test_bad_vm_options_are_refused(trace_ctx, options, error):
    cmd = trace_ctx.command_buffer()
    cmd.nop()
    cmd.end()
    with pytest.raises(error, match=next(iter(options))):
        cmd.submit(**options)


@pytest.mark.parametrize(
    ("op", "args"),
    [("gen_rand", (0, 2)), ("get_stat", (0, 6)), ("dump", (None, 0, isa.MAX_DUMP_BYTES + 1))],
)
def test_immediates_above_the_op_maximum_are_refused_when_recording(trace_ctx, op, args):
    cmd = trace_ctx.command_buffer()
    if args[0] is None:
        args = (trace_ctx.buffer(size=1024, name="b"), *args[1:])
    with pytest.raises(CompileError):
        getattr(cmd, op)(*args)


def test_kept_registers_count_frames(trace_ctx):
    cmd = trace_ctx.command_buffer()
    cmd.iaddi(0, 0, 1)
    cmd.end()
    assert [cmd.submit(keep_registers=True).registers[0] for _ in range(3)] == [1, 2, 3]
    assert cmd.submit(keep_registers=True, registers={0: 10}).registers[0] == 11
    assert cmd.submit().registers[0] == 1  # the default starts from zeros
    prepared = cmd.prepare(keep_registers=True)  # from the previous submit's final r0 = 1
    for _ in range(3):
        prepared.submit()
    assert prepared.stats.registers[0] == 4


def test_scene_compiler_helpers(trace_ctx):
    cmd = trace_ctx.command_buffer()
    sc = SceneCompiler(cmd)
    sc.time(0)
    sc.delta(1)
    sc.random(2)
    sc.random_int(3)
    sc.sin_cos(4, 5, 0)
    sc.stat(6, "draws")
    with pytest.raises(CompileError, match="unknown statistic 'frames'"):
        sc.stat(6, "frames")
    with cmd.define_subroutine("maybe"):
        sc.ret_if_zero(1)
        cmd.li(7, 9)
        cmd.ret()
    cmd.call("maybe")
    cmd.end()
    stats = cmd.submit(clock=1.0)
    assert 0.0 <= as_float(stats.registers[2]) < 1.0
    assert stats.registers[7] == 0  # delta 0 on the first submit: returned early


@pytest.mark.gl
def test_a_real_fence_polls_without_waiting(gl_ctx):
    fence = gl_ctx.fence(name="f")
    flags = gl_ctx.buffer(size=4, name="flags")
    cmd = gl_ctx.command_buffer()
    cmd.li(0, 1)
    cmd.skip_if_not_ready(fence)  # never signalled: it has passed
    cmd.store(0, flags, 0)
    cmd.get_time(1)
    cmd.end()
    stats = cmd.submit()
    assert flags.map(dtype="uint32")[0] == 1
    assert as_float(stats.registers[1]) == 0.0  # the wall clock's first reading
    assert as_float(cmd.submit().registers[1]) > 0.0


def test_hgb_versions_and_the_disassembler(tmp_path, trace_ctx, pipeline):
    program = every_new_op(trace_ctx, pipeline).program
    assert hgb.inspect(hgb.dumps(program))[0].version == (1, 2)
    assert hgb.loads(hgb.dumps(program)) == program
    plain = trace_ctx.command_buffer()
    plain.nop()
    plain.end()
    assert hgb.inspect(hgb.dumps(plain.program))[0].version == (1, 1)
    text = dis(program)
    for name in (
        "get_time",
        "get_delta",
        "gen_rand",
        "sin_cos",
        "get_stat",
        "assert_reg",
        "print",
        "dump",
        "skip_if_not_ready",
        "bind_uniform_range_reg",
        "bind_storage_range_reg",
    ):
        assert name in text


def test_scene_submit_takes_the_vm_options(trace_ctx, pipeline, tmp_path):
    path = tmp_path / "anim.hgb"
    hgb.save(every_new_op(trace_ctx, pipeline).program, path)
    scene = trace_ctx.load(path)
    stats = scene.submit(clock=0.0, seed=7, keep_registers=True)
    assert stats.registers[2] == splitmix(7)[0]


def test_hypergl_exports_context_clock_controls():
    assert callable(hypergl.Context.set_clock) and callable(hypergl.Context.seed)


@pytest.mark.parametrize(
    ("op", "fields", "code"),
    [
        ("gen_rand", (0, 2, 0, 0), isa.VerifyCode.IMMEDIATE),
        ("get_stat", (0, 6, 0, 0), isa.VerifyCode.IMMEDIATE),
        ("sin_cos", (0, 1, 8, 0), isa.VerifyCode.REGISTER),
        ("dump", (0, 0, 0, isa.MAX_DUMP_BYTES + 1), isa.VerifyCode.IMMEDIATE),
        ("bind_uniform_range_reg", (0, 0, 0, isa.MAX_RANGE_SIZE + 1), isa.VerifyCode.IMMEDIATE),
        ("skip_if_not_ready", (0, 1, 0, 0), isa.VerifyCode.SKIP_NEXT),
        ("print", (0, 1, 0, 0), isa.VerifyCode.UNUSED_FIELD),
    ],
)
def test_both_verifiers_reject_bad_new_ops_alike(op, fields, code):
    from hypergl import VerifyError
    from hypergl_compiler import Resource, verify_parts
    from hypergl_compiler.isa import ResourceKind

    resources = [Resource(ResourceKind.BUFFER, "b", {"size": 1024}),
                 Resource(ResourceKind.FENCE, "f", {})]  # fmt: skip
    raw = isa.encode(isa.BY_NAME[op], *fields)
    with pytest.raises(VerifyError) as python:
        verify_parts(raw, [], resources, [])
    with pytest.raises(VerifyError) as native:
        hypergl.verify(hypergl.Program(code=raw, constants=[], resources=resources,
                                       subroutines=[]))  # fmt: skip
    assert python.value.code == native.value.code == code
