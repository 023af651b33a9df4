"""CommandBuffer: recording, resources, constants, labels and every record-time rejection."""

from __future__ import annotations

import re
import struct

import pytest

from hypergl_compiler import (
    ArgumentError,
    CommandBuffer,
    CompileError,
    Constant,
    Program,
    Resource,
    ResourceResolver,
    isa,
    r0,
    r1,
    r7,
    verify,
)
from hypergl_compiler.builder import recording_method
from hypergl_compiler.isa import ConstKind, ResourceKind


@pytest.fixture
def cmd():
    return CommandBuffer()


def test_every_isa_op_has_a_recording_method():
    for op in isa.OPS:
        assert callable(getattr(CommandBuffer, recording_method(op))), op.name
    assert callable(CommandBuffer.and_) and callable(CommandBuffer.not_)


def test_program_layout_main_then_halt_then_subroutine_bodies(cmd, decoded):
    cmd.draw(3)
    cmd.call("sub")
    with cmd.define_subroutine("sub") as index:
        cmd.draw(6, 1, 2)
    program = cmd.end()
    assert index == 0
    assert decoded(program) == [
        ("draw", 0, 3, 0, 1),
        ("call", 0, 0, 0, 0),
        ("halt", 0, 0, 0, 0),
        ("draw", 0, 6, 1, 2),
        ("ret", 0, 0, 0, 0),
    ]
    assert program.subroutines[0].name == "sub" and program.subroutines[0].entry == 3
    assert program.instruction_count == 5 and cmd.program is program
    verify(program)


def test_program_is_immutable(cmd):
    program = cmd.end()
    assert isinstance(program, Program)
    with pytest.raises(AttributeError):
        program.code = b""  # type: ignore[misc]
    with pytest.raises(TypeError):
        program.labels[0] = "x"  # type: ignore[index]


def test_recording_after_end_is_refused_and_begin_restarts(cmd, decoded):
    buf = cmd.buffer("b", size=16)
    cmd.draw(1)
    cmd.end()
    with pytest.raises(CompileError, match="ended"):
        cmd.draw(1)
    cmd.begin()
    cmd.load(r0, buf, 4)  # resources survive begin()
    assert decoded(cmd.end())[0] == ("load", 0, 0, 4, 0)


def test_program_before_end_raises(cmd):
    with pytest.raises(CompileError, match="end"):
        _ = cmd.program


def test_resource_table_and_handles(cmd):
    vbo = cmd.buffer("vbo", data=b"\x01\x02\x03\x04", usage="dynamic")
    tex = cmd.texture("t", (4, 4), "rgba8", layers=2)
    pipe = cmd.pipeline("p", "vs", "fs", topology="lines")
    fb = cmd.framebuffer("fb", (8, 8), color=["rgba8"])
    fence = cmd.fence("f")
    rb = cmd.readback("rb")
    ext = cmd.external_source("world", "culverin", linked=True)
    handles = [vbo, tex, pipe, fb, fence, rb, ext]
    assert [h.slot for h in handles] == list(range(7))
    assert [h.kind for h in handles] == list(ResourceKind)
    program = cmd.end()
    assert program.resources[0] == Resource(
        ResourceKind.BUFFER, "vbo", {"size": 4, "usage": "dynamic", "data": b"\x01\x02\x03\x04"}
    )
    assert program.resources[1].desc == {
        "width": 4, "height": 4, "layers": 2, "format": "rgba8"
    }  # fmt: skip
    assert program.resources[2].desc["topology"] == "lines"
    assert program.resources[6].linked and program.linked == ("world",)
    assert cmd.resource("vbo") == vbo and hash(cmd.resource("vbo")) == hash(vbo)


def test_constant_pool_deduplicates(cmd, decoded):
    cmd.clear((0, 0, 0, 1))
    cmd.clear((0, 0, 0, 1))
    cmd.viewport(0, 0, 8, 8)
    cmd.viewport(0, 0, 8, 8)
    k = cmd.constant("u32", [1, 2])
    assert cmd.constant(ConstKind.U32, (1, 2)) == k
    assert cmd.constant("i32", [1, 2]) != k  # same bytes, other kind
    program = cmd.end()
    assert len(program.constants) == 4
    assert program.constants[0] == Constant(ConstKind.F32, struct.pack("<5f", 0, 0, 0, 1, 1))
    assert program.constants[1].values() == (0, 0, 8, 8)
    assert [ins[2] for ins in decoded(program)[:4]] == [0, 0, 1, 1]


