"""The debug sink under a flood (issue 36, item 9): once a submit's output is cut at its
limit, the interpreter drops the sink, so no later ``print`` or ``dump`` of that submit
formats anything (benchmarks/debug_flood.py measures it: 300,000 dumps with a sink took
seconds before, as long as the loop alone after). What stays: the cut output, its mark, the
dump's range check, and a fresh sink at the next submit."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl import SceneCompiler, VMError
from hypergl_compiler import isa


def flood(ctx, data, dumps: int):
    cmd = ctx.command_buffer()
    cmd.li(2, 0)  # the dumps' offset
    with SceneCompiler(cmd).loop(1, dumps):
        cmd.dump(data, 2, 64)
        cmd.print(1)
    cmd.end()
    return cmd


def test_a_flood_is_cut_once_and_the_next_submit_writes_again(trace_ctx):
    data = trace_ctx.buffer(np.arange(64, dtype=np.uint8), name="data")
    cmd = flood(trace_ctx, data, 20_000)
    sink: list[str] = []
    for _ in range(2):
        out = cmd.submit(debug_sink=sink.append).debug_output
        assert len(out) == isa.DEBUG_OUTPUT_LIMIT + 4 and out.endswith("...\n")
        assert out.startswith("[") and "data[0..64]: 00 01 02" in out
    assert len(sink) == 2 and sink[0] == sink[1]


def test_a_dump_after_the_cut_is_still_bounds_checked(trace_ctx):
    data = trace_ctx.buffer(size=16, name="data")
    cmd = trace_ctx.command_buffer()
    with SceneCompiler(cmd).loop(0, 5000):
        cmd.print(0)
    cmd.li(1, 12)
    cmd.dump(data, 1, 8)
    cmd.end()
    with pytest.raises(VMError, match=r"dump range r1 \(12\) \+ 8 is outside buffer 'data'"):
        cmd.submit(debug_sink=lambda text: None)


def test_nothing_is_formatted_after_the_cut(trace_ctx):
    data = trace_ctx.buffer(np.arange(64, dtype=np.uint8), name="data")
    cmd = flood(trace_ctx, data, 20_000)
    stats = cmd.submit(debug_sink=lambda text: None)
    # every formatted print or dump ends its text with a line break, the cut one with "...\n":
    # so the formatted ones are the output's lines, not the flood's 40,000 instructions
    assert stats.debug_formatted == stats.debug_output.count("\n") < 1000
    assert cmd.submit().debug_formatted == 0  # no sink: nothing formatted at all
