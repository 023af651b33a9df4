"""hypergl.DrawList: one multi-draw per pipeline gives the image of per-object binds."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl import DrawList, ResourceError

SIZE = 64
OBJECTS = 200
PER_PIPELINE = 100
LAYOUT = [{"location": 0, "format": "f32x2", "offset": 0},
          {"location": 1, "format": "f32x2", "offset": 8}]  # fmt: skip
FIELDS = {"model": "mat4", "color": "vec4"}

BIND_VS = """#version 430
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv_in;
layout(location = 0) uniform mat4 model;
out vec2 uv;
void main() { uv = uv_in; gl_Position = model * vec4(position, 0.0, 1.0); }
"""
BIND_FS = """#version 430
in vec2 uv;
layout(location = 1) uniform vec4 color;
layout(binding = 0) uniform sampler2D image;
out vec4 frag;
void main() {{ frag = texture(image, uv) * color * {shade}; }}
"""
LIST_VS = """#version 430
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv_in;
out vec2 uv;
void main() { uv = uv_in; gl_Position = hgl_draw().model * vec4(position, 0.0, 1.0); }
"""
LIST_FS = """#version 430
in vec2 uv;
out vec4 frag;
void main() {{ frag = hgl_draw_texture(uv) * hgl_draw().color * {shade}; }}
"""
SHADES = ("1.0", "0.5")


def meshes():
    quad = np.array([[-1, -1, 0, 0], [1, -1, 1, 0], [1, 1, 1, 1],
                     [-1, -1, 0, 0], [1, 1, 1, 1], [-1, 1, 0, 1]], np.float32)  # fmt: skip
    triangle = np.array([[-1, -1, 0, 0], [1, -1, 1, 0], [0, 1, 0.5, 1]], np.float32)
    return {"quad": quad, "triangle": triangle}


def scene(seed=3):
    rng = np.random.default_rng(seed)
    models = np.zeros((OBJECTS, 4, 4), np.float32)
    scale = rng.uniform(0.05, 0.15, OBJECTS)
    models[:, 0, 0] = models[:, 1, 1] = scale
    models[:, 2, 2] = models[:, 3, 3] = 1
    models[:, :2, 3] = rng.uniform(-0.9, 0.9, (OBJECTS, 2))
    models[:, 2, 3] = rng.permutation(np.linspace(-0.9, 0.9, OBJECTS))  # distinct depths
    images = rng.integers(0, 256, (8, 4, 4, 4), dtype=np.uint8)
    images[..., 3] = 255
    return {
        "mesh": ["quad" if m else "triangle" for m in rng.integers(0, 2, OBJECTS)],
        "texture": rng.integers(0, 8, OBJECTS),
        "model": np.ascontiguousarray(models.transpose(0, 2, 1)),  # column-major, as GLSL
        "color": rng.uniform(0.3, 1, (OBJECTS, 4)).astype(np.float32),
        "images": images,
    }


def per_draw_binds(ctx, fb, s, only=range(OBJECTS), depth_test=False):
    """The reference: a texture bind, two uniforms and a draw per object."""
    ranges, first, parts = {}, 0, []
    for name, mesh in meshes().items():
        ranges[name], first = (first, len(mesh)), first + len(mesh)
        parts.append(mesh)
    vbo = ctx.buffer(np.concatenate(parts), usage="vertex")
    textures = [ctx.texture(image, filter="nearest", wrap="clamp") for image in s["images"]]
    layout = [{"binding": 0, "stride": 16, "attributes": LAYOUT}]
    pipes = [ctx.pipeline(vertex_shader=BIND_VS, fragment_shader=BIND_FS.format(shade=shade),
                          vertex_layout=layout, depth_test=depth_test)
             for shade in SHADES]  # fmt: skip
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    for i in only:
        cmd.bind_pipeline(pipes[i // PER_PIPELINE])
        cmd.bind_vertex_buffer(vbo, 0)
        cmd.bind_texture(textures[s["texture"][i]], 0)
        cmd.uniform_const(0, s["model"][i].ravel().tolist(), "mat4")
        cmd.uniform_const(1, s["color"][i].tolist(), "vec4")
        first, count = ranges[s["mesh"][i]]
        cmd.draw(count, first=first)
    cmd.end()
    cmd.submit()
    return fb.read()


def draw_list(ctx, s, batch="merged", order="keep", depth_test=False):
    draws = DrawList(ctx, meshes=meshes(), vertex_layout=LAYOUT, textures=s["images"],
                     fields=FIELDS, capacity=OBJECTS, filter="nearest", batch=batch,
                     order=order)  # fmt: skip
    pipes = [draws.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS.format(shade=shade),
                            depth_test=depth_test) for shade in SHADES]  # fmt: skip
    for i in range(OBJECTS):
        index = draws.add(s["mesh"][i], texture=int(s["texture"][i]),
                          pipeline=pipes[i // PER_PIPELINE], model=s["model"][i],
                          color=s["color"][i])  # fmt: skip
        assert index == i
    return draws


def one_call(ctx, fb, draws):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    draws.record(cmd)
    cmd.end()
    return cmd


@pytest.mark.gl
@pytest.mark.parametrize("batch", ["merged", "instanced"])
def test_one_call_draws_the_image_of_per_object_binds(gl_ctx, batch):
    s = scene()
    fb = gl_ctx.framebuffer((SIZE, SIZE), depth=None)
    expected = per_draw_binds(gl_ctx, fb, s)
    assert (expected[..., :3] != 0).any(axis=-1).mean() > 0.3  # the scene covers the frame
    draws = draw_list(gl_ctx, s, batch)
    cmd = one_call(gl_ctx, fb, draws)
    stats = cmd.submit()
    assert stats.draws == 2  # one multi-draw per pipeline
    np.testing.assert_array_equal(fb.read(), expected)


@pytest.mark.gl
def test_in_any_order_each_pipeline_draws_a_mesh_with_one_command(gl_ctx):
    s = scene()
    fb = gl_ctx.framebuffer((SIZE, SIZE))  # depth-tested, distinct depths: order-free
    expected = per_draw_binds(gl_ctx, fb, s, depth_test=True)
    draws = draw_list(gl_ctx, s, "instanced", order="mesh", depth_test=True)
    one_call(gl_ctx, fb, draws).submit()
    assert [count for _, _, count in draws.groups] == [2, 2]  # quad and triangle each
    np.testing.assert_array_equal(fb.read(), expected)


@pytest.mark.gl
@pytest.mark.parametrize("batch", ["merged", "instanced"])
def test_moving_an_object_is_a_write_into_the_records(gl_ctx, batch):
    s = scene()
    fb = gl_ctx.framebuffer((SIZE, SIZE), depth=None)
    draws = draw_list(gl_ctx, s, batch)
    cmd = one_call(gl_ctx, fb, draws)
    cmd.submit()
    before = fb.read()
    moved = dict(s, model=s["model"].copy(), texture=s["texture"].copy())
    moved["model"][OBJECTS - 1, 3, :2] = (0.0, 0.0)  # column 3 holds the translation
    moved["model"][OBJECTS - 1, 0, 0] = moved["model"][OBJECTS - 1, 1, 1] = 0.5
    moved["texture"][OBJECTS - 1] = 5
    draws.records["model"][OBJECTS - 1] = moved["model"][OBJECTS - 1]
    draws.records["texture_index"][OBJECTS - 1] = 5
    cmd.submit()  # the same program: nothing re-recorded
    after = fb.read()
    assert (after != before).any()
    np.testing.assert_array_equal(after, per_draw_binds(gl_ctx, fb, moved))


@pytest.mark.gl
@pytest.mark.parametrize("batch", ["merged", "instanced"])
def test_the_draw_count_comes_from_the_gpu(gl_ctx, batch):
    if not gl_ctx.capabilities.indirect_count:
        pytest.skip("this driver has no indirect count (GL 4.6 / ARB_indirect_parameters)")
    s = scene()
    fb = gl_ctx.framebuffer((SIZE, SIZE), depth=None)
    draws = draw_list(gl_ctx, s, batch)
    cull = gl_ctx.pipeline(
        compute_shader="""#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Counts { uint counts[]; };