def test_labels_backward_and_forward(cmd, decoded):
    cmd.goto("end")  # forward reference
    top = cmd.label("top")
    cmd.li(r0, 1)
    cmd.jnz(r0, top)  # backward, by Label object
    cmd.label("end")
    program = cmd.end()
    ops = decoded(program)
    assert ops[0] == ("goto", 0, 3, 0, 0)
    assert ops[2] == ("jnz", 0, 1, 0, 0)
    assert program.labels == {1: "top", 3: "end"}


def test_undefined_label_is_named_at_end(cmd):
    cmd.goto("nowhere")
    with pytest.raises(CompileError, match="undefined label 'nowhere'"):
        cmd.end()


def test_duplicate_label_is_named_at_end(cmd):
    cmd.label("twice")
    cmd.nop()
    cmd.label("twice")
    with pytest.raises(CompileError, match="duplicate label 'twice'"):
        cmd.end()


def test_undefined_subroutine_is_named_at_end(cmd):
    cmd.call("missing")
    with pytest.raises(CompileError, match="undefined subroutine 'missing'"):
        cmd.end()


def test_subroutine_defined_twice(cmd):
    with cmd.define_subroutine("s"):
        cmd.nop()
    with pytest.raises(CompileError, match="'s' is already defined"), cmd.define_subroutine("s"):
        pass


def test_jumps_inside_subroutines_are_relocated(cmd, decoded):
    cmd.nop()
    with cmd.define_subroutine("s"):
        cmd.label("inner")
        cmd.li(r0, 0)
        cmd.jnz(r0, "inner")
    program = cmd.end()
    entry = program.subroutines[0].entry
    assert entry == 2
    assert decoded(program)[entry + 1] == ("jnz", 0, entry, 0, 0)
    verify(program)


def test_jump_table_forward_targets_filled_at_end(cmd, decoded):
    cmd.jump_table(r0, ["a", "b"], "b")
    cmd.label("a")
    cmd.nop()
    cmd.label("b")
    program = cmd.end()
    assert program.constants[0].values() == (1, 2)
    assert decoded(program)[0] == ("jump_table", 0, 0, 2, 0)
    verify(program)


def test_generic_emit_matches_named_method(cmd, decoded):
    buf = cmd.buffer("b", size=16)
    cmd.emit("load", r1, buf, 8)
    cmd.load(r1, buf, 8)
    cmd.emit("clear", 0, Constant(ConstKind.F32, bytes(20)), 3, 0)
    cmd.emit("goto", b="end")
    cmd.label("end")
    ops = decoded(cmd.end())
    assert ops[0] == ops[1] == ("load", 1, 0, 8, 0)
    assert ops[3] == ("goto", 0, 4, 0, 0)


def test_float_and_signed_immediates(cmd, decoded):
    cmd.lf(r0, 1.5)
    cmd.li(r1, -1)
    cmd.iaddi(r1, r1, -2)
    ops = decoded(cmd.end())
    assert ops[0][2] == struct.unpack("<I", struct.pack("<f", 1.5))[0]
    assert ops[1][2] == 0xFFFFFFFF
    assert ops[2][3] == 0xFFFFFFFE


# ---------------------------------------------------------------- record-time rejections
def _record(cmd, action):
    buf = cmd.buffer("buf", size=16)
    tex = cmd.texture("tex", (1, 1), "rgba8")
    fence = cmd.fence("fence")
    return action(cmd, buf, tex, fence)


