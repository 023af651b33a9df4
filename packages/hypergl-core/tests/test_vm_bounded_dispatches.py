"""Dispatches that cannot run away: a work-group budget per submit, counted in 64 bits.

Issue 24, item 4: `dispatch(65535, 65535, 1)` passed the verifier and ran for about
15 minutes on llvmpipe, ignoring Ctrl+C; `dispatch(65535, 65535, 65535)` returned at
once having run 196,607 groups (the driver wrapped the total at 32 bits).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_verifier_differential import native_verdict, python_verdict

import hypergl
from hypergl import DEFAULT_GROUP_BUDGET, VMError
from hypergl_compiler import isa
from hypergl_compiler.isa import VerifyCode

COMPUTE = """#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint groups; };
void main() { atomicAdd(groups, 1u); }
"""
DEVICES = ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)]


@pytest.fixture(params=DEVICES)
def ctx(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


def dispatches(ctx, *sizes):
    out = ctx.buffer(size=4)
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(ctx.pipeline(compute_shader=COMPUTE))
    cmd.bind_storage_buffer(out, 0)
    for size in sizes:
        cmd.dispatch(*size)
    cmd.end()
    return cmd, out


def test_the_default_budget_refuses_the_15_minute_dispatch_before_it_runs(ctx):
    cmd, out = dispatches(ctx, (65535, 65535, 1))
    with pytest.raises(
        VMError,
        match=r"dispatch of 65535 x 65535 x 1 = 4294836225 work groups "
        r"is beyond what is left of the group budget \(67108864 of "
        r"67108864 per submit; submit\(group_budget=\.\.\.\)",
    ) as e:
        cmd.submit()  # fmt: skip
    assert e.value.mnemonic == "dispatch"
    assert DEFAULT_GROUP_BUDGET == 1 << 26
    if ctx.device == "gl":
        assert out.read(np.uint32)[0] == 0  # nothing ran


def test_the_budget_sums_the_dispatches_of_a_submit(ctx):
    cmd, out = dispatches(ctx, (4, 2, 1), (3, 1, 1))
    assert cmd.submit(group_budget=11).dispatches == 2
    with pytest.raises(
        VMError,
        match=r"3 x 1 x 1 = 3 work groups is beyond what is left of "
        r"the group budget \(2 of 10 per submit",
    ) as e:
        cmd.submit(group_budget=10)  # fmt: skip
    assert e.value.index == 3  # the second dispatch: the first ran
    if ctx.device == "gl":
        assert out.read(np.uint32)[0] == 8 + 3 + 8


@pytest.mark.parametrize("bad", [-1, 1 << 64, True, 2.0, None])
def test_a_bad_group_budget_is_named(ctx, bad):
    cmd, _ = dispatches(ctx, (1, 1, 1))
    with pytest.raises(ValueError, match=r"group_budget must be an int in 0\.\.2\*\*64-1"):
        cmd.submit(group_budget=bad)


def test_a_dispatch_whose_total_wraps_32_bits_is_refused_by_both_verifiers():
    code = isa.encode(isa.BY_NAME["dispatch"], 0, 65535, 65535, 65535)
    program = (code, [], [], [])
    assert python_verdict(*program) == (0, "dispatch", VerifyCode.GROUP_COUNT)
    assert native_verdict(*program) == python_verdict(*program)
    wrapping = isa.encode(isa.BY_NAME["dispatch"], 0, 65535, 65535, 2)  # 2**33 - 2**17 + 2
    assert python_verdict(wrapping, [], [], []) == (0, "dispatch", VerifyCode.GROUP_COUNT)
    assert native_verdict(wrapping, [], [], []) == (0, "dispatch", VerifyCode.GROUP_COUNT)
    largest = isa.encode(isa.BY_NAME["dispatch"], 0, 65535, 65535, 1)  # just under 2**32
    assert python_verdict(largest, [], [], []) is None
    assert native_verdict(largest, [], [], []) is None
