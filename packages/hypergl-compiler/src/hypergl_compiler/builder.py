"""``CommandBuffer``: records ISA instructions into a :class:`~.program.Program`.

Recording checks every operand as it is given (register 0..7, immediates in
range, resources of the right kind, static buffer offsets inside the buffer) so
that mistakes are reported where they are made, with the bad value named.
Labels may be referenced before they are placed; jumps are patched at ``end()``.
Subroutine bodies are recorded into their own sections and appended after the
main code (which ends with an implicit ``halt``); each body ends with ``ret``.

Resource operands are handles declared here, or objects that a
:class:`~.resource_table.ResourceResolver` given at construction turns into slots
(hypergl-core's ``ctx.command_buffer()`` resolves its live GL objects this way).

This file holds the recording machinery; the op methods are in
:mod:`.op_methods`, resource declarations in :mod:`.declarations`, operand
checks in :mod:`.operands` and the final layout in :mod:`.linking`.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from . import isa, operands
from .declarations import ResourceDeclarations
from .errors import CompileError
from .isa import BY_NAME, ConstKind, Op, Operand, ResourceKind
from .linking import FIELD_OFFSET, RET, Label, link
from .op_methods import OpMethods, recording_method
from .operands import REGISTERS, Reg, r0, r1, r2, r3, r4, r5, r6, r7
from .program import Constant, Program
from .resource_table import ResourceHandle, ResourceResolver, ResourceTable, valid_name

__all__ = [
    "REGISTERS",
    "CommandBuffer",
    "Label",
    "Reg",
    "ResourceHandle",
    "r0",
    "r1",
    "r2",
    "r3",
    "r4",
    "r5",
    "r6",
    "r7",
    "recording_method",
    "valid_name",
]


class CommandBuffer(OpMethods, ResourceDeclarations):
    """Records a HyperGL program.

    Declare resources (:meth:`buffer`, :meth:`texture`, :meth:`pipeline`,
    :meth:`framebuffer`, :meth:`fence`, :meth:`readback`, :meth:`external`), record
    one method per ISA op (named after the mnemonic; ``and_``, ``or_``, ``not_``),
    then call :meth:`end` for the :class:`Program`. :meth:`begin` starts a new
    program on the same resources.
    """

    # Operand checks, as methods for the DSL and the op methods.
    _reg = staticmethod(operands.reg)
    _u32 = staticmethod(operands.u32)

    def __init__(
        self,
        *,
        metadata: Mapping[str, str] | None = None,
        resolver: ResourceResolver | None = None,
    ) -> None:
        if resolver is not None and not isinstance(resolver, ResourceResolver):
            raise CompileError(f"resolver {resolver!r} has no resolve(table, kind, value) method")
        self._resources = ResourceTable()
        self._resolver = resolver
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
        # the pipeline last bound in each section being recorded (draw() without a count)
        self._pipelines: list[int | None] = [None]
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

        self._program = link(
            self._sections,
            self._subs,
            self._fixups,
            self._table_fixups,
            self._placed,
            self._labels,
            self._constants,
            self._resources.entries(),
            self._metadata,
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

    @property
    def resources(self) -> ResourceTable:
        """The resource table shared by the programs recorded here (slot -> entry)."""
        return self._resources

    def _resource_slot(self, kind: ResourceKind, value: Any) -> int:
        """Resolve a resource operand to its slot: a handle of this command buffer, or
        whatever the resolver knows; the slot's kind must be ``kind``."""
        if type(value) is ResourceHandle and value._owner is self:
            slot = value.slot
        else:
            resolver = self._resolver
            slot = None if resolver is None else resolver.resolve(self._resources, kind, value)
            if slot is None:
                raise CompileError(
                    f"{value!r} is not a {kind.name.lower()} declared on this command buffer"
                )
        entry = self._resources[slot]
        if entry.kind is not kind:
            raise CompileError(
                f"{value!r} is a {entry.kind.name.lower()}, expected a {kind.name.lower()}"
            )
        return slot

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
        check = {ConstKind.U32: operands.u32, ConstKind.I32: operands.i32,
                 ConstKind.F32: operands.f32}  # fmt: skip
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
            if target.owner is not self:
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
            label.section = self._stack[-1]
            label.index = len(self._code) // 16
            self._placed.append(label)
        return label

    def _jump(self, op: Op, a: int, target: Any, field: str, b: int = 0, c: int = 0) -> None:
        label = self._label_ref(target, op.name)
        self._ins(op, a, b, c, 0)
        self._fixups.append(
            (self._stack[-1], len(self._code) // 16 - 1, FIELD_OFFSET[field], label)
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
    def define_subroutine(self, name: str, *, key: Hashable = None) -> Iterator[int]:
        """Record the body of subroutine ``name`` (a ``ret`` is appended); yields its index.

        Bodies may be defined while other code is being recorded: they go to their
        own section, laid out after the main code at :meth:`end`. A ``key`` makes
        :meth:`recorded_subroutine` find the body (from its first instruction on, so
        a recursive body calls itself); a body that raises forgets its key.
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
        self._pipelines.append(None)
        if key is not None:
            self._subroutine_cache[key] = index
        try:
            yield index
            self._code += RET
        except BaseException:
            if key is not None:
                del self._subroutine_cache[key]
            raise
        finally:
            self._stack.pop()
            self._pipelines.pop()
            self._code = self._sections[self._stack[-1]]

    def recorded_subroutine(self, key: Hashable) -> int | None:
        """The index of the body recorded under ``key`` in this program, or None."""
        return self._subroutine_cache.get(key)

    def free_subroutine_name(self, base: str) -> str:
        """``base``, or ``base.1``, ``base.2``... whichever no subroutine uses yet."""
        name, serial = base, 0
        while name in self._sub_index:
            serial += 1
            name = f"{base}.{serial}"
        return name

    # ------------------------------------------------------------------ emission
    def _ins(self, op: Op, a: int, b: int, c: int, d: int) -> None:
        if self._ended:
            self._check_recording()
        self._code += isa.INSTRUCTION_FORMAT.pack(op.code, a, b, c, d)

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
                values[i] = operands.reg(value, what)
            elif kind is Operand.U32:
                values[i] = operands.u32(value, what, op.max_of(field))
            elif kind is Operand.I32:
                values[i] = operands.i32(value, what)
            elif kind is Operand.F32:
                values[i] = operands.f32(value, what)
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
                (self._stack[-1], len(self._code) // 16 - 1, FIELD_OFFSET[field], label)
            )
