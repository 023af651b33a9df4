"""External sources: strided arrays converted into buffers in C++, in a program or directly."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl import HyperGLError, VMError

POSITION = {"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}
ROTATION = {"source": 1, "type": "f32", "stride": 16, "components": 4, "to": "f32", "at": 16}


def world(rows):
    positions = np.arange(rows * 4, dtype=np.float64).reshape(rows, 4)
    rotations = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4) + 0.5
    return positions, rotations


def test_upload_converts_rows_into_records(ctx):
    positions, rotations = world(5)
    calls = []
    source = ctx.external_source(
        lambda: (positions, rotations),
        [POSITION, ROTATION],
        record_size=32,
        release=lambda: calls.append("released"),
    )
    records = ctx.buffer(size=32 * 8)
    count = ctx.buffer(size=16, usage="indirect")
    counted = ctx.external_source(
        lambda: (positions, rotations), [POSITION], record_size=32, count=(count, 4)
    )
    ctx.upload(source, records)
    ctx.upload(counted, records)
    view = records.map(np.float32, (8, 8))
    assert np.array_equal(view[:5, :3], positions[:, :3].astype(np.float32))
    assert np.array_equal(view[:5, 4:], rotations)
    assert calls == ["released"]
    assert source.rows_uploaded == 5
    assert count.map(np.uint32)[1] == 5


def test_upload_inside_a_program(ctx):
    positions, rotations = world(3)
    source = ctx.external_source(lambda: (positions, rotations), [POSITION, ROTATION],
                                 record_size=32)  # fmt: skip
    records = ctx.buffer(size=32 * 3)
    cmd = ctx.command_buffer()
    cmd.upload(source, records)
    cmd.end()
    positions[:, 0] = 42.0
    cmd.submit()
    assert (records.map(np.float32, (3, 8))[:, 0] == 42.0).all()


def test_too_many_rows_is_an_error(ctx):
    positions, rotations = world(10)
    source = ctx.external_source(lambda: (positions, rotations), [POSITION], record_size=32)
    small = ctx.buffer(size=32 * 4, name="small")
    with pytest.raises(HyperGLError, match="10 rows, more than the 4 records"):
        ctx.upload(source, small)
    cmd = ctx.command_buffer()
    cmd.upload(source, small)
    cmd.end()
    with pytest.raises(VMError, match="more than the 4 records") as info:
        cmd.submit()
    assert info.value.mnemonic == "upload"


def test_disagreeing_arrays_and_bad_acquire(ctx):
    positions, _ = world(4)
    _, rotations = world(3)
    records = ctx.buffer(size=32 * 8)
    mixed = ctx.external_source(lambda: (positions, rotations), [POSITION, ROTATION],
                                record_size=32)  # fmt: skip
    with pytest.raises(HyperGLError, match="disagree on their rows"):
        ctx.upload(mixed, records)
    broken = ctx.external_source(lambda: 1 / 0, [POSITION], record_size=32)
    with pytest.raises(HyperGLError, match="ZeroDivisionError"):
        ctx.upload(broken, records)
    not_buffers = ctx.external_source(lambda: ("text",), [POSITION], record_size=32)
    with pytest.raises(HyperGLError, match="acquiring"):
        ctx.upload(not_buffers, records)


def test_field_validation(ctx):
    def bad(**change):
        return ctx.external_source(lambda: (), [{**POSITION, **change}], record_size=32)

    with pytest.raises(ValueError, match="type 'f16'"):
        bad(type="f16")
    with pytest.raises(ValueError, match="does not fit a 32-byte source row"):
        bad(offset=16)
    with pytest.raises(ValueError, match="does not fit a 32-byte record"):
        bad(at=24)
    with pytest.raises(ValueError, match="unknown keys"):
        bad(colour="red")
    with pytest.raises(TypeError, match="acquire must be callable"):
        ctx.external_source(42, [POSITION], record_size=32)
    with pytest.raises(TypeError, match="fields must be"):
        ctx.external_source(lambda: (), [], record_size=32)


def test_released_sources_cannot_upload(ctx):
    positions, rotations = world(2)
    source = ctx.external_source(lambda: (positions, rotations), [POSITION], record_size=32)
    records = ctx.buffer(size=64)
    source.release()
    with pytest.raises(ValueError, match="released"):
        ctx.upload(source, records)


def test_every_type_pair_and_wide_fields_convert(ctx):
    types = {"f32": np.float32, "f64": np.float64, "u32": np.uint32, "u64": np.uint64,
             "i32": np.int32}  # fmt: skip
    for components in (1, 3, 6):  # 6 takes the generic path
        for source_name, source_type in types.items():
            for target_name, target_type in types.items():
                values = (np.arange(4 * components) % 7 + 1).astype(source_type)
                values = values.reshape(4, components)
                stride = values.itemsize * components
                size = np.dtype(target_type).itemsize * components
                source = ctx.external_source(
                    lambda v=values: (v,),
                    [{"source": 0, "type": source_name, "stride": stride,
                      "components": components, "to": target_name}],
                    record_size=size,
                )  # fmt: skip
                out = ctx.buffer(size=4 * size)
                ctx.upload(source, out)
                got = out.map(target_type, (4, components))
                assert np.array_equal(got, values.astype(target_type)), (
                    source_name,
                    target_name,
                    components,
                )


def test_the_engine_rechecks_fields_it_is_given_directly(ctx):
    # The private entry point, bypassing the facade's checks: still no out-of-bounds copy.
    bad = [(0, 1, 8, 4, 2, 0, 0)]  # two f64 from offset 4 in 8-byte rows
    with pytest.raises(ValueError, match="does not fit"):
        ctx._native.external_source("raw", lambda: (), None, bad, 16, None, 0)
    counter = ctx.buffer(size=4)
    good = [(0, 0, 4, 0, 1, 0, 0)]
    with pytest.raises(ValueError, match="count offset"):
        ctx._native.external_source("raw", lambda: (), None, good, 4, counter._native, 4)
