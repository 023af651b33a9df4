"""A debug flood: 300,000 dumps of 64 bytes in one submit, with a debug sink and without.

The sink's output is cut at 64 KiB per submit (about 330 of the dumps); after the cut
the interpreter has no sink, so the other dumps cost what they cost without one (issue 36,
item 9: before, each still formatted its bytes, 28-35 us a dump, 8-10 s in all). Same run,
interleaved, medians, on the trace device and on gl.

    python benchmarks/debug_flood.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import numpy as np
from _common import interleaved, median, parser, write_json

import hypergl
from hypergl import SceneCompiler

DUMPS = 300_000


def flood(ctx: hypergl.Context) -> hypergl.CommandBuffer:
    data = ctx.buffer(np.arange(64, dtype=np.uint8), name="data")
    cmd = ctx.command_buffer()
    cmd.li(2, 0)
    with SceneCompiler(cmd).loop(1, DUMPS):
        cmd.dump(data, 2, 64)
    cmd.end()
    return cmd


def main() -> None:
    args = parser(__doc__.splitlines()[0], repeat=5).parse_args()
    results = {}
    for device in ("trace", "gl"):
        cmd = flood(hypergl.context(device=device))
        samples = interleaved({
            "sink": lambda cmd=cmd: cmd.submit(budget=4 * DUMPS, debug_sink=lambda text: None),
            "none": lambda cmd=cmd: cmd.submit(budget=4 * DUMPS),
        }, args.repeat)  # fmt: skip
        sink, none = median(samples["sink"]), median(samples["none"])
        print(f"{device:<6} {DUMPS} dumps: with a sink {sink:.4f} s, without {none:.4f} s "
              f"({sink / none:.1f}x)")  # fmt: skip
        results[device] = {"sink_s": sink, "none_s": none, "sink_vs_none": sink / none}
    write_json(args.json, results)


if __name__ == "__main__":
    main()
