"""``ctx.attribute_source``: an owner's array attributes exported in C++, optionally kept."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from hypergl import HyperGLError

POSITION = {"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}


class Owner:
    """Stands in for a physics world: an array attribute and a row count."""

    def __init__(self, rows: int) -> None:
        self.positions = np.arange(rows * 4, dtype=np.float64).reshape(rows, 4)

    @property
    def count(self) -> int:
        return len(self.positions)


class CountingLock:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.acquired = self.released = 0

    def acquire(self) -> bool:
        self.acquired += 1
        return self.lock.acquire()

    def release(self) -> None:
        self.released += 1
        self.lock.release()


def records(buffer, rows):
    return buffer.read(np.float32).reshape(-1, 4)[:rows, :3]


def test_exports_attributes_under_the_lock(ctx):
    owner, lock = Owner(5), CountingLock()
    source = ctx.attribute_source(owner, ["positions"], [POSITION], record_size=16,
                                  count_attribute="count", lock=lock)  # fmt: skip
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    assert source.rows_uploaded == 5 and not source.views_held
    assert np.array_equal(records(buffer, 5), owner.positions[:, :3].astype(np.float32))
    assert lock.acquired == lock.released == 1


def test_kept_views_are_reexported_when_the_count_changes(ctx):
    owner = Owner(3)
    source = ctx.attribute_source(owner, ["positions"], [POSITION], record_size=16,
                                  count_attribute="count", keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    assert source.views_held
    owner.positions[:] += 100.0  # same memory, same count: read through the kept view
    ctx.upload(source, buffer)
    assert records(buffer, 3)[0, 0] == 100.0
    owner.positions = np.full((6, 4), 7.0)  # a new array and count: exported again
    ctx.upload(source, buffer)
    assert source.rows_uploaded == 6 and (records(buffer, 6) == 7.0).all()
    source.drop_views()
    assert not source.views_held


def test_too_many_rows_and_a_failing_attribute(ctx):
    owner = Owner(9)
    source = ctx.attribute_source(owner, ["positions"], [POSITION], record_size=16,
                                  count_attribute="count")  # fmt: skip
    with pytest.raises(HyperGLError, match="9 rows, more than the 8 records"):
        ctx.upload(source, ctx.buffer(size=16 * 8))
    missing = ctx.attribute_source(owner, ["velocities"], [POSITION], record_size=16)
    with pytest.raises(HyperGLError, match="velocities"):
        ctx.upload(missing, ctx.buffer(size=16 * 16))


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"names": []}, ValueError, "attribute names"),
        ({"names": ["not a name"]}, ValueError, "attribute names"),
        ({"count_attribute": "1x"}, ValueError, "count_attribute"),
        ({"lock": object()}, TypeError, "acquire"),
    ],
)
def test_bad_options(ctx, options, error, match):
    arguments = {"names": ["positions"], **options}
    with pytest.raises(error, match=match):
        ctx.attribute_source(Owner(2), arguments.pop("names"), [POSITION], record_size=16,
                             **arguments)  # fmt: skip
