"""The ``.hgb`` binary program format: ``save``/``load``, ``dumps``/``loads``.

Layout (all integers little-endian)::

    0   8s   magic b"\\x89HGB\\r\\n\\x1a\\n"  (PNG-style: catches text-mode mangling)
    8   u16  major, u16 minor            (this writer: 1.2 for a program using an op new in
                                          1.2, else 1.1; 1.0 had no metadata section)
    12  u32  flags                       (bit 0: linked; other bits must be 0)
    16  u32  file size in bytes
    20  u32  section count (<= 64)
    24  u32  CRC-32 of bytes [0, 24) and [28, end)
    28  u32  reserved, 0
    32  section table: count x (u32 id, u32 offset, u32 length, u32 reserved 0)
    then the sections, each at an 8-byte aligned offset, zero padded

Sections: 1 code (raw 16-byte instructions), 2 constants (u32 n; n x (u32 kind,
u32 length, bytes)), 3 resources (u32 n; n x (u32 kind, str name, value desc)),
4 subroutines (u32 n; n x (u32 entry, str name)), 5 symbols (u32 n; n x u32
index, increasing; u32 length + UTF-8 names joined by NUL), 6 metadata (u32 n; n x (str, str)). A
str is u32 byte length + UTF-8. A value is a u8 tag: 0 None, 1 false, 2 true,
3 i64, 4 f64, 5 str, 6 bytes (u32 length + raw blob), 7 list (u32 n + values),
8 dict (u32 n + (str key, value) pairs). Only the code section is mandatory;
readers skip section ids they do not know (newer minors may add some).

The reader trusts nothing: every count and length is checked against the bytes
that remain before it is used, nesting is bounded, the buffers a file declares
must fit a memory limit together (:func:`default_memory_limit` unless raised), and
any defect raises :class:`HGBError` with the byte offset of the bad field.
"""

from __future__ import annotations

import itertools
import math
import os
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import CompileError, HGBError
from .isa import ConstKind, ResourceKind
from .program import MAX_DESC_DEPTH, Constant, Program, Resource, Subroutine

MAGIC = b"\x89HGB\r\n\x1a\n"
VERSION = (1, 2)
# Ops added in 1.2 (clock, random, sin_cos, stats, asserts, debug output, fence polling,
# register range offsets, resolve_framebuffer): a program without them is written as 1.1,
# which readers of 1.1 run too. Every 1.x file loads here.
OPS_SINCE_1_2 = frozenset(range(0x66, 0x6A)) | frozenset(range(0x70, 0x78))
FLAG_LINKED = 1
MAX_SECTIONS = 64
MAX_FILE_SIZE = 1 << 30  # refuse before reading: no program comes near a gigabyte
DEFAULT_MEMORY_CAP = 4 << 30  # the default memory limit never exceeds 4 GiB

CODE, CONSTANTS, RESOURCES, SUBROUTINES, SYMBOLS, METADATA = 1, 2, 3, 4, 5, 6
SECTION_NAMES = {
    CODE: "code",
    CONSTANTS: "constants",
    RESOURCES: "resources",
    SUBROUTINES: "subroutines",
    SYMBOLS: "symbols",
    METADATA: "metadata",
}

_HEADER = struct.Struct("<8sHHIIIII")
_ENTRY = struct.Struct("<IIII")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")
_NONE, _FALSE, _TRUE, _INT, _FLOAT, _STR, _BYTES, _LIST, _DICT = range(9)


@dataclass(frozen=True)
class FileInfo:
    """What the header and section table of a file say (for ``hgb info``)."""

    version: tuple[int, int]
    flags: int
    size: int
    crc: int
    sections: tuple[tuple[int, int, int], ...]  # (id, offset, length)


# ---------------------------------------------------------------------- writing
def _str(text: str, out: bytearray) -> None:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise CompileError(f"string {text!r} cannot be encoded as UTF-8") from None
    out += _U32.pack(len(data))
    out += data


