"""SceneCompiler constructs emit the expected instruction sequences; @subroutine dedups."""

from __future__ import annotations

import pytest

from hypergl_compiler import (
    CommandBuffer,
    CompileError,
    SceneCompiler,
    r0,
    r1,
    r2,
    r3,
    subroutine,
    verify,
)


@pytest.fixture
def sc():
    return SceneCompiler(CommandBuffer())


def test_loop_with_immediate_count(sc, decoded):
    with sc.loop(r0, 1000) as reg:
        assert reg == 0
        sc.draw(3)
    program = sc.cmd.end()
    assert decoded(program) == [
        ("li", 0, 1000, 0, 0),
        ("draw", 0, 3, 0, 1),
        ("loop", 0, 1, 0, 0),
        ("halt", 0, 0, 0, 0),
    ]
    verify(program)


def test_loop_count_zero_skips_the_body(sc, decoded):
    with sc.loop(r0, 0):
        sc.draw(3)
    assert decoded(sc.cmd.end()) == [
        ("li", 0, 0, 0, 0),
        ("jz", 0, 4, 0, 0),  # straight past the loop
        ("draw", 0, 3, 0, 1),
        ("loop", 0, 2, 0, 0),
        ("halt", 0, 0, 0, 0),
    ]


def test_loop_with_register_count_guards_zero(sc, decoded):
    with sc.loop(r0, r3):
        sc.nop()
    assert decoded(sc.cmd.end())[:3] == [
        ("mov", 0, 3, 0, 0),
        ("jz", 0, 4, 0, 0),
        ("nop", 0, 0, 0, 0),
    ]


def test_nested_loops_need_distinct_registers(sc, decoded):
    with sc.loop(r0, 2), sc.loop(r1, 3):
        sc.draw(1)
    ops = decoded(sc.cmd.end())
    assert [op[0] for op in ops] == ["li", "li", "draw", "loop", "loop", "halt"]
    assert ops[3][:3] == ("loop", 1, 2) and ops[4][:3] == ("loop", 0, 1)


def test_loop_rejects_bad_count(sc):
    with pytest.raises(CompileError, match="-3"), sc.loop(r0, -3):
        pass


def test_condition_on_mapped_buffer(sc, decoded):
    flags = sc.buffer("flags", size=16)
    with sc.condition(flags, 8):
        sc.draw(3)
    with sc.condition(flags, 12, invert=True):
        sc.draw(4)
    program = sc.cmd.end()
    assert decoded(program) == [
        ("jump_if_zero", 0, 0, 8, 2),
        ("draw", 0, 3, 0, 1),
        ("jump_if_not_zero", 0, 0, 12, 4),
        ("draw", 0, 4, 0, 1),
        ("halt", 0, 0, 0, 0),
    ]
    verify(program)


def test_condition_checks_offset_at_record_time(sc):
    flags = sc.buffer("flags", size=16)
    with pytest.raises(CompileError, match="16"), sc.condition(flags, 16):
        pass


def test_reg_condition(sc, decoded):
    with sc.reg_condition(r2):
        sc.nop()
    with sc.reg_condition(r2, invert=True):
        sc.nop()
    assert decoded(sc.cmd.end())[:4] == [
        ("jz", 2, 2, 0, 0),
        ("nop", 0, 0, 0, 0),
        ("jnz", 2, 4, 0, 0),
        ("nop", 0, 0, 0, 0),
    ]


def test_while_not_zero(sc, decoded):
    flag = sc.buffer("flag", size=4)
    with sc.while_not_zero(flag, 0):
        sc.draw(1)
    assert decoded(sc.cmd.end()) == [
        ("jump_if_zero", 0, 0, 0, 3),
        ("draw", 0, 1, 0, 1),
        ("goto", 0, 0, 0, 0),
        ("halt", 0, 0, 0, 0),
    ]


