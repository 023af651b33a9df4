"""Multisampled framebuffers: what a read of one resolves to (colour averaged over each
pixel's samples, depth one of them), the readback ring's reads, and the rejections."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl
from hypergl import ResourceError, ResourceTypeError
from hypergl.multisample_probe import writes_every_sample

SIZE = (16, 16)


def draw_triangle(ctx, fb, **state):
    """A white triangle over the lower right half of `fb` (its diagonal edge crosses
    pixels: there a multisampled pixel is partly covered), at window depth 0.6."""
    draw = ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D,
                        depth_test=True, **state)  # fmt: skip
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1), depth=1.0)
    cmd.bind_pipeline(draw)
    cmd.bind_vertex_buffer(ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.bind_vertex_buffer(ctx.buffer(instances([0, 0, 1, 1, 1, 1]), usage="vertex"), 1)
    cmd.uniform_const(0, 0.2, "float")
    cmd.draw(3)
    cmd.end()
    return cmd


@pytest.mark.gl
def test_a_read_resolves_the_samples(gl_ctx):
    single, multi = gl_ctx.framebuffer(SIZE), gl_ctx.framebuffer(SIZE, samples=4)
    for fb in (single, multi):
        draw_triangle(gl_ctx, fb).submit()
    plain, resolved = single.read()[..., 0], multi.read()[..., 0]
    assert set(np.unique(plain)) == {0, 255}  # single-sampled: covered or not
    edge = (resolved > 0) & (resolved < 255)  # partly covered: between
    assert edge.sum() >= SIZE[0] - 2
    assert np.array_equal(resolved[~edge] == 255, plain[~edge] == 255)
    depth = multi.read(attachment="depth")  # depth: one sample's, never a blend
    assert np.all(np.isclose(depth, 0.6, atol=1e-5) | (depth == 1.0))


@pytest.mark.gl
def test_a_pipeline_without_multisample_writes_one_sample_to_all(gl_ctx):
    # multisample=False: rasterized as one sample, every sample written: no pixel between
    single, multi = gl_ctx.framebuffer(SIZE), gl_ctx.framebuffer(SIZE, samples=4)
    draw_triangle(gl_ctx, single).submit()
    draw_triangle(gl_ctx, multi, multisample=False).submit()
    # the probe's verdict is what the driver does (Mesa 20.3's llvmpipe: one sample of 4)
    assert np.array_equal(multi.read(), single.read()) == writes_every_sample(gl_ctx)
    draw_triangle(gl_ctx, multi).submit()  # the next pipeline's multisampled again
    resolved = multi.read()[..., 0]
    assert ((resolved > 0) & (resolved < 255)).sum() >= SIZE[0] - 2


def test_multisample_is_recorded_only_when_off(trace_ctx):
    on = trace_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    off = trace_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D,
                             vertex_layout=LAYOUT_2D, multisample=False)  # fmt: skip
    assert "multisample" not in on.describe() and off.describe()["multisample"] is False


@pytest.mark.gl
def test_the_readback_ring_reads_resolved_pixels(gl_ctx):
    multi = gl_ctx.framebuffer(SIZE, samples=4)
    ring = gl_ctx.readback(multi, depth=2)
    cmd = draw_triangle(gl_ctx, multi)
    capture = gl_ctx.command_buffer()
    capture.read_framebuffer(ring, multi)
    capture.end()
    cmd.submit()
    capture.submit()
    assert np.array_equal(ring.read(lag=0), multi.read())


@pytest.mark.gl
@pytest.mark.parametrize("multisample", [True, False])
def test_a_saved_program_keeps_the_samples(gl_ctx, tmp_path, multisample):
    multi = gl_ctx.framebuffer(SIZE, samples=4, name="target")
    cmd = draw_triangle(gl_ctx, multi, multisample=multisample)
    cmd.submit()
    expected = multi.read()
    path = tmp_path / "msaa.hgb"
    hypergl.save(cmd, path)
    with hypergl.context() as fresh:
        scene = fresh.load(path)
        scene.submit()
        assert np.array_equal(scene["target"].read(), expected)  # resolved alike


@pytest.mark.gl
def test_samples_beyond_the_device_are_refused(gl_ctx):
    most = gl_ctx.capabilities.limits["max_samples"]
    with pytest.raises(ResourceError, match=f"{most + 1} samples a pixel exceed this device's "
                                            f"max_samples of {most}"):  # fmt: skip
        gl_ctx.framebuffer(SIZE, samples=most + 1)


@pytest.mark.gl
def test_integer_attachments_take_max_integer_samples(gl_ctx):
    most = gl_ctx.capabilities.limits["max_integer_samples"]
    with pytest.raises(ResourceError, match="max_integer_samples"):
        gl_ctx.framebuffer(SIZE, color=("rgba8", "r32ui"), samples=most + 1)


@pytest.mark.parametrize("samples", [-1])
def test_negative_samples_are_refused(trace_ctx, samples):
    with pytest.raises(ResourceError, match=r"samples must be 0 .* got -1"):
        trace_ctx.framebuffer(SIZE, samples=samples)


@pytest.mark.parametrize("samples", [True, 4.0, "4", None])
def test_samples_of_another_type_are_refused(trace_ctx, samples):
    with pytest.raises(ResourceTypeError, match="samples must be an int"):
        trace_ctx.framebuffer(SIZE, samples=samples)


def test_the_portable_limit_holds_off_the_gl_device(trace_ctx):
    trace_ctx.framebuffer(SIZE, samples=4)  # what every OpenGL 4.5 driver offers
    with pytest.raises(ResourceError, match="max_samples of 4"):
        trace_ctx.framebuffer(SIZE, samples=8)


def resolve_into(ctx, source, destination):
    cmd = ctx.command_buffer()
    cmd.resolve_framebuffer(source, destination)
    cmd.end()
    return cmd


@pytest.mark.gl
def test_resolve_framebuffer_copies_the_resolved_samples(gl_ctx):
    multi = gl_ctx.framebuffer(SIZE, samples=4)
    single = gl_ctx.framebuffer(SIZE)
    draw_triangle(gl_ctx, multi).submit()
    resolve_into(gl_ctx, multi, single).submit()
    assert np.array_equal(single.read(), multi.read())  # colour averaged, as a read's
    depth = single.read(attachment="depth")  # the depth too: one sample's
    assert np.array_equal(depth, multi.read(attachment="depth"))


@pytest.mark.gl
def test_resolve_framebuffer_copies_every_colour_attachment(gl_ctx):
    formats = ("rgba8", "rgba8")
    source = gl_ctx.framebuffer(SIZE, color=formats)
    destination = gl_ctx.framebuffer(SIZE, color=formats, depth=None)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(source)
    cmd.clear(color=(0.2, 0.4, 0.6, 1.0), depth=1.0)
    cmd.end()
    cmd.submit()
    resolve_into(gl_ctx, source, destination).submit()
    for attachment in ("color0", "color1"):
        assert np.array_equal(destination.read(attachment=attachment),
                              source.read(attachment=attachment))  # fmt: skip


@pytest.mark.gl
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda ctx: ctx.framebuffer((8, 16)), r"sizes differ \(16x16, 8x16\)"),
        (lambda ctx: ctx.framebuffer(SIZE, samples=4), "the destination is multisampled"),
        (lambda ctx: ctx.framebuffer(SIZE, color=("r32f",)), "colour attachment 0 has another"),
        (lambda ctx: ctx.framebuffer(SIZE, color=("rgba8", "rgba8")), "colour attachments differ"),
        (lambda ctx: ctx.framebuffer(SIZE, color=(), depth="depth24"), "colour attachments differ"),
        (lambda ctx: ctx.framebuffer(SIZE, depth="depth32f"), "depths differ"),
    ],
)
def test_resolve_framebuffer_refuses_another_layout(gl_ctx, make, message):
    source = gl_ctx.framebuffer(SIZE, samples=4, name="multi")
    with pytest.raises(hypergl.HyperGLError, match=message):
        resolve_into(gl_ctx, source, make(gl_ctx)).submit()


@pytest.mark.gl
def test_resolve_framebuffer_refuses_one_framebuffer_twice(gl_ctx):
    single = gl_ctx.framebuffer(SIZE, name="single")
    with pytest.raises(hypergl.HyperGLError, match="'single' -> 'single': the same framebuffer"):
        resolve_into(gl_ctx, single, single).submit()


def test_resolve_framebuffer_is_a_device_call(trace_ctx):
    source = trace_ctx.framebuffer(SIZE, samples=4, name="multi")
    destination = trace_ctx.framebuffer(SIZE, name="single")
    cmd = resolve_into(trace_ctx, source, destination)
    cmd.submit()
    assert trace_ctx.trace.calls() == ["resolve_framebuffer"]
    assert "single" in str(trace_ctx.trace[0]) and "multi" in str(trace_ctx.trace[0])


SAMPLES_VS = """#version 430
const vec2 CORNERS[3] = vec2[3](vec2(-1, -1), vec2(3, -1), vec2(-1, 3));
void main() { gl_Position = vec4(CORNERS[gl_VertexID], 0.0, 1.0); }
"""
SAMPLES_FS = """#version 430
layout(binding = 0) uniform sampler2DMS samples;
out vec4 color;
void main() {
    vec4 sum = vec4(0.0);
    for (int i = 0; i < 4; ++i) sum += texelFetch(samples, ivec2(gl_FragCoord.xy), i);
    color = sum * 0.25;
}
"""


@pytest.mark.gl
def test_a_pass_reads_the_samples_themselves(gl_ctx):
    """sample_texture: the multisampled colour itself, its samples unresolved; a pass that
    averages them draws what a read's resolve gives (an 8-bit rounding apart)."""
    multi = gl_ctx.framebuffer(SIZE, samples=4)
    single = gl_ctx.framebuffer(SIZE, depth=None)
    assert (multi.samples, single.samples) == (4, 0)
    draw_triangle(gl_ctx, multi).submit()
    average = gl_ctx.pipeline(vertex_shader=SAMPLES_VS, fragment_shader=SAMPLES_FS)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(single)
    cmd.bind_pipeline(average)
    cmd.bind_texture(multi.sample_texture(0), 0)
    cmd.draw(3)
    cmd.end()
    cmd.submit()
    expected = multi.read().astype(int)
    edge = (expected[..., 0] > 0) & (expected[..., 0] < 255)
    assert edge.sum() >= SIZE[0] - 2  # partly covered pixels: their samples differ
    assert np.abs(single.read().astype(int) - expected).max() <= 1
    assert multi.sample_texture(0) is multi.sample_texture()  # one view, kept
    multi.release()
    with pytest.raises(ResourceError):  # released with the framebuffer
        multi.sample_texture(0)


