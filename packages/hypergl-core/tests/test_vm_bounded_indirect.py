"""Indirect draws and dispatches count against the submit's budgets, wherever their
commands come from (a file's data, a mapped buffer the CPU writes, a compute pass).

Issue 24, item 3: a .hgb whose indirect buffer held one draw of 3 x 0xFFFFFFFF
instances (or a dispatch of 0xFFFFFFFF**3 groups) verified, and then
submit(budget=1000, vertex_budget=1000) never returned. The VM reads the commands
before the call where the CPU's view of them is current (trace, null, and gl buffers
the GPU has not written since the CPU last synchronised); otherwise a compute pass
checks them on the GPU, the call reads the checked copy (zeroed past the budget) and
the submit raises at its end.
"""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl import VMError

VS = """#version 430
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 8.0; }
"""
FS = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1.0); }\n"
CS = """#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint groups; };
void main() { atomicAdd(groups, 1u); }
"""
# A compute pass that writes a runaway draw command over the indirect buffer.
WRITE_CS = """#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Commands { uint words[]; };
void main() { words[0] = 3u; words[1] = 0xFFFFFFFFu; words[2] = 0u; words[3] = 0u; }
"""
HUGE = 0xFFFFFFFF
DEVICES = ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)]


@pytest.fixture(params=DEVICES)
def ctx(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


def drawing(ctx, commands, record, *, usage="indirect"):
    """A program that clears an 8x8 framebuffer and runs `record(cmd, buffer)`."""
    fb = ctx.framebuffer((8, 8), depth=None)
    buffer = ctx.buffer(np.asarray(commands, np.uint32), usage=usage)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(ctx.pipeline(vertex_shader=VS, fragment_shader=FS, topology="points"))
    cmd.bind_indirect_buffer(buffer)
    record(cmd, buffer)
    cmd.end()
    return cmd, fb, buffer


def nothing_drawn(ctx, fb):
    return ctx.device != "gl" or not fb.read()[..., 0].any()


VERTEX_BUDGET = r"ask for 1288490188[58] vertices \(count x instances, summed\), beyond " \
                r"what is left of the vertex budget \(1000 of 1000 per submit"  # fmt: skip


@pytest.mark.parametrize(
    ("name", "commands", "record"),
    [
        ("draw_indirect", [3, HUGE, 0, 0], lambda cmd, b: cmd.draw_indirect()),
        ("multi_draw_indirect", [[3, 1, 0, 0], [3, HUGE, 0, 0]],
         lambda cmd, b: cmd.multi_draw_indirect(2)),
    ],
)  # fmt: skip
def test_a_runaway_indirect_draw_is_refused_within_the_budget(ctx, name, commands, record):
    cmd, fb, _ = drawing(ctx, commands, record)
    with pytest.raises(VMError, match=VERTEX_BUDGET) as e:
        cmd.submit(budget=1000, vertex_budget=1000)
    assert e.value.mnemonic == name
    assert nothing_drawn(ctx, fb)


def test_the_same_program_from_a_hgb_file_is_refused(ctx, tmp_path):
    cmd, _, _ = drawing(ctx, [3, HUGE, 0, 0], lambda cmd, b: cmd.draw_indirect())
    hypergl.save(cmd, tmp_path / "runaway.hgb")
    scene = ctx.load(tmp_path / "runaway.hgb")
    with pytest.raises(VMError, match="beyond what is left of the vertex budget"):
        scene.submit(budget=1000, vertex_budget=1000)


def test_commands_the_cpu_writes_after_recording_are_checked_at_each_submit(ctx):
    cmd, _, buffer = drawing(ctx, [3, 1, 0, 0], lambda cmd, b: cmd.draw_indirect())
    assert cmd.submit(vertex_budget=1000).draws == 1
    buffer.map(np.uint32)[1] = HUGE
    with pytest.raises(VMError, match="beyond what is left of the vertex budget"):
        cmd.submit(vertex_budget=1000)
    buffer.map(np.uint32)[1] = 2
    assert cmd.submit(vertex_budget=6).draws == 1  # 3 x 2 fits exactly


def test_indirect_draws_share_the_budget_with_direct_ones(ctx):
    def record(cmd, b):
        cmd.draw(400)
        cmd.multi_draw_indirect(2)

    cmd, _, _ = drawing(ctx, [[100, 3, 0, 0], [100, 3, 0, 0]], record)
    assert cmd.submit(vertex_budget=1000).draws == 2
    with pytest.raises(VMError, match=r"600 vertices .* \(599 of 999 per submit") as e:
        cmd.submit(vertex_budget=999)
    assert e.value.mnemonic == "multi_draw_indirect"


def test_a_count_draw_clamps_its_count_and_counts_only_what_it_draws(gl_or_trace):
    ctx = gl_or_trace
    if ctx.device == "gl" and not ctx.capabilities.indirect_count:
        pytest.skip("no indirect-count draws on this driver")
    count = ctx.buffer(np.array([HUGE], np.uint32), usage="parameter")

    def record(cmd, b):
        cmd.bind_parameter_buffer(count)
        cmd.multi_draw_indirect_count(2)

    # Command 2 would run away, but the count is clamped to 2, and then set to 1.
    cmd, _, _ = drawing(ctx, [[3, 1, 0, 0], [3, 1, 0, 0], [3, HUGE, 0, 0]], record)
    assert cmd.submit(vertex_budget=6).draws == 1
    with pytest.raises(VMError, match=r"6 vertices .* \(5 of 5 per submit"):
        cmd.submit(vertex_budget=5)


@pytest.fixture(params=["trace", pytest.param("gl", marks=pytest.mark.gl)])
def gl_or_trace(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


def test_a_runaway_indirect_dispatch_is_refused_within_the_group_budget(ctx):
    out = ctx.buffer(size=4)
    groups = ctx.buffer(np.array([HUGE, HUGE, HUGE], np.uint32), usage="indirect")
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(ctx.pipeline(compute_shader=CS))
    cmd.bind_storage_buffer(out, 0)
    cmd.bind_indirect_buffer(groups)
    cmd.dispatch_indirect(0)
    cmd.end()
    with pytest.raises(
        VMError,
        match=r"ask for 18446744073709551615 work groups \(x \* y \* z, "
        r"summed\), beyond what is left of the group budget "
        r"\(1000 of 1000 per submit",
    ) as e:
        cmd.submit(budget=1000, group_budget=1000)  # fmt: skip
    assert e.value.mnemonic == "dispatch_indirect"
    groups.map(np.uint32)[:] = [5, 2, 1]
    cmd.submit(group_budget=10)
    if ctx.device == "gl":
        assert out.read(np.uint32)[0] == 10


@pytest.mark.gl
def test_commands_a_compute_pass_writes_on_the_gpu_are_checked_before_the_draw(gl_ctx):
    ctx = gl_ctx

    def record(cmd, buffer):
        cmd.bind_pipeline(ctx.pipeline(compute_shader=WRITE_CS))
        cmd.bind_storage_buffer(buffer, 0)
        cmd.dispatch(1, 1, 1)
        cmd.barrier()
        cmd.bind_pipeline(ctx.pipeline(vertex_shader=VS, fragment_shader=FS, topology="points"))
        cmd.draw_indirect()

    cmd, fb, buffer = drawing(ctx, [1, 1, 0, 0], record)
    with pytest.raises(VMError, match=VERTEX_BUDGET + r".*the GPU ran none of them") as e:
        cmd.submit(budget=1000, vertex_budget=1000)
    assert e.value.mnemonic == "draw_indirect"
    assert not fb.read()[..., 0].any()
    assert buffer.read(np.uint32).tolist() == [3, HUGE, 0, 0]  # the program's own commands


GPU_PATH = [
    ("draw_indirect", [3, HUGE, 0, 0], lambda cmd: cmd.draw_indirect()),
    ("multi_draw_indirect", [[3, 1, 0, 0], [3, HUGE, 0, 0]],
     lambda cmd: cmd.multi_draw_indirect(2)),
    ("multi_draw_indirect_count", [[3, 1, 0, 0], [3, HUGE, 0, 0], [3, HUGE, 0, 0]],
     lambda cmd: cmd.multi_draw_indirect_count(2)),
]  # fmt: skip


@pytest.mark.gl
@pytest.mark.parametrize(("name", "commands", "call"), GPU_PATH)
def test_commands_the_gpu_may_have_written_are_checked_on_the_gpu(gl_ctx, name, commands, call):
    """Bound for storage, a buffer may be written by any shader: its commands are totalled
    on the GPU (a count variant's count clamped to its maximum), none is drawn."""
    ctx = gl_ctx
    if name.endswith("count") and not ctx.capabilities.indirect_count:
        pytest.skip("no indirect-count draws on this driver")
    count = ctx.buffer(np.array([HUGE], np.uint32), usage="parameter")

    def record(cmd, buffer):
        cmd.bind_storage_buffer(buffer, 0)  # the GPU may write it now
        cmd.bind_parameter_buffer(count)
        call(cmd)

    cmd, fb, buffer = drawing(ctx, commands, record)
    with pytest.raises(VMError, match=VERTEX_BUDGET + r".*the GPU ran none of them") as e:
        cmd.submit(budget=1000, vertex_budget=1000)
    assert e.value.mnemonic == name
    assert not fb.read()[..., 0].any()
    buffer.map(np.uint32)[:] = 1  # within the budget, the checked copy draws
    assert cmd.submit(vertex_budget=1000).draws == 1
    assert fb.read()[..., 0].any()


@pytest.mark.gl
def test_a_dispatch_the_gpu_may_have_written_is_checked_on_the_gpu(gl_ctx):
    ctx = gl_ctx
    out = ctx.buffer(size=4)
    groups = ctx.buffer(np.array([HUGE, HUGE, 2], np.uint32), usage="indirect")
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(ctx.pipeline(compute_shader=CS))
    cmd.bind_storage_buffer(groups, 1)  # the GPU may write it now
    cmd.bind_storage_buffer(out, 0)
    cmd.bind_indirect_buffer(groups)
    cmd.dispatch_indirect(0)
    cmd.end()
    with pytest.raises(
        VMError,
        match=r"ask for 18446744073709551615 work groups .* group "
        r"budget \(1000 of 1000 per submit.*the GPU ran none",
    ) as e:
        cmd.submit(group_budget=1000)  # fmt: skip
    assert e.value.mnemonic == "dispatch_indirect"
    assert out.read(np.uint32)[0] == 0
    groups.map(np.uint32)[:] = [5, 2, 1]
    cmd.submit(group_budget=10)
    assert out.read(np.uint32)[0] == 10