@pytest.mark.parametrize(
    ("action", "named"),
    [
        (lambda c, b, t, f: c.li(8, 0), "8"),
        (lambda c, b, t, f: c.mov(r0, -1), "-1"),
        (lambda c, b, t, f: c.iadd(r0, r1, 99), "99"),
        (lambda c, b, t, f: c.push(3.0), "3.0"),
        (lambda c, b, t, f: c.pop(True), "True"),
        (lambda c, b, t, f: c.li(r0, 1 << 32), str(1 << 32)),
        (lambda c, b, t, f: c.li(r0, -(1 << 31) - 1), str(-(1 << 31) - 1)),
        (lambda c, b, t, f: c.iaddi(r0, r0, 1 << 31), str(1 << 31)),
        (lambda c, b, t, f: c.lf(r0, 1e39), "1e+39"),
        (lambda c, b, t, f: c.lf(r0, "x"), "'x'"),
        (lambda c, b, t, f: c.draw(-1), "-1"),
        (lambda c, b, t, f: c.draw(3, 0, 1 << 32), str(1 << 32)),
        (lambda c, b, t, f: c.draw(2.5), "2.5"),
        (lambda c, b, t, f: c.clear(mask=8), "8"),
        (lambda c, b, t, f: c.clear(color=(1, 2)), "(1, 2)"),
        (lambda c, b, t, f: c.bind_vertex_buffer(b, 64), "64"),
        (lambda c, b, t, f: c.bind_texture(t, 100), "100"),
        (lambda c, b, t, f: c.draw_indexed(3, index_type="u8"), "'u8'"),
        (lambda c, b, t, f: c.uniform_const(0, (1, 2), "vec4"), "(1, 2)"),
        (lambda c, b, t, f: c.uniform_const(0, 1.0, "vec5"), "'vec5'"),
        (lambda c, b, t, f: c.read_framebuffer(None, None, "color9"), "'color9'"),
        (lambda c, b, t, f: c.read_framebuffer(None, None, [0]), "[0]"),
        (lambda c, b, t, f: c.uniform_const(0, 1.0, {}), "{}"),
        (lambda c, b, t, f: c.uniform_const(0, 1.0, True), "True"),
        (lambda c, b, t, f: c.viewport(0, 0, -1, 4), "-1"),
        (lambda c, b, t, f: c.viewport_reg(5), "5"),
        (lambda c, b, t, f: c.load(r0, b, 16), "16"),
        (lambda c, b, t, f: c.store(r0, b, 6), "6"),
        (lambda c, b, t, f: c.skip_if_zero(b, 1 << 40), str(1 << 40)),
        (lambda c, b, t, f: c.copy_buffer(b, b, 8, src_offset=12), "12"),
        (lambda c, b, t, f: c.goto(7), "7"),
        (lambda c, b, t, f: c.goto("not a label"), "'not a label'"),
        (lambda c, b, t, f: c.call(3), "3"),
        (lambda c, b, t, f: c.constant("u32", [1, -1]), "-1"),
        (lambda c, b, t, f: c.constant("f64", [1]), "'f64'"),
        (lambda c, b, t, f: c.emit("frobnicate"), "'frobnicate'"),
        (lambda c, b, t, f: c.emit("halt", 1), "1"),
        (lambda c, b, t, f: c.emit("clear", 0, 99, 3), "99"),
        (lambda c, b, t, f: c.emit("draw_indexed", 2, 3), "2"),
    ],
)
def test_record_time_rejection_names_the_value(cmd, action, named):
    with pytest.raises(CompileError) as info:
        _record(cmd, action)
    assert named in str(info.value)


@pytest.mark.parametrize(
    ("action", "named"),
    [
        (lambda c, b, t, f: c.bind_texture(b), "'buf'"),
        (lambda c, b, t, f: c.bind_vertex_buffer(t), "'tex'"),
        (lambda c, b, t, f: c.fence_wait(b), "'buf'"),
        (lambda c, b, t, f: c.upload(f, b), "'fence'"),
        (lambda c, b, t, f: c.load(r0, f, 0), "'fence'"),
    ],
)
def test_wrong_resource_kind_names_value_and_both_kinds(cmd, action, named):
    with pytest.raises(CompileError) as info:
        _record(cmd, action)
    message = str(info.value)
    assert named in message and "expected a" in message


def test_foreign_or_non_handle_resources_are_refused(cmd):
    other = CommandBuffer().buffer("elsewhere", size=4)
    with pytest.raises(CompileError, match="elsewhere"):
        cmd.bind_index_buffer(other)
    with pytest.raises(CompileError, match="'vbo'"):
        cmd.bind_index_buffer("vbo")