def test_switch_emits_one_jump_table(sc, decoded):
    with sc.switch(r1, 3) as sw:
        with sw.case(0):
            sc.draw(10)
        with sw.case(2):
            sc.draw(12)
        with sw.default():
            sc.draw(99)
    program = sc.cmd.end()
    ops = decoded(program)
    assert ops == [
        ("jump_table", 1, 0, 5, 0),
        ("draw", 0, 10, 0, 1),
        ("goto", 0, 7, 0, 0),
        ("draw", 0, 12, 0, 1),
        ("goto", 0, 7, 0, 0),
        ("draw", 0, 99, 0, 1),
        ("goto", 0, 7, 0, 0),
        ("halt", 0, 0, 0, 0),
    ]
    # case 1 has no body: it goes to the end; out-of-table values go to the default
    assert program.constants[0].values() == (1, 7, 3)
    verify(program)


def test_switch_with_sparse_case_values(sc):
    with sc.switch(r0, [1, 4]) as sw, sw.case(4):
        sc.nop()
    program = sc.cmd.end()
    assert len(program.constants[0].values()) == 5
    verify(program)


@pytest.mark.parametrize("cases", [0, -1, [], [70000], ["a"], [1, 1], 1.5])
def test_switch_rejects_bad_cases(sc, cases):
    with pytest.raises(CompileError), sc.switch(r0, cases):
        pass


def test_switch_rejects_unknown_or_repeated_case(sc):
    with sc.switch(r0, 2) as sw:
        with pytest.raises(CompileError, match="5"), sw.case(5):
            pass
        with sw.case(1):
            pass
        with pytest.raises(CompileError, match="twice"), sw.case(1):
            pass


def test_scope_pushes_and_pops_in_reverse(sc, decoded):
    with sc.scope([r2, r3]):
        sc.li(r2, 1)
    assert [op[:2] for op in decoded(sc.cmd.end())] == [
        ("push", 2), ("push", 3), ("li", 2), ("pop", 3), ("pop", 2), ("halt", 0)
    ]  # fmt: skip


def test_int_and_float_helpers(sc, decoded):
    sc.set_int(r0, 5)
    sc.set_float(r1, 0.5)
    sc.add(r0, r0, 3)
    sc.add(r0, r0, r1)
    sc.sub(r0, r0, 2)
    sc.sub(r0, r0, r1)
    sc.inc(r0)
    sc.dec(r0, 4)
    sc.to_float(r1, r0)
    sc.to_int(r0, r1)
    assert [op[0] for op in decoded(sc.cmd.end())] == [
        "li", "lf", "iaddi", "iadd", "iaddi", "isub", "iaddi", "iaddi", "itof", "ftoi", "halt"
    ]  # fmt: skip


# ---------------------------------------------------------------- @subroutine
@subroutine
def draw_mesh(sc, count):
    sc.draw(count)


@subroutine
def textured(sc, texture):
    sc.bind_texture(texture, 0)
    draw_mesh(sc, 6)  # nested: a call from inside a body


def test_subroutine_records_once_per_distinct_args(sc, decoded):
    draw_mesh(sc, 36)
    draw_mesh(sc, 36)
    draw_mesh(sc, 12)
    with sc.loop(r0, 10):
        draw_mesh(sc, 36)
    program = sc.cmd.end()
    ops = decoded(program)
    calls = [op for op in ops if op[0] == "call"]
    assert [c[2] for c in calls] == [0, 0, 1, 0]
    assert [s.name for s in program.subroutines] == ["draw_mesh", "draw_mesh.1"]
    assert sum(1 for op in ops if op[0] == "draw") == 2  # one body per distinct args
    entry = program.subroutines[0].entry
    assert ops[entry : entry + 2] == [("draw", 0, 36, 0, 1), ("ret", 0, 0, 0, 0)]
    verify(program)


def test_subroutine_args_compare_with_types(sc, decoded):
    @subroutine
    def load_value(sc, value):
        sc.lf(r0, value)

    load_value(sc, 1)
    load_value(sc, 1.0)  # equal to 1, but another type: its own body
    load_value(sc, 1)
    assert len(sc.cmd.end().subroutines) == 2


