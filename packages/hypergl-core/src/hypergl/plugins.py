"""Plugins found through entry points: bridges (group ``hypergl.bridges``) and
commands of the ``hypergl`` CLI (group ``hypergl.commands``, e.g. ``hypergl demo``
from hypergl-culverin).

Discovery is lazy and cached: the group is read once, and only the chosen
name is imported. An unknown name raises an error listing what is installed.
"""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

from .errors import HyperGLError

BRIDGE_GROUP = "hypergl.bridges"
COMMAND_GROUP = "hypergl.commands"


class PluginError(HyperGLError, LookupError):
    """No plugin of that name is installed, or it failed to load."""


@functools.cache
def _entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=group)}


def installed_bridges() -> list[str]:
    """Names of the bridges installed in this environment."""
    return sorted(_entry_points(BRIDGE_GROUP))


def installed_commands() -> list[str]:
    """Names of the ``hypergl`` subcommands that installed distributions add."""
    return sorted(_entry_points(COMMAND_GROUP))


@functools.cache
def _load(group: str, what: str, name: str) -> Any:
    if not isinstance(name, str):
        raise TypeError(f"{what} name must be a string, got {name!r}")
    entry = _entry_points(group).get(name)
    if entry is None:
        installed = ", ".join(sorted(_entry_points(group))) or "none"
        raise PluginError(f"no {what} named {name!r}; installed {what}s: {installed}")
    try:
        return entry.load()
    except Exception as exc:
        raise PluginError(f"{what} {name!r} ({entry.value}) failed to load: {exc}") from exc


def load_bridge(name: str) -> Any:
    """The bridge class registered as `name`."""
    return _load(BRIDGE_GROUP, "bridge", name)


def load_command(name: str) -> Any:
    """The ``main(argv) -> int`` of the CLI subcommand registered as `name`."""
    return _load(COMMAND_GROUP, "command", name)
