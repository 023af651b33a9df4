"""Every object that owns GPU or native state, used by several threads while another closes
it (issue 36, item 1): the uses end with our error, the process survives, and a use after
the close is refused. Each case runs many rounds in an interpreter of its own
(``hypergl.testing.run_isolated``: an abort or a segfault is a failed test, not a dead
run); ``hypergl.testing.race_close`` makes the threads overlap with a barrier."""

from __future__ import annotations

import sys

import pytest

from hypergl.testing import run_isolated

pytestmark = pytest.mark.gl

SCRIPT = r'''
import sys
import numpy as np
import hypergl
from hypergl import ContextError, DrawList, HyperGLError, ResourceError
from hypergl.bodies import BodyRenderer, InstanceRecords
from hypergl.testing import draw_bodies, race_close

Q = (0.0, 0.0, 0.0, 1.0)


def body_renderer(ctx):
    records = InstanceRecords(ctx, 8)
    records.write([(0.0, 0.0, -5.0)] * 8, [Q] * 8, list(range(8)))
    renderer = BodyRenderer(records, max_ids=8, outputs=("color", "id"))
    for k in range(8):
        renderer.set_look(k, "box", (0.5, 0.5, 0.5))
    fb = ctx.framebuffer((16, 16), color=("rgba8", "r32f"))
    looks = iter(range(10**9))
    uses = [lambda: draw_bodies(renderer, fb),
            lambda: renderer.set_look(next(looks) % 8, "sphere", 0.4),
            lambda: renderer.set_camera(np.eye(4))]
    return uses, renderer.release, ResourceError, lambda: renderer.set_camera(np.eye(4))


def instance_records(ctx):
    records = InstanceRecords(ctx, 64)
    rows = ([(1.0, 2.0, 3.0)] * 64, [Q] * 64, list(range(64)))
    def count():
        records.count = 32
    return [lambda: records.write(*rows), count], records.release, ResourceError, count


VS = """#version 430
layout(location = 0) in vec2 position;
void main() { gl_Position = hgl_draw().model * vec4(position, 0.0, 1.0); }
"""
FS = """#version 430
out vec4 frag;
void main() { frag = hgl_draw_texture(vec2(0.5)); }
"""


def draw_list(ctx):
    quad = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], np.float32)
    images = np.full((2, 2, 2, 4), 255, np.uint8)
    draws = DrawList(ctx, meshes={"quad": quad},
                     vertex_layout=[{"location": 0, "format": "f32x2", "offset": 0}],
                     textures=images, fields={"model": "mat4"}, capacity=4096)
    pipe = draws.pipeline(vertex_shader=VS, fragment_shader=FS)
    fb = ctx.framebuffer((16, 16))

    def frame():
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        draws.record(cmd)
        cmd.end()
        cmd.submit()

    def add():
        if len(draws) < 4000:
            draws.add("quad", texture=1, pipeline=pipe, model=np.eye(4, dtype=np.float32))
        else:
            frame()

    draws.add("quad", texture=0, pipeline=pipe, model=np.eye(4, dtype=np.float32))
    return [add, add, frame], draws.release, ResourceError, frame


def attribute_source(ctx):
    class Owner:
        positions = np.arange(64 * 4, dtype=np.float64).reshape(64, 4)

    field = {"source": 0, "type": "f64", "stride": 32, "components": 3, "to": "f32", "at": 0}
    source = ctx.attribute_source(owners=[Owner()] * 8, names=["positions"], fields=[field],
                                  record_size=16, keep_views=True)
    buffer = ctx.buffer(size=8 * 64 * 16)
    upload = lambda: ctx.upload(source, buffer)
    def drop():
        source.drop_views()
        if source.released:
            raise ResourceError("released")  # drop_views of a released source does nothing
    return [upload, upload, drop], source.release, ResourceError, upload


def readback(ctx):
    fb = ctx.framebuffer((16, 16))
    ring = ctx.readback(fb, depth=2)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(1, 0, 0, 1))
    cmd.read_framebuffer(ring, fb)
    cmd.end()
    cmd.submit()
    out = np.empty((16, 16, 4), np.uint8)
    uses = [lambda: ring.read(0, into=out), lambda: (cmd.submit(), ring.read(1))]
    return uses, ring.release, ResourceError, lambda: ring.read(0)


def framebuffer(ctx):
    fb = ctx.framebuffer((16, 16))
    out = np.empty((16, 16, 4), np.uint8)
    reader = fb.reader(out)
    return [fb.read, reader.read, fb.read], fb.release, ResourceError, reader.read


def context_close(ctx):
    # Resources made by other threads while the context closes: none may outlive it.
    def make():
        buffer = ctx.buffer(size=1 << 16)
        buffer.map(np.uint8)[:] = 7
    texture = lambda: ctx.texture(size=(8, 8))

    def look():  # beside the creations: a resource in the engine with no handle yet
        ctx.live_objects()
        if ctx.closed:
            raise ContextError("closed")  # live_objects of a closed context is [] (no error)

    def after():
        # (before the fix, a buffer made while the context closed outlived it)
        assert ctx.live_objects() == [], "resources outlived the close"
        make()

    return [make, make, texture, look], ctx.close, (ContextError, ResourceError), after


def py_gpu_backend(ctx):
    from py_gpu.errors import BackendClosedError
    from py_gpu.geometry import RasterBatch
    from hypergl.py_gpu_backend import HyperGLBackend

    backend = HyperGLBackend(ctx)
    rng = np.random.default_rng(0)
    batches = [RasterBatch.from_arrays(rng.uniform(0, 32, (n, 3, 3)) + [0, 0, 1],
                                       rng.integers(0, 256, (n, 3))) for n in (50, 400)]
    uses = [lambda: backend.render(batches[0], 32, 32),
            lambda: backend.render(batches[1], 32, 32),
            lambda: backend.render_async(batches[0], 32, 32).result()]
    return uses, backend.close, BackendClosedError, uses[0]


CASES = {"py_gpu_backend": py_gpu_backend, "body_renderer": body_renderer,
         "instance_records": instance_records,
         "draw_list": draw_list,
         "attribute_source": attribute_source, "readback": readback,
         "framebuffer": framebuffer, "context": context_close}

case, rounds = CASES[sys.argv[1]], int(sys.argv[2])
seen = set()
for _ in range(rounds):
    ctx = hypergl.context()
    uses, close, expected, after = case(ctx)
    ended = race_close(uses, close)
    foreign = [repr(e) for e in ended if not isinstance(e, expected)]
    assert not foreign, foreign
    seen.update(type(e).__name__ for e in ended)
    try:
        after()
    except expected:
        pass
    else:
        raise AssertionError("a use after the close succeeded")
    close()  # a second close does nothing
    ctx.close()
print(sorted(seen))
'''


