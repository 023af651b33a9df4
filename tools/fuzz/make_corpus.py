"""Write the fuzz seed corpus: real scenes saved as .hgb files (tools/fuzz/corpus/).

    .venv/bin/python tools/fuzz/make_corpus.py

Each scene exercises a different part of the format: subroutines and GPU-side
branches, a draw list (texture set, storage records, indirect count), compute with
fences and readback, external uploads, indirect draws and dispatches with a uniform
range and a texture, a file for ``hypergl play`` with the VM's newer ops (clock,
generator, sin_cos, stats, assert, print and dump, a polled fence), and a linked file.
Small on purpose: the fuzzer mutates every byte.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import hypergl

CORPUS = Path(__file__).resolve().parent / "corpus"
VS = "#version 430\nvoid main() { gl_Position = vec4(0.0); }\n"
FS = "#version 430\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"
COMPUTE = "#version 430\nlayout(local_size_x=1) in;\nvoid main(){}\n"


def forest(ctx):
    """The README's program: a subroutine, a loop and a branch on GPU memory."""
    target = ctx.framebuffer((16, 16))
    trees = ctx.pipeline(vertex_shader=VS, fragment_shader=FS)
    visible = ctx.buffer(np.uint32([1]))

    @hypergl.subroutine
    def draw_forest(sc, pipeline, count):
        sc.cmd.bind_pipeline(pipeline)
        with sc.loop(0, count):
            sc.cmd.draw(3)

    cmd = ctx.command_buffer()
    sc = hypergl.SceneCompiler(cmd)
    cmd.bind_framebuffer(target)
    cmd.clear(color=(0, 0, 0, 1))
    with sc.condition(visible, 0):
        draw_forest(sc, trees, 10)
    with sc.switch(1, 3) as cases:
        for case in range(3):
            with cases.case(case):
                sc.cmd.uniform_const(0, (case, 0.0, 0.0, 1.0), "vec4")
    cmd.end()
    return cmd


def draw_list(ctx):
    quad = np.array([[-1, -1, 0, 0], [1, -1, 1, 0], [1, 1, 1, 1]], np.float32)
    images = np.zeros((2, 2, 2, 4), np.uint8)
    draws = hypergl.DrawList(ctx, meshes={"tri": quad}, textures=images, capacity=4,
                             vertex_layout=[{"location": 0, "format": "f32x2", "offset": 0},
                                            {"location": 1, "format": "f32x2", "offset": 8}],
                             fields={"model": "mat4", "color": "vec4"})  # fmt: skip
    pipe = draws.pipeline(vertex_shader=VS, fragment_shader=FS)
    for i in range(3):
        draws.add("tri", texture=i % 2, pipeline=pipe, color=(1, 1, 1, 1))
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8), depth=None))
    draws.record(cmd)
    cmd.end()
    return cmd


def compute(ctx):
    pipe = ctx.pipeline(compute_shader=COMPUTE)
    data = ctx.buffer(np.arange(8, dtype=np.uint32))
    out = ctx.buffer(size=32)
    fence = ctx.fence()
    fb = ctx.framebuffer((4, 4))
    readback = ctx.readback(fb, depth=2)
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(pipe)
    cmd.bind_storage_buffer(data, 0)
    cmd.dispatch(2, 1, 1)
    cmd.barrier()
    cmd.copy_buffer(data, out, 16)
    cmd.load(2, data, 4)
    cmd.iaddi(2, 2, 5)
    cmd.store(2, out, 0)
    cmd.fence_signal(fence)
    cmd.fence_wait(fence, 1000)
    cmd.bind_framebuffer(fb)
    cmd.read_framebuffer(readback, fb)
    cmd.end()
    return cmd


