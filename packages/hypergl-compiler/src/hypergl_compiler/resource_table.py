"""The typed resource table of a command buffer, and the resolver protocol.

A program names resources by slot. A :class:`CommandBuffer` declares them in
its :class:`ResourceTable`, either symbolically (``cmd.buffer("name", 64)``
returns a :class:`ResourceHandle`) or through a :class:`ResourceResolver`
given at construction, which turns objects the compiler does not know (a
runtime's live GL buffers) into slots the first time a program names them.
This is the public seam between the compiler and a runtime such as hypergl.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from . import isa
from .errors import CompileError
from .isa import ResourceKind
from .program import Resource, normalize_desc

_NAME = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*\Z")


def valid_name(name: object) -> bool:
    """Names of labels, resources and subroutines: identifiers (dots allowed)."""
    return isinstance(name, str) and _NAME.match(name) is not None


@runtime_checkable
class ResourceResolver(Protocol):
    """Turns resource operands into slots of a command buffer's resource table.

    ``CommandBuffer(resolver=...)`` calls ``resolve`` for every resource operand
    that is not a :class:`ResourceHandle` of its own. Return the operand's slot,
    declaring it with :meth:`ResourceTable.declare` the first time you meet it,
    or None when the operand is not yours (the command buffer then raises
    CompileError naming it). Raise CompileError (or a subclass of ValueError)
    for an operand that is yours but unusable, e.g. of another ``kind``.
    """

    def resolve(self, table: ResourceTable, kind: ResourceKind, value: Any) -> int | None: ...


class ResourceTable:
    """The resources a command buffer's programs use, by slot; names are unique."""

    __slots__ = ("_entries", "_slots")

    def __init__(self) -> None:
        self._entries: list[Resource] = []
        self._slots: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, slot: int) -> Resource:
        return self._entries[slot]

    def __iter__(self) -> Iterator[Resource]:
        return iter(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._slots

    def slot(self, name: str) -> int | None:
        """The slot of the resource called ``name``, or None."""
        return self._slots.get(name) if isinstance(name, str) else None

    def entries(self) -> tuple[Resource, ...]:
        return tuple(self._entries)

    def free_name(self, base: str) -> str:
        """An identifier made from ``base`` that no resource of the table uses yet."""
        text = base if isinstance(base, str) else ""
        keep = [ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in text]
        name = "".join(keep) or "resource"
        if not valid_name(name):
            name = "_" + name
        candidate, serial = name, 1
        while candidate in self._slots:
            candidate, serial = f"{name}_{serial}", serial + 1
        return candidate

    def declare(self, kind: ResourceKind, name: str | None, desc: Mapping[str, Any]) -> int:
        """Append an entry and return its slot.

        ``name`` must be a new identifier; None picks ``<kind><slot>``. ``desc``
        is JSON-like (bytes allowed); the compiler reads a buffer's int ``size``
        (static bounds checks), a pipeline's ``vertex_count`` (``draw()``) and
        ``linked``; every other key belongs to the runtime.
        """
        kind = ResourceKind(kind)
        slot = len(self._entries)
        if name is None:
            name = f"{kind.name.lower()}{slot}"
            while name in self._slots:
                name += "_"
        if not valid_name(name):
            raise CompileError(f"resource name {name!r} is not an identifier")
        if name in self._slots:
            raise CompileError(f"resource name {name!r} is already declared")
        desc = normalize_desc(desc, f"{kind.name.lower()} {name!r}")
        if kind is ResourceKind.BUFFER:
            size = desc.get("size")
            if type(size) is not int or not 0 <= size <= isa.U32_MAX:
                raise CompileError(f"buffer {name!r}: size {size!r} is not an int in 0..2**32-1")
        if kind is ResourceKind.PIPELINE and "vertex_count" in desc:
            count = desc["vertex_count"]
            if type(count) is not int or not 0 <= count <= isa.U32_MAX:
                raise CompileError(
                    f"pipeline {name!r}: vertex_count {count!r} is not an int in 0..2**32-1"
                )
        if "linked" in desc and type(desc["linked"]) is not bool:
            raise CompileError(f"{name!r}: linked must be a bool, got {desc['linked']!r}")
        self._entries.append(Resource(kind, name, desc))
        self._slots[name] = slot
        return slot


class ResourceHandle:
    """A symbolic resource declared on a command buffer: its kind, table slot and name.

    Handles compare and hash by (command buffer, slot), so they can be
    ``@subroutine`` arguments.
    """

    __slots__ = ("_owner", "kind", "name", "slot")
    _owner: object  # the declaring CommandBuffer, compared by identity (typed so that this
    # module, below the builder, does not import it)
    kind: ResourceKind
    slot: int
    name: str

    def __init__(self, owner: object, kind: ResourceKind, slot: int, name: str) -> None:
        self._owner = owner
        self.kind = kind
        self.slot = slot
        self.name = name

    @property
    def owner(self) -> object:
        """The command buffer the handle was declared on."""
        return self._owner

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceHandle):
            return NotImplemented
        return other._owner is self._owner and other.slot == self.slot

    def __hash__(self) -> int:
        return hash((id(self._owner), self.slot))

    def __repr__(self) -> str:
        return f"<{self.kind.name.lower()} {self.name!r} slot {self.slot}>"
