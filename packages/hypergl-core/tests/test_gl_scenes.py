"""The seed's DSL example, .hgb scenes on GL, and the same program on the trace device."""

from __future__ import annotations

import numpy as np
import pytest
from gl_scenes import FS_2D, LAYOUT_2D, VS_2D, instances, quad

import hypergl
from hypergl import ResourceError, SceneCompiler, subroutine

pytestmark = pytest.mark.gl


def forest_program(ctx):
    """The seed's example: a subroutine binds a pipeline and loops 1000 draws, called
    under a condition on a visibility buffer."""
    fb = ctx.framebuffer((16, 16), name="target")
    pipe = ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D,
                        name="trees")  # fmt: skip
    visibility = ctx.buffer(np.array([1], np.uint32), name="visibility")
    vertices = ctx.buffer(quad(0.5), usage="vertex", name="quad")
    tints = ctx.buffer(instances([0, 0, 0.2, 0.8, 0.2, 1.0]), usage="vertex", name="tints")

    @subroutine
    def draw_forest(sc, pipeline, trees):
        sc.cmd.bind_pipeline(pipeline)
        with sc.loop(0, trees):
            sc.cmd.draw(6)

    cmd = ctx.command_buffer(name="forest")
    sc = SceneCompiler(cmd)
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_vertex_buffer(vertices, 0)
    cmd.bind_vertex_buffer(tints, 1)
    with sc.condition(visibility, 0):
        draw_forest(sc, pipe, 1000)
    cmd.end()
    return cmd, fb, visibility


def test_the_seed_dsl_example(gl_ctx):
    cmd, fb, visibility = forest_program(gl_ctx)
    stats = cmd.submit()
    assert stats.draws == 1000
    assert fb.read()[8, 8].tolist() == [51, 204, 51, 255]
    visibility.map(np.uint32)[0] = 0
    assert cmd.submit().draws == 0


def test_the_same_program_on_the_trace_device():
    ctx = hypergl.context(device="trace")
    cmd, _fb, _visibility = forest_program(ctx)
    cmd.submit()
    assert ctx.trace[:5] == [
        ("bind_framebuffer", "target"),
        ("clear", 0.0, 0.0, 0.0, 1.0, 1.0, 3, 0),
        ("bind_vertex_buffer", "quad", 0),
        ("bind_vertex_buffer", "tints", 1),
        ("bind_pipeline", "trees"),
    ]
    assert ctx.trace.calls()[5:] == ["draw"] * 1000


def test_self_contained_hgb_loads_into_a_fresh_context(gl_ctx, tmp_path):
    cmd, fb, _visibility = forest_program(gl_ctx)
    cmd.submit()
    expected = fb.read()
    path = tmp_path / "forest.hgb"
    hypergl.save(cmd, path)
    with hypergl.context() as fresh:
        scene = fresh.load(path)
        assert scene.submit().draws == 1000
        assert (scene["target"].read() == expected).all()
        assert {"target", "trees", "visibility", "quad", "tints"} <= set(scene.objects)


def test_linked_hgb_takes_bindings(gl_ctx, tmp_path):
    cmd, _fb, _visibility = forest_program(gl_ctx)
    path = tmp_path / "linked.hgb"
    hypergl.save(cmd, path, linked=["target", "visibility"])
    with pytest.raises(ResourceError, match="'target' is linked"):
        gl_ctx.load(path)
    visibility = gl_ctx.buffer(np.array([1], np.uint32))
    target = gl_ctx.framebuffer((16, 16))
    scene = gl_ctx.load(path, bindings={"target": target, "visibility": visibility})
    scene.submit()
    assert target.read()[8, 8].tolist() == [51, 204, 51, 255]
    with pytest.raises(ResourceError, match="lacks"):
        gl_ctx.load(path, bindings={"nothing": target})


def test_a_corrupted_file_is_refused(gl_ctx, tmp_path):
    cmd, _fb, _visibility = forest_program(gl_ctx)
    data = bytearray(hypergl_compiler_dumps(cmd))
    data[40] ^= 0xFF
    with pytest.raises(ValueError, match="byte"):
        gl_ctx.load(bytes(data))


def hypergl_compiler_dumps(cmd):
    from hypergl_compiler import hgb

    return hgb.dumps(cmd.program)


def test_a_pipelines_vertex_count_is_drawn_by_draw_and_survives_a_hgb(gl_ctx, tmp_path):
    fb = gl_ctx.framebuffer((16, 16), name="target")
    pipe = gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_layout=LAYOUT_2D,
                           vertex_count=6, name="quad_pipe")  # fmt: skip
    assert pipe.vertex_count == 6 and pipe.describe()["vertex_count"] == 6
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_vertex_buffer(gl_ctx.buffer(quad(1.0), usage="vertex"), 0)
    cmd.bind_vertex_buffer(gl_ctx.buffer(instances([0, 0, 1, 0, 0, 1]), usage="vertex"), 1)
    cmd.bind_pipeline(pipe)
    cmd.draw()  # 6 vertices: the whole quad
    cmd.end()
    cmd.submit()
    assert (fb.read() == [255, 0, 0, 255]).all()
    path = tmp_path / "quad.hgb"
    hypergl.save(cmd, path)
    with hypergl.context() as fresh:
        scene = fresh.load(path)
        assert scene["quad_pipe"].vertex_count == 6
        scene.submit()
        assert (scene["target"].read() == [255, 0, 0, 255]).all()


@pytest.mark.parametrize("count", [-1, 1 << 32, 2.5, "3", True])
def test_a_bad_vertex_count_is_named(gl_ctx, count):
    with pytest.raises(ValueError, match="vertex_count"):
        gl_ctx.pipeline(vertex_shader=VS_2D, fragment_shader=FS_2D, vertex_count=count)


def test_cmd_release_all_releases_what_the_command_buffer_holds(gl_ctx):
    cmd, fb, visibility = forest_program(gl_ctx)
    other = gl_ctx.buffer(size=4)
    cmd.release("all")
    assert fb.released and visibility.released
    assert gl_ctx.live_objects() == [other]
    with pytest.raises(ValueError, match=r"cmd\.release expects 'all', got 'some'"):
        cmd.release("some")
    with pytest.raises(ResourceError, match="released"):
        cmd.submit()