def indirect(ctx):
    """Vertex and index buffers, a uniform block range, a texture, and draws and a
    dispatch whose counts come from an indirect buffer."""
    vs = ("#version 430\nlayout(location=0) in vec2 p;\n"
          "layout(std140, binding=0) uniform U { vec4 tint; };\nout vec4 v;\n"
          "void main() { v = tint; gl_Position = vec4(p, 0.0, 1.0); }\n")  # fmt: skip
    fs = ("#version 430\nin vec4 v;\nlayout(binding=0) uniform sampler2D t;\nout vec4 c;\n"
          "void main() { c = v * texture(t, vec2(0.5)); }\n")  # fmt: skip
    pipe = ctx.pipeline(vertex_shader=vs, fragment_shader=fs,
                        vertex_layout=[{"binding": 0, "stride": 8, "attributes": [
                            {"location": 0, "format": "f32x2", "offset": 0}]}])  # fmt: skip
    vertices = ctx.buffer(np.array([[-1, -1], [1, -1], [1, 1]], np.float32), usage="vertex")
    indices = ctx.buffer(np.uint32([0, 1, 2]), usage="index")
    # draw (count, instances, first, base instance), indexed draw (+ base vertex), dispatch
    commands = ctx.buffer(np.uint32([3, 1, 0, 0, 3, 1, 0, 0, 0, 1, 1, 1]), usage="indirect")
    uniforms = ctx.buffer(np.ones(64, np.float32), usage="uniform")
    image = ctx.texture(np.full((2, 2, 4), 255, np.uint8))
    compute = ctx.pipeline(compute_shader=COMPUTE)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8)))
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(vertices)
    cmd.bind_index_buffer(indices)
    cmd.bind_uniform_range(uniforms, 0, 0, 16)
    cmd.bind_texture(image, 0)
    cmd.bind_indirect_buffer(commands)
    cmd.draw_indirect(0)
    cmd.draw_indexed_indirect(16)
    cmd.draw_indexed(3)
    cmd.bind_pipeline(compute)
    cmd.dispatch_indirect(36)
    cmd.end()
    return cmd


def play(ctx):
    """A file for ``hypergl play`` with the VM's newer ops: one framebuffer, a colour from
    the clock and the generator, a uniform from registers, a fence polled, debug output."""
    vs = "#version 430\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n"
    fs = ("#version 430\nlayout(location=0) uniform float t;\nout vec4 c;\n"
          "void main() { c = vec4(t, 0.5, 0.2, 1.0); }\n")  # fmt: skip
    pipe = ctx.pipeline(vertex_shader=vs, fragment_shader=fs)
    state = ctx.buffer(np.arange(16, dtype=np.uint32), name="state")
    fence = ctx.fence()
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8), name="frame"))
    cmd.clear(color=(0, 0, 0, 1))
    cmd.get_time(0)
    cmd.get_delta(1)
    cmd.gen_rand(2, 1)
    cmd.sin_cos(3, 4, 0)
    cmd.get_stat(5, 0)
    cmd.li(6, 1)
    cmd.assert_reg(6)
    cmd.print(3)
    cmd.li(7, 0)
    cmd.dump(state, 7, 16)
    cmd.bind_pipeline(pipe)
    cmd.uniform_f(3, 0)
    cmd.skip_if_not_ready(fence)
    cmd.draw(3)
    cmd.fence_signal(fence)
    cmd.end()
    return cmd


def linked(ctx):
    cmd = ctx.command_buffer()
    frame = cmd.framebuffer("frame", linked=True)
    cmd.bind_framebuffer(frame)
    cmd.clear(color=(0.2, 0.3, 0.4, 1))
    cmd.end()
    return cmd, ["frame"]


def main() -> None:
    ctx = hypergl.context(device="trace")
    CORPUS.mkdir(exist_ok=True)
    for name, make in (("forest", forest), ("draw_list", draw_list), ("compute", compute),
                       ("indirect", indirect), ("play", play)):  # fmt: skip
        hypergl.save(make(ctx), CORPUS / f"{name}.hgb")
    cmd, names = linked(ctx)
    hypergl.save(cmd, CORPUS / "linked.hgb", linked=names)
    for path in sorted(CORPUS.glob("*.hgb")):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
