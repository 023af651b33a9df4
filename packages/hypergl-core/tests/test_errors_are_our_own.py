"""Every error is the project's own and names the bad value (issue 17, items 4 and 5).

Before: a fence described with ``"size": -1`` made ``ctx.load`` raise nanobind's
TypeError, an external-source field stride of 2**40 raised nanobind's TypeError,
a float32 array read by an ``"f64"`` field was reinterpreted byte for byte, and
``trace`` / ``null`` accepted textures and framebuffers that ``gl`` rejects.
"""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl import HyperGLError, ResourceError, VMError
from hypergl.limits import PORTABLE_LIMITS
from hypergl_compiler import Program, Resource, hgb, isa
from hypergl_compiler.isa import ResourceKind

DEVICES = ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)]


@pytest.fixture(params=DEVICES)
def ctx(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


# --- resource descriptions -----------------------------------------------------------------


def test_a_fence_with_a_negative_size_in_a_hgb_loads(ctx):
    """A size means nothing for a fence: it is ignored, not passed to the engine."""
    program = Program(
        code=isa.encode(isa.BY_NAME["fence_signal"], b=0),
        resources=(Resource(ResourceKind.FENCE, "f", {"size": -1}),),
    )
    scene = ctx.load(hgb.dumps(program))
    assert scene.submit().device_calls == 1


@pytest.mark.parametrize("size", [-1, 1 << 64])
def test_a_buffer_declaring_an_impossible_size_is_a_resource_error(size):
    program = Program(code=b"", resources=(Resource(ResourceKind.BUFFER, "big", {"size": size}),))
    with pytest.raises(ResourceError, match=f"buffer 'big' declares a size of {size} bytes"):
        hypergl.verify(program)


# --- external sources ------------------------------------------------------------------------

FIELD = {"source": 0, "type": "f64", "stride": 8, "components": 1, "to": "f32", "at": 0}


@pytest.fixture(params=["trace", pytest.param("gl", marks=pytest.mark.gl)])
def upload_ctx(request):
    """Devices that carry uploads out (null does nothing, by design)."""
    context = hypergl.context(device=request.param)
    yield context
    context.close()


@pytest.mark.parametrize("key", ["stride", "offset", "at", "source", "components"])
def test_an_external_field_value_beyond_32_bits_is_a_value_error(ctx, key):
    field = {**FIELD, key: 2**40}
    with pytest.raises(ValueError, match=f"field {key} must be an int in .*, got 1099511627776"):
        ctx.external_source(lambda: (np.zeros(4),), [field], record_size=4)


def test_record_size_and_count_offset_beyond_32_bits_are_value_errors(ctx):
    with pytest.raises(ValueError, match=r"record_size must be an int in 1\.\.4294967295"):
        ctx.external_source(lambda: (np.zeros(4),), [FIELD], record_size=2**40)
    counts = ctx.buffer(size=16)
    with pytest.raises(ValueError, match=r"count offset must be an int in 0\.\.4294967295"):
        ctx.external_source(lambda: (np.zeros(4),), [FIELD], record_size=4,
                            count=(counts, 2**40))  # fmt: skip


def test_a_float32_array_for_an_f64_field_is_refused(upload_ctx):
    """Issue 17: [0, 1, 2] as float32 came out as [0.0078, 32.0, 2048.0]."""
    values = np.arange(3, dtype=np.float32)
    source = upload_ctx.external_source(lambda: (values,), [FIELD], record_size=4, name="world")
    records = upload_ctx.buffer(size=12)
    expected = ("external source 'world': field 0 reads source 0 as f64, but that array "
                "holds float32 \\(format 'f'\\)")  # fmt: skip
    with pytest.raises(HyperGLError, match=expected):
        upload_ctx.upload(source, records)
    cmd = upload_ctx.command_buffer()
    cmd.upload(source, records)
    cmd.end()
    with pytest.raises(VMError, match=expected):
        cmd.submit()


@pytest.mark.parametrize(
    ("array", "field_type"),
    [
        (np.arange(3, dtype=np.float64), "f64"),
        (np.arange(3, dtype=np.float32), "f32"),
        (np.arange(3, dtype=np.uint32), "u32"),
        (np.arange(3, dtype=np.int32), "i32"),
        (np.arange(3, dtype=np.uint64), "u64"),
    ],
)
def test_arrays_of_the_declared_type_upload(upload_ctx, array, field_type):
    field = {**FIELD, "type": field_type, "stride": array.itemsize}
    source = upload_ctx.external_source(lambda: (array,), [field], record_size=4)
    records = upload_ctx.buffer(size=12)
    upload_ctx.upload(source, records)
    assert records.map(np.float32).tolist() == [0.0, 1.0, 2.0]


def test_untyped_bytes_are_read_as_the_field_says(upload_ctx):
    raw = np.arange(3, dtype=np.float64).view(np.uint8)  # bytes carry no element type
    source = upload_ctx.external_source(lambda: (raw, bytes(raw)), [FIELD], record_size=4)
    records = upload_ctx.buffer(size=12)
    upload_ctx.upload(source, records)
    assert records.map(np.float32).tolist() == [0.0, 1.0, 2.0]


def test_a_refused_upload_still_calls_release(upload_ctx):
    """The views were acquired: release() must run (a bridge holds a lock until then)."""
    calls = []
    values = np.arange(3, dtype=np.float32)
    source = upload_ctx.external_source(lambda: (values,), [FIELD], record_size=4,
                                 release=lambda: calls.append("released"))  # fmt: skip
    with pytest.raises(HyperGLError, match="as f64"):
        upload_ctx.upload(source, upload_ctx.buffer(size=12))
    assert calls == ["released"]


def test_a_field_that_copies_without_converting_reads_any_array(upload_ctx):
    """type == to copies bits: float32 pairs moved as u64 (hypergl-culverin does)."""
    values = np.arange(4, dtype=np.float32)
    field = {"source": 0, "type": "u64", "stride": 16, "components": 2, "to": "u64", "at": 0}
    source = upload_ctx.external_source(lambda: (values,), [field], record_size=16)
    records = upload_ctx.buffer(size=16)
    upload_ctx.upload(source, records)
    assert records.map(np.float32).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_int32_for_a_u32_field_is_refused(upload_ctx):
    values = np.arange(3, dtype=np.int32)
    field = {**FIELD, "type": "u32", "stride": 4}
    source = upload_ctx.external_source(lambda: (values,), [field], record_size=4)
    with pytest.raises(HyperGLError, match="reads source 0 as u32, but that array holds int32"):
        upload_ctx.upload(source, upload_ctx.buffer(size=12))


@pytest.mark.parametrize("timeout", [float("nan"), -1, True, "1s"])
def test_a_bad_fence_timeout_names_the_value(ctx, timeout):
    fence = ctx.fence()
    with pytest.raises(ValueError, match="timeout must be a non-negative number of seconds"):
        fence.wait(timeout)


@pytest.mark.parametrize("timeout", [1e20, float("inf")])
def test_a_huge_fence_timeout_waits_as_long_as_needed(ctx, timeout):
    """1e20 s was nanobind's TypeError and inf an OverflowError on gl."""
    fence = ctx.fence()
    cmd = ctx.command_buffer()
    cmd.fence_signal(fence)
    cmd.end()
    cmd.submit()
    assert fence.wait(timeout) is True


# --- one limits table for every device --------------------------------------------------------


def test_every_device_applies_the_portable_limits(ctx):
    assert set(ctx.limits) == set(PORTABLE_LIMITS)
    assert all(ctx.limits[name] <= PORTABLE_LIMITS[name] for name in PORTABLE_LIMITS)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda c: c.texture(size=(2**20, 2**20)), "texture of 1048576x1048576 exceeds the limit"),
        (lambda c: c.texture(size=(16, 16), layers=4096), "4096 layers exceed the limit"),
        (lambda c: c.framebuffer((2**31 - 1, 1)), "framebuffer of 2147483647x1 exceeds the limit"),
        (lambda c: c.readback((2**20, 4)), "readback of 1048576x4 exceeds the limit"),
        (lambda c: c.texture_set(np.zeros((4096, 1, 1, 4), np.uint8)), "4096 layers exceed"),
    ],
)  # fmt: skip
def test_trace_and_null_reject_what_gl_rejects(ctx, make, message):
    with pytest.raises(ValueError, match=message):
        make(ctx)
