"""``ctx.attribute_source(owners=[...])``: one source over many owners (one MuJoCo world
each), and ``keep_views`` without a count (arrays that never move)."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from hypergl import ContextError, HyperGLError, ResourceError

POSITION = {"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}


class Owner:
    """Stands in for one physics world: an array attribute of `rows` rows."""

    def __init__(self, rows: int, first: float = 0.0) -> None:
        self.positions = first + np.arange(rows * 4, dtype=np.float64).reshape(rows, 4)


class FreshArrays:
    """An owner whose attribute is a new array at every getattr (freed when let go)."""

    @property
    def positions(self) -> np.ndarray:
        return np.ones((64, 4))


def records(buffer, rows):
    return buffer.read(np.float32).reshape(-1, 4)[:rows, :3]


def expected(owners):
    return np.concatenate([o.positions[:, :3] for o in owners]).astype(np.float32)


def test_owners_fill_consecutive_segments_and_the_count(ctx):
    owners = [Owner(4, first=100.0 * i) for i in range(3)]
    counter = ctx.buffer(np.zeros(4, np.uint32))
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16, count=(counter, 0))  # fmt: skip
    buffer = ctx.buffer(size=16 * 16)
    ctx.upload(source, buffer)
    assert source.rows_uploaded == 12 and counter.read(np.uint32)[0] == 12
    assert np.array_equal(records(buffer, 12), expected(owners))


def test_a_list_given_as_owner_is_one_owner(ctx):
    # `owner` is always one object: a list's attributes, not its items'.
    source = ctx.attribute_source([Owner(2)], ["positions"], [POSITION], record_size=16)
    with pytest.raises(HyperGLError, match="'list' object has no attribute 'positions'"):
        ctx.upload(source, ctx.buffer(size=16 * 4))


def test_kept_views_without_a_count_are_not_looked_up_again(ctx):
    owners = [Owner(3), Owner(3, first=50.0)]
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16, keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    assert source.views_held
    owners[1].positions[:] += 1000.0  # in place: read through the held view
    old = expected(owners)
    owners[0].positions = np.full((3, 4), 7.0)  # a new array: not looked up while held
    ctx.upload(source, buffer)
    assert np.array_equal(records(buffer, 6), old)
    source.drop_views()
    assert not source.views_held
    ctx.upload(source, buffer)  # exported afresh
    assert np.array_equal(records(buffer, 6), expected(owners))


class Counted(Owner):
    @property
    def count(self) -> int:
        return len(self.positions)


def test_kept_views_over_owners_follow_every_owners_count(ctx):
    owners = [Counted(2), Counted(2, first=10.0)]
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16, count_attribute="count",
                                  keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    owners[1].positions = np.full((3, 4), 5.0)  # owner 1's count changed: exported again...
    with pytest.raises(HyperGLError, match=r"owner 1 of .* 96 bytes, owner 0 64"):
        ctx.upload(source, buffer)  # ...and refused: the owners' sizes differ now
    owners[0].positions = np.full((3, 4), 4.0)
    ctx.upload(source, buffer)
    assert source.rows_uploaded == 6 and source.views_held
    assert np.array_equal(records(buffer, 6)[:, 0], [4, 4, 4, 5, 5, 5])


def test_an_owner_with_other_sized_arrays_is_named(ctx):
    owners = [Owner(4), Owner(4), Owner(5)]
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16)  # fmt: skip
    with pytest.raises(HyperGLError, match=r"owner 2 of .* array 'positions' of 160 bytes, "
                                           r"owner 0 128"):  # fmt: skip
        ctx.upload(source, ctx.buffer(size=16 * 16))


def test_a_failing_attribute_names_its_owner_and_holds_nothing(ctx):
    owners = [Owner(2), object(), Owner(2)]
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16, keep_views=True)  # fmt: skip
    with pytest.raises(HyperGLError, match=r"\(owner 1\) failed: .*positions"):
        ctx.upload(source, ctx.buffer(size=16 * 8))
    assert not source.views_held
    owners[1] = Owner(2)  # the source holds its own list: the failure stays
    with pytest.raises(HyperGLError, match=r"\(owner 1\)"):
        ctx.upload(source, ctx.buffer(size=16 * 8))


def test_an_array_of_another_type_is_refused_naming_its_owner(ctx):
    # float32 read as f64 would be reinterpreted byte for byte (external_source refuses it too).
    owners = [Owner(2), Owner(2)]
    owners[1].positions = owners[1].positions.astype(np.float32)
    source = ctx.attribute_source(owners=owners, names=["positions"], fields=[POSITION],
                                  record_size=16)  # fmt: skip
    with pytest.raises(HyperGLError, match=r"reads source 0 as f64, but that array holds "
                                           r"float32 .*\(owner 1\)"):  # fmt: skip
        ctx.upload(source, ctx.buffer(size=16 * 8))


def test_too_many_rows_over_all_owners(ctx):
    source = ctx.attribute_source(owners=[Owner(3)] * 3, names=["positions"],
                                  fields=[POSITION], record_size=16)  # fmt: skip
    with pytest.raises(HyperGLError, match="9 rows, more than the 8 records"):
        ctx.upload(source, ctx.buffer(size=16 * 8))


def test_owners_outlive_their_callers_references(ctx):
    source = ctx.attribute_source(owners=[Owner(2, first=float(i)) for i in range(4)],
                                  names=["positions"], fields=[POSITION], record_size=16,
                                  keep_views=True)  # fmt: skip
    gc.collect()
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    assert records(buffer, 8)[2, 0] == 1.0


def test_a_released_source_or_context_refuses_the_upload(ctx):
    source = ctx.attribute_source(owners=[Owner(2)] * 2, names=["positions"],
                                  fields=[POSITION], record_size=16, keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=16 * 8)
    ctx.upload(source, buffer)
    source.release()
    assert not source.views_held
    with pytest.raises(ResourceError, match="released"):
        ctx.upload(source, buffer)
    source.drop_views()  # a no-op, not a crash
    kept = ctx.attribute_source(owners=[Owner(2)], names=["positions"], fields=[POSITION],
                                record_size=16, keep_views=True)  # fmt: skip
    ctx.upload(kept, buffer)
    ctx.close()
    with pytest.raises(ContextError):
        ctx.upload(kept, buffer)


def test_drop_views_waits_for_a_running_copy(ctx):
    # Fresh arrays die when their view is dropped: a drop under a running copy would
    # read freed memory (the ASan run catches it).
    source = ctx.attribute_source(owners=[FreshArrays()] * 64, names=["positions"],
                                  fields=[POSITION], record_size=16,
                                  keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=16 * 64 * 64)
    failures: list[BaseException] = []

    def uploads() -> None:
        try:
            for _ in range(100):
                ctx.upload(source, buffer)
        except BaseException as exc:  # reported below
            failures.append(exc)

    thread = threading.Thread(target=uploads)
    thread.start()
    while thread.is_alive():
        source.drop_views()
    thread.join()
    assert not failures
    assert (records(buffer, 64 * 64) == 1.0).all()


# Culverin's stepping(): a thread holds the source's lock and drops the views while the
# render thread uploads. The lock comes before the copy guard, in upload as in drop_views:
# no deadlock. In a process of its own, so that a deadlock fails the test, not the suite.
HELD_LOCK_SCRIPT = """
import sys, threading
import numpy as np
import hypergl

