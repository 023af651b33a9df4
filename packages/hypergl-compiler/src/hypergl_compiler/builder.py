"""``CommandBuffer``: records ISA instructions into a :class:`~.program.Program`.

Recording checks every operand as it is given (register 0..7, immediates in
range, resources of the right kind, static buffer offsets inside the buffer) so
that mistakes are reported where they are made, with the bad value named.
Labels may be referenced before they are placed; jumps are patched at ``end()``.
Subroutine bodies are recorded into their own sections and appended after the
main code (which ends with an implicit ``halt``); each body ends with ``ret``.

hypergl-core's ``ctx.command_buffer()`` subclasses this class to accept live GL
objects: it overrides :meth:`CommandBuffer._resource_slot` and registers the
objects it meets with :meth:`CommandBuffer._add_resource`.
"""

from __future__ import annotations

import operator
import re
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from . import isa
from .errors import CompileError
from .isa import BY_NAME, ConstKind, Op, Operand, ResourceKind
from .program import Constant, Program, Resource, Subroutine, normalize_desc

_PACK = isa.INSTRUCTION_FORMAT.pack
_U32 = struct.Struct("<I")
_FIELD_OFFSET = {"a": 2, "b": 4, "c": 8, "d": 12}
_NAME = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*\Z")
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_HALT = _PACK(BY_NAME["halt"].code, 0, 0, 0, 0)
_RET = _PACK(BY_NAME["ret"].code, 0, 0, 0, 0)
_INDEX_TYPES = {"u16": 0, "u32": 1, 0: 0, 1: 1}
_UNIFORM_BY_NAME = {name: code for code, (name, _t, _n) in isa.UNIFORM_TYPES.items()}
_UNIFORM_KIND = {"f": ConstKind.F32, "i": ConstKind.I32, "u": ConstKind.U32}
_ATTACHMENT_BY_NAME = {name: code for code, name in isa.READ_ATTACHMENTS.items()}
# Op records used by the hot recording paths (one global lookup each).
_OP_BARRIER = BY_NAME["barrier"]
_OP_BIND_FRAMEBUFFER = BY_NAME["bind_framebuffer"]
_OP_BIND_PIPELINE = BY_NAME["bind_pipeline"]
_OP_BIND_TEXTURE = BY_NAME["bind_texture"]
_OP_CALL = BY_NAME["call"]
_OP_CLEAR = BY_NAME["clear"]
_OP_COPY_BUFFER = BY_NAME["copy_buffer"]
_OP_DISPATCH = BY_NAME["dispatch"]
_OP_DISPATCH_INDIRECT = BY_NAME["dispatch_indirect"]
_OP_DRAW = BY_NAME["draw"]
_OP_DRAW_INDEXED = BY_NAME["draw_indexed"]
_OP_DRAW_INDEXED_INDIRECT = BY_NAME["draw_indexed_indirect"]
_OP_DRAW_INDIRECT = BY_NAME["draw_indirect"]
_OP_DRAW_REG = BY_NAME["draw_reg"]
_OP_FENCE_SIGNAL = BY_NAME["fence_signal"]
_OP_FENCE_WAIT = BY_NAME["fence_wait"]
_OP_GOTO = BY_NAME["goto"]
_OP_HALT = BY_NAME["halt"]
_OP_IADDI = BY_NAME["iaddi"]
_OP_JNZ = BY_NAME["jnz"]
_OP_JUMP_IF_NOT_ZERO = BY_NAME["jump_if_not_zero"]
_OP_JUMP_IF_ZERO = BY_NAME["jump_if_zero"]
_OP_JUMP_TABLE = BY_NAME["jump_table"]
_OP_JZ = BY_NAME["jz"]
_OP_LF = BY_NAME["lf"]
_OP_LI = BY_NAME["li"]
_OP_LOAD = BY_NAME["load"]
_OP_LOAD_INDEXED = BY_NAME["load_indexed"]
_OP_LOOP = BY_NAME["loop"]
_OP_MULTI_DRAW_INDEXED_INDIRECT = BY_NAME["multi_draw_indexed_indirect"]
_OP_MULTI_DRAW_INDEXED_INDIRECT_COUNT = BY_NAME["multi_draw_indexed_indirect_count"]
_OP_MULTI_DRAW_INDIRECT = BY_NAME["multi_draw_indirect"]
_OP_MULTI_DRAW_INDIRECT_COUNT = BY_NAME["multi_draw_indirect_count"]
_OP_NOP = BY_NAME["nop"]
_OP_POP = BY_NAME["pop"]
_OP_PUSH = BY_NAME["push"]
_OP_READ_FRAMEBUFFER = BY_NAME["read_framebuffer"]
_OP_RET = BY_NAME["ret"]
_OP_SKIP_IF_NOT_ZERO = BY_NAME["skip_if_not_zero"]
_OP_SKIP_IF_ZERO = BY_NAME["skip_if_zero"]
_OP_STORE = BY_NAME["store"]
_OP_STORE_INDEXED = BY_NAME["store_indexed"]
_OP_UNIFORM_CONST = BY_NAME["uniform_const"]
_OP_UNIFORM_F = BY_NAME["uniform_f"]
_OP_UNIFORM_I = BY_NAME["uniform_i"]
_OP_UPLOAD = BY_NAME["upload"]
_OP_VIEWPORT = BY_NAME["viewport"]
_OP_VIEWPORT_REG = BY_NAME["viewport_reg"]


def valid_name(name: object) -> bool:
    """Names of labels, resources and subroutines: identifiers (dots allowed)."""
    return isinstance(name, str) and _NAME.match(name) is not None


