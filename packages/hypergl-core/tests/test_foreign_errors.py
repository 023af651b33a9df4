"""Foreign errors where ours belong (issue 36, item 7), at the mechanisms: every resource
factory's argument check raises the project's errors (``resource_checks.argument_check``),
every native failure is translated once (``_native.translate``: a GL_OUT_OF_MEMORY is a
ResourceError naming the resource), the attachments a framebuffer has are checked in one
place (``reading.attachment_index``) and every pose and camera bound for the GPU goes
through one finiteness check (``hypergl.finite``)."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl import HyperGLError, ResourceError, ResourceTypeError
from hypergl.bodies import BodyRenderer, InstanceRecords
from hypergl.errors import BodyError
from hypergl.finite import GPU_LIMIT

DEVICES = ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)]
FIELDS = [{"source": 0, "type": "f32", "stride": 12, "components": 3, "at": 0}]


@pytest.fixture(params=DEVICES)
def ctx(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


# --- one argument check per factory ------------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (
            lambda c: c.buffer(2**32),
            ResourceTypeError,
            r"got the int 4294967296: ctx.buffer\(size=4294967296\) makes an empty buffer",
        ),
        (lambda c: c.buffer(size=2**32), ResourceError, r"1..2\*\*32-1 bytes, got 4294967296"),
        (lambda c: c.buffer(size="64"), ResourceTypeError, "buffer size must be an int"),
        (lambda c: c.framebuffer((4, 4), color=5), ResourceTypeError, "color must be a format"),
        (
            lambda c: c.framebuffer((4, 4), color=None, depth=None),
            ResourceError,
            "needs a colour or a depth attachment",
        ),
        (lambda c: c.readback((4, 4), attachment="colour"), ResourceError, "unknown attachment"),
    ],
    ids=["buffer(2**32)", "size 2**32", "size str", "color 5", "no attachment", "attachment name"],
)
def test_a_factory_refuses_with_our_error(ctx, make, error, match):
    with pytest.raises(error, match=match):
        make(ctx)


def test_color_none_is_a_depth_only_framebuffer(ctx):
    framebuffer = ctx.framebuffer((4, 4), color=None)
    assert framebuffer._desc["color"] == [] and framebuffer._desc["depth"] == "depth24"


@pytest.mark.parametrize(
    "owners", [[], (o for o in [object()]), "abc"], ids=["empty", "generator", "string"]
)
def test_attribute_source_owners_are_refused_with_our_error(ctx, owners):
    with pytest.raises(HyperGLError, match="owners must"):
        ctx.attribute_source(owners=owners, names=["x"], fields=FIELDS, record_size=12)


# --- attachments -----------------------------------------------------------------------------
def test_the_colour_of_a_depth_only_framebuffer_is_refused(ctx):
    depth_only = ctx.framebuffer((4, 4), color=(), depth="depth24")
    with pytest.raises(ResourceError, match=r"has no color0 attachment \(it has depth\)"):
        ctx.readback(depth_only)
    assert ctx.readback(depth_only, attachment="depth", components=1)


@pytest.mark.gl
def test_reading_the_colour_of_a_depth_only_framebuffer_is_refused(gl_ctx):
    depth_only = gl_ctx.framebuffer((4, 4), color=(), depth="depth24")
    with pytest.raises(ResourceError, match=r"has no color0 attachment \(it has depth\)"):
        depth_only.read()
    assert depth_only.read(attachment="depth").shape == (4, 4)
    colour_only = gl_ctx.framebuffer((4, 4), depth=None)
    with pytest.raises(ResourceError, match=r"has no depth attachment \(it has color0\)"):
        colour_only.read(attachment="depth")


# --- native failures -------------------------------------------------------------------------
@pytest.mark.gl
@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda c: c.texture(size=(16384, 16384), format="rgba32f", layers=2048, name="huge"),
            r"making texture 'huge' \(16384x16384 x 2048 layers rgba32f\): OpenGL error "
            "GL_OUT_OF_MEMORY",
        ),
        (
            lambda c: c.framebuffer((16384, 16384), color=("rgba32f",) * 4, name="huge"),
            r"making framebuffer 'huge' \(16384x16384 rgba32f, rgba32f, rgba32f, rgba32f, "
            r"depth24\): OpenGL error GL_OUT_OF_MEMORY",
        ),
    ],
    ids=["texture", "framebuffer"],
)
def test_memory_the_driver_cannot_allocate_is_a_resource_error(gl_ctx, make, match):
    """llvmpipe refuses a texture past what it can address with GL_OUT_OF_MEMORY (8 TiB
    here, 4 GiB of framebuffer): the engine's RuntimeError becomes ours, and the context
    works after it."""
    with pytest.raises(ResourceError, match=match):
        make(gl_ctx)
    assert gl_ctx.framebuffer((2, 2)).read().shape == (2, 2, 4)


# --- one finiteness check for poses and cameras --------------------------------------------------
@pytest.fixture
def bodies(ctx):
    records = InstanceRecords(ctx, 4)
    renderer = BodyRenderer(records, max_ids=4, views=2)
    yield records, renderer
    renderer.release()
    records.release()


@pytest.mark.parametrize("value", [np.nan, np.inf, 1e38, 1e19])
def test_a_pose_not_finite_on_the_gpu_names_its_body(bodies, value):
    records, _ = bodies
    positions = np.zeros((3, 3))
    positions[2, 1] = value
    with pytest.raises(
        BodyError,
        match=r"the position of row 3 \(body id 7\) is not finite on "
        r"the GPU \(NaN, or beyond 1e\+18\)",
    ):
        records.write(positions, np.tile([0, 0, 0, 1.0], (3, 1)), [5, 6, 7], first=1)
    records.write(positions[:2], np.tile([0, 0, 0, 1.0], (2, 1)), [5, 6], first=1)  # fine


@pytest.mark.parametrize("value", [np.nan, 1e38, 1e300])
def test_a_camera_not_finite_on_the_gpu_names_its_view(bodies, value):
    _, renderer = bodies
    bad = np.eye(4)
    bad[0, 3] = value
    with pytest.raises(BodyError, match="view_proj is not finite on the GPU"):
        renderer.set_camera(bad)
    renderer.set_views([np.eye(4)] * 2, (4, 4))
    with pytest.raises(BodyError, match="camera 1 is not finite on the GPU"):
        renderer.set_views([np.eye(4), bad], (4, 4))
    with pytest.raises(BodyError, match="view_proj of view 1 is not finite on the GPU"):
        renderer.set_view_matrices(np.stack([np.eye(4), bad]))
    assert GPU_LIMIT == 1e18


# --- the body renderer's sizes, added up before its first buffer --------------------------------
def test_a_body_renderer_over_its_memory_limit_makes_nothing(ctx):
    records = InstanceRecords(ctx, 4)
    before = len(ctx.live_objects())
    with pytest.raises(
        BodyError,
        match=r"the mesh library \(max_vertices=134217728: 28 bytes "
        r"each\) brings the BodyRenderer to \d+ bytes, over the memory limit",
    ):
        BodyRenderer(records, max_vertices=1 << 27, memory_limit=1 << 30)
    with pytest.raises(BodyError, match=r"the instance lists \(max_parts=65536 x views=4096"):
        BodyRenderer(records, max_ids=4, max_parts=1 << 16, views=1 << 12, memory_limit=1 << 30)
    assert len(ctx.live_objects()) == before
    records.release()
