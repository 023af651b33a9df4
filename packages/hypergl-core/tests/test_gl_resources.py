"""Buffers, readback, lifetime and bad input on the gl device."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl
from hypergl import ResourceError, ShaderError, VMError

pytestmark = pytest.mark.gl


def colour_program(ctx, fb, colour_register=0):
    """Clears `fb` to the grey level in register r0 (as a float) each submit."""
    pipe = ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    tint = ctx.buffer(instances([0, 0, 1, 1, 1, 1]), usage="vertex")
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(pipe)
    cmd.bind_vertex_buffer(ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.bind_vertex_buffer(tint, 1)
    cmd.draw(6)
    return cmd, tint


def test_mapped_buffer_is_zero_copy_and_seen_by_the_gpu(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    cmd, tint = colour_program(gl_ctx, fb)
    cmd.end()
    colour = tint.map(np.float32, (6,))
    assert colour.base is not None  # a view, not a copy
    for grey in (0.0, 1.0, 0.5):
        colour[2:5] = grey
        cmd.submit()
        assert abs(int(fb.read()[0, 0, 0]) - round(grey * 255)) <= 1


def test_read_into_a_caller_owned_array(gl_ctx):
    fb = gl_ctx.framebuffer((8, 4))
    cmd, _ = colour_program(gl_ctx, fb)
    cmd.end()
    cmd.submit()
    out = np.zeros((4, 8, 3), np.uint8)
    assert fb.read(out, components=3) is out
    assert (out == 255).all()


def test_readback_ring_gives_frames_one_submit_later(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    cmd, tint = colour_program(gl_ctx, fb)
    ring = gl_ctx.readback(fb, depth=3)
    cmd.read_framebuffer(ring, fb)
    cmd.end()
    colour = tint.map(np.float32, (6,))
    greys = [0.0, 0.25, 0.5, 0.75]
    for frame, grey in enumerate(greys):
        colour[2:5] = grey
        cmd.submit()
        assert ring.frames_written == frame + 1
        if frame >= 1:
            previous = ring.read(lag=1)
            assert abs(int(previous[0, 0, 0]) - round(greys[frame - 1] * 255)) <= 1
    newest = ring.read(lag=0)
    assert abs(int(newest[0, 0, 0]) - round(0.75 * 255)) <= 1
    with pytest.raises(ValueError, match="lag"):
        ring.read(lag=3)


def test_release_and_live_objects(gl_ctx):
    a = gl_ctx.buffer(size=16, name="a")
    b = gl_ctx.buffer(size=16, name="b")
    assert gl_ctx.live_objects() == [a, b]
    view = a.map(np.uint32)
    a.release()
    assert a.released and gl_ctx.live_objects() == [b]
    view[:] = 7  # the array keeps its memory alive: no crash
    assert view.tolist() == [7, 7, 7, 7]
    with pytest.raises(ResourceError, match="'a' has been released"):
        a.map()
    with pytest.raises(ResourceError, match="released"):
        gl_ctx.command_buffer().load(0, a, 0)
    gl_ctx.release("all")
    assert b.released and gl_ctx.live_objects() == []


def test_a_program_whose_buffer_was_released_raises(gl_ctx):
    data = gl_ctx.buffer(size=16, name="data")
    cmd = gl_ctx.command_buffer()
    cmd.load(0, data, 0)
    cmd.end()
    cmd.submit()
    data.release()
    with pytest.raises(ResourceError, match="'data' has been released"):
        cmd.submit()


def test_objects_of_another_context_are_refused(gl_ctx):
    other = hypergl.context(device="trace")
    foreign = other.buffer(size=4)
    with pytest.raises(ResourceError, match="another context"):
        gl_ctx.command_buffer().load(0, foreign, 0)
    with pytest.raises(ResourceError, match="another context"):
        gl_ctx.release(foreign)


def test_shader_errors_carry_the_driver_log(gl_ctx):
    with pytest.raises(ShaderError, match="vertex shader did not compile") as info:
        gl_ctx.pipeline(vertex_shader="#version 430\nvoid main() { oops; }", fragment_shader=FS_2D)
    assert "oops" in str(info.value)
    bad_link = (
        "#version 430\nin vec4 missing_input;\nout vec4 c;\nvoid main() { c = missing_input; }"
    )
    vs = "#version 430\nout vec4 other;\nvoid main() { other = vec4(1); gl_Position = vec4(0); }"
    with pytest.raises(ShaderError):
        gl_ctx.pipeline(vertex_shader=vs, fragment_shader=bad_link)


@pytest.mark.parametrize(
    "state, message",
    [
        ({"topology": "hexagons"}, "topology 'hexagons'"),
        ({"cull": "sideways"}, "cull 'sideways'"),
        ({"depth_test": "yes"}, "depth_test must be True or False"),
        ({"blend": "add"}, "blend 'add'"),
        ({"wireframe": True}, "unknown pipeline state"),
        ({"vertex_layout": [{"stride": 8, "attributes": [{"location": 0, "format": "f64"}]}]},
         "vertex format 'f64'"),
        ({"vertex_layout": [{"stride": 4, "attributes": [{"location": 0, "format": "f32x2"}]}]},
         "does not fit in stride 4"),
        ({"vertex_layout": [{"stride": 8, "attributes": [{"location": 99, "format": "f32"}]}]},
         "location of attribute"),
        ({"clip_distances": 9}, r"clip_distances 9 is not an int in 0..8"),
        ({"clip_distances": True}, r"clip_distances True is not an int"),
        ({"multisample": 1}, "multisample must be True or False, got 1"),
    ],
)  # fmt: skip
def test_pipeline_state_is_validated(gl_ctx, state, message):
    with pytest.raises(ValueError, match=message):
        gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, **state)


def test_texture_bad_input(gl_ctx):
    with pytest.raises(TypeError, match="rgba8 pixels must be uint8"):
        gl_ctx.texture(np.zeros((4, 4, 4), np.float32))
    with pytest.raises(ValueError, match="shape"):
        gl_ctx.texture(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="unknown texture format 'rgb565'"):
        gl_ctx.texture(size=(4, 4), format="rgb565")
    with pytest.raises(ValueError, match="texture of 1048576x4 exceeds the limit of"):
        gl_ctx.texture(size=(1 << 20, 4))
    with pytest.raises(ValueError, match="NaN"):
        gl_ctx.texture(np.full((2, 2, 1), np.nan, np.float32), format="r32f")


def test_framebuffer_and_read_bad_input(gl_ctx):
    with pytest.raises(ValueError, match="must be positive"):
        gl_ctx.framebuffer((0, 4))
    with pytest.raises(ValueError, match="unknown colour format 'rgb9'"):
        gl_ctx.framebuffer((4, 4), color=["rgb9"])
    fb = gl_ctx.framebuffer((8, 8))
    with pytest.raises(ValueError, match=r"shape \(8, 8, 4\)"):
        fb.read(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        fb.read(np.zeros((8, 8, 4), np.float32))
    with pytest.raises(ValueError, match="has no color1"):
        fb.read(attachment="color1")
    with pytest.raises(ValueError, match="no depth attachment"):
        gl_ctx.framebuffer((4, 4), depth=None).read(attachment="depth")


def test_buffer_bad_input(gl_ctx):
    with pytest.raises(ValueError, match="needs data or size"):
        gl_ctx.buffer()
    with pytest.raises(ValueError, match=r"must be in 1\.\.2"):
        gl_ctx.buffer(size=0)
    with pytest.raises(TypeError, match="size must be an int"):
        gl_ctx.buffer(size=4.5)
    with pytest.raises(ValueError, match="unknown buffer usage 'sideways'"):
        gl_ctx.buffer(size=4, usage="sideways")
    buf = gl_ctx.buffer(size=12)
    with pytest.raises(ValueError, match="not a whole number"):
        buf.map(np.float64)
    with pytest.raises(ValueError, match="needs 16 bytes"):
        buf.map(np.float32, (4,))
    with pytest.raises(ValueError, match="do not fit"):
        buf.write(b"x" * 8, offset=8)


def test_a_gl_error_in_a_run_is_reported(gl_ctx):
    compute = gl_ctx.pipeline(
        compute_shader="#version 430\nlayout(local_size_x=1) in;\nvoid main(){}"
    )
    cmd = gl_ctx.command_buffer()
    cmd.bind_pipeline(compute)
    cmd.lf(0, 1.0)
    cmd.uniform_f(0, 5)  # no uniform at location 5: GL_INVALID_OPERATION
    cmd.dispatch(1)
    cmd.end()
    with pytest.raises(VMError, match="OpenGL error GL_INVALID_OPERATION") as info:
        cmd.submit()
    assert info.value.index == -1  # found after the run
    with pytest.raises(VMError, match="GL_INVALID_OPERATION") as info:
        cmd.submit(debug=True)
    assert (info.value.index, info.value.mnemonic) == (2, "uniform_f")


def test_dispatch_needs_a_compute_pipeline(gl_ctx):
    graphics = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D)
    bad = gl_ctx.command_buffer()
    bad.bind_pipeline(graphics)
    bad.dispatch(1)
    bad.end()
    with pytest.raises(VMError, match="compute pipeline") as info:
        bad.submit()
    assert info.value.mnemonic == "dispatch"


def test_numba_writes_into_a_mapped_buffer(gl_ctx):
    numba = pytest.importorskip("numba")

    @numba.njit(cache=False)
    def fill(values):
        for i in range(values.shape[0]):
            values[i] = i * 2

    buf = gl_ctx.buffer(size=64)
    fill(buf.map(np.uint32))
    assert buf.read(np.uint32).tolist() == [i * 2 for i in range(16)]


def test_read_a_rectangle(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    cmd, _ = colour_program(gl_ctx, fb)
    cmd.end()
    cmd.submit()
    part = fb.read(rect=(2, 1, 3, 4), components=3)
    assert part.shape == (4, 3, 3) and (part == 255).all()
    with pytest.raises(ValueError, match="not inside the 8x8 framebuffer"):
        fb.read(rect=(6, 0, 3, 1))
    with pytest.raises(TypeError, match="rect must be"):
        fb.read(rect=(1, 2))


def test_texture_write_replaces_the_pixels(gl_ctx):
    texture = gl_ctx.texture(np.zeros((2, 2, 4), np.uint8), filter="nearest")
    texture.write(np.full((2, 2, 4), 200, np.uint8))
    with pytest.raises(ValueError, match="is 2x2, the data is 3x2"):
        texture.write(np.zeros((2, 3, 4), np.uint8))
    with pytest.raises(TypeError, match="uint8"):
        texture.write(np.zeros((2, 2, 4), np.float32))
    pixels = np.array([np.full((2, 2, 4), 9, np.uint8)])
    with pytest.raises(ResourceError, match="cannot be rewritten"):
        gl_ctx.texture_set(pixels).write(pixels[0])
    texture.release()
    with pytest.raises(ResourceError, match="released"):
        texture.write(np.zeros((2, 2, 4), np.uint8))


def test_prepared_submit_and_pixel_reader(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    cmd, tint = colour_program(gl_ctx, fb)
    cmd.end()
    prepared = cmd.prepare()
    assert prepared.stats is None
    out = np.zeros((8, 8, 4), np.uint8)
    reader = fb.reader(out)
    colour = tint.map(np.float32, (6,))
    for grey in (0.0, 1.0):
        colour[2:5] = grey
        prepared.submit()
        assert reader.read() is out
        assert out[0, 0, 0] == round(grey * 255)
    assert prepared.stats.draws == 1
    with pytest.raises(ValueError, match="shape"):
        fb.reader(np.zeros((4, 4, 4), np.uint8))
    tint.release()
    with pytest.raises(ResourceError, match="released"):
        prepared.submit()


def test_arrays_outlive_a_closed_context_and_then_let_it_go():
    import gc
    import weakref

    ctx = hypergl.context()
    array = ctx.buffer(size=1 << 16).map(np.uint32)
    host = weakref.ref(ctx._host)
    ctx.close()
    array[:] = 7  # the GL context is kept for the array: no dangling memory
    assert array[:3].tolist() == [7, 7, 7]
    gc.collect()
    assert host() is not None
    del array
    gc.collect()
    assert host() is None  # the last array gone, the EGL context went with it
    with pytest.raises(hypergl.ContextError, match="closed"):
        ctx.buffer(size=4)


def test_a_context_released_by_the_garbage_collector_leaves_the_current_one_bound():
    import gc

    first, second = hypergl.context(), hypergl.context()
    try:
        array = first.buffer(size=16).map()
        first.close()  # kept alive by the array
        second._enter()
        del array
        gc.collect()  # first's EGL context goes now, in the middle of second's work
        # A native call made without re-binding (as after a collection inside a call):
        vs = "#version 430\nvoid main() { gl_Position = vec4(0.0); }"
        fs = "#version 430\nout vec4 c; void main() { c = vec4(1.0); }"
        second._native.gl_pipeline("p", vs, fs, "", 4, False, True, 0x201, False, 0, 0x901, [], [])
    finally:
        second.close()


def test_a_resource_of_a_closed_context_is_still_a_resource_error():
    """Closing a context releases its resources: using one raises the context's reason as
    a ContextError that is still the ResourceError it raised before (issue 33: every
    exception stays an instance of what it was)."""
    ctx = hypergl.context()
    data = ctx.buffer(size=16, name="data")
    ctx.close()
    with pytest.raises(ResourceError) as caught:
        data.read()
    assert isinstance(caught.value, hypergl.ContextError)