def _value(value: Any, out: bytearray, depth: int = 0) -> None:
    if depth > MAX_DESC_DEPTH:
        raise CompileError(f"resource description nested deeper than {MAX_DESC_DEPTH} levels")
    if value is None:
        out.append(_NONE)
    elif value is True:
        out.append(_TRUE)
    elif value is False:
        out.append(_FALSE)
    elif isinstance(value, int):
        out.append(_INT)
        try:
            out += _I64.pack(value)
        except struct.error:
            raise CompileError(f"integer {value} does not fit in 64 bits") from None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise CompileError(f"non-finite float {value!r} cannot be stored")
        out.append(_FLOAT)
        out += _F64.pack(value)
    elif isinstance(value, str):
        out.append(_STR)
        _str(value, out)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.append(_BYTES)
        out += _U32.pack(len(value))
        out += value
    elif isinstance(value, (list, tuple)):
        out.append(_LIST)
        out += _U32.pack(len(value))
        for item in value:
            _value(item, out, depth + 1)
    elif isinstance(value, dict) or hasattr(value, "items"):
        out.append(_DICT)
        out += _U32.pack(len(value))
        for key, item in value.items():
            if not isinstance(key, str):
                raise CompileError(f"description key {key!r} is not a string")
            _str(key, out)
            _value(item, out, depth + 1)
    else:
        raise CompileError(f"value {value!r} of type {type(value).__name__} cannot be stored")


def _as_program(obj: Any) -> Program:
    if isinstance(obj, Program):
        return obj
    program = getattr(obj, "program", None)
    if isinstance(program, Program):
        return program
    raise TypeError(f"expected a Program or an ended CommandBuffer, got {obj!r}")


def _check_storable(program: Program) -> None:
    """Refuse what the reader would refuse, so that every written file loads back."""
    names: set[str] = set()
    for r in program.resources:
        if r.name in names:
            raise CompileError(f"resource name {r.name!r} appears twice")
        names.add(r.name)
    n = program.instruction_count
    for index in program.labels:
        if type(index) is not int or not 0 <= index <= n:
            raise CompileError(f"label index {index!r} is outside 0..{n}")
    for sub in program.subroutines:
        if type(sub.entry) is not int or not 0 <= sub.entry <= 0xFFFFFFFF:
            raise CompileError(f"subroutine {sub.name!r} entry {sub.entry!r} is not a u32")
    if len(program.code) % 16:
        raise CompileError(f"code length {len(program.code)} is not a multiple of 16")


def _link(resources: tuple[Resource, ...], linked: bool | Iterable[str]) -> list[Resource]:
    """Resources with the ``linked`` ones reduced to what the caller must bind."""
    names = {r.name for r in resources} if linked is True else set(linked or ())
    unknown = names - {r.name for r in resources}
    if unknown:
        raise CompileError(f"cannot link unknown resources {sorted(unknown)}")
    out = []
    for r in resources:
        if r.name in names:
            desc: dict[str, Any] = {"linked": True}
            if r.kind is ResourceKind.BUFFER:
                desc["size"] = r.desc["size"]  # the verifier needs it
            r = Resource(r.kind, r.name, desc)
        out.append(r)
    return out


def _assemble(sections: list[tuple[int, bytes]], flags: int, version=VERSION) -> bytes:
    """Header + table + 8-byte aligned sections, CRC filled in."""
    table_end = _HEADER.size + _ENTRY.size * len(sections)
    body = bytearray()
    table = bytearray()
    offset = table_end
    for ident, data in sections:
        pad = -offset % 8
        body += bytes(pad)
        offset += pad
        table += _ENTRY.pack(ident, offset, len(data), 0)
        body += data
        offset += len(data)
    if offset > MAX_FILE_SIZE:
        raise CompileError(f"program of {offset} bytes exceeds the .hgb limit of {MAX_FILE_SIZE}")
    head = _HEADER.pack(MAGIC, *version, flags, offset, len(sections), 0, 0)
    crc = zlib.crc32(body, zlib.crc32(table, zlib.crc32(head[28:], zlib.crc32(head[:24]))))
    return head[:24] + _U32.pack(crc) + head[28:] + table + body


def _sections(program: Program, resources: list[Resource]) -> list[tuple[int, bytes]]:
    consts = bytearray(_U32.pack(len(program.constants)))
    for c in program.constants:
        consts += struct.pack("<II", c.kind, len(c.data))
        consts += c.data
    res = bytearray(_U32.pack(len(resources)))
    for r in resources:
        res += _U32.pack(r.kind)
        _str(r.name, res)
        _value(dict(r.desc), res)
    subs = bytearray(_U32.pack(len(program.subroutines)))
    for s in program.subroutines:
        subs += _U32.pack(s.entry)
        _str(s.name, subs)
    # Symbols are many (a label per construct): two arrays, read with one unpack each.
    indices = sorted(program.labels)
    names = [program.labels[i] for i in indices]
    if any("\0" in name for name in names):
        raise CompileError("label names cannot contain NUL characters")
    blob = "\0".join(names).encode("utf-8")
    syms = struct.pack(f"<I{len(indices)}II", len(indices), *indices, len(blob)) + blob
    meta = bytearray(_U32.pack(len(program.metadata)))
    for key, value in program.metadata.items():
        _str(key, meta)
        _str(value, meta)
    return [
        (CODE, program.code),
        (CONSTANTS, bytes(consts)),
        (RESOURCES, bytes(res)),
        (SUBROUTINES, bytes(subs)),
        (SYMBOLS, bytes(syms)),
        (METADATA, bytes(meta)),
    ]