def test_subroutine_with_resource_handles_and_nesting(sc, decoded):
    a = sc.texture("a", (1, 1), "rgba8")
    b = sc.texture("b", (1, 1), "rgba8")
    textured(sc, a)
    textured(sc, b)
    textured(sc, sc.resource("a"))  # another handle object for the same slot
    program = sc.cmd.end()
    assert [s.name for s in program.subroutines] == ["textured", "draw_mesh", "textured.1"]
    assert sum(1 for op in decoded(program) if op[0] == "call") == 3 + 2
    verify(program)


def test_subroutine_cache_is_per_program(sc):
    draw_mesh(sc, 3)
    sc.cmd.end()
    sc.cmd.begin()
    draw_mesh(sc, 3)
    program = sc.cmd.end()
    assert len(program.subroutines) == 1
    verify(program)


def test_subroutine_rejects_unhashable_args(sc):
    with pytest.raises(CompileError, match=r"\[1, 2\]"):
        draw_mesh(sc, [1, 2])


def test_recursive_subroutine_records_one_body(sc, decoded):
    @subroutine
    def recurse(sc, depth):
        sc.nop()
        recurse(sc, depth)

    recurse(sc, 1)
    program = sc.cmd.end()
    assert [op[0] for op in decoded(program)] == ["call", "halt", "nop", "call", "ret"]


def test_scene_compiler_forwards_to_the_command_buffer(sc):
    assert sc.draw.__self__ is sc.cmd
    with pytest.raises(CompileError):
        SceneCompiler("not a command buffer")


# --- the seed's example: subroutines on a CommandBuffer, draw() by the pipeline's count ---
def test_subroutine_takes_a_command_buffer_and_records_an_inner_scene_compiler(decoded):
    cmd = CommandBuffer()
    tree = cmd.pipeline("tree", "vs", "fs", vertex_count=36)
    flags = cmd.buffer("flags", 4)

    @subroutine
    def cluster(cb):
        inner = SceneCompiler(cb)  # made inside the body: records into the body
        cb.bind_pipeline(tree)
        with inner.loop(reg=0, count=1000):
            cb.draw()

    sc = SceneCompiler(cmd)
    with sc.condition(flags, offset=0):
        cluster(cmd)
    cluster(sc)  # a SceneCompiler works too, and reuses the body
    program = cmd.end()
    ops = decoded(program)
    assert [op[0] for op in ops[:4]] == ["jump_if_zero", "call", "call", "halt"]
    body = ops[program.subroutines[0].entry :]
    assert ("draw", 0, 36, 0, 1) in body and body[-1][0] == "ret"
    verify(program)


def test_subroutine_rejects_a_first_argument_that_records_nothing():
    @subroutine
    def body(cb):
        pass

    with pytest.raises(CompileError, match="'nope' is not a CommandBuffer or a SceneCompiler"):
        body("nope")


def test_a_body_that_raises_is_recorded_again_next_time(sc):
    calls = []

    @subroutine
    def flaky(cb):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first time")
        cb.nop()

    with pytest.raises(RuntimeError):
        flaky(sc)
    sc.cmd.begin()
    flaky(sc)
    assert len(calls) == 2


def test_draw_without_a_count_needs_a_declared_vertex_count():
    cmd = CommandBuffer()
    with pytest.raises(CompileError, match="needs a pipeline bound earlier in the program"):
        cmd.draw()
    cmd.bind_pipeline(cmd.pipeline("plain", "vs", "fs"))
    with pytest.raises(CompileError, match="pipeline 'plain' declares no vertex_count"):
        cmd.draw()
    # each body has its own "last bound pipeline"
    with cmd.define_subroutine("body"), pytest.raises(CompileError, match="in this subroutine"):
        cmd.draw()
    cmd.bind_pipeline(cmd.pipeline("tri", "vs", "fs", vertex_count=3))
    cmd.draw(first=3)
    cmd.draw(6)  # an explicit count still wins


@pytest.mark.parametrize("count", [-1, 1 << 32, 2.5, "3", True])
def test_vertex_count_must_be_a_u32(count):
    with pytest.raises(CompileError, match="vertex_count"):
        CommandBuffer().pipeline("p", "vs", "fs", vertex_count=count)
