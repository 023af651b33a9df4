"""Every installed hypergl.bridges entry point keeps the one bridge contract
(hypergl.plugins, docs/plugins/hypergl-bridge.md): ctx.bridge returns a Bridge of that
context, which is a record source (Culverin's) or a renderer (MuJoCo's)."""

from __future__ import annotations

import pytest

import hypergl
from hypergl.plugins import RECORD_SOURCE, Bridge


def culverin_source():
    culverin = pytest.importorskip("culverin")
    pytest.importorskip("hypergl_culverin")
    return culverin.PhysicsWorld(settings={"max_bodies": 8}), {"capacity": 8}


def mujoco_source():
    mujoco = pytest.importorskip("mujoco")
    pytest.importorskip("hypergl_mujoco")
    xml = "<mujoco><worldbody><geom type='sphere' size='0.1'/></worldbody></mujoco>"
    return mujoco.MjModel.from_xml_string(xml), {}


@pytest.mark.parametrize(("name", "source", "shape"),
                         [("culverin", culverin_source, "record source"),
                          ("mujoco", mujoco_source, "renderer")])  # fmt: skip
def test_each_bridge_keeps_the_contract(name, source, shape):
    world, options = source()
    with hypergl.context(device="trace") as ctx:
        bridge = ctx.bridge(name, world, **options)
        assert isinstance(bridge, Bridge) and bridge.context is ctx
        is_source = all(hasattr(bridge, member) for member in RECORD_SOURCE)
        assert ("record source" if is_source else "renderer") == shape
        assert is_source or callable(bridge.render)
        bridge.close()
        bridge.close()  # safe twice


def test_the_contract_is_documented():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs/plugins/hypergl-bridge.md").read_text()
    assert "## The contract" in page
    for member in ("context", "close()", "render(state)", *RECORD_SOURCE):
        assert f"`{member}" in page, member
