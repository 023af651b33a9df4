"""The immutable result of recording: code, constant pool, resource table, subroutines.

A :class:`Program` is what ``CommandBuffer.end()`` returns, what ``.hgb`` files
store and what both verifiers check. Code stays one ``bytes`` object (16 bytes an
instruction) so that loading and verifying never build per-instruction objects.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import CompileError
from .isa import CONST_ELEMENT_SIZE, INSTRUCTION_SIZE, ConstKind, ResourceKind

# Deepest nesting a resource description may have; bounds recursion when reading files.
MAX_DESC_DEPTH = 32
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

_ELEMENT_FORMAT = {ConstKind.U32: "I", ConstKind.I32: "i", ConstKind.F32: "f"}


@dataclass(frozen=True)
class Constant:
    """One constant pool entry: an element kind and its little-endian bytes."""

    kind: ConstKind
    data: bytes

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ConstKind(self.kind))
        object.__setattr__(self, "data", bytes(self.data))

    @property
    def count(self) -> int | None:
        """Number of elements, or None when the data is not a whole number of them."""
        size = CONST_ELEMENT_SIZE[self.kind]
        return None if len(self.data) % size else len(self.data) // size

    def values(self) -> tuple[Any, ...]:
        """The elements as Python values (ints, floats, one str for UTF8, bytes for BYTES)."""
        if self.kind is ConstKind.BYTES:
            return (self.data,)
        if self.kind is ConstKind.UTF8:
            return (self.data.decode("utf-8"),)
        count = self.count
        if count is None:
            raise ValueError(f"{len(self.data)} bytes are not a whole number of {self.kind.name}")
        return struct.unpack(f"<{count}{_ELEMENT_FORMAT[self.kind]}", self.data)


@dataclass(frozen=True)
class Resource:
    """One entry of the typed resource table.

    ``desc`` is JSON-like (plus bytes blobs). The compiler only reads the
    ``size`` of buffers (for static bounds checks) and ``linked``; every other
    key belongs to hypergl-core.
    """

    kind: ResourceKind
    name: str
    desc: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ResourceKind(self.kind))
        object.__setattr__(self, "desc", MappingProxyType(dict(self.desc)))

    @property
    def linked(self) -> bool:
        """True when the caller binds this resource at load time."""
        return self.desc.get("linked") is True

    @property
    def size(self) -> int | None:
        """Declared byte size of a buffer (None when absent or not an int)."""
        size = self.desc.get("size")
        return size if type(size) is int else None


@dataclass(frozen=True)
class Subroutine:
    """A named subroutine and the index of its first instruction."""

    name: str
    entry: int


@dataclass(frozen=True)
class Program:
    """A recorded program; immutable.

    The main code comes first and ends with ``halt``; each subroutine body follows
    and ends with ``ret``. ``labels`` maps instruction indices to names (for the
    disassembler only), ``metadata`` is free-form text.
    """

    code: bytes
    constants: tuple[Constant, ...] = ()
    resources: tuple[Resource, ...] = ()
    subroutines: tuple[Subroutine, ...] = ()
    labels: Mapping[int, str] = field(default_factory=dict)
    metadata: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", bytes(self.code))
        object.__setattr__(self, "constants", tuple(self.constants))
        object.__setattr__(self, "resources", tuple(self.resources))
        object.__setattr__(self, "subroutines", tuple(self.subroutines))
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def _adopt(cls, code, constants, resources, subroutines, labels, metadata) -> Program:
        """Wrap freshly built parts without copying them (the .hgb reader owns them)."""
        program = object.__new__(cls)
        for name, value in (
            ("code", code),
            ("constants", tuple(constants)),
            ("resources", tuple(resources)),
            ("subroutines", tuple(subroutines)),
            ("labels", MappingProxyType(labels)),
            ("metadata", MappingProxyType(metadata)),
        ):
            object.__setattr__(program, name, value)
        return program

    @property
    def instruction_count(self) -> int:
        return len(self.code) // INSTRUCTION_SIZE

    @property
    def linked(self) -> tuple[str, ...]:
        """Names of the resources the caller must bind at load time."""
        return tuple(r.name for r in self.resources if r.linked)


def normalize_desc(desc: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A checked copy of a resource description: str keys, JSON-like values, bytes blobs.

    Tuples become lists and bytes-likes become bytes, so that a description
    survives a round trip through a .hgb file unchanged. Non-finite floats and
    ints outside 64 bits are refused because the file format cannot keep them.
    """
    if not isinstance(desc, Mapping):
        raise CompileError(f"{what}: description must be a mapping, got {desc!r}")
    return _normalize(desc, what, 0)


def _normalize(value: Any, path: str, depth: int) -> Any:
    if depth > MAX_DESC_DEPTH:
        raise CompileError(f"{path}: nested deeper than {MAX_DESC_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not I64_MIN <= value <= I64_MAX:
            raise CompileError(f"{path}: integer {value} does not fit in 64 bits")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CompileError(f"{path}: non-finite float {value!r} is not allowed")
        return float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CompileError(f"{path}: key {key!r} is not a string")
            out[key] = _normalize(item, f"{path}.{key}", depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_normalize(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    raise CompileError(f"{path}: value {value!r} of type {type(value).__name__} is not storable")
