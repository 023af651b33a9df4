"""Plugins found through entry points: bridges (group ``hypergl.bridges``) and
commands of the ``hypergl`` CLI (group ``hypergl.commands``, e.g. ``hypergl demo``
from hypergl-culverin).

Discovery is lazy and cached: the group is read once, and only the chosen
name is imported. An unknown name raises an error listing what is installed.

The bridge contract (docs/plugins/hypergl-bridge.md), one shape for every bridge: a
``hypergl.bridges`` entry point is a callable ``factory(ctx, source, **options)`` returning a
:class:`Bridge`: the *record source* of the engine's bodies (the protocol of
:mod:`hypergl.bodies.records`, which :class:`hypergl.bodies.BodyRenderer` draws), whose
``set_looks(renderer)`` gives each body the engine's own shape and colour on such a
renderer, whose ``context`` is ``ctx`` and whose ``close()`` releases what it made. A
bridge's own renderers (hypergl-culverin's ``BodyRenderer``, hypergl-mujoco's
``BatchRenderer``) stand on it. ``ctx.bridge`` checks what the factory returned.
"""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

from .errors import HyperGLError

BRIDGE_GROUP = "hypergl.bridges"
COMMAND_GROUP = "hypergl.commands"


class PluginError(HyperGLError, LookupError):
    """No plugin of that name is installed, or it failed to load, or it broke the
    contract of its group."""


@runtime_checkable
class Bridge(Protocol):
    """What a ``hypergl.bridges`` factory returns (see the module's text)."""

    @property
    def context(self) -> Any:
        """The ``hypergl.Context`` the factory was given: its records live there."""
        ...

    @property
    def binding(self) -> int:
        """The storage binding of its records (a body renderer takes the eleven after)."""
        ...

    @property
    def capacity(self) -> int:
        """The most record rows it holds."""
        ...

    def body_glsl(self) -> str:
        """GLSL declaring its buffers and ``body_count()``, ``body_position(row)``,
        ``body_rotation(row)``, ``body_id(row)`` (:mod:`hypergl.bodies.records`)."""
        ...

    def bind(self, cmd: Any) -> None:
        """Record its buffers' bindings into `cmd`."""
        ...

    def record(self, cmd: Any) -> None:
        """Record its per-frame sync into `cmd` (the engine's upload, or nothing)."""
        ...

    def set_looks(self, renderer: Any) -> None:
        """Give each body it knows (since the last call for `renderer`) its look on
        `renderer`, a ``hypergl.bodies.BodyRenderer`` over this bridge."""
        ...

    def close(self) -> None:
        """Release every GPU object the bridge made; safe to call twice."""
        ...


# A record source's members (hypergl.bodies.records): what BodyRenderer(source) reads.
RECORD_SOURCE = ("binding", "capacity", "body_glsl", "bind", "record")
BRIDGE_MEMBERS = ("context", "close", *RECORD_SOURCE, "set_looks")


def checked_bridge(name: str, bridge: Any, ctx: Any) -> Any:
    """`bridge` as the factory of bridge `name` made it for `ctx`, else PluginError saying
    what of the contract it lacks."""
    missing = [member for member in BRIDGE_MEMBERS if not hasattr(bridge, member)]
    if missing:
        raise PluginError(f"bridge {name!r} returned {type(bridge).__name__}, which lacks "
                          f"{', '.join(missing)}: see docs/plugins/hypergl-bridge.md")  # fmt: skip
    if bridge.context is not ctx:
        raise PluginError(f"bridge {name!r} returned an object of another context than the "
                          "one it was given")  # fmt: skip
    return bridge


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