def interleaved(threads) -> None:
    """Run `threads` to their end, switching between them every few bytecodes (with the
    GIL; without it they run side by side anyway)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)


CASES = ["py_gpu_backend", "body_renderer", "instance_records", "draw_list",
         "attribute_source", "readback", "framebuffer", "context"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_a_close_racing_threads_ends_their_uses_with_our_error(case):
    if case == "py_gpu_backend":
        pytest.importorskip("py_gpu")  # the plugin's host: core's [py-gpu] extra
    out = run_isolated(SCRIPT, case, "15")
    assert "Error" in out


def test_two_threads_adding_to_a_draw_list_add_every_object_once(gl_ctx):
    import threading

    import numpy as np

    from hypergl import DrawList

    quad = np.array([[-1, -1], [1, -1], [1, 1]], np.float32)
    draws = DrawList(gl_ctx, meshes={"quad": quad},
                     vertex_layout=[{"location": 0, "format": "f32x2", "offset": 0}],
                     textures=np.full((1, 2, 2, 4), 255, np.uint8), fields={"tag": "uint"},
                     capacity=4000)  # fmt: skip
    pipe = draws.pipeline(vertex_shader="#version 430\nvoid main() { hgl_draw(); "
                          "gl_Position = vec4(0.0); }",
                          fragment_shader="#version 430\nout vec4 f;\nvoid main() "
                          "{ f = vec4(1.0); }")  # fmt: skip
    start = threading.Barrier(2)
    indices: list[list[int]] = [[], []]

    def add(thread: int) -> None:
        start.wait()
        for _ in range(1500):
            indices[thread].append(draws.add("quad", texture=0, pipeline=pipe, tag=thread))

    threads = [threading.Thread(target=add, args=(k,)) for k in range(2)]
    interleaved(threads)
    assert len(draws) == 3000
    assert sorted(indices[0] + indices[1]) == list(range(3000))
    for thread in range(2):  # each object's record is the one its thread wrote
        assert (draws.records["tag"][indices[thread]] == thread).all()
    draws.release()


def test_two_threads_rendering_on_one_py_gpu_backend_each_get_their_own_picture(gl_ctx):
    # The backend packs a batch into its shared vertex buffer, then draws it: two threads
    # interleaving those steps drew each other's triangles.
    pytest.importorskip("py_gpu")  # the plugin's host: core's [py-gpu] extra
    import threading

    import numpy as np

    from hypergl.py_gpu_backend import HyperGLBackend
    from py_gpu.geometry import RasterBatch

    backend = HyperGLBackend(gl_ctx)
    rng = np.random.default_rng(1)
    batches = []
    for n in (60, 300):
        points = rng.uniform(0, 32, (n, 3, 3))
        points[..., 2] += 1  # depth 1..33
        batches.append(RasterBatch.from_arrays(points, rng.integers(0, 256, (n, 3))))
    expected = [backend.render(batch, 32, 32).to_numpy().copy() for batch in batches]
    start = threading.Barrier(2)
    wrong: list[int] = []

    def render(k: int) -> None:
        start.wait()
        for _ in range(60):
            if not np.array_equal(backend.render(batches[k], 32, 32).to_numpy(), expected[k]):
                wrong.append(k)

    threads = [threading.Thread(target=render, args=(k,)) for k in range(2)]
    interleaved(threads)
    assert wrong == []
    backend._programs.clear()  # the context is the fixture's: it checks nothing is left
    for resource in gl_ctx.live_objects():
        resource.release()
