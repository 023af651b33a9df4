"""10,000 small draws on this machine's OpenGL: the VM vs Python loops vs one MDI instruction.

Every variant draws the same 10,000 triangles (3 vertices each, from one vertex
buffer) into a 256x256 RGBA framebuffer and waits for the GPU:

  vm        a recorded HyperGL program of 10,000 `draw` instructions, one submit
  moderngl  a Python loop of 10,000 `vao.render(vertices=3, first=...)`
  zengl     a Python loop of 10,000 `pipeline.render()` with `first_vertex` set
  mdi       one HyperGL `multi_draw_indirect` of 10,000 commands

Variants run interleaved (A B C D, A B C D, ...); ratios are medians of the
per-round ratios, because this machine is noisy.

    python benchmarks/draws_10k.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import numpy as np
from _common import interleaved, median, pairwise_ratio, parser, write_json, zengl_headless_context

import hypergl

DRAWS = 10_000
SIZE = 256
VERTEX = """#version 430
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position, 0.0, 1.0); }
"""
FRAGMENT = """#version 430
out vec4 color;
void main() { color = vec4(1.0, 0.5, 0.2, 1.0); }
"""


def triangles() -> np.ndarray:
    """DRAWS small triangles scattered over the frame, as (DRAWS*3, 2) float32."""
    rng = np.random.default_rng(7)
    centres = rng.uniform(-0.95, 0.95, (DRAWS, 1, 2))
    corners = np.array([[-0.02, -0.02], [0.02, -0.02], [0.0, 0.02]])
    return (centres + corners).reshape(-1, 2).astype("f4")


def hypergl_variants(vertices: np.ndarray):
    ctx = hypergl.context()
    fb = ctx.framebuffer((SIZE, SIZE), depth=None)
    layout = [{"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]}]
    pipe = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, vertex_layout=layout)
    vbo = ctx.buffer(vertices, usage="vertex")
    commands = ctx.buffer(
        np.array([(3, 1, 3 * i, 0) for i in range(DRAWS)], np.uint32), usage="indirect"
    )

    def program(body):
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 0, 0, 1))
        cmd.bind_pipeline(pipe)
        cmd.bind_vertex_buffer(vbo, 0)
        body(cmd)
        cmd.end()
        return cmd

    def draws(cmd):
        for i in range(DRAWS):
            cmd.draw(3, first=3 * i)

    def mdi(cmd):
        cmd.bind_indirect_buffer(commands)
        cmd.multi_draw_indirect(DRAWS)

    loop, single = program(draws), program(mdi)

    def run_vm():
        loop.submit()
        ctx.finish()

    def run_mdi():
        single.submit()
        ctx.finish()

    return ctx, fb, run_vm, run_mdi


def moderngl_variant(vertices: np.ndarray):
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    fbo = ctx.simple_framebuffer((SIZE, SIZE))
    program = ctx.program(vertex_shader=VERTEX, fragment_shader=FRAGMENT)
    vao = ctx.vertex_array(program, [(ctx.buffer(vertices.tobytes()), "2f", "position")])

    def run():
        ctx.__enter__()
        fbo.use()
        fbo.clear(0, 0, 0, 1)
        render = vao.render
        for i in range(DRAWS):
            render(moderngl.TRIANGLES, vertices=3, first=3 * i)
        ctx.finish()

    return run, fbo


def zengl_variant(vertices: np.ndarray):
    try:
        import zengl
    except ImportError:
        return None, None
    ctx, make_current = zengl_headless_context(zengl)
    image = ctx.image((SIZE, SIZE), "rgba8unorm")
    vbo = ctx.buffer(vertices.tobytes())
    pipeline = ctx.pipeline(
        vertex_shader=VERTEX.replace("#version 430", "#version 330 core"),
        fragment_shader=FRAGMENT.replace("#version 430", "#version 330 core"),
        framebuffer=[image],
        topology="triangles",
        vertex_buffers=zengl.bind(vbo, "2f", 0),
        vertex_count=3,
    )

    def run():
        make_current()
        image.clear()
        for i in range(DRAWS):
            pipeline.first_vertex = 3 * i
            pipeline.render()
        image.read((1, 1))

    return run, image


def main() -> None:
    args = parser(__doc__.splitlines()[0], repeat=15).parse_args()
    vertices = triangles()
    ctx, fb, run_vm, run_mdi = hypergl_variants(vertices)
    run_moderngl, fbo = moderngl_variant(vertices)
    run_zengl, _image = zengl_variant(vertices)
    variants = {"vm": run_vm, "mdi": run_mdi, "moderngl": run_moderngl}
    if run_zengl is not None:
        variants["zengl"] = run_zengl

    # Same image from the VM and from moderngl (a sanity check, not a timing).
    run_vm()
    ours = fb.read(origin="bottom")[..., :3]
    run_moderngl()
    theirs = np.frombuffer(fbo.read(components=3), np.uint8).reshape(SIZE, SIZE, 3)
    agreement = float((ours == theirs).all(axis=-1).mean())

    samples = interleaved(variants, args.repeat)
    ms = {name: median(times) * 1e3 for name, times in samples.items()}
    results = {
        "vm_ms": ms["vm"],
        "moderngl_loop_ms": ms["moderngl"],
        "zengl_loop_ms": ms.get("zengl"),
        "mdi_ms": ms["mdi"],
        "vm_vs_moderngl": pairwise_ratio(samples["moderngl"], samples["vm"]),
        "mdi_vs_moderngl": pairwise_ratio(samples["moderngl"], samples["mdi"]),
    }
    print(f"{DRAWS} draws of 3 vertices into {SIZE}x{SIZE}, medians of {args.repeat} rounds")
    print(f"renderer: {ctx.capabilities.renderer}; VM and moderngl images agree on "
          f"{agreement:.2%} of pixels")  # fmt: skip
    for name in variants:
        per_draw = ms[name] * 1e3 / DRAWS
        print(f"  {name:<9} {ms[name]:8.2f} ms   {per_draw:6.3f} us per draw")
    print(f"VM vs moderngl loop:  {results['vm_vs_moderngl']:.2f}x   (target >= 2x)")
    print(f"MDI vs moderngl loop: {results['mdi_vs_moderngl']:.2f}x   (target >= 2x)")
    if "zengl" in ms:
        print(f"VM vs zengl loop:     {pairwise_ratio(samples['zengl'], samples['vm']):.2f}x")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
