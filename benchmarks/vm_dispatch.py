"""VM dispatch cost: 10,000 draw instructions on the null device vs a Python loop.

The Python loop makes 10,000 calls of a no-op bound method: the "Python boundary
tax" that every wrapper pays per draw. The VM replays the same 10,000 draws in
one call. Same run, interleaved, medians. Then the cost per instruction of each op
of HyperGL v2's set (get_time, gen_rand, sin_cos, ...): 10,000 of it in one program.

    python benchmarks/vm_dispatch.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

from _common import interleaved, median, pairwise_ratio, parser, write_json

import hypergl

DRAWS = 10_000
# op -> how to record one instruction of it (registers r0..r3; r1 is 1 for assert_reg).
NEW_OPS = {
    "get_time": lambda cmd, fence: cmd.get_time(0),
    "get_delta": lambda cmd, fence: cmd.get_delta(0),
    "gen_rand": lambda cmd, fence: cmd.gen_rand(0, 0),
    "gen_rand float": lambda cmd, fence: cmd.gen_rand(0, 1),
    "sin_cos": lambda cmd, fence: cmd.sin_cos(2, 3, 0),
    "get_stat": lambda cmd, fence: cmd.get_stat(0, 1),
    "assert_reg": lambda cmd, fence: cmd.assert_reg(1),
    "print (no sink)": lambda cmd, fence: cmd.print(0),
    "skip_if_not_ready (+nop)": lambda cmd, fence: cmd.skip_if_not_ready(fence),
}


class Renderer:
    def draw(self, count, first, instances):
        pass


def main() -> None:
    args = parser(__doc__.splitlines()[0], repeat=200).parse_args()
    ctx = hypergl.context(device="null")
    pipe = ctx.pipeline(vertex_shader="v", fragment_shader="f")
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(pipe)
    for i in range(DRAWS):
        cmd.draw(3, first=i)
    cmd.end()
    cmd.submit()  # verify once, outside the timing

    renderer = Renderer()

    def python_loop():
        draw = renderer.draw
        for i in range(DRAWS):
            draw(3, i, 1)

    samples = interleaved({"vm": cmd.submit, "python": python_loop}, args.repeat)
    vm_ns = median(samples["vm"]) / (DRAWS + 2) * 1e9
    py_ns = median(samples["python"]) / DRAWS * 1e9
    ratio = pairwise_ratio(samples["python"], samples["vm"])
    print(f"VM on the null device   {vm_ns:7.2f} ns per instruction")
    print(f"Python no-op call loop  {py_ns:7.2f} ns per call")
    print(f"ratio (Python / VM)     {ratio:7.1f}x   (target >= 10x, VM <= 5 ns)")
    new_ops = {name: new_op_ns(ctx, record, args.repeat) for name, record in NEW_OPS.items()}
    for name, ns in new_ops.items():
        print(f"  {name:<26}{ns:7.2f} ns per instruction")
    write_json(
        args.json,
        {
            "vm_ns_per_instruction": vm_ns,
            "python_loop_ns_per_call": py_ns,
            "ratio": ratio,
            "new_ops_ns_per_instruction": new_ops,
        },
    )


def new_op_ns(ctx, record, repeat: int) -> float:
    """Median ns per instruction of a program of DRAWS instructions of one op."""
    fence = ctx.fence()
    cmd = ctx.command_buffer()
    cmd.li(0, 1)
    cmd.li(1, 1)
    for _ in range(DRAWS):
        record(cmd, fence)
        if record is NEW_OPS["skip_if_not_ready (+nop)"]:
            cmd.nop()  # the instruction a skip would jump over (not skipped: counted)
    cmd.end()
    cmd.submit()
    count = cmd.submit().instructions
    samples = interleaved({"op": cmd.submit}, max(repeat // 4, 10))
    return median(samples["op"]) / count * 1e9


if __name__ == "__main__":
    main()
