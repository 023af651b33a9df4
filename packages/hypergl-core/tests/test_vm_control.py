"""Exact call sequences of the interpreter on the trace device."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl import SceneCompiler, VMError, subroutine


def record(ctx, build):
    cmd = ctx.command_buffer()
    build(cmd)
    cmd.end()
    return cmd


def test_straight_line_program(trace_ctx, pipeline):
    def build(cmd):
        cmd.clear(color=(0.0, 0.0, 0.0, 1.0))
        cmd.bind_pipeline(pipeline)
        cmd.draw(3)

    stats = record(trace_ctx, build).submit()
    assert trace_ctx.trace == [
        ("clear", 0.0, 0.0, 0.0, 1.0, 1.0, 3, 0),
        ("bind_pipeline", "main"),
        ("draw", 3, 0, 1),
    ]
    assert stats.draws == 1 and stats.binds_issued == 1


def test_loop_draws_count_times(trace_ctx, pipeline):
    def build(cmd):
        sc = SceneCompiler(cmd)
        cmd.bind_pipeline(pipeline)
        with sc.loop(0, 4):
            cmd.draw(6, first=0, instances=1)

    stats = record(trace_ctx, build).submit()
    assert trace_ctx.trace.calls() == ["bind_pipeline"] + ["draw"] * 4
    assert stats.draws == 4
    assert stats.registers[0] == 0


def test_loop_of_zero_runs_nothing(trace_ctx, pipeline):
    def build(cmd):
        sc = SceneCompiler(cmd)
        cmd.bind_pipeline(pipeline)
        with sc.loop(1, 0):
            cmd.draw(3)

    assert record(trace_ctx, build).submit().draws == 0


def test_nested_conditions_read_buffer_memory(trace_ctx, pipeline):
    flags = trace_ctx.buffer(size=8, name="flags")
    view = flags.map(np.uint32)

    def build(cmd):
        sc = SceneCompiler(cmd)
        cmd.bind_pipeline(pipeline)
        with sc.condition(flags, 0):
            cmd.draw(1)
            with sc.condition(flags, 4, invert=True):
                cmd.draw(2)
        cmd.draw(3)

    cmd = record(trace_ctx, build)
    expected = {
        (0, 0): [3],
        (1, 0): [1, 2, 3],
        (1, 1): [1, 3],
        (0, 1): [3],
    }
    for (outer, inner), counts in expected.items():
        view[:] = (outer, inner)
        trace_ctx.trace.clear()
        cmd.submit()
        assert [e[1] for e in trace_ctx.trace if e[0] == "draw"] == counts, (outer, inner)


def test_skip_if_zero_skips_one_instruction(trace_ctx, pipeline):
    visible = trace_ctx.buffer(size=4, name="visible")

    def build(cmd):
        cmd.bind_pipeline(pipeline)
        cmd.skip_if_zero(visible, 0)
        cmd.draw(7)
        cmd.draw(8)

    cmd = record(trace_ctx, build)
    cmd.submit()
    assert [e[1] for e in trace_ctx.trace if e[0] == "draw"] == [8]
    visible.map(np.uint32)[0] = 1
    trace_ctx.trace.clear()
    cmd.submit()
    assert [e[1] for e in trace_ctx.trace if e[0] == "draw"] == [7, 8]


def test_jump_table_dispatches_on_a_register(trace_ctx, pipeline):
    def build(cmd):
        cmd.bind_pipeline(pipeline)
        cmd.jump_table(0, ["case0", "case1", "case2"], "default")
        for index in range(3):
            cmd.label(f"case{index}")
            cmd.draw(10 + index)
            cmd.goto("out")
        cmd.label("default")
        cmd.draw(99)
        cmd.label("out")

    cmd = record(trace_ctx, build)
    for value, count in ((0, 10), (1, 11), (2, 12), (3, 99), (-1, 99)):
        trace_ctx.trace.clear()
        cmd.submit(registers=[value])
        assert [e[1] for e in trace_ctx.trace if e[0] == "draw"] == [count], value


def test_subroutine_is_recorded_once_and_called_per_use(trace_ctx, pipeline):
    @subroutine
    def forest(sc, pipe, trees):
        sc.cmd.bind_pipeline(pipe)
        with sc.loop(1, trees):
            sc.cmd.draw(36)

    def build(cmd):
        sc = SceneCompiler(cmd)
        forest(sc, pipeline, 3)
        forest(sc, pipeline, 3)
        forest(sc, pipeline, 2)

    cmd = record(trace_ctx, build)
    program = cmd.program
    assert len(program.subroutines) == 2
    from hypergl_compiler import isa

    ops = [isa.decode(program.code, i)[0] for i in range(program.instruction_count)]
    assert ops.count(isa.BY_NAME["call"].code) == 3
    stats = cmd.submit()
    assert stats.draws == 8
    # The second call binds the same pipeline again: skipped, not issued.
    assert stats.binds_issued == 1 and stats.binds_skipped == 2
    assert trace_ctx.trace.calls() == ["bind_pipeline"] + ["draw"] * 8


def test_multi_draw_indirect_and_count(trace_ctx, pipeline):
    commands = trace_ctx.buffer(size=16 * 100, usage="indirect", name="commands")
    params = trace_ctx.buffer(size=4, usage="parameter", name="params")

    def build(cmd):
        cmd.bind_pipeline(pipeline)
        cmd.bind_indirect_buffer(commands)
        cmd.bind_parameter_buffer(params)
        cmd.multi_draw_indirect(100)
        cmd.multi_draw_indirect_count(max_count=100, count_offset=0)

    record(trace_ctx, build).submit()
    assert trace_ctx.trace[1:] == [
        ("bind_indirect_buffer", "commands"),
        ("bind_parameter_buffer", "params"),
        ("multi_draw_indirect", 0, 100, 0),
        ("multi_draw_indirect_count", 0, 0, 100),
    ]


def test_multi_draw_indirect_past_the_buffer_is_a_vm_error(trace_ctx, pipeline):
    commands = trace_ctx.buffer(size=16 * 10, usage="indirect", name="commands")

    def build(cmd):
        cmd.bind_pipeline(pipeline)
        cmd.bind_indirect_buffer(commands)
        cmd.multi_draw_indirect(11)

    with pytest.raises(VMError) as info:
        record(trace_ctx, build).submit()
    assert info.value.index == 2 and info.value.mnemonic == "multi_draw_indirect"
    assert "commands" in info.value.reason


def test_identical_consecutive_binds_are_skipped(trace_ctx, pipeline):
    vertices = trace_ctx.buffer(size=64, usage="vertex", name="vertices")

    def build(cmd):
        for _ in range(3):
            cmd.bind_pipeline(pipeline)
            cmd.bind_vertex_buffer(vertices, 0)
            cmd.draw(3)
        cmd.bind_vertex_buffer(vertices, 1)

    stats = record(trace_ctx, build).submit()
    assert trace_ctx.trace.calls() == [
        "bind_pipeline", "bind_vertex_buffer", "draw", "draw", "draw", "bind_vertex_buffer",
    ]  # fmt: skip
    assert stats.binds_issued == 3 and stats.binds_skipped == 4


def test_budget_exhaustion(trace_ctx):
    def build(cmd):
        cmd.label("top")
        cmd.goto("top")

    cmd = record(trace_ctx, build)
    with pytest.raises(VMError) as info:
        cmd.submit(budget=5000)
    assert "budget of 5000" in info.value.reason and info.value.mnemonic == "goto"


def test_budget_large_enough_completes(trace_ctx, pipeline):
    def build(cmd):
        cmd.bind_pipeline(pipeline)
        cmd.draw(3)

    assert record(trace_ctx, build).submit(budget=3).instructions == 3  # + the final halt


def test_data_stack_overflow(trace_ctx):
    def build(cmd):
        cmd.label("top")
        cmd.push(0)
        cmd.goto("top")

    with pytest.raises(VMError) as info:
        record(trace_ctx, build).submit()
    assert info.value.mnemonic == "push" and "overflow" in info.value.reason


def test_data_stack_underflow(trace_ctx):
    with pytest.raises(VMError) as info:
        record(trace_ctx, lambda cmd: cmd.pop(3)).submit()
    assert info.value.index == 0 and "underflow" in info.value.reason


def test_scope_restores_registers(trace_ctx):
    def build(cmd):
        sc = SceneCompiler(cmd)
        cmd.li(0, 11)
        cmd.li(1, 22)
        with sc.scope([0, 1]):
            cmd.li(0, 99)
            cmd.li(1, 98)

    stats = record(trace_ctx, build).submit()
    assert stats.registers[:2] == (11, 22)


def test_call_depth_limit(trace_ctx):
    def build(cmd):
        cmd.call("recurse")
        with cmd.define_subroutine("recurse"):
            cmd.call("recurse")

    with pytest.raises(VMError) as info:
        record(trace_ctx, build).submit()
    assert info.value.mnemonic == "call" and "call depth limit of 64" in info.value.reason


def test_alu_and_registers(trace_ctx):
    def build(cmd):
        cmd.li(0, 7)
        cmd.li(1, 3)
        cmd.iadd(2, 0, 1)
        cmd.isub(3, 1, 0)
        cmd.imul(4, 0, 1)
        cmd.idiv(5, 3, 1)
        cmd.lf(6, 1.5)
        cmd.fmul(7, 6, 6)

    stats = record(trace_ctx, build).submit()
    assert stats.registers[2] == 10
    assert stats.signed(3) == -4
    assert stats.registers[4] == 21
    assert stats.signed(5) == -1
    assert stats.float(7) == 2.25


def test_initial_registers_and_float_registers(trace_ctx):
    def build(cmd):
        cmd.fadd(2, 0, 1)

    stats = record(trace_ctx, build).submit(registers=[0.25, 0.5])
    assert stats.float(2) == 0.75


def test_division_by_zero_is_a_vm_error(trace_ctx):
    def build(cmd):
        cmd.li(0, 1)
        cmd.idiv(2, 0, 1)

    with pytest.raises(VMError) as info:
        record(trace_ctx, build).submit()
    assert info.value.index == 1 and info.value.mnemonic == "idiv"


def test_indexed_load_outside_the_buffer_is_a_vm_error(trace_ctx):
    data = trace_ctx.buffer(size=16, name="data")

    def build(cmd):
        cmd.li(1, 4)
        cmd.load_indexed(0, data, 1)

    with pytest.raises(VMError) as info:
        record(trace_ctx, build).submit()
    assert info.value.mnemonic == "load_indexed" and "'data' of 16 bytes" in info.value.reason


def test_load_and_store_move_words_through_buffers(trace_ctx):
    data = trace_ctx.buffer(np.array([5, 6, 7, 8], dtype=np.uint32), name="data")

    def build(cmd):
        cmd.load(0, data, 8)
        cmd.li(1, 3)
        cmd.store_indexed(0, data, 1)

    record(trace_ctx, build).submit()
    assert data.map(np.uint32).tolist() == [5, 6, 7, 7]


def test_draw_without_pipeline_is_a_vm_error(trace_ctx):
    with pytest.raises(VMError, match="no pipeline is bound"):
        record(trace_ctx, lambda cmd: cmd.draw(3)).submit()


def test_the_same_program_runs_on_the_null_device(null_ctx):
    pipe = null_ctx.pipeline(vertex_shader="v", fragment_shader="f")
    cmd = null_ctx.command_buffer()
    sc = SceneCompiler(cmd)
    cmd.bind_pipeline(pipe)
    with sc.loop(0, 1000):
        cmd.draw(3)
    cmd.end()
    stats = cmd.submit()
    assert stats.draws == 1000 and stats.device_calls == 1001
    with pytest.raises(Exception, match="device='trace'"):
        _ = null_ctx.trace
