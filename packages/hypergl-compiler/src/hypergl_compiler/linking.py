"""Linking: labels, and laying out the recorded sections as one program.

The main code comes first and ends with an implicit ``halt``; each subroutine
body follows in the order subroutines were first named. Jumps recorded before
their label was placed are patched here (fixups), as are jump tables.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

from . import isa
from .errors import CompileError
from .isa import BY_NAME, ConstKind
from .program import Constant, Program, Resource, Subroutine

_U32 = struct.Struct("<I")
HALT = isa.encode(BY_NAME["halt"])
RET = isa.encode(BY_NAME["ret"])
FIELD_OFFSET = {"a": 2, "b": 4, "c": 8, "d": 12}  # byte offset of each field in an instruction


class Label:
    """A jump target; placed with ``cmd.label(...)``, referenced before or after."""

    __slots__ = ("index", "name", "owner", "section")
    owner: Any  # the command buffer that made it
    name: str
    section: int | None  # the code section it is placed in
    index: int  # its instruction index within that section

    def __init__(self, owner: Any, name: str) -> None:
        self.owner = owner
        self.name = name
        self.section = None
        self.index = 0

    @property
    def placed(self) -> bool:
        return self.section is not None

    def __repr__(self) -> str:
        return f"Label({self.name!r})"


def link(
    sections: Sequence[bytes],
    subroutines: Sequence[tuple[str, int]],
    fixups: Sequence[tuple[int, int, int, Label]],
    table_fixups: Sequence[tuple[int, tuple[Label, ...]]],
    placed: Sequence[Label],
    named: Mapping[str, Label],
    constants: Sequence[Constant],
    resources: tuple[Resource, ...],
    metadata: Mapping[str, str],
) -> Program:
    """The Program of recorded ``sections`` (0 is the main code).

    ``subroutines`` are (name, section); ``fixups`` are (section, index, field
    byte offset, label) of jumps to patch; ``table_fixups`` (constant, labels) of
    jump tables; ``placed`` the labels in placing order (the first at an index
    names it); ``named`` every label by name.
    """
    code = bytearray(sections[0])
    code += HALT
    base = {0: 0}
    entries = []
    for name, section in subroutines:
        base[section] = len(code) // 16
        entries.append(Subroutine(name, base[section]))
        code += sections[section]
    if len(code) // 16 > isa.U32_MAX:
        raise CompileError(f"program of {len(code) // 16} instructions is too long")

    def where(label: Label) -> int:
        return base[label.section] + label.index  # type: ignore[index]

    for section, index, offset, label in fixups:
        # TARGET operands are u32 fields (b, c or d), never the u16 field a
        _U32.pack_into(code, (base[section] + index) * 16 + offset, where(label))
    constants = list(constants)
    for const_index, labels in table_fixups:
        data = struct.pack(f"<{len(labels)}I", *(where(label) for label in labels))
        constants[const_index] = Constant(ConstKind.U32, data)
    names: dict[int, str] = {}
    for label in placed:
        names.setdefault(where(label), label.name)
    for sub in entries:  # name unlabelled entries after their subroutine, for dis
        if sub.name not in named:
            names.setdefault(sub.entry, sub.name)
    return Program(
        code=bytes(code),
        constants=tuple(constants),
        resources=resources,
        subroutines=tuple(entries),
        labels=dict(sorted(names.items())),
        metadata=dict(metadata),
    )
