"""VM dispatch cost: 10,000 draw instructions on the null device vs a Python loop.

The Python loop makes 10,000 calls of a no-op bound method: the "Python boundary
tax" that every wrapper pays per draw. The VM replays the same 10,000 draws in
one call. Same run, interleaved, medians.

    python benchmarks/vm_dispatch.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

from _common import interleaved, median, pairwise_ratio, parser, write_json

import hypergl

DRAWS = 10_000


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
    write_json(
        args.json,
        {"vm_ns_per_instruction": vm_ns, "python_loop_ns_per_call": py_ns, "ratio": ratio},
    )


if __name__ == "__main__":
    main()
