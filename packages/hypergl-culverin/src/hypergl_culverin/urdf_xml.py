"""A URDF file's XML as an ElementTree, read under the load's memory budget.

The file's size is charged first (its tree keeps about 13 bytes per byte of it), then its
bytes are read once: expat reads their prolog, refusing any entity declaration (a robot
description never needs one, and an entity expanded even under expat's own 100x guard costs
far more memory than the file's size said: the size charged is a bound only when nothing
expands), and ElementTree's C parser makes the tree of the same bytes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.parsers import expat

from .errors import UrdfError
from .mesh_files import Budget, checked_file

# ElementTree keeps ~13 bytes per byte of a URDF (measured on a 3,000-link file).
TREE_BYTES_PER_BYTE = 16


class _EntityDeclared(Exception):
    """Raised inside expat's handler; becomes a UrdfError naming the entity."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class _PrologRead(Exception):
    """The root element starts: no declaration can follow."""


def _declared_entity(data: bytes) -> str | None:
    """The first entity `data`'s DOCTYPE declares (general, parameter or external), or
    None; only the prolog is read (declarations cannot follow the root element)."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def declared(name: str, *_: Any) -> None:
        raise _EntityDeclared(name)

    def started(*_: Any) -> None:
        raise _PrologRead

    parser.EntityDeclHandler = declared
    parser.StartElementHandler = started
    try:
        parser.Parse(data, True)
    except _EntityDeclared as exc:
        return exc.name
    except (_PrologRead, expat.ExpatError):  # a syntax error: ElementTree names it below
        pass
    return None


def read_tree(path: Path, budget: Budget) -> ET.Element:
    """The root element of the URDF at `path`, its size charged to `budget`; raises
    UrdfError for a missing, oversized or malformed file, or one declaring an entity."""
    try:
        size = checked_file(path, budget, "URDF file", TREE_BYTES_PER_BYTE)
    except UrdfError:
        if not path.exists():
            raise UrdfError(f"URDF file {str(path)!r} does not exist") from None
        raise
    try:
        with open(path, "rb") as f:
            data = f.read(size + 1)  # once: the checks and the tree see the same bytes
    except OSError as exc:
        raise UrdfError(f"cannot read URDF file {str(path)!r}: {exc}") from None
    if len(data) > size:
        raise UrdfError(f"URDF file {str(path)!r} grew while it was read")
    entity = _declared_entity(data)
    if entity is not None:
        raise UrdfError(
            f"URDF file {str(path)!r} declares the entity {entity!r}: a URDF "
            "may not declare entities (<!ENTITY> in its DOCTYPE)"
        )
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise UrdfError(f"URDF file {str(path)!r} does not parse: {exc}") from None
    if root.tag != "robot":
        raise UrdfError(f"{str(path)!r} is not a URDF file: its root is <{root.tag}>, "
                        "not <robot>")  # fmt: skip
    return root