def _as_int(value: Any) -> int | None:
    """An integer operand (int, NumPy integer, ...); None for bools, registers, floats."""
    if isinstance(value, (bool, Reg)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


class Reg(int):
    """A register index; distinguishes ``r2`` from the immediate ``2`` in the DSL."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"r{int(self)}"


REGISTERS: tuple[Reg, ...] = tuple(Reg(i) for i in range(isa.NUM_REGISTERS))
r0: Reg
r1: Reg
r2: Reg
r3: Reg
r4: Reg
r5: Reg
r6: Reg
r7: Reg
r0, r1, r2, r3, r4, r5, r6, r7 = REGISTERS


class Label:
    """A jump target; placed with ``cmd.label(...)``, referenced before or after."""

    __slots__ = ("_index", "_owner", "_section", "name")

    def __init__(self, owner: CommandBuffer, name: str) -> None:
        self._owner = owner
        self.name: str = name
        self._section: int | None = None
        self._index = 0

    @property
    def placed(self) -> bool:
        return self._section is not None

    def __repr__(self) -> str:
        return f"Label({self.name!r})"


class ResourceHandle:
    """A symbolic resource declared on a command buffer: its kind, table slot and name.

    Handles compare and hash by (command buffer, slot), so they can be
    ``@subroutine`` arguments.
    """

    __slots__ = ("_owner", "kind", "name", "slot")

    def __init__(self, owner: CommandBuffer, kind: ResourceKind, slot: int, name: str) -> None:
        self._owner = owner
        self.kind: ResourceKind = kind
        self.slot: int = slot
        self.name: str = name

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceHandle):
            return NotImplemented
        return other._owner is self._owner and other.slot == self.slot

    def __hash__(self) -> int:
        return hash((id(self._owner), self.slot))

    def __repr__(self) -> str:
        return f"<{self.kind.name.lower()} {self.name!r} slot {self.slot}>"


def _reg3(name: str) -> Callable[[CommandBuffer, int, int, int], None]:
    op = BY_NAME[name]

    def method(self: CommandBuffer, dst: int, a: int, b: int) -> None:
        self._ins(op, self._reg(dst, name), self._reg(a, name), self._reg(b, name), 0)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}``: {op.meaning} (a=dst, b=a, c=b)."
    return method


def _reg2(name: str) -> Callable[[CommandBuffer, int, int], None]:
    op = BY_NAME[name]

    def method(self: CommandBuffer, dst: int, src: int) -> None:
        self._ins(op, self._reg(dst, name), self._reg(src, name), 0, 0)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}``: {op.meaning} (a=dst, b=src)."
    return method


def _bind_buffer(name: str, with_binding: bool):
    op = BY_NAME[name]
    limit = op.max_of("c")

    if with_binding:

        def method(self: CommandBuffer, buffer: Any, binding: int = 0) -> None:
            slot = self._resource_slot(ResourceKind.BUFFER, buffer)
            self._ins(op, 0, slot, self._u32(binding, f"{name} binding", limit), 0)

    else:

        def method(self: CommandBuffer, buffer: Any) -> None:  # type: ignore[misc]
            self._ins(op, 0, self._resource_slot(ResourceKind.BUFFER, buffer), 0, 0)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}``: {op.meaning}."
    return method


class CommandBuffer:
    """Records a HyperGL program.

    Declare resources (:meth:`buffer`, :meth:`texture`, :meth:`pipeline`,
    :meth:`framebuffer`, :meth:`fence`, :meth:`readback`, :meth:`external`), record
    one method per ISA op (named after the mnemonic; ``and_``, ``or_``, ``not_``),
    then call :meth:`end` for the :class:`Program`. :meth:`begin` starts a new
    program on the same resources.
    """

    def __init__(self, *, metadata: Mapping[str, str] | None = None) -> None:
        self._resources: list[Resource] = []
        self._resource_names: dict[str, int] = {}
        self._metadata: dict[str, str] = {}
        for key, value in (metadata or {}).items():
            self.set_metadata(key, value)
        self._program: Program | None = None
        self._reset()

    # ------------------------------------------------------------------ lifecycle
    def _reset(self) -> None:
        self._sections: list[bytearray] = [bytearray()]
        self._stack: list[int] = [0]  # sections being recorded; the last is current
        self._code = self._sections[0]
        self._constants: list[Constant] = []
        self._constant_index: dict[tuple[ConstKind, bytes], int] = {}
        self._labels: dict[str, Label] = {}
        self._placed: list[Label] = []
        self._label_serial = 0
        self._duplicate_labels: list[str] = []
        self._fixups: list[tuple[int, int, int, Label]] = []  # section, index, offset, label
        self._table_fixups: list[tuple[int, tuple[Label, ...]]] = []  # constant, labels
        self._subs: list[list] = []  # [name, section or None]
        self._sub_index: dict[str, int] = {}
        self._subroutine_cache: dict[Any, int] = {}  # used by the @subroutine decorator
        self._ended = False

    def begin(self) -> CommandBuffer:
        """Start recording a new program (the declared resources are kept)."""
        self._reset()
        self._program = None
        return self

    def end(self) -> Program:
        """Finish recording: resolve labels and subroutines and return the Program.

        Raises CompileError naming an undefined or duplicate label, an undefined
        subroutine or a subroutine body still open.
        """
        self._check_recording()
        if len(self._stack) > 1:
            open_sub = next(s[0] for s in self._subs if s[1] == self._stack[-1])
            raise CompileError(f"subroutine {open_sub!r} is still being recorded at end()")
        if self._duplicate_labels:
            raise CompileError(f"duplicate label {self._duplicate_labels[0]!r}")
        for label in self._labels.values():
            if not label.placed:
                raise CompileError(f"undefined label {label.name!r}")
        for name, section in self._subs:
            if section is None:
                raise CompileError(f"undefined subroutine {name!r}")

        code = bytearray(self._sections[0])
        code += _HALT
        base = {0: 0}
        entries = []
        for name, section in self._subs:
            base[section] = len(code) // 16
            entries.append(Subroutine(name, base[section]))
            code += self._sections[section]
        if len(code) // 16 > isa.U32_MAX:
            raise CompileError(f"program of {len(code) // 16} instructions is too long")

        def where(label: Label) -> int:
            return base[label._section] + label._index  # type: ignore[index]

        for section, index, offset, label in self._fixups:
            # TARGET operands are u32 fields (b, c or d), never the u16 field a
            _U32.pack_into(code, (base[section] + index) * 16 + offset, where(label))
        constants = list(self._constants)
        for const_index, labels in self._table_fixups:
            data = struct.pack(f"<{len(labels)}I", *(where(label) for label in labels))
            constants[const_index] = Constant(ConstKind.U32, data)
        labels: dict[int, str] = {}
        for label in self._placed:  # the first label placed at an index names it
            labels.setdefault(where(label), label.name)
        for sub in entries:  # name unlabelled entries after their subroutine, for dis
            if sub.name not in self._labels:
                labels.setdefault(sub.entry, sub.name)

        self._program = Program(
            code=bytes(code),
            constants=tuple(constants),
            resources=tuple(self._resources),
            subroutines=tuple(entries),
            labels=dict(sorted(labels.items())),
            metadata=dict(self._metadata),
        )
        self._ended = True
        return self._program

    @property
    def program(self) -> Program:
        """The Program of the last :meth:`end`."""
        if self._program is None:
            raise CompileError("the command buffer has not been ended: call end() first")
        return self._program

    @property
    def position(self) -> int:
        """Index of the next instruction within the code being recorded (main or a body)."""
        return len(self._code) // 16

    def set_metadata(self, key: str, value: str) -> None:
        """Free-form text stored with the program (author, scene name, ...)."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise CompileError(f"metadata must map str to str, got {key!r}: {value!r}")
        self._metadata[key] = value

    def _check_recording(self) -> None:
        if self._ended:
            raise CompileError("the command buffer has ended: call begin() to record again")

    # ------------------------------------------------------------------ resources
    def _add_resource(self, kind: ResourceKind, name: str | None, desc: Mapping[str, Any]) -> int:
        """Append an entry to the resource table and return its slot (protected hook).

        Subclasses binding live objects call this the first time they meet one.
        ``name`` must be unique on this command buffer; None picks ``<kind><slot>``.
        ``desc`` is JSON-like (bytes allowed); buffers need an int ``size``.
        """
        kind = ResourceKind(kind)
        slot = len(self._resources)
        if name is None:
            name = f"{kind.name.lower()}{slot}"
            while name in self._resource_names:
                name += "_"
        if not valid_name(name):
            raise CompileError(f"resource name {name!r} is not an identifier")
        if name in self._resource_names:
            raise CompileError(f"resource name {name!r} is already declared")
        desc = normalize_desc(desc, f"{kind.name.lower()} {name!r}")
        if kind is ResourceKind.BUFFER:
            size = desc.get("size")
            if type(size) is not int or not 0 <= size <= isa.U32_MAX:
                raise CompileError(f"buffer {name!r}: size {size!r} is not an int in 0..2**32-1")
        if "linked" in desc and type(desc["linked"]) is not bool:
            raise CompileError(f"{name!r}: linked must be a bool, got {desc['linked']!r}")
        self._resources.append(Resource(kind, name, desc))
        self._resource_names[name] = slot
        return slot

    def _resource_slot(self, kind: ResourceKind, value: Any) -> int:
        """Resolve a resource operand to its slot (overridable hook).

        The base class accepts only handles declared on this command buffer and
        checks their kind; hypergl-core overrides it to accept live GL objects.
        """
        if isinstance(value, ResourceHandle) and value._owner is self:
            if value.kind is not kind:
                raise CompileError(
                    f"{value!r} is a {value.kind.name.lower()}, expected a {kind.name.lower()}"
                )
            return value.slot
        raise CompileError(
            f"{value!r} is not a {kind.name.lower()} declared on this command buffer"
        )

    def _declare(self, kind: ResourceKind, name: str, desc: dict[str, Any]) -> ResourceHandle:
        # None means "not given": hypergl-core applies its own defaults for absent keys.
        desc = {key: value for key, value in desc.items() if value is not None}
        slot = self._add_resource(kind, name, desc)
        return ResourceHandle(self, kind, slot, self._resources[slot].name)

    def buffer(
        self,
        name: str,
        size: int | None = None,
        data: bytes | None = None,
        usage: str | None = None,
        *,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a buffer of ``size`` bytes (default: ``len(data)``), optional initial data."""
        if data is not None:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise CompileError(f"buffer {name!r}: data {data!r} is not bytes")
            data = bytes(data)
            if size is None:
                size = len(data)
            elif isinstance(size, int) and len(data) > size:
                raise CompileError(f"buffer {name!r}: {len(data)} bytes of data exceed size {size}")
        if size is None:
            raise CompileError(f"buffer {name!r}: give a size or data")
        return self._declare(
            ResourceKind.BUFFER,
            name,
            {"size": size, "usage": usage, "data": data, "linked": linked or None, **desc},
        )

    def texture(
        self,
        name: str,
        width: int | None = None,
        height: int | None = None,
        format: str | None = None,
        *,
        layers: int | None = None,
        data: bytes | None = None,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a texture (``format`` and pixel ``data`` as hypergl-core defines them)."""
        for what, value in (("width", width), ("height", height), ("layers", layers)):
            if value is not None and (type(value) is not int or value < 1):
                raise CompileError(f"texture {name!r}: {what} {value!r} is not a positive int")
        return self._declare(
            ResourceKind.TEXTURE,
            name,
            {
                "width": width,
                "height": height,
                "layers": layers,
                "format": format,
                "data": data,
                "linked": linked or None,
                **desc,
            },
        )

    def pipeline(
        self,
        name: str,
        vertex_shader: str | None = None,
        fragment_shader: str | None = None,
        *,
        compute_shader: str | None = None,
        linked: bool = False,
        **state: Any,
    ) -> ResourceHandle:
        """Declare a pipeline: shader sources plus state (vertex_layout, topology, ...)."""
        return self._declare(
            ResourceKind.PIPELINE,
            name,
            {
                "vertex_shader": vertex_shader,
                "fragment_shader": fragment_shader,
                "compute_shader": compute_shader,
                "linked": linked or None,
                **state,
            },
        )

    def framebuffer(
        self,
        name: str,
        width: int | None = None,
        height: int | None = None,
        *,
        color: Any = None,
        depth: Any = None,
        linked: bool = False,
        **desc: Any,
    ) -> ResourceHandle:
        """Declare a framebuffer (colour attachment formats, optional depth format)."""
        return self._declare(
            ResourceKind.FRAMEBUFFER,
            name,
            {
                "width": width,
                "height": height,
                "color": color,
                "depth": depth,
                "linked": linked or None,
                **desc,
            },
        )

    def fence(self, name: str, **desc: Any) -> ResourceHandle:
        """Declare a fence (signalled and waited on by ``fence_signal``/``fence_wait``)."""
        return self._declare(ResourceKind.FENCE, name, desc)

    def readback(self, name: str, *, linked: bool = False, **desc: Any) -> ResourceHandle:
        """Declare a readback slot that ``read_framebuffer`` fills (the caller's array)."""
        return self._declare(ResourceKind.READBACK, name, {"linked": linked or None, **desc})

    def external(
        self, name: str, source: str | None = None, *, linked: bool = False, **desc: Any
    ) -> ResourceHandle:
        """Declare an external source (e.g. a physics world) that ``upload`` copies from."""
        return self._declare(
            ResourceKind.EXTERNAL, name, {"source": source, "linked": linked or None, **desc}
        )

    def resource(self, name: str) -> ResourceHandle:
        """The handle of a declared resource, by name."""
        slot = self._resource_names.get(name) if isinstance(name, str) else None
        if slot is None:
            raise CompileError(f"no resource named {name!r}")
        entry = self._resources[slot]
        return ResourceHandle(self, entry.kind, slot, entry.name)

    # ------------------------------------------------------------------ constants
    def constant(self, kind: ConstKind | str, values: Any) -> int:
        """Add a constant to the pool (deduplicated) and return its index.

        ``values``: numbers for U32/I32/F32, bytes for BYTES, str for UTF8.
        """
        if isinstance(kind, str):
            try:
                kind = ConstKind[kind.upper()]
            except KeyError:
                raise CompileError(f"unknown constant kind {kind!r}") from None
        kind = ConstKind(kind)
        if kind is ConstKind.BYTES:
            if not isinstance(values, (bytes, bytearray, memoryview)):
                raise CompileError(f"bytes constant {values!r} is not bytes")
            return self._constant(kind, bytes(values))
        if kind is ConstKind.UTF8:
            if not isinstance(values, str):
                raise CompileError(f"utf8 constant {values!r} is not a str")
            return self._constant(kind, values.encode("utf-8"))
        if isinstance(values, (int, float)):
            values = (values,)
        try:
            items = list(values)
        except TypeError:
            raise CompileError(
                f"{kind.name.lower()} constant {values!r} is not a sequence"
            ) from None
        check = {ConstKind.U32: self._u32, ConstKind.I32: self._i32, ConstKind.F32: self._f32}
        bits = [check[kind](value, f"{kind.name.lower()} constant") for value in items]
        return self._constant(kind, struct.pack(f"<{len(bits)}I", *bits))

    def _constant(self, kind: ConstKind, data: bytes) -> int:
        key = (kind, data)
        index = self._constant_index.get(key)
        if index is None:
            index = len(self._constants)
            self._constants.append(Constant(kind, data))
            self._constant_index[key] = index
        return index

    # ------------------------------------------------------------------ operand checks
    @staticmethod
    def _reg(value: Any, what: str) -> int:
        if type(value) is Reg or (type(value) is int and 0 <= value < 8):
            return int(value)
        raise CompileError(f"{what}: register {value!r} is outside r0..r7")

    @staticmethod
    def _u32(value: Any, what: str, maximum: int = isa.U32_MAX) -> int:
        if type(value) is int and 0 <= value <= maximum:
            return value
        number = _as_int(value)
        if number is None or not 0 <= number <= maximum:
            raise CompileError(f"{what}: {value!r} is not an integer in 0..{maximum}")
        return number

    @staticmethod
    def _i32(value: Any, what: str) -> int:
        number = _as_int(value)
        if number is None or not _I32_MIN <= number <= _I32_MAX:
            raise CompileError(f"{what}: {value!r} is not a 32-bit signed integer")
        return number & 0xFFFFFFFF

    @staticmethod
    def _imm(value: Any, what: str) -> int:
        """A 32-bit immediate given as signed or unsigned int."""
        number = _as_int(value)
        if number is None or not _I32_MIN <= number <= isa.U32_MAX:
            raise CompileError(f"{what}: {value!r} is not a 32-bit integer")
        return number & 0xFFFFFFFF

    @staticmethod
    def _f32(value: Any, what: str) -> int:
        if isinstance(value, (bool, str, bytes, Reg)):
            raise CompileError(f"{what}: {value!r} is not a number")
        try:
            return _U32.unpack(struct.pack("<f", float(value)))[0]
        except (TypeError, ValueError):
            raise CompileError(f"{what}: {value!r} is not a number") from None
        except OverflowError:
            raise CompileError(f"{what}: {value!r} overflows a 32-bit float") from None

    def _buffer_offset(self, slot: int, offset: Any, what: str, length: int = 4) -> int:
        """A static byte offset into buffer ``slot``: aligned and inside its declared size."""
        offset = self._u32(offset, f"{what} offset")
        size = self._resources[slot].size
        if offset % 4:
            raise CompileError(f"{what}: offset {offset} is not a multiple of 4")
        if size is not None and offset + length > size:
            raise CompileError(
                f"{what}: offset {offset} is outside buffer "
                f"{self._resources[slot].name!r} of {size} bytes"
            )
        return offset

    # ------------------------------------------------------------------ labels
    def _label_ref(self, target: Any, what: str) -> Label:
        if isinstance(target, Label):
            if target._owner is not self:
                raise CompileError(f"{what}: {target!r} belongs to another command buffer")
            return target
        if not valid_name(target):
            raise CompileError(f"{what}: jump target {target!r} is not a label or label name")
        label = self._labels.get(target)
        if label is None:
            label = self._labels[target] = Label(self, target)
        return label

    def new_label(self, hint: str = "L") -> Label:
        """A fresh, not yet placed label with a unique name derived from ``hint``."""
        if not valid_name(hint):
            raise CompileError(f"label hint {hint!r} is not an identifier")
        while True:
            name = f"{hint}.{self._label_serial}"
            self._label_serial += 1
            if name not in self._labels:
                label = self._labels[name] = Label(self, name)
                return label

    def label(self, name: str | Label | None = None) -> Label:
        """Place a label here (a name, a Label from :meth:`new_label`, or None for a new one).

        Placing the same name twice is reported by :meth:`end`.
        """
        self._check_recording()
        label = self.new_label() if name is None else self._label_ref(name, "label")
        if label.placed:
            self._duplicate_labels.append(label.name)
        else:
            label._section = self._stack[-1]
            label._index = len(self._code) // 16
            self._placed.append(label)
        return label

    def _jump(self, op: Op, a: int, target: Any, field: str, b: int = 0, c: int = 0) -> None:
        label = self._label_ref(target, op.name)
        self._ins(op, a, b, c, 0)
        self._fixups.append(
            (self._stack[-1], len(self._code) // 16 - 1, _FIELD_OFFSET[field], label)
        )

    # ------------------------------------------------------------------ subroutines
    def _sub_ref(self, sub: Any) -> int:
        if type(sub) is int:
            if not 0 <= sub < len(self._subs):
                raise CompileError(f"call: subroutine index {sub} is not declared")
            return sub
        if not valid_name(sub):
            raise CompileError(f"call: subroutine {sub!r} is not a subroutine name or index")
        index = self._sub_index.get(sub)
        if index is None:
            index = self._sub_index[sub] = len(self._subs)
            self._subs.append([sub, None])
        return index

    @contextmanager
    def define_subroutine(self, name: str) -> Iterator[int]:
        """Record the body of subroutine ``name`` (a ``ret`` is appended); yields its index.

        Bodies may be defined while other code is being recorded: they go to their
        own section, laid out after the main code at :meth:`end`.
        """
        self._check_recording()
        index = self._sub_ref(name)
        if self._subs[index][1] is not None:
            raise CompileError(f"subroutine {name!r} is already defined")
        section = len(self._sections)
        self._sections.append(bytearray())
        self._subs[index][1] = section
        self._stack.append(section)
        self._code = self._sections[section]
        try:
            yield index
            self._code += _RET
        finally:
            self._stack.pop()
            self._code = self._sections[self._stack[-1]]

    # ------------------------------------------------------------------ emission
    def _ins(self, op: Op, a: int, b: int, c: int, d: int) -> None:
        if self._ended:
            self._check_recording()
        self._code += _PACK(op.code, a, b, c, d)

    def emit(self, mnemonic: str, a: Any = 0, b: Any = 0, c: Any = 0, d: Any = 0) -> None:
        """Record any op by mnemonic, each field checked by its operand kind.

        REG: 0..7; U32/I32/F32: numbers; TARGET: label; CONST: pool index or a
        :class:`Constant`; SUB: name or index; resource fields: declared handles.
        """
        op = BY_NAME.get(mnemonic) if isinstance(mnemonic, str) else None
        if op is None:
            raise CompileError(f"unknown mnemonic {mnemonic!r}")
        values = [a, b, c, d]
        label_field = None
        for i, (field, kind) in enumerate(zip(isa.FIELDS, op.operands, strict=True)):
            value = values[i]
            what = f"{mnemonic} field {field}"
            if kind is Operand.NONE:
                if value != 0:
                    raise CompileError(f"{what}: {value!r} given for an unused field")
                values[i] = 0
            elif kind is Operand.REG:
                values[i] = self._reg(value, what)
            elif kind is Operand.U32:
                values[i] = self._u32(value, what, op.max_of(field))
            elif kind is Operand.I32:
                values[i] = self._i32(value, what)
            elif kind is Operand.F32:
                values[i] = self._f32(value, what)
            elif kind is Operand.TARGET:
                label_field = (field, self._label_ref(value, what))
                values[i] = 0
            elif kind is Operand.CONST:
                if isinstance(value, Constant):
                    values[i] = self._constant(value.kind, value.data)
                elif type(value) is int and 0 <= value < len(self._constants):
                    values[i] = value
                else:
                    raise CompileError(f"{what}: {value!r} is not a constant or pool index")
            elif kind is Operand.SUB:
                values[i] = self._sub_ref(value)
            else:
                values[i] = self._resource_slot(isa.SLOT_OPERANDS[kind], value)
        if isa.Rule.MEM_U32 in op.rule:
            self._buffer_offset(values[1], values[2], mnemonic)
        self._ins(op, *values)
        if label_field is not None:
            field, label = label_field
            self._fixups.append(
                (self._stack[-1], len(self._code) // 16 - 1, _FIELD_OFFSET[field], label)
            )

    # --- control -------------------------------------------------------------
    def nop(self) -> None:
        """``nop``: do nothing."""
        self._ins(_OP_NOP, 0, 0, 0, 0)

    def halt(self) -> None:
        """``halt``: stop the program."""
        self._ins(_OP_HALT, 0, 0, 0, 0)

    def goto(self, target: str | Label) -> None:
        """``goto``: jump to a label."""
        self._jump(_OP_GOTO, 0, target, "b")

    def call(self, sub: str | int) -> None:
        """``call``: run subroutine ``sub`` (name, possibly defined later, or index)."""
        self._ins(_OP_CALL, 0, self._sub_ref(sub), 0, 0)

    def ret(self) -> None:
        """``ret``: return from the current subroutine."""
        self._ins(_OP_RET, 0, 0, 0, 0)

    def jz(self, reg: int, target: str | Label) -> None:
        """``jz``: jump to ``target`` if r[reg] == 0."""
        self._jump(_OP_JZ, self._reg(reg, "jz"), target, "b")

    def jnz(self, reg: int, target: str | Label) -> None:
        """``jnz``: jump to ``target`` if r[reg] != 0."""
        self._jump(_OP_JNZ, self._reg(reg, "jnz"), target, "b")

    def loop(self, reg: int, target: str | Label) -> None:
        """``loop``: r[reg] -= 1; jump to ``target`` if r[reg] != 0."""
        self._jump(_OP_LOOP, self._reg(reg, "loop"), target, "b")

    def jump_table(self, reg: int, targets: Iterable[str | Label], default: str | Label) -> None:
        """``jump_table``: jump to ``targets[r[reg]]``, or to ``default`` when out of the table."""
        reg = self._reg(reg, "jump_table")
        labels = tuple(self._label_ref(t, "jump_table") for t in targets)
        if not labels:
            raise CompileError("jump_table: the table of targets is empty")
        if all(label.placed and label._section == 0 for label in labels):
            # Targets in the main code are final already: share the constant.
            data = struct.pack(f"<{len(labels)}I", *(label._index for label in labels))
            const = self._constant(ConstKind.U32, data)
        else:  # forward or relocated targets: a private entry, filled at end()
            const = len(self._constants)
            self._constants.append(Constant(ConstKind.U32, bytes(4 * len(labels))))
            self._table_fixups.append((const, labels))
        self._jump(_OP_JUMP_TABLE, reg, default, "c", b=const)

    def push(self, reg: int) -> None:
        """``push``: push r[reg] on the data stack."""
        self._ins(_OP_PUSH, self._reg(reg, "push"), 0, 0, 0)

    def pop(self, reg: int) -> None:
        """``pop``: pop the data stack into r[reg]."""
        self._ins(_OP_POP, self._reg(reg, "pop"), 0, 0, 0)

    # --- ALU -------------------------------------------------------------------
    def li(self, reg: int, value: int) -> None:
        """``li``: r[reg] = value (a signed or unsigned 32-bit integer)."""
        self._ins(_OP_LI, self._reg(reg, "li"), self._imm(value, "li"), 0, 0)

    def lf(self, reg: int, value: float) -> None:
        """``lf``: r[reg] = value (stored as a 32-bit float)."""
        self._ins(_OP_LF, self._reg(reg, "lf"), self._f32(value, "lf"), 0, 0)

    def iaddi(self, dst: int, src: int, value: int) -> None:
        """``iaddi``: r[dst] = r[src] + value (signed 32-bit immediate)."""
        self._ins(
            _OP_IADDI,
            self._reg(dst, "iaddi"),
            self._reg(src, "iaddi"),
            self._i32(value, "iaddi"),
            0,
        )

    mov = _reg2("mov")
    iadd = _reg3("iadd")
    isub = _reg3("isub")
    imul = _reg3("imul")
    idiv = _reg3("idiv")
    irem = _reg3("irem")
    ineg = _reg2("ineg")
    and_ = _reg3("and")
    or_ = _reg3("or")
    xor = _reg3("xor")
    not_ = _reg2("not")
    shl = _reg3("shl")
    shr = _reg3("shr")
    sar = _reg3("sar")
    fadd = _reg3("fadd")
    fsub = _reg3("fsub")
    fmul = _reg3("fmul")
    fdiv = _reg3("fdiv")
    itof = _reg2("itof")
    ftoi = _reg2("ftoi")
    ieq = _reg3("ieq")
    ine = _reg3("ine")
    ilt = _reg3("ilt")
    ile = _reg3("ile")
    ult = _reg3("ult")
    feq = _reg3("feq")
    flt = _reg3("flt")
    fle = _reg3("fle")

    # --- memory ------------------------------------------------------------------
    def _mem(self, op: Op, reg: int, buffer: Any, offset: int) -> None:
        slot = self._resource_slot(ResourceKind.BUFFER, buffer)
        self._ins(op, reg, slot, self._buffer_offset(slot, offset, op.name), 0)

    def load(self, reg: int, buffer: Any, offset: int) -> None:
        """``load``: r[reg] = u32 at byte ``offset`` of ``buffer``."""
        self._mem(_OP_LOAD, self._reg(reg, "load"), buffer, offset)

    def store(self, reg: int, buffer: Any, offset: int) -> None:
        """``store``: u32 at byte ``offset`` of ``buffer`` = r[reg]."""
        self._mem(_OP_STORE, self._reg(reg, "store"), buffer, offset)

    def load_indexed(self, reg: int, buffer: Any, index: int, offset: int = 0) -> None:
        """``load_indexed``: r[reg] = u32 at ``offset + 4 * r[index]`` (checked at run time)."""
        slot = self._resource_slot(ResourceKind.BUFFER, buffer)
        self._ins(
            _OP_LOAD_INDEXED,
            self._reg(reg, "load_indexed"),
            slot,
            self._reg(index, "load_indexed index"),
            self._u32(offset, "load_indexed offset"),
        )

    def store_indexed(self, reg: int, buffer: Any, index: int, offset: int = 0) -> None:
        """``store_indexed``: u32 at ``offset + 4 * r[index]`` = r[reg] (checked at run time)."""
        slot = self._resource_slot(ResourceKind.BUFFER, buffer)
        self._ins(
            _OP_STORE_INDEXED,
            self._reg(reg, "store_indexed"),
            slot,
            self._reg(index, "store_indexed index"),
            self._u32(offset, "store_indexed offset"),
        )

    def skip_if_zero(self, buffer: Any, offset: int) -> None:
        """``skip_if_zero``: skip the next instruction if the u32 at ``offset`` is 0."""
        self._mem(_OP_SKIP_IF_ZERO, 0, buffer, offset)

    def skip_if_not_zero(self, buffer: Any, offset: int) -> None:
        """``skip_if_not_zero``: skip the next instruction if the u32 at ``offset`` is not 0."""
        self._mem(_OP_SKIP_IF_NOT_ZERO, 0, buffer, offset)

    def _mem_jump(self, op: Op, buffer: Any, offset: int, target: Any) -> None:
        slot = self._resource_slot(ResourceKind.BUFFER, buffer)
        self._jump(op, 0, target, "d", b=slot, c=self._buffer_offset(slot, offset, op.name))

    def jump_if_zero(self, buffer: Any, offset: int, target: str | Label) -> None:
        """``jump_if_zero``: jump to ``target`` if the u32 at ``offset`` of ``buffer`` is 0."""
        self._mem_jump(_OP_JUMP_IF_ZERO, buffer, offset, target)

    def jump_if_not_zero(self, buffer: Any, offset: int, target: str | Label) -> None:
        """``jump_if_not_zero``: jump to ``target`` if the u32 at ``offset`` is not 0."""
        self._mem_jump(_OP_JUMP_IF_NOT_ZERO, buffer, offset, target)

    # --- GL: framebuffer and state ------------------------------------------------
    def clear(
        self,
        color: Iterable[float] = (0.0, 0.0, 0.0, 1.0),
        depth: float = 1.0,
        mask: int = isa.CLEAR_COLOR | isa.CLEAR_DEPTH,
        stencil: int = 0,
    ) -> None:
        """``clear`` the bound framebuffer; colour and depth go to the constant pool."""
        try:
            rgba = tuple(color)
        except TypeError:
            raise CompileError(f"clear: color {color!r} is not 4 floats") from None
        if len(rgba) != 4:
            raise CompileError(f"clear: color {color!r} is not 4 floats")
        const = self.constant(ConstKind.F32, (*rgba, depth))
        self._ins(
            _OP_CLEAR,
            0,
            const,
            self._u32(mask, "clear mask", _OP_CLEAR.max_of("c")),
            self._u32(stencil, "clear stencil"),
        )

    def bind_pipeline(self, pipeline: Any) -> None:
        """``bind_pipeline``: bind a pipeline (program, vertex layout, state)."""
        self._ins(_OP_BIND_PIPELINE, 0, self._resource_slot(ResourceKind.PIPELINE, pipeline), 0, 0)

    def bind_framebuffer(self, framebuffer: Any) -> None:
        """``bind_framebuffer``: render into ``framebuffer``."""
        slot = self._resource_slot(ResourceKind.FRAMEBUFFER, framebuffer)
        self._ins(_OP_BIND_FRAMEBUFFER, 0, slot, 0, 0)

    bind_vertex_buffer = _bind_buffer("bind_vertex_buffer", True)
    bind_index_buffer = _bind_buffer("bind_index_buffer", False)
    bind_uniform_buffer = _bind_buffer("bind_uniform_buffer", True)
    bind_storage_buffer = _bind_buffer("bind_storage_buffer", True)
    bind_indirect_buffer = _bind_buffer("bind_indirect_buffer", False)
    bind_parameter_buffer = _bind_buffer("bind_parameter_buffer", False)

    def bind_texture(self, texture: Any, unit: int = 0) -> None:
        """``bind_texture``: bind ``texture`` (with its sampler) on texture ``unit``."""
        slot = self._resource_slot(ResourceKind.TEXTURE, texture)
        limit = _OP_BIND_TEXTURE.max_of("c")
        self._ins(_OP_BIND_TEXTURE, 0, slot, self._u32(unit, "bind_texture unit", limit), 0)

    def viewport(self, x: int, y: int, width: int, height: int) -> None:
        """``viewport`` from a constant (x, y, width, height)."""
        for what, value in (("width", width), ("height", height)):
            if type(value) is not int or value < 0:
                raise CompileError(f"viewport: {what} {value!r} is not a non-negative int")
        self._ins(_OP_VIEWPORT, 0, self.constant(ConstKind.I32, (x, y, width, height)), 0, 0)

    def viewport_reg(self, reg: int) -> None:
        """``viewport_reg``: viewport from registers reg..reg+3 (reg <= 4)."""
        if self._reg(reg, "viewport_reg") > 4:
            raise CompileError(f"viewport_reg: register {reg!r} + 3 is outside r0..r7")
        self._ins(_OP_VIEWPORT_REG, int(reg), 0, 0, 0)

    def uniform_i(self, reg: int, location: int) -> None:
        """``uniform_i``: int uniform at ``location`` = r[reg]."""
        self._ins(
            _OP_UNIFORM_I,
            self._reg(reg, "uniform_i"),
            self._u32(location, "uniform_i location"),
            0,
            0,
        )

    def uniform_f(self, reg: int, location: int) -> None:
        """``uniform_f``: float uniform at ``location`` = r[reg]."""
        self._ins(
            _OP_UNIFORM_F,
            self._reg(reg, "uniform_f"),
            self._u32(location, "uniform_f location"),
            0,
            0,
        )

    def uniform_const(self, location: int, value: Any, type: str | int = "vec4") -> None:
        """``uniform_const``: uniform at ``location`` = ``value`` of GLSL ``type``.

        ``type`` is one of float, vec2, vec3, vec4, mat4, int, ivec4, uint.
        """
        code = _UNIFORM_BY_NAME.get(type) if isinstance(type, str) else _as_int(type)
        if code not in isa.UNIFORM_TYPES:
            raise CompileError(f"uniform_const: unknown uniform type {type!r}")
        name, element, count = isa.UNIFORM_TYPES[code]
        values = (value,) if isinstance(value, (int, float)) else value
        try:
            values = tuple(values)
        except TypeError:
            raise CompileError(f"uniform_const: value {value!r} is not a {name}") from None
        if len(values) != count:
            raise CompileError(
                f"uniform_const: {value!r} has {len(values)} values, {name} needs {count}"
            )
        const = self.constant(_UNIFORM_KIND[element], values)
        location = self._u32(location, "uniform_const location")
        self._ins(_OP_UNIFORM_CONST, 0, location, const, code)

    # --- GL: draws and compute -------------------------------------------------------
    @staticmethod
    def _index_type(value: Any, what: str) -> int:
        code = _INDEX_TYPES.get(value) if isinstance(value, (str, int)) else None
        if code is None or isinstance(value, bool):
            raise CompileError(f"{what}: index type {value!r} is not 'u16' or 'u32'")
        return code

    def draw(self, count: int, first: int = 0, instances: int = 1) -> None:
        """``draw`` ``count`` vertices from vertex ``first``, ``instances`` instances."""
        u32 = self._u32
        self._ins(
            _OP_DRAW, 0, u32(count, "draw count"), u32(first, "draw first"),
            u32(instances, "draw instances"),
        )  # fmt: skip

    def draw_indexed(
        self, count: int, first: int = 0, instances: int = 1, index_type: str = "u32"
    ) -> None:
        """``draw_indexed``: ``count`` indices of ``index_type`` from index ``first``."""
        u32 = self._u32
        self._ins(
            _OP_DRAW_INDEXED,
            self._index_type(index_type, "draw_indexed"),
            u32(count, "draw_indexed count"),
            u32(first, "draw_indexed first"),
            u32(instances, "draw_indexed instances"),
        )

    def draw_reg(self, count: int, first: int, instances: int) -> None:
        """``draw_reg``: draw r[count] vertices from vertex r[first], r[instances] instances."""
        reg = self._reg
        self._ins(
            _OP_DRAW_REG, reg(count, "draw_reg"), reg(first, "draw_reg"),
            reg(instances, "draw_reg"), 0,
        )  # fmt: skip

    def draw_indirect(self, offset: int = 0) -> None:
        """``draw_indirect``: one draw from the command at ``offset`` of the indirect buffer."""
        self._ins(_OP_DRAW_INDIRECT, 0, self._u32(offset, "draw_indirect offset"), 0, 0)

    def draw_indexed_indirect(self, offset: int = 0, index_type: str = "u32") -> None:
        """``draw_indexed_indirect``: one indexed draw from the command at ``offset``."""
        self._ins(
            _OP_DRAW_INDEXED_INDIRECT,
            self._index_type(index_type, "draw_indexed_indirect"),
            self._u32(offset, "draw_indexed_indirect offset"),
            0,
            0,
        )

    def multi_draw_indirect(self, count: int, offset: int = 0, stride: int = 0) -> None:
        """``multi_draw_indirect``: ``count`` draws from ``offset``, ``stride`` (0: packed)."""
        u32 = self._u32
        self._ins(
            _OP_MULTI_DRAW_INDIRECT, 0, u32(offset, "multi_draw_indirect offset"),
            u32(count, "multi_draw_indirect count"), u32(stride, "multi_draw_indirect stride"),
        )  # fmt: skip

    def multi_draw_indexed_indirect(
        self, count: int, offset: int = 0, stride: int = 0, index_type: str = "u32"
    ) -> None:
        """``multi_draw_indexed_indirect``: ``count`` indexed draws from ``offset``."""
        u32, what = self._u32, "multi_draw_indexed_indirect"
        self._ins(
            _OP_MULTI_DRAW_INDEXED_INDIRECT, self._index_type(index_type, what),
            u32(offset, f"{what} offset"), u32(count, f"{what} count"),
            u32(stride, f"{what} stride"),
        )  # fmt: skip

    def multi_draw_indirect_count(
        self, max_count: int, offset: int = 0, count_offset: int = 0
    ) -> None:
        """``multi_draw_indirect_count``: up to ``max_count`` draws; the count is read from
        ``count_offset`` of the parameter buffer."""
        u32, what = self._u32, "multi_draw_indirect_count"
        self._ins(
            _OP_MULTI_DRAW_INDIRECT_COUNT, 0, u32(offset, f"{what} offset"),
            u32(count_offset, f"{what} count_offset"), u32(max_count, f"{what} max_count"),
        )  # fmt: skip

    def multi_draw_indexed_indirect_count(
        self, max_count: int, offset: int = 0, count_offset: int = 0, index_type: str = "u32"
    ) -> None:
        """``multi_draw_indexed_indirect_count``: indexed variant of the above."""
        u32, what = self._u32, "multi_draw_indexed_indirect_count"
        self._ins(
            _OP_MULTI_DRAW_INDEXED_INDIRECT_COUNT, self._index_type(index_type, what),
            u32(offset, f"{what} offset"), u32(count_offset, f"{what} count_offset"),
            u32(max_count, f"{what} max_count"),
        )  # fmt: skip

    def dispatch(self, x: int, y: int = 1, z: int = 1) -> None:
        """``dispatch`` the bound compute pipeline on x * y * z groups."""
        u32 = self._u32
        self._ins(_OP_DISPATCH, 0, u32(x, "dispatch x"), u32(y, "dispatch y"), u32(z, "dispatch z"))

    def dispatch_indirect(self, offset: int = 0) -> None:
        """``dispatch_indirect``: group counts at ``offset`` of the indirect buffer."""
        self._ins(_OP_DISPATCH_INDIRECT, 0, self._u32(offset, "dispatch_indirect offset"), 0, 0)

    def barrier(self, bits: int = 0xFFFFFFFF) -> None:
        """``barrier``: glMemoryBarrier(bits) (default: all barrier bits)."""
        self._ins(_OP_BARRIER, 0, self._u32(bits, "barrier bits"), 0, 0)

    # --- GL: transfers and synchronisation ------------------------------------------
    def copy_buffer(
        self, src: Any, dst: Any, size: int, src_offset: int = 0, dst_offset: int = 0
    ) -> None:
        """``copy_buffer``: ``size`` bytes from ``src`` at ``src_offset`` to ``dst``."""
        b = self._resource_slot(ResourceKind.BUFFER, src)
        c = self._resource_slot(ResourceKind.BUFFER, dst)
        size = self._u32(size, "copy_buffer size")
        for slot, offset, what in ((b, src_offset, "src_offset"), (c, dst_offset, "dst_offset")):
            offset = self._u32(offset, f"copy_buffer {what}")
            limit = self._resources[slot].size
            if limit is not None and offset + size > limit:
                raise CompileError(
                    f"copy_buffer: {what} {offset} + size {size} is outside buffer "
                    f"{self._resources[slot].name!r} of {limit} bytes"
                )
        const = self.constant(ConstKind.U32, (src_offset, dst_offset, size))
        self._ins(_OP_COPY_BUFFER, 0, b, c, const)

    def fence_signal(self, fence: Any) -> None:
        """``fence_signal``: insert ``fence`` after the commands so far."""
        self._ins(_OP_FENCE_SIGNAL, 0, self._resource_slot(ResourceKind.FENCE, fence), 0, 0)

    def fence_wait(self, fence: Any, timeout_us: int = 1_000_000) -> None:
        """``fence_wait``: wait up to ``timeout_us`` microseconds for ``fence``."""
        slot = self._resource_slot(ResourceKind.FENCE, fence)
        self._ins(_OP_FENCE_WAIT, 0, slot, self._u32(timeout_us, "fence_wait timeout_us"), 0)

    def read_framebuffer(self, readback: Any, framebuffer: Any, attachment: str = "color0") -> None:
        """``read_framebuffer``: read ``attachment`` of ``framebuffer`` into ``readback``."""
        code = (
            _ATTACHMENT_BY_NAME.get(attachment)
            if isinstance(attachment, str)
            else _as_int(attachment)
        )
        if code not in isa.READ_ATTACHMENTS:
            raise CompileError(f"read_framebuffer: unknown attachment {attachment!r}")
        self._ins(
            _OP_READ_FRAMEBUFFER,
            code,
            self._resource_slot(ResourceKind.READBACK, readback),
            self._resource_slot(ResourceKind.FRAMEBUFFER, framebuffer),
            0,
        )

    def upload(self, source: Any, buffer: Any) -> None:
        """``upload``: copy external ``source`` into ``buffer``."""
        self._ins(
            _OP_UPLOAD,
            0,
            self._resource_slot(ResourceKind.EXTERNAL, source),
            self._resource_slot(ResourceKind.BUFFER, buffer),
            0,
        )


def recording_method(op: Op) -> str:
    """Name of the CommandBuffer method that records ``op``."""
    return op.name + "_" if op.name in ("and", "or", "not") else op.name
