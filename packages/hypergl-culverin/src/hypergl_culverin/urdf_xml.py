"""A URDF file's XML as an ElementTree, read under the load's memory budget.

The file's size is charged first (its tree keeps about 13 bytes per byte of it); then
expat parses it into ``ElementTree``'s own tree builder, refusing any entity declaration.
A robot description never needs one, and an entity expanded even under expat's own
100x amplification guard costs far more memory than the file's size said: the size
charged above is only a bound when nothing expands.
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


def _tag(name: str) -> str:
    """expat's ``uri}local`` (namespace_separator "}") as ElementTree's ``{uri}local``."""
    return "{" + name if "}" in name else name


def _parser(builder: ET.TreeBuilder) -> Any:
    parser = expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def declared(name: str, *_: Any) -> None:
        raise _EntityDeclared(name)

    parser.EntityDeclHandler = declared
    parser.StartElementHandler = lambda name, attrs: builder.start(
        _tag(name), {_tag(k): v for k, v in attrs.items()})  # fmt: skip
    parser.EndElementHandler = lambda name: builder.end(_tag(name))
    parser.CharacterDataHandler = builder.data
    return parser


def read_tree(path: Path, budget: Budget) -> ET.Element:
    """The root element of the URDF at `path`, its size charged to `budget`; raises
    UrdfError for a missing, oversized or malformed file, or one declaring an entity."""
    try:
        checked_file(path, budget, "URDF file", TREE_BYTES_PER_BYTE)
    except UrdfError:
        if not path.exists():
            raise UrdfError(f"URDF file {str(path)!r} does not exist") from None
        raise
    builder = ET.TreeBuilder()
    parser = _parser(builder)
    try:
        with open(path, "rb") as f:
            parser.ParseFile(f)
        root = builder.close()
    except _EntityDeclared as exc:
        raise UrdfError(f"URDF file {str(path)!r} declares the entity {exc.name!r}: a URDF "
                        "may not declare entities (<!ENTITY> in its DOCTYPE)") from None
    except expat.ExpatError as exc:
        raise UrdfError(f"URDF file {str(path)!r} does not parse: {exc}") from None
    except OSError as exc:
        raise UrdfError(f"cannot read URDF file {str(path)!r}: {exc}") from None
    if root.tag != "robot":
        raise UrdfError(f"{str(path)!r} is not a URDF file: its root is <{root.tag}>, "
                        "not <robot>")  # fmt: skip
    return root