@pytest.mark.parametrize(
    ("declare", "named"),
    [
        (lambda c: c.buffer("b"), "size"),
        (lambda c: c.buffer("b", size=-1), "-1"),
        (lambda c: c.buffer("b", size=2, data=b"abc"), "3 bytes"),
        (lambda c: c.buffer("b", data="text"), "'text'"),
        (lambda c: c.buffer("bad name", size=4), "'bad name'"),
        (lambda c: c.texture("t", layers=0), "0"),
        (lambda c: c.pipeline("p", blend=float("nan")), "nan"),
        (lambda c: c.pipeline("p", state=object()), "object"),
        (lambda c: c.framebuffer("f", (1, 1), extra={1: 2}), "1"),
        (lambda c: c.readback("r", linked="yes"), "'yes'"),
    ],
)
def test_bad_resource_declarations(cmd, declare, named):
    with pytest.raises(CompileError) as info:
        declare(cmd)
    assert named in str(info.value)


def test_duplicate_resource_name(cmd):
    cmd.buffer("b", size=4)
    with pytest.raises(CompileError, match="'b' is already declared"):
        cmd.fence("b")


def test_registers_r0_to_r7_accepted(cmd, decoded):
    for reg in range(8):
        cmd.push(reg)
    cmd.push(r7)
    assert len(decoded(cmd.end())) == 10


def test_a_resolver_maps_foreign_objects_to_slots(decoded):
    class GLBuffer:
        def __init__(self, size):
            self.size = size

    class Resolver:  # the ResourceResolver protocol: resolve(table, kind, value)
        def __init__(self):
            self.slots = {}

        def resolve(self, table, kind, value):
            if not isinstance(value, GLBuffer):
                return None
            if id(value) not in self.slots:
                desc = {"size": value.size}
                self.slots[id(value)] = table.declare(ResourceKind.BUFFER, None, desc)
            return self.slots[id(value)]

    assert isinstance(Resolver(), ResourceResolver)
    cmd = CommandBuffer(resolver=Resolver())
    with pytest.raises(CompileError, match="is a buffer, expected a pipeline"):
        cmd.bind_pipeline(GLBuffer(4))  # the command buffer checks the kind of the slot
    cmd.begin()
    live = GLBuffer(32)
    cmd.load(r0, live, 28)
    cmd.store(r0, live, 0)
    with pytest.raises(CompileError, match="outside buffer"):
        cmd.load(r0, live, 32)  # the record-time bounds check uses the hook's size
    program = cmd.end()
    assert [r.name for r in program.resources] == ["buffer0", "buffer1"]
    assert decoded(program)[1] == ("store", 0, 1, 0, 0)
    verify(program)


def test_a_resolver_without_resolve_is_refused():
    with pytest.raises(CompileError, match="resolve"):
        CommandBuffer(resolver=object())


def test_values_the_resolver_does_not_know_are_named():
    cmd = CommandBuffer(resolver=type("Nothing", (), {"resolve": lambda *a: None})())
    with pytest.raises(CompileError, match="'foo' is not a buffer declared"):
        cmd.load(r0, "foo", 0)


# --- one name per concept, one exception per mistake (shared with hypergl's ctx) ---
@pytest.mark.parametrize(
    ("size", "message"),
    [((0, 4), "must be positive"), ((2.5, 4), "must be integers"), (7, "(width, height)"),
     ("big", "(width, height)"), ((1, 2, 3), "(width, height)")],
)  # fmt: skip
def test_a_bad_size_is_an_argument_error_naming_it(cmd, size, message):
    for declare in (cmd.texture, cmd.framebuffer, cmd.readback):
        with pytest.raises(ArgumentError, match=re.escape(message)):
            declare("r", size=size)


def test_sizes_are_size_pairs_and_the_old_spellings_warn(cmd):
    tex = cmd.texture("t", (4, 2), "rgba8")
    assert cmd.resources[tex.slot].desc["width"] == 4
    with pytest.warns(DeprecationWarning, match="size=\\(width, height\\)"):
        old = cmd.texture("old", 4, 2, "rgba8")
    assert dict(cmd.resources[old.slot].desc) == dict(cmd.resources[tex.slot].desc)
    with pytest.warns(DeprecationWarning):
        fb = cmd.framebuffer("fb", 8, 6)
    with pytest.warns(DeprecationWarning):
        rb = cmd.readback("rb", width=8, height=6)
    assert cmd.resources[fb.slot].desc["height"] == cmd.resources[rb.slot].desc["height"] == 6
    with pytest.warns(DeprecationWarning, match="external_source"):
        ext = cmd.external("world", "culverin")
    assert ext.kind is ResourceKind.EXTERNAL
