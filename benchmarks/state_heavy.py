"""A state-heavy scene: 10,000 small textured meshes, each with its own texture and uniforms.

Every variant draws the same scene into a 512x512 RGBA framebuffer and waits for
the GPU. Each object has one of 4 small meshes, one of 64 textures (16x16, nearest),
its own model matrix and colour; the pipeline changes every 1,000 objects (10
pipelines that differ in a shading constant). Draw order is the same everywhere,
and every object has its own depth (depth-tested), so every variant must give the
same pixels (checked before timing):

  moderngl  a Python loop: texture.use(), two uniform writes, vao.render() per object
  zengl     a Python loop: two uniform writes and pipeline.render() per object (zengl
            bakes textures into pipelines, so one pipeline per shader and texture)
  vm_binds  a recorded HyperGL program doing the same per-object work: bind_texture,
            two uniform_const, draw; one submit
  azdo      a hypergl.DrawList: one texture set, the objects' records in one storage
            buffer, one multi-draw-indirect (count from a GPU buffer) per pipeline; its
            default batch='merged' copies each object's mesh into one vertex buffer, so
            each pipeline is one command of all its objects' vertices
  azdo_instanced  the same with batch='instanced': one instanced command per pipeline
            and mesh (40 commands; order='mesh' as the objects are depth-tested at
            distinct depths, so any order gives the same image)
  moderngl_ranges / vm_ranges  the same loops with each object's uniforms in one
            buffer of 256-byte blocks, a range bound per object
            (ubo.bind_to_uniform_block / bind_uniform_range) instead of uniform writes
  vm_draws_only  vm_binds without its per-object binds (the objects drawn with each
            pipeline keep its first object's texture and uniforms; pixels differ, not
            compared): what the same draws cost the driver when no state changes

Each variant runs in a process of its own, as a user's program would: two GL
libraries' contexts in one process disturb each other on llvmpipe (each frees and
regrows hundreds of MB of per-frame scene memory, and whichever runs next pays the
page faults). The processes take turns (A B C D, A B C D, ...); ratios are medians
of per-round ratios. The variants run with glibc's heap trimming off (``--trim``
leaves it on): otherwise every frame page-faults its scene memory back in, and a
variant's frame time swings 2-3x from run to run.

Where the ceiling is on llvmpipe: whenever a texture or a uniform changes between
two draws, llvmpipe stores a new copy of its fragment state (in Mesa 22.3 a block
of tens of KB, the descriptors of every texture and sampler slot) in the frame's
scene; memmove is the largest single cost in a perf profile of vm_binds (19 %).
That copy is the same whoever issues the GL calls, so replaying the binds from C can
only save the Python loop's own share; state_change_us in the JSON reports what the
binds cost the driver, as measured.

    python benchmarks/state_heavy.py [--repeat N] [--draws N] [--json FILE]
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
from _common import (
    interleaved_in_processes,
    median,
    pairwise_ratio,
    parser,
    write_json,
    zengl_headless_context,
)

import hypergl

SIZE = 512
TEXTURES = 64
TEXTURE_SIZE = 16
PIPELINE_EVERY = 1_000

VERTEX = """#version {version}
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv_in;
uniform mat4 model;
out vec2 uv;
void main() {{ uv = uv_in; gl_Position = model * vec4(position, 0.0, 1.0); }}
"""
FRAGMENT = """#version {version}
in vec2 uv;
uniform vec4 color;
uniform sampler2D image;
out vec4 frag;
const float SHADE = {shade};
void main() {{ frag = texture(image, uv) * color * SHADE; }}
"""
# The same shaders with the object's uniforms in a block: one buffer holds every
# object's block, BLOCK_STRIDE bytes apart, and a range of it is bound per draw.
BLOCK = "layout(std140, binding = 0) uniform Object { mat4 model; vec4 color; };"
BLOCK_STRIDE = 256  # the largest uniform-buffer offset alignment GL drivers ask for
BLOCK_SIZE = 80


def in_block(source: str) -> str:
    """VERTEX or FRAGMENT reading its uniform from the block instead."""
    return source.replace("uniform mat4 model;", BLOCK).replace("uniform vec4 color;", BLOCK)


def block_records(s: dict) -> np.ndarray:
    """Every object's (model, colour) block, BLOCK_STRIDE bytes apart."""
    records = np.zeros((len(s["color"]), BLOCK_STRIDE // 4), "f4")
    records[:, :16] = s["column_major"].reshape(-1, 16)
    records[:, 16:20] = s["color"]
    return records


# The draw list's shaders: the same arithmetic, with the record and texture from the list.
# The record is read once per vertex; the fragment stage gets what it needs as flat inputs.
AZDO_VERTEX = """#version 430
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv_in;
out vec2 uv;
flat out vec4 tint;
flat out uint layer;
void main() {
    HglDraw draw = hgl_draw();
    uv = uv_in;
    tint = draw.color;
    layer = draw.texture_index;
    gl_Position = draw.model * vec4(position, 0.0, 1.0);
}
"""
AZDO_FRAGMENT = """#version 430
in vec2 uv;
flat in vec4 tint;
flat in uint layer;
out vec4 frag;
const float SHADE = {shade};
void main() {{ frag = hgl_texture(layer, uv) * tint * SHADE; }}
"""
LAYOUT = [{"location": 0, "format": "f32x2", "offset": 0},
          {"location": 1, "format": "f32x2", "offset": 8}]  # fmt: skip


def shade(pipeline: int) -> str:
    return f"{1.0 - 0.05 * pipeline:.2f}"


def meshes() -> dict[str, np.ndarray]:
    """Four small triangle-list meshes (1-3 triangles) in [-1, 1]^2, vertices (x, y, u, v)."""

    def strip(points: list[tuple[float, float]]) -> np.ndarray:
        xy = np.array(
            [
                points[j]
                for i in range(len(points) - 2)
                for j in ((i, i + 1, i + 2) if i % 2 == 0 else (i + 1, i, i + 2))
            ]
        )
        return np.concatenate([xy, (xy + 1) / 2], axis=1).astype("f4")

    return {
        "triangle": strip([(-1, -1), (1, -1), (0, 1)]),
        "quad": strip([(-1, -1), (1, -1), (-1, 1), (1, 1)]),
        "diamond": strip([(0, -1), (1, 0), (-1, 0), (0, 1)]),
        "arrow": strip([(-1, -0.3), (0.2, -0.3), (-1, 0.3), (0.2, 0.3), (0.2, 0.9)]),
    }


def scene(draws: int) -> dict:
    rng = np.random.default_rng(19)
    names = list(meshes())
    angle = rng.uniform(0, 2 * np.pi, draws)
    scale = rng.uniform(0.005, 0.015, draws)
    centre = rng.uniform(-0.95, 0.95, (draws, 2))
    models = np.zeros((draws, 4, 4), "f4")  # row-major: clip = M @ (x, y, 0, 1)
    models[:, 0, 0], models[:, 0, 1] = scale * np.cos(angle), -scale * np.sin(angle)
    models[:, 1, 0], models[:, 1, 1] = scale * np.sin(angle), scale * np.cos(angle)
    models[:, 2, 2] = models[:, 3, 3] = 1.0
    models[:, :2, 3] = centre
    models[:, 2, 3] = rng.permutation(np.linspace(-0.99, 0.99, draws))  # distinct depths
    images = rng.integers(0, 256, (TEXTURES, TEXTURE_SIZE, TEXTURE_SIZE, 4), dtype=np.uint8)
    images[..., 3] = 255
    return {
        "mesh": [names[i] for i in rng.integers(0, len(names), draws)],
        "texture": rng.integers(0, TEXTURES, draws),
        "pipeline": np.arange(draws) // PIPELINE_EVERY,
        "model": models,
        "column_major": np.ascontiguousarray(models.transpose(0, 2, 1)),  # what GLSL reads
        "color": rng.uniform(0.5, 1.0, (draws, 4)).astype("f4"),
        "images": images,
    }


def mesh_ranges(shapes: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, tuple[int, int]]]:
    """All meshes in one vertex array, and each mesh's (first, count) in it."""
    ranges, first = {}, 0
    for name, mesh in shapes.items():
        ranges[name] = (first, len(mesh))
        first += len(mesh)
    return np.concatenate(list(shapes.values())), ranges


def hypergl_target():
    ctx = hypergl.context()
    fb = ctx.framebuffer((SIZE, SIZE))
    return ctx, fb, lambda: fb.read(origin="bottom")


def vm_binds_variant(s: dict, draws: int, uniforms: str = "const"):
    """The per-object binds recorded into one program: a texture bind and the
    object's uniforms, written with uniform_const (uniforms='const') or as a range
    of one buffer of blocks (uniforms='range'). With uniforms='none' the draws of a
    pipeline keep its first object's texture and uniforms: the driver's per-draw
    floor when no state changes (different pixels; not compared)."""
    ctx, fb, read = hypergl_target()
    vertices, ranges = mesh_ranges(meshes())
    layout = [{"binding": 0, "stride": 16, "attributes": LAYOUT}]
    textures = [ctx.texture(image, filter="nearest", wrap="clamp") for image in s["images"]]
    vbo = ctx.buffer(vertices, usage="vertex")
    located = {"uniform mat4": "layout(location = 0) uniform mat4",
               "uniform vec4": "layout(location = 1) uniform vec4"}  # fmt: skip
    blocks = ctx.buffer(block_records(s)) if uniforms == "range" else None

    def source(text: str) -> str:
        text = text.replace("uniform sampler2D", "layout(binding = 0) uniform sampler2D")
        if uniforms == "range":
            return in_block(text)
        for plain, with_location in located.items():
            text = text.replace(plain, with_location)
        return text

    per_draw = [
        ctx.pipeline(vertex_shader=source(VERTEX.format(version=430)),
                     fragment_shader=source(FRAGMENT.format(version=430, shade=shade(k))),
                     vertex_layout=layout, depth_test=True)
        for k in range(int(s["pipeline"][-1]) + 1)
    ]  # fmt: skip
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    for i in range(draws):
        if i % PIPELINE_EVERY == 0:
            cmd.bind_pipeline(per_draw[s["pipeline"][i]])
            cmd.bind_vertex_buffer(vbo, 0)
        if uniforms != "none" or i % PIPELINE_EVERY == 0:  # uniforms are per program
            cmd.bind_texture(textures[s["texture"][i]], 0)
            if blocks is not None:
                cmd.bind_uniform_range(blocks, 0, i * BLOCK_STRIDE, BLOCK_SIZE)
            else:
                cmd.uniform_const(0, s["column_major"][i].ravel().tolist(), "mat4")
                cmd.uniform_const(1, s["color"][i].tolist(), "vec4")
        cmd.draw(ranges[s["mesh"][i]][1], first=ranges[s["mesh"][i]][0])
    cmd.end()
    prepared = cmd.prepare()

    def run():
        prepared.submit()
        ctx.finish()

    return run, lambda: {"image": read(), "renderer": ctx.capabilities.renderer}


def draw_list_variant(s: dict, draws: int, batch: str):
    """The objects in a hypergl.DrawList: one texture set, the records in one storage
    buffer, one multi-draw-indirect-count per pipeline ('merged': each object's mesh
    copied into one vertex buffer) or per pipeline and mesh ('instanced'; order='mesh'
    is safe as every object has its own depth)."""
    ctx, fb, read = hypergl_target()
    draw_list = hypergl.DrawList(
        ctx, meshes=meshes(), vertex_layout=LAYOUT, textures=s["images"], filter="nearest",
        fields={"model": "mat4", "color": "vec4"}, capacity=draws, batch=batch, order="mesh",
    )  # fmt: skip
    pipes = [draw_list.pipeline(vertex_shader=AZDO_VERTEX, depth_test=True,
                                fragment_shader=AZDO_FRAGMENT.format(shade=shade(k)))
             for k in range(int(s["pipeline"][-1]) + 1)]  # fmt: skip
    for i in range(draws):
        draw_list.add(s["mesh"][i], texture=int(s["texture"][i]),
                      pipeline=pipes[s["pipeline"][i]],
                      model=s["column_major"][i], color=s["color"][i])  # fmt: skip
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    draw_list.record(cmd)
    cmd.end()
    prepared = cmd.prepare()

    def run():
        prepared.submit()
        ctx.finish()

    info = {"indirect_count": draw_list.indirect_count, "bindless": draw_list.textures.bindless,
            "commands": sum(n for *_, n in draw_list.groups)}  # fmt: skip
    return run, lambda: {"image": read(), **info}


def moderngl_variant(s: dict, draws: int, uniforms: str = "write"):
    """texture.use(), then the object's uniforms written (uniforms='write') or its
    block bound from one buffer (uniforms='range': ubo.bind_to_uniform_block), then
    vao.render(), per object."""
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    fbo = ctx.simple_framebuffer((SIZE, SIZE))
    vertices, ranges = mesh_ranges(meshes())
    vbo = ctx.buffer(vertices.tobytes())
    textures = []
    for image in s["images"]:
        texture = ctx.texture((TEXTURE_SIZE, TEXTURE_SIZE), 4, image.tobytes())
        texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
        texture.repeat_x = texture.repeat_y = False
        textures.append(texture)
    pipelines = int(s["pipeline"][-1]) + 1
    programs, vaos = [], []
    source = in_block if uniforms == "range" else str
    for k in range(pipelines):
        program = ctx.program(
            vertex_shader=source(VERTEX.format(version=430)),
            fragment_shader=source(FRAGMENT.format(version=430, shade=shade(k))),
        )
        program["image"].value = 0
        programs.append(program)
        vaos.append(ctx.vertex_array(program, [(vbo, "2f 2f", "position", "uv_in")]))
    # Per object, precomputed: (texture, model bytes, colour bytes, count, first).
    work = [(textures[s["texture"][i]], s["column_major"][i].tobytes(), s["color"][i].tobytes(),
             *ranges[s["mesh"][i]][::-1]) for i in range(draws)]  # fmt: skip

    blocks = ctx.buffer(block_records(s).tobytes()) if uniforms == "range" else None

    def run_ranges():
        ctx.__enter__()
        fbo.use()
        fbo.clear(0, 0, 0, 1)
        ctx.enable(moderngl.DEPTH_TEST)
        bind = blocks.bind_to_uniform_block
        for start in range(0, draws, PIPELINE_EVERY):
            render = vaos[start // PIPELINE_EVERY].render
            for i, (texture, _m, _c, count, first) in enumerate(
                work[start : start + PIPELINE_EVERY], start
            ):
                texture.use(0)
                bind(0, offset=i * BLOCK_STRIDE, size=BLOCK_SIZE)
                render(vertices=count, first=first)
        ctx.finish()

    def run():
        ctx.__enter__()
        fbo.use()
        fbo.clear(0, 0, 0, 1)
        ctx.enable(moderngl.DEPTH_TEST)
        for start in range(0, draws, PIPELINE_EVERY):
            k = start // PIPELINE_EVERY
            model, color, render = programs[k]["model"], programs[k]["color"], vaos[k].render
            for texture, m, c, count, first in work[start : start + PIPELINE_EVERY]:
                texture.use(0)
                model.write(m)
                color.write(c)
                render(vertices=count, first=first)
        ctx.finish()

    def read():
        image = np.frombuffer(fbo.read(components=4), np.uint8).reshape(SIZE, SIZE, 4)
        return {"image": image}

    return (run_ranges if uniforms == "range" else run), read


def zengl_variant(s: dict, draws: int):
    """zengl bakes resources into pipelines: one per (shader, texture) pair used."""
    import zengl

    ctx, make_current = zengl_headless_context(zengl)
    image = ctx.image((SIZE, SIZE), "rgba8unorm")
    depth = ctx.image((SIZE, SIZE), "depth24plus")
    vertices, ranges = mesh_ranges(meshes())
    vbo = ctx.buffer(vertices.tobytes())
    textures = [ctx.image((TEXTURE_SIZE, TEXTURE_SIZE), "rgba8unorm", im.tobytes())
                for im in s["images"]]  # fmt: skip
    cache: dict[tuple[int, int], object] = {}

    def pipeline(k: int, t: int):
        if (k, t) not in cache:
            cache[k, t] = ctx.pipeline(
                vertex_shader=VERTEX.format(version="330 core"),
                fragment_shader=FRAGMENT.format(version="330 core", shade=shade(k)),
                layout=[{"name": "image", "binding": 0}],
                resources=[{"type": "sampler", "binding": 0, "image": textures[t],
                            "min_filter": "nearest", "mag_filter": "nearest",
                            "wrap_x": "clamp_to_edge", "wrap_y": "clamp_to_edge"}],
                uniforms={"model": [0.0] * 16, "color": [0.0] * 4},
                framebuffer=[image, depth],
                depth={"func": "less", "write": True},
                topology="triangles",
                vertex_buffers=zengl.bind(vbo, "2f 2f", 0, 1),
                vertex_count=3,
            )  # fmt: skip
        return cache[k, t]

    work = []
    for i in range(draws):
        p = pipeline(int(s["pipeline"][i]), int(s["texture"][i]))
        first, count = ranges[s["mesh"][i]]
        work.append((p, p.uniforms["model"], p.uniforms["color"], s["column_major"][i].tobytes(),
                     s["color"][i].tobytes(), count, first))  # fmt: skip

    def run():
        make_current()
        ctx.new_frame()
        image.clear_value = (0.0, 0.0, 0.0, 1.0)
        image.clear()
        depth.clear()
        for p, model, color, m, c, count, first in work:
            model[:] = m
            color[:] = c
            p.vertex_count = count
            p.first_vertex = first
            p.render()
        ctx.end_frame()
        image.read((1, 1))

    def read():
        return {"image": np.frombuffer(image.read(), np.uint8).reshape(SIZE, SIZE, 4)}

    return run, read


# glibc gives the top of its heap back to the kernel when a free leaves enough there, and
# llvmpipe frees a frame's scene memory (hundreds of MB with a state change per draw) at
# the end of each frame: the next frame then page-faults all of it in again. Measured
# here, that swung a variant's frame 2-3x from run to run, whichever variant it was; with
# trimming off (and large blocks kept off mmap) every variant reuses its memory.
NO_TRIM = "glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=4294967295"

VM_UNIFORMS = {"vm_binds": "const", "vm_ranges": "range", "vm_draws_only": "none"}


def make_variant(name: str, draws: int):
    """(run, read) of one variant, built in the process that times it."""
    s = scene(draws)
    if name in ("moderngl", "moderngl_ranges"):
        return moderngl_variant(s, draws, "range" if name == "moderngl_ranges" else "write")
    if name == "zengl":
        return zengl_variant(s, draws)
    if name in VM_UNIFORMS:
        return vm_binds_variant(s, draws, VM_UNIFORMS[name])
    batch = {"azdo": "merged", "azdo_instanced": "instanced"}[name]
    return draw_list_variant(s, draws, batch=batch)


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=10)
    p.add_argument("--draws", type=int, default=10_000, help="objects (default %(default)s)")
    p.add_argument("--trim", action="store_true",
                   help="leave glibc's heap trimming on in the variants' processes")  # fmt: skip
    args = p.parse_args()
    draws = args.draws
    names = ["moderngl", "vm_binds", "moderngl_ranges", "vm_ranges", "azdo", "azdo_instanced",
             "vm_draws_only"]  # fmt: skip
    if not args.trim:
        # Read by glibc when each variant's process starts (the variants inherit it).
        os.environ["GLIBC_TUNABLES"] = NO_TRIM
    if importlib.util.find_spec("zengl") is not None:
        names.insert(1, "zengl")
    samples, outputs = interleaved_in_processes("state_heavy", names, args.repeat, draws=draws)

    # Same pixels from every variant but the floor (a correctness check, not a timing).
    compared = [name for name in names if name != "vm_draws_only"]
    reference = outputs["moderngl"]["image"]
    agreement = {name: float((outputs[name]["image"] == reference).all(axis=-1).mean())
                 for name in compared}  # fmt: skip
    covered = float((reference[..., :3] != 0).any(axis=-1).mean())
    ms = {name: median(times) * 1e3 for name, times in samples.items()}
    us = {name: value * 1e3 / draws for name, value in ms.items()}
    results = {
        "draws": draws,
        "renderer": outputs["vm_binds"]["renderer"],
        "indirect_count": outputs["azdo"]["indirect_count"],
        "commands": {name: outputs[name]["commands"] for name in ("azdo", "azdo_instanced")},
        "bindless": outputs["azdo"]["bindless"],
        "pixels_agree": agreement,
        **{f"{name}_ms": value for name, value in ms.items()},
        "state_change_us": us["vm_binds"] - us["vm_draws_only"],
        "vm_binds_vs_moderngl": pairwise_ratio(samples["moderngl"], samples["vm_binds"]),
        "vm_ranges_vs_moderngl_ranges": pairwise_ratio(
            samples["moderngl_ranges"], samples["vm_ranges"]
        ),
        "vm_ranges_vs_moderngl": pairwise_ratio(samples["moderngl"], samples["vm_ranges"]),
        "azdo_vs_moderngl": pairwise_ratio(samples["moderngl"], samples["azdo"]),
        "azdo_vs_vm_binds": pairwise_ratio(samples["vm_binds"], samples["azdo"]),
        "azdo_instanced_vs_moderngl": pairwise_ratio(
            samples["moderngl"], samples["azdo_instanced"]
        ),
    }
    if "zengl" in samples:
        results["vm_binds_vs_zengl"] = pairwise_ratio(samples["zengl"], samples["vm_binds"])
        results["azdo_vs_zengl"] = pairwise_ratio(samples["zengl"], samples["azdo"])
    commands = results["commands"]
    print(
        f"{draws} objects ({TEXTURES} textures, a pipeline change every {PIPELINE_EVERY}) "
        f"into {SIZE}x{SIZE}, medians of {args.repeat} rounds, each variant in its own process"
    )
    print(
        f"renderer: {results['renderer']}; texture set: "
        f"{'bindless' if results['bindless'] else 'texture array'}; indirect count: "
        f"{'yes' if results['indirect_count'] else 'no'}; {covered:.0%} of pixels covered"
    )
    print("pixels equal to the moderngl image: "
          + ", ".join(f"{name} {value:.2%}" for name, value in agreement.items()))  # fmt: skip
    for name in names:
        print(f"  {name:<14} {ms[name]:8.2f} ms   {us[name]:6.3f} us per object")
    print(
        f"the driver's cost of a state change per object: {results['state_change_us']:.3f} us "
        f"(vm_binds - vm_draws_only; the same draws without their binds)"
    )
    print(f"VM binds vs moderngl loop:   {results['vm_binds_vs_moderngl']:6.2f}x  (target >= 1.4x)")
    print(
        f"with uniform-buffer ranges (bind_uniform_range vs bind_to_uniform_block): "
        f"{results['vm_ranges_vs_moderngl_ranges']:.2f}x; VM ranges vs the moderngl loop "
        f"writing uniforms: {results['vm_ranges_vs_moderngl']:.2f}x"
    )
    print(f"one call vs moderngl loop:   {results['azdo_vs_moderngl']:6.2f}x  (target >= 20x)")
    print(f"one call vs VM binds:        {results['azdo_vs_vm_binds']:6.2f}x")
    print(
        f"one call, instanced ({commands['azdo_instanced']} commands, not "
        f"{commands['azdo']}) vs moderngl loop: {results['azdo_instanced_vs_moderngl']:.2f}x"
    )
    if "zengl" in samples:
        print(f"VM binds vs zengl loop:      {results['vm_binds_vs_zengl']:6.2f}x")
        print(f"one call vs zengl loop:      {results['azdo_vs_zengl']:6.2f}x")
    write_json(args.json, results)
    if min(agreement.values()) < 1.0:
        raise SystemExit("the variants drew different images (see above)")


if __name__ == "__main__":
    main()