def dumps(program: Any, *, linked: bool | Iterable[str] = ()) -> bytes:
    """The .hgb bytes of a Program (or an ended CommandBuffer).

    Self-contained by default: every resource description is stored in full
    (bytes values as binary blobs). ``linked`` (True, or resource names) stores
    those resources as names for the caller to bind at load (buffers keep their
    size, which the verifier needs); resources declared ``linked=True`` always are.
    """
    program = _as_program(program)
    _check_storable(program)
    resources = _link(program.resources, linked)
    flags = FLAG_LINKED if any(r.linked for r in resources) else 0
    return _assemble(_sections(program, resources), flags, _version_for(program.code))


def _version_for(code: bytes) -> tuple[int, int]:
    """The lowest format version that holds `code`'s ops (see OPS_SINCE_1_2)."""
    ops = {op for (op,) in struct.iter_unpack("<H14x", code)} if len(code) % 16 == 0 else set()
    return VERSION if ops & OPS_SINCE_1_2 else (1, 1)


def save(program: Any, path: str | os.PathLike[str], *, linked: bool | Iterable[str] = ()) -> None:
    """Write :func:`dumps` of ``program`` to ``path``."""
    _check_path(path)
    data = dumps(program, linked=linked)
    with open(path, "wb") as f:
        f.write(data)


