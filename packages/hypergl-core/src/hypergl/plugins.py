"""Plugins found through entry points: bridges (group ``hypergl.bridges``).

Discovery is lazy and cached: the group is read once, and only the chosen
name is imported. An unknown name raises an error listing what is installed.
"""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

from .errors import HyperGLError

BRIDGE_GROUP = "hypergl.bridges"


class PluginError(HyperGLError, LookupError):
    """No plugin of that name is installed, or it failed to load."""


@functools.cache
def _entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=group)}


def installed_bridges() -> list[str]:
    """Names of the bridges installed in this environment."""
    return sorted(_entry_points(BRIDGE_GROUP))


@functools.cache
def load_bridge(name: str) -> Any:
    """The bridge class registered as `name`."""
    if not isinstance(name, str):
        raise TypeError(f"bridge name must be a string, got {name!r}")
    entry = _entry_points(BRIDGE_GROUP).get(name)
    if entry is None:
        installed = ", ".join(installed_bridges()) or "none"
        raise PluginError(f"no bridge named {name!r}; installed bridges: {installed}")
    try:
        return entry.load()
    except Exception as exc:
        raise PluginError(f"bridge {name!r} ({entry.value}) failed to load: {exc}") from exc
