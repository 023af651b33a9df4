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