def _check_path(path: Any) -> None:
    """A file name, not an int: open(3) would read (and then close) file descriptor 3."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"expected a file path (str or os.PathLike), got {path!r}")


# ---------------------------------------------------------------------- reading
class _Cursor:
    """Bounds-checked reading of one section: every read names its offset on failure."""

    __slots__ = ("data", "end", "pos", "section")

    def __init__(self, data: bytes, start: int, end: int, section: str) -> None:
        self.data, self.pos, self.end, self.section = data, start, end, section

    def fail(self, reason: str, offset: int | None = None) -> HGBError:
        return HGBError(f"{self.section} section: {reason}", self.pos if offset is None else offset)

    def take(self, size: int, what: str) -> bytes:
        if size > self.end - self.pos:
            raise self.fail(f"{what} of {size} bytes runs past the section end ({self.end})")
        start = self.pos
        self.pos += size
        return self.data[start : self.pos]

    def u8(self, what: str) -> int:
        if self.pos >= self.end:
            raise self.fail(f"truncated: {what} is missing")
        self.pos += 1
        return self.data[self.pos - 1]

    def u32(self, what: str) -> int:
        if self.end - self.pos < 4:
            raise self.fail(f"truncated: {what} is missing")
        value = _U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def count(self, what: str, min_size: int) -> int:
        at = self.pos
        n = self.u32(f"{what} count")
        if n * min_size > self.end - self.pos:
            raise self.fail(f"{what} count {n} cannot fit in {self.end - self.pos} bytes", at)
        return n

    def string(self, what: str) -> str:
        at = self.pos
        size = self.u32(f"{what} length")
        data = self.take(size, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"{what} is not UTF-8 ({exc.reason})", at) from None

    def value(self, depth: int = 0) -> Any:
        at = self.pos
        if depth > MAX_DESC_DEPTH:
            raise self.fail(f"value nested deeper than {MAX_DESC_DEPTH} levels", at)
        tag = self.u8("value tag")
        if tag == _NONE:
            return None
        if tag == _FALSE:
            return False
        if tag == _TRUE:
            return True
        if tag == _INT:
            return _I64.unpack(self.take(8, "integer"))[0]
        if tag == _FLOAT:
            value = _F64.unpack(self.take(8, "float"))[0]
            if not math.isfinite(value):
                raise self.fail(f"non-finite float {value!r}", at)
            return value
        if tag == _STR:
            return self.string("string")
        if tag == _BYTES:
            return self.take(self.u32("blob length"), "blob")
        if tag == _LIST:
            return [self.value(depth + 1) for _ in range(self.count("list", 1))]
        if tag == _DICT:
            out: dict[str, Any] = {}
            for _ in range(self.count("dict", 5)):
                key_at = self.pos
                key = self.string("key")
                if key in out:
                    raise self.fail(f"duplicate key {key!r}", key_at)
                out[key] = self.value(depth + 1)
            return out
        raise self.fail(f"unknown value tag {tag}", at)

    def done(self) -> None:
        if self.pos != self.end:
            raise self.fail(f"{self.end - self.pos} unexpected trailing bytes")


def _header(data: bytes) -> FileInfo:
    size = len(data)
    # The magic first, so that a short file of another kind is not called a truncated .hgb
    # (only a prefix of the magic is).
    magic = bytes(data[: len(MAGIC)])
    if magic != MAGIC[:size]:
        raise HGBError(f"not a .hgb file (magic {magic!r})", 0)
    if size < _HEADER.size:
        raise HGBError(f"truncated: {size} bytes, a header needs {_HEADER.size}", size)
    _magic, major, minor, flags, file_size, count, crc, reserved = _HEADER.unpack_from(data)
    if major != VERSION[0]:
        raise HGBError(
            f"format version {major}.{minor} is not supported: this reader reads "
            f"version {VERSION[0]}.{VERSION[1]} (major {VERSION[0]})",
            8,
        )
    if flags & ~FLAG_LINKED:
        raise HGBError(f"unknown flags 0x{flags:08x}", 12)
    if file_size != size:
        state = "truncated" if size < file_size else "oversized"
        raise HGBError(f"{state}: the header says {file_size} bytes, the file has {size}", 16)
    if count > MAX_SECTIONS:
        raise HGBError(f"section count {count} exceeds {MAX_SECTIONS}", 20)
    table_end = _HEADER.size + _ENTRY.size * count
    if table_end > size:
        raise HGBError(f"truncated: the section table needs {table_end} bytes", size)
    if reserved:
        raise HGBError(f"reserved header field is {reserved}, must be 0", 28)
    actual = zlib.crc32(memoryview(data)[28:], zlib.crc32(memoryview(data)[:24]))
    if actual != crc:
        raise HGBError(f"checksum mismatch: stored 0x{crc:08x}, computed 0x{actual:08x}", 24)
    sections = []
    seen: set[int] = set()
    for i in range(count):
        at = _HEADER.size + _ENTRY.size * i
        ident, offset, length, reserved = _ENTRY.unpack_from(data, at)
        if ident in seen:
            raise HGBError(f"section {ident} appears twice", at)
        if reserved:
            raise HGBError(f"section {ident}: reserved field is {reserved}, must be 0", at + 12)
        if offset < table_end or offset + length > size:
            raise HGBError(
                f"section {ident} at {offset}+{length} lies outside {table_end}..{size}", at + 4
            )
        seen.add(ident)
        sections.append((ident, offset, length))
    ordered = sorted(sections, key=lambda s: s[1])
    for (a, a_off, a_len), (b, b_off, _b_len) in itertools.pairwise(ordered):
        if a_off + a_len > b_off:
            raise HGBError(f"sections {a} and {b} overlap", b_off)
    return FileInfo((major, minor), flags, size, crc, tuple(sections))


def default_memory_limit() -> int:
    """What the resources of one loaded file may declare, in bytes, unless raised:
    a quarter of this machine's physical memory, at most 4 GiB (1 GiB where the
    machine does not say)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 1 << 30
    return max(1 << 20, min(physical // 4, DEFAULT_MEMORY_CAP))


def check_memory_limit(memory_limit: Any) -> int:
    """``memory_limit`` as a positive int (None: :func:`default_memory_limit`)."""
    if memory_limit is None:
        return default_memory_limit()
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit < 1:
        raise TypeError(f"memory_limit must be a positive int of bytes, got {memory_limit!r}")
    return memory_limit


def inspect(
    data: bytes | bytearray | memoryview, *, memory_limit: int | None = None
) -> tuple[FileInfo, Program]:
    """Parse .hgb bytes into what the header says and the Program.

    The buffers the file declares may take ``memory_limit`` bytes together
    (default: :func:`default_memory_limit`); a file asking for more is refused
    before anything is made, naming the resource that crosses the limit.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, got {type(data).__name__}")
    limit = check_memory_limit(memory_limit)
    data = bytes(data)
    info = _header(data)
    where = {ident: (offset, length) for ident, offset, length in info.sections}
    if CODE not in where:
        raise HGBError("no code section", _HEADER.size)

    def cursor(ident: int) -> _Cursor | None:
        if ident not in where:
            return None
        offset, length = where[ident]
        return _Cursor(data, offset, offset + length, SECTION_NAMES[ident])

    offset, length = where[CODE]
    if length % 16:
        raise HGBError(f"code section: length {length} is not a multiple of 16", offset)
    code = data[offset : offset + length]
    n = length // 16

    constants = []
    if cur := cursor(CONSTANTS):
        for _ in range(cur.count("constant", 8)):
            at = cur.pos
            kind = cur.u32("constant kind")
            if kind not in _CONST_KINDS:
                raise cur.fail(f"unknown constant kind {kind}", at)
            constants.append(Constant(_CONST_KINDS[kind], cur.take(cur.u32("length"), "data")))
        cur.done()

    resources = []
    declared = 0  # bytes of buffer memory the file asks for so far
    if cur := cursor(RESOURCES):
        names: set[str] = set()
        for _ in range(cur.count("resource", 10)):
            at = cur.pos
            kind = cur.u32("resource kind")
            if kind not in _RESOURCE_KINDS:
                raise cur.fail(f"unknown resource kind {kind}", at)
            name_at = cur.pos
            name = cur.string("resource name")
            if name in names:
                raise cur.fail(f"duplicate resource name {name!r}", name_at)
            names.add(name)
            desc_at = cur.pos
            desc = cur.value()
            if not isinstance(desc, dict):
                raise cur.fail(f"description of {name!r} is not a dict", desc_at)
            size = desc.get("size")
            if kind == ResourceKind.BUFFER and type(size) is int and size > 0:
                declared += size
                if declared > limit:
                    raise cur.fail(
                        f"buffer {name!r} of {size} bytes brings the file's buffers to "
                        f"{declared} bytes, over the memory limit of {limit} bytes "
                        "(pass memory_limit=... to load it)",
                        at,
                    )
            resources.append(Resource(_RESOURCE_KINDS[kind], name, desc))
        cur.done()
    if bool(info.flags & FLAG_LINKED) != any(r.linked for r in resources):
        raise HGBError("the linked flag does not match the resources", 12)

    subroutines = []
    if cur := cursor(SUBROUTINES):
        for _ in range(cur.count("subroutine", 8)):
            entry = cur.u32("entry")
            subroutines.append(Subroutine(cur.string("subroutine name"), entry))
        cur.done()

    labels: dict[int, str] = {}
    if cur := cursor(SYMBOLS):
        count = cur.count("symbol", 4)
        at = cur.pos
        indices = struct.unpack(f"<{count}I", cur.take(4 * count, "symbol indices"))
        if list(indices) != sorted(indices) or (indices and indices[-1] > n):
            raise cur.fail("symbol indices are out of order or past the code", at)
        blob_at = cur.pos
        blob = cur.take(cur.u32("symbol names length"), "symbol names")
        try:
            names = blob.decode("utf-8").split("\0") if count else []
        except UnicodeDecodeError as exc:
            raise cur.fail(f"symbol names are not UTF-8 ({exc.reason})", blob_at) from None
        if len(names) != count or (not count and blob):
            raise cur.fail(f"{len(names)} symbol names for {count} indices", blob_at)
        labels = dict(zip(indices, names, strict=True))
        if len(labels) != count:
            raise cur.fail("a symbol index appears twice", at)
        cur.done()

    metadata: dict[str, str] = {}
    if cur := cursor(METADATA):
        for _ in range(cur.count("metadata", 8)):
            at = cur.pos
            key = cur.string("metadata key")
            if key in metadata:
                raise cur.fail(f"duplicate metadata key {key!r}", at)
            metadata[key] = cur.string("metadata value")
        cur.done()

    program = Program._adopt(code, constants, resources, subroutines, labels, metadata)
    return info, program


_CONST_KINDS = {int(k): k for k in ConstKind}
_RESOURCE_KINDS = {int(k): k for k in ResourceKind}


def loads(data: bytes | bytearray | memoryview, *, memory_limit: int | None = None) -> Program:
    """The Program stored in .hgb bytes; raises :class:`HGBError` for any defect.

    ``memory_limit``: bytes the declared buffers may take together (see :func:`inspect`).
    """
    return inspect(data, memory_limit=memory_limit)[1]


def load(path: str | os.PathLike[str], *, memory_limit: int | None = None) -> Program:
    """Read a .hgb file (refusing files over MAX_FILE_SIZE before reading them, and
    buffers over ``memory_limit`` together before making anything)."""
    _check_path(path)
    check_memory_limit(memory_limit)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_SIZE:
            raise HGBError(f"file of {size} bytes exceeds the limit of {MAX_FILE_SIZE}", 0)
        data = f.read(size + 1)  # what fstat says, +1 to notice a file still growing
    if len(data) > MAX_FILE_SIZE:
        raise HGBError(f"file exceeds the limit of {MAX_FILE_SIZE} bytes", MAX_FILE_SIZE)
    return loads(data, memory_limit=memory_limit)