class FreshArrays:
    @property
    def positions(self):
        return np.ones((64, 4))

ctx = hypergl.context(device=sys.argv[1])
lock = threading.RLock()
field = {"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}
source = ctx.attribute_source(owners=[FreshArrays()] * 16, names=["positions"],
                              fields=[field], record_size=16, lock=lock, keep_views=True)
buffer = ctx.buffer(size=16 * 64 * 16)
stop, uploaded, done, drops = threading.Event(), threading.Event(), [0], [0]

def uploads():
    while not stop.is_set():
        ctx.upload(source, buffer)
        done[0] += 1
        uploaded.set()

def stepping():
    # Each drop comes after an upload and beside the next one, whatever the scheduler
    # does (a busy machine once ran 14768 uploads before this thread's first turn).
    for _ in range(2000):  # the engine before this fix deadlocked well within this
        if not uploaded.wait(timeout=60):
            raise SystemExit("the uploading thread stopped")
        uploaded.clear()
        with lock:
            source.drop_views()
        drops[0] += 1

threads = [threading.Thread(target=uploads), threading.Thread(target=stepping)]
for thread in threads:
    thread.start()
threads[1].join()
stop.set()
threads[0].join()
ctx.close()
print("uploads", done[0], "drops", drops[0])
"""


def test_drop_views_under_the_held_lock_while_another_thread_uploads(ctx):
    try:
        done = subprocess.run([sys.executable, "-c", HELD_LOCK_SCRIPT, ctx.device],
                              capture_output=True, text=True, timeout=90)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("upload and drop_views deadlocked")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["drops", "2000"], done.stdout


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"owners": []}, ValueError, "at least one object"),
        ({"owners": "ab"}, TypeError, "owners must be a sequence"),
        ({"owners": 3}, TypeError, "owners must be a sequence"),
        ({"owner": Owner(2), "owners": [Owner(2)]}, TypeError, "not both"),
        ({}, TypeError, "needs an owner"),
    ],
)
def test_bad_owners(ctx, options, error, match):
    with pytest.raises(error, match=match):
        ctx.attribute_source(names=["positions"], fields=[POSITION], record_size=16,
                             **options)  # fmt: skip


# The body renderer's matrix record (64 bytes):
# struct { vec3 position; uint id; float xmat[9]; } and 12 bytes of padding.
MATRIX_FIELDS = [
    {"source": 0, "type": "f64", "stride": 24, "components": 3, "to": "f32", "at": 0},
    {"source": 1, "type": "f64", "stride": 72, "components": 9, "to": "f32", "at": 16},
]


def test_mujoco_worlds_through_kept_views(ctx):
    mujoco = pytest.importorskip("mujoco")
    gymnasium = pytest.importorskip("gymnasium")
    xml = Path(gymnasium.__file__).parent / "envs/mujoco/assets/humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(xml))
    worlds = [mujoco.MjData(model) for _ in range(3)]
    for i, data in enumerate(worlds):
        data.qpos[2] += 0.1 * i
        mujoco.mj_forward(model, data)
    source = ctx.attribute_source(owners=worlds, names=["geom_xpos", "geom_xmat"],
                                  fields=MATRIX_FIELDS, record_size=64,
                                  keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=64 * 3 * model.ngeom)

    def check() -> None:
        ctx.upload(source, buffer)
        got = buffer.read(np.float32).reshape(-1, 16)
        positions = np.concatenate([d.geom_xpos for d in worlds]).astype(np.float32)
        matrices = np.concatenate([d.geom_xmat for d in worlds]).astype(np.float32)
        assert np.array_equal(got[:, :3], positions)
        assert np.array_equal(got[:, 4:13], matrices)

    check()
    for _ in range(20):  # the arrays keep their addresses: the held views follow them
        for data in worlds:
            mujoco.mj_step(model, data)
    check()
    mujoco.mj_resetData(model, worlds[1])
    mujoco.mj_forward(model, worlds[1])
    check()
    assert source.rows_uploaded == 3 * model.ngeom


def test_a_mujoco_batch_through_one_owner(ctx):
    # Batch.bind gives one live (nsim, ngeom, k) array: one owner holds all the worlds.
    mujoco = pytest.importorskip("mujoco")
    batch_module = pytest.importorskip("mujoco.batch")
    gymnasium = pytest.importorskip("gymnasium")
    from types import SimpleNamespace

    xml = Path(gymnasium.__file__).parent / "envs/mujoco/assets/humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(xml))
    batch = batch_module.Batch(model, 4)
    bound = SimpleNamespace(geom_xpos=batch.bind("geom_xpos"), geom_xmat=batch.bind("geom_xmat"))
    source = ctx.attribute_source(bound, ["geom_xpos", "geom_xmat"], MATRIX_FIELDS,
                                  record_size=64, keep_views=True)  # fmt: skip
    buffer = ctx.buffer(size=64 * 4 * model.ngeom)
    seen = []
    for _ in range(3):
        for _ in range(10):
            batch.step()
        ctx.upload(source, buffer)
        got = buffer.read(np.float32).reshape(-1, 16)
        xpos = batch.bind("geom_xpos").reshape(-1, 3).astype(np.float32)
        xmat = batch.bind("geom_xmat").reshape(-1, 9).astype(np.float32)
        assert np.array_equal(got[:, :3], xpos) and np.array_equal(got[:, 4:13], xmat)
        seen.append(xpos)
    assert not np.array_equal(seen[0], seen[-1])  # the worlds moved: the views followed
    assert source.rows_uploaded == 4 * model.ngeom
