"""Loading a recorded program from .hgb versus recording it again in Python.

Builds a 100,000-instruction scene program (binds, per-object uniforms, draws,
GPU-flag conditions, a subroutine), saves it to a temporary .hgb file, then
measures, interleaved and repeated, (a) ``hgb.load`` + verify and (b) recording
the same program again with CommandBuffer/SceneCompiler. Prints medians, ns per
instruction and the ratio; ``--json FILE`` writes {"load_verify_s", "rerecord_s",
"ratio"}. The C++ verifier of hypergl-core is used when it is importable.

    python benchmarks/hgb_load.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from hypergl_compiler import CommandBuffer, SceneCompiler, hgb, r0, r1, subroutine
from hypergl_compiler import verify as python_verify

INSTRUCTIONS = 100_000


def pick_verifier():
    """hypergl's C++ verifier when available, else the Python one; and its name."""
    try:
        import hypergl

        return hypergl.verify, "hypergl C++ verifier"
    except (ImportError, AttributeError):
        return python_verify, "Python verifier (hypergl.verify not available)"


@subroutine
def shadow_pass(sc, pipeline):
    sc.bind_pipeline(pipeline)
    sc.draw(6)


def record():
    """The benchmark scene: blocks of 10 instructions up to 100,000 with the final halt."""
    cmd = CommandBuffer(metadata={"benchmark": "hgb_load"})
    sc = SceneCompiler(cmd)
    pipes = [cmd.pipeline(f"pipe{i}", "void main(){}", "void main(){}") for i in range(4)]
    vbos = [cmd.buffer(f"vbo{i}", size=4096) for i in range(64)]
    texs = [cmd.texture(f"tex{i}", (64, 64), "rgba8") for i in range(16)]
    flags = cmd.buffer("flags", size=256)
    fb = cmd.framebuffer("screen", (640, 480), color=["rgba8"], depth="depth24")
    cmd.bind_framebuffer(fb)
    cmd.clear((0.1, 0.1, 0.1, 1.0))
    cmd.viewport(0, 0, 640, 480)
    main_length = INSTRUCTIONS - 1 - 3 * len(pipes)  # - halt - the subroutine bodies
    obj = 0
    while cmd.position + 10 <= main_length:
        cmd.bind_pipeline(pipes[obj % 4])
        cmd.bind_vertex_buffer(vbos[obj % 64], 0)
        cmd.bind_texture(texs[obj % 16], obj % 4)
        cmd.li(r1, obj)
        cmd.uniform_i(r1, 3)
        with sc.condition(flags, 4 * (obj % 64)):  # 1 instruction + body
            cmd.draw(3 * (obj % 500 + 1), 0, 1)
        shadow_pass(sc, pipes[obj % 4])  # 1 call (+ a body once per pipeline)
        cmd.lf(r0, obj * 0.5)
        cmd.uniform_f(r0, 4)
        obj += 1
    while cmd.position < main_length:
        cmd.nop()
    program = cmd.end()
    assert program.instruction_count == INSTRUCTIONS, program.instruction_count
    return program


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each side")
    parser.add_argument("--json", metavar="FILE", help="write the medians and ratio as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    verify, verifier_name = pick_verifier()
    program = record()
    n = program.instruction_count
    fd, path = tempfile.mkstemp(suffix=".hgb")
    os.close(fd)
    try:
        hgb.save(program, path)
        size = os.path.getsize(path)
        assert hgb.load(path) == program

        def load_verify():
            verify(hgb.load(path))

        def load_python_verify():
            python_verify(hgb.load(path))

        load_times, record_times, python_times = [], [], []
        load_verify()  # warm the page cache and imports
        for _ in range(args.repeat):  # interleaved, so drift hits all sides alike
            t0 = time.perf_counter()
            load_verify()
            t1 = time.perf_counter()
            record()
            t2 = time.perf_counter()
            if verify is not python_verify:
                load_python_verify()
            t3 = time.perf_counter()
            load_times.append(t1 - t0)
            record_times.append(t2 - t1)
            python_times.append(t3 - t2)
    finally:
        os.unlink(path)

    load_s = statistics.median(load_times)
    record_s = statistics.median(record_times)
    ratio = record_s / load_s
    print(f"program: {n} instructions, {len(program.constants)} constants, "
          f"{len(program.resources)} resources, {size} bytes .hgb")  # fmt: skip
    print(f"verifier: {verifier_name}")
    print(f"load + verify: {load_s * 1e3:8.2f} ms  ({load_s / n * 1e9:7.1f} ns/instruction)")
    print(f"re-record:     {record_s * 1e3:8.2f} ms  ({record_s / n * 1e9:7.1f} ns/instruction)")
    print(f"ratio: loading is {ratio:.1f}x faster than re-recording (target >= 20x), "
          f"medians of {args.repeat}")  # fmt: skip
    if verify is not python_verify:
        python_s = statistics.median(python_times)
        print(f"(load + Python verifier: {python_s * 1e3:.2f} ms, "
              f"{record_s / python_s:.1f}x faster than re-recording)")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_verify_s": load_s, "rerecord_s": record_s, "ratio": ratio}, f)
            f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
