"""Every installed hypergl.bridges entry point keeps the one bridge contract
(hypergl.plugins.Bridge, docs/plugins/hypergl-bridge.md): ctx.bridge returns a record
source of that context whose set_looks gives a body renderer over it the engine's looks."""

from __future__ import annotations

import pytest

import hypergl
from hypergl.bodies import BodyRenderer
from hypergl.plugins import BRIDGE_MEMBERS, Bridge


def culverin_source():
    culverin = pytest.importorskip("culverin")
    pytest.importorskip("hypergl_culverin")
    world = culverin.PhysicsWorld(settings={"max_bodies": 8})
    return world, {"capacity": 8}


def mujoco_source():
    mujoco = pytest.importorskip("mujoco")
    pytest.importorskip("hypergl_mujoco")
    xml = "<mujoco><worldbody><geom type='sphere' size='0.5'/></worldbody></mujoco>"
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return data, {}


SOURCES = {"culverin": culverin_source, "mujoco": mujoco_source}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_bridge_keeps_the_contract(name):
    world, options = SOURCES[name]()
    with hypergl.context(device="trace") as ctx:
        bridge = ctx.bridge(name, world, **options)
        assert isinstance(bridge, Bridge) and bridge.context is ctx
        assert all(hasattr(bridge, member) for member in BRIDGE_MEMBERS)
        bridge.close()
        bridge.close()  # safe twice


@pytest.mark.gl
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_host_draws_any_bridge_the_same_way(name, gl_ctx):
    """The contract is enough to draw: BodyRenderer(bridge), bridge.set_looks(renderer),
    the bridge's sync recorded with the draw; one body at the origin fills the centre."""
    world, options = SOURCES[name]()
    bridge = gl_ctx.bridge(name, world, **options)
    if name == "culverin":
        import culverin

        bridge.create_body(shape=culverin.SHAPE_SPHERE, size=0.5, pos=(0.0, 0.0, 0.0),
                           motion=culverin.MOTION_STATIC)  # fmt: skip
        world.step(1 / 60)
    renderer = BodyRenderer(bridge)
    bridge.set_looks(renderer)
    renderer.update()
    look = hypergl.transforms.perspective(60.0, 1.0, 0.1, 50.0) @ hypergl.transforms.look_at(
        (0.0, 3.0, 0.0) if name == "mujoco" else (0.0, 0.0, 3.0), (0.0, 0.0, 0.0),
        (0.0, 0.0, 1.0) if name == "mujoco" else (0.0, 1.0, 0.0))  # fmt: skip
    renderer.set_camera(look)
    framebuffer = renderer.framebuffer((32, 32))
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(framebuffer)
    renderer.record_clear(cmd)
    renderer.record(cmd)
    cmd.end()
    cmd.submit()
    rgb = renderer.read(framebuffer)["color"]
    assert rgb[16, 16].any() and not rgb[0, 0].any()  # the body, and the clear around it
    renderer.release()
    bridge.close()


def test_the_contract_is_documented():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs/plugins/hypergl-bridge.md").read_text()
    assert "## The contract" in page
    for member in ("context", "close()", "set_looks(renderer)", *BRIDGE_MEMBERS):
        assert f"`{member}" in page, member