void main() { counts[0] = 0u; }  // a stand-in for culling: pipeline 0 draws nothing
"""
    )
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    draws.record(cmd)  # makes draws.count_buffer
    cmd.end()
    culling = gl_ctx.command_buffer()
    culling.bind_pipeline(cull)
    culling.bind_storage_buffer(draws.count_buffer, 0)
    culling.dispatch(1)
    culling.barrier()
    culling.end()
    culling.submit()
    cmd.submit()
    got = fb.read()
    assert draws.counts.tolist() == [0, draws.groups[1][2]]
    np.testing.assert_array_equal(got, per_draw_binds(gl_ctx, fb, s, range(100, OBJECTS)))


@pytest.mark.gl
def test_texture_sets_use_the_array_fallback_without_bindless(gl_ctx):
    if gl_ctx.capabilities.bindless_textures:
        pytest.skip("this driver has bindless textures; the fallback is not used here")
    draws = draw_list(gl_ctx, scene())
    assert not draws.textures.bindless  # and every test above ran on the array fallback


@pytest.mark.gl
def test_texture_sets_are_bindless_where_the_driver_has_it(gl_ctx):
    if not gl_ctx.capabilities.bindless_textures:
        pytest.skip(f"no GL_ARB_bindless_texture on {gl_ctx.capabilities.renderer}")
    s = scene()
    fb = gl_ctx.framebuffer((SIZE, SIZE), depth=None)
    expected = per_draw_binds(gl_ctx, fb, s)
    draws = draw_list(gl_ctx, s)
    assert draws.textures.bindless
    one_call(gl_ctx, fb, draws).submit()
    np.testing.assert_array_equal(fb.read(), expected)


def test_a_trace_shows_one_multi_draw_per_pipeline(trace_ctx):
    s = scene()
    draws = draw_list(trace_ctx, s, "instanced")
    fb = trace_ctx.framebuffer((SIZE, SIZE), depth=None)
    one_call(trace_ctx, fb, draws).submit()
    calls = trace_ctx.trace.calls()
    multi = [call for call in calls if call.startswith("multi_draw")]
    assert len(multi) == 2, calls
    # Grouped by pipeline, in add order; each run of one mesh is one instanced command.
    assert draws.draw_ids[:OBJECTS].tolist() == list(range(OBJECTS))
    runs = 1 + sum(a != b for a, b in zip(s["mesh"], s["mesh"][1:], strict=False))
    runs += s["mesh"][PER_PIPELINE - 1] == s["mesh"][PER_PIPELINE]  # a pipeline ends a run
    commands = draws.commands[:runs]
    assert commands["instances"].sum() == OBJECTS
    starts = np.cumsum([0, *commands["instances"][:-1]])
    assert commands["base_instance"].tolist() == starts.tolist()


def test_merged_batches_give_each_pipeline_one_command(trace_ctx):
    s = scene()
    draws = draw_list(trace_ctx, s)
    draws.record(trace_ctx.command_buffer())
    assert [(first, count) for _, first, count in draws.groups] == [(0, 1), (1, 1)]
    sizes = {"quad": 6, "triangle": 3}
    vertices = [sizes[mesh] for mesh in s["mesh"]]
    assert draws.commands["count"][:2].tolist() == [sum(vertices[:100]), sum(vertices[100:])]
    assert draws.draw_ids.tolist() == np.repeat(np.arange(OBJECTS), vertices).tolist()
    assert draws.records["texture_index"][:OBJECTS].tolist() == s["texture"].tolist()


def test_records_follow_std430():
    layout = hypergl.draw_list.record_dtype({"a": "float", "m": "mat4", "v": "vec2"})
    assert [layout.fields[n][1] for n in ("a", "m", "v", "texture_index")] == [0, 16, 80, 88]
    assert layout.itemsize == 96


# --- bad input: every error names the bad value ---------------------------------------
def make(ctx, **overrides):
    args = dict(meshes=meshes(), vertex_layout=LAYOUT, textures=scene()["images"],
                fields=FIELDS, capacity=4)  # fmt: skip
    args.update(overrides)
    return DrawList(ctx, **args)


@pytest.mark.parametrize(
    ("overrides", "error", "match"),
    [
        ({"capacity": 0}, ValueError, "capacity"),
        ({"capacity": "4"}, ValueError, "capacity"),
        ({"fields": {"pos": "vec3"}}, ValueError, "use vec4"),
        ({"fields": {"texture_index": "uint"}}, ValueError, "reserved"),
        ({"fields": {"2x": "float"}}, ValueError, "'2x'"),
        ({"fields": ["model"]}, TypeError, "mapping"),
        ({"meshes": {}}, TypeError, "meshes"),
        ({"meshes": {"q": np.zeros((3, 2), np.float32)}}, ValueError, "'q'"),
        ({"vertex_layout": "f32x2"}, TypeError, "vertex_layout"),
        ({"vertex_layout": [{"location": 0, "format": "u8x4"}]}, ValueError, "u8x4"),
        ({"vertex_layout": [{"location": 15, "format": "f32x2"}]}, ValueError, "15"),
        ({"record_binding": 0}, ValueError, "record_binding 0"),
        ({"texture_unit": 99}, ValueError, "texture_unit"),
        ({"order": "random"}, ValueError, "'random'"),
        ({"batch": "sorted"}, ValueError, "'sorted'"),
        ({"textures": np.zeros((2, 4, 4), np.uint8)}, ValueError, "(2, 4, 4)"),
    ],
)
def test_bad_construction_is_named(trace_ctx, overrides, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace(")", r"\)")):
        make(trace_ctx, **overrides)


def test_bad_context_and_objects_are_named(trace_ctx):
    with pytest.raises(TypeError, match="context"):
        DrawList("ctx", meshes=meshes(), vertex_layout=LAYOUT, textures=scene()["images"],
                 fields=FIELDS, capacity=4)  # fmt: skip
    draws = make(trace_ctx)
    pipe = draws.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS.format(shade="1.0"))
    with pytest.raises(KeyError, match="'cube'"):
        draws.add("cube", texture=0, pipeline=pipe)
    with pytest.raises(ValueError, match=r"texture must be an int in 0\.\.7, got 8"):
        draws.add("quad", texture=8, pipeline=pipe)
    with pytest.raises(TypeError, match="pipeline"):
        draws.add("quad", texture=0, pipeline="pipe")
    with pytest.raises(ValueError, match="'speed'"):
        draws.add("quad", texture=0, pipeline=pipe, speed=1.0)
    with pytest.raises(ValueError, match="'color'"):
        draws.add("quad", texture=0, pipeline=pipe, color=(1, 2, 3))
    with pytest.raises(ValueError, match="vertex_layout"):
        draws.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS, vertex_layout=[])
    with pytest.raises(TypeError, match="vertex_shader"):
        draws.pipeline(vertex_shader="", fragment_shader=LIST_FS)
    with pytest.raises(ValueError, match="stage"):
        draws.glsl("compute")
    with pytest.raises(ResourceError, match="empty"):
        draws.record(trace_ctx.command_buffer())
    with pytest.raises(TypeError, match="command buffer"):
        draws.record("cmd")
    for _ in range(4):
        draws.add("quad", texture=0, pipeline=pipe)
    with pytest.raises(ResourceError, match="full"):
        draws.add("quad", texture=0, pipeline=pipe)
    draws.record(trace_ctx.command_buffer())
    with pytest.raises(ResourceError, match="recorded"):
        draws.add("quad", texture=0, pipeline=pipe)
    draws.release()


def test_add_refuses_a_pipeline_of_another_draw_list_or_of_none(trace_ctx):
    draws, other = make(trace_ctx), make(trace_ctx, name="other")
    pipe = draws.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS.format(shade="1.0"))
    foreign = other.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS.format(shade="1.0"))
    plain = trace_ctx.pipeline(vertex_shader=LIST_VS, fragment_shader=LIST_FS)
    for wrong in (foreign, plain):
        with pytest.raises(ResourceError, match=f"pipeline '{wrong.name}' was not made by "
                                                "this draw list \\('draws'\\)"):  # fmt: skip
            draws.add("quad", texture=0, pipeline=wrong)
    assert len(draws) == 0
    pipe.release()
    with pytest.raises(ResourceError, match="has been released"):
        draws.add("quad", texture=0, pipeline=pipe)
    draws.release()
    other.release()
