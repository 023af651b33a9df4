"""Bridges are found through the hypergl.bridges entry-point group."""

from __future__ import annotations

import importlib.util

import pytest

import hypergl

# hypergl-culverin is not installed everywhere (no Culverin wheel for CPython 3.13t).
needs_culverin_bridge = pytest.mark.skipif(
    importlib.util.find_spec("hypergl_culverin") is None,
    reason="hypergl-culverin (the culverin bridge) is not installed",
)


@needs_culverin_bridge
def test_installed_bridges_lists_culverin():
    assert "culverin" in hypergl.installed_bridges()


@needs_culverin_bridge
def test_an_unknown_bridge_lists_the_installed_ones(trace_ctx):
    with pytest.raises(hypergl.PluginError, match=r"no bridge named 'teleport'.*culverin"):
        trace_ctx.bridge("teleport", object())
    with pytest.raises(TypeError, match="bridge name must be a string"):
        trace_ctx.bridge(42, object())


class _Records(hypergl.bodies.InstanceRecords):
    """A record source with looks and close(): the whole bridge contract."""

    def set_looks(self, renderer):
        renderer.set_look(0, "sphere", 0.5)

    def close(self):
        self.release()


def test_the_bridge_contract_is_checked(trace_ctx):
    """What a hypergl.bridges factory returns: a Bridge, a record source with set_looks
    and close, of the context it was given; anything else is a PluginError naming what it
    lacks."""
    from hypergl.plugins import Bridge, checked_bridge

    records = _Records(trace_ctx, 4)
    assert checked_bridge("s", records, trace_ctx) is records and isinstance(records, Bridge)
    with pytest.raises(hypergl.PluginError, match=r"bridge 'x' returned object, which lacks "
                                                  r"context, close, binding"):  # fmt: skip
        checked_bridge("x", object(), trace_ctx)
    with pytest.raises(hypergl.PluginError, match=r"returned _Half, which lacks binding, "
                                                  r"capacity, body_glsl, bind, record, "
                                                  r"set_looks:"):  # fmt: skip
        checked_bridge("y", _Half(trace_ctx), trace_ctx)
    plain = hypergl.bodies.InstanceRecords(trace_ctx, 4)  # a record source, no looks
    with pytest.raises(hypergl.PluginError, match=r"lacks close, set_looks"):
        checked_bridge("p", plain, trace_ctx)
    other = hypergl.context(device="trace")
    try:
        with pytest.raises(hypergl.PluginError, match="another context"):
            checked_bridge("z", _Records(other, 4), trace_ctx)
    finally:
        other.close()


class _Half:
    def __init__(self, ctx):
        self.context = ctx

    def close(self):
        pass