@pytest.mark.gl
def test_sample_texture_needs_a_multisampled_framebuffer_and_an_attachment(gl_ctx):
    single = gl_ctx.framebuffer(SIZE)
    with pytest.raises(ResourceError, match="is single-sampled: it has no sample textures"):
        single.sample_texture(0)
    multi = gl_ctx.framebuffer(SIZE, samples=4)
    for index in (1, -1, True, "0"):
        with pytest.raises(ResourceError, match=f"has no colour attachment {index!r}"):
            multi.sample_texture(index)
    samples = multi.sample_texture(0)
    with pytest.raises(ResourceError, match=r"holds framebuffer '.*''s samples: draw into"):
        samples.write(np.zeros((SIZE[1], SIZE[0], 4), np.uint8))
    single.release()
    multi.release()


def test_a_sample_texture_stands_in_off_the_gl_device(trace_ctx):
    multi = trace_ctx.framebuffer(SIZE, samples=4)
    texture = multi.sample_texture(0)
    assert isinstance(texture, hypergl.Texture) and multi.sample_texture(0) is texture
    cmd = trace_ctx.command_buffer()
    cmd.bind_texture(texture, 0)  # a program may bind it as any attachment's texture
    cmd.end()
    multi.release()


def test_the_multisample_probe_draws_nothing_off_the_gl_device(trace_ctx):
    assert writes_every_sample(trace_ctx) and writes_every_sample(trace_ctx)  # (cached)


@pytest.mark.parametrize("bad", [None, "gl", object()])
def test_the_multisample_probe_names_what_is_not_a_context(bad):
    with pytest.raises(TypeError, match="writes_every_sample needs a hypergl context"):
        writes_every_sample(bad)
