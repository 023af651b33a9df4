"""One recording method per ISA op, most of them generated from the ISA table.

``SIGNATURES`` gives each generated method its Python parameters: a name, the
instruction field it fills and a default. The check of each value follows from
the field's operand kind in :mod:`.isa` (register, u32 bounded by the op's
``max``, i32, f32, resource slot of a kind; a static buffer offset for
``Rule.MEM_U32`` ops), so adding a plain op is one line here. The methods are
generated as source text (as :mod:`dataclasses` does), so they run as fast as
hand-written ones and show their real signatures. Ops whose operands need more
(labels, constants, the pipeline's vertex count) are written out below.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import isa, operands
from .errors import CompileError
from .isa import BY_NAME, ConstKind, Operand, ResourceKind, Rule
from .program import Constant

if TYPE_CHECKING:
    from .linking import Label

REQUIRED = object()
_UNIFORM_BY_NAME = {name: code for code, (name, _t, _n) in isa.UNIFORM_TYPES.items()}
_UNIFORM_KIND = {"f": ConstKind.F32, "i": ConstKind.I32, "u": ConstKind.U32}
_ATTACHMENT_BY_NAME = {name: code for code, name in isa.READ_ATTACHMENTS.items()}
_REG3 = (("dst", "a", REQUIRED), ("a", "b", REQUIRED), ("b", "c", REQUIRED))
_REG2 = (("dst", "a", REQUIRED), ("src", "b", REQUIRED))
_BIND = (("buffer", "b", REQUIRED), ("binding", "c", 0))
_INDEX_TYPE = ("index_type", "a", "u32")

# op name -> ((parameter, field, default), ...); parameters named index_type take
# 'u16'/'u32', and li's value may be signed or unsigned.
# fmt: off
SIGNATURES: dict[str, tuple[tuple[str, str, Any], ...]] = {
    "nop": (), "halt": (), "ret": (),
    "push": (("reg", "a", REQUIRED),), "pop": (("reg", "a", REQUIRED),),
    "li": (("reg", "a", REQUIRED), ("value", "b", REQUIRED)),
    "lf": (("reg", "a", REQUIRED), ("value", "b", REQUIRED)),
    "iaddi": (("dst", "a", REQUIRED), ("src", "b", REQUIRED), ("value", "c", REQUIRED)),
    **{name: _REG2 for name in ("mov", "ineg", "not", "itof", "ftoi")},
    **{name: _REG3 for name in ("iadd", "isub", "imul", "idiv", "irem", "and", "or", "xor",
                                "shl", "shr", "sar", "fadd", "fsub", "fmul", "fdiv", "ieq",
                                "ine", "ilt", "ile", "ult", "feq", "flt", "fle")},
    "load": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "store": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "load_indexed": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED),
                     ("index", "c", REQUIRED), ("offset", "d", 0)),
    "store_indexed": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED),
                      ("index", "c", REQUIRED), ("offset", "d", 0)),
    "skip_if_zero": (("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "skip_if_not_zero": (("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "bind_framebuffer": (("framebuffer", "b", REQUIRED),),
    "bind_vertex_buffer": _BIND, "bind_uniform_buffer": _BIND, "bind_storage_buffer": _BIND,
    "bind_index_buffer": (("buffer", "b", REQUIRED),),
    "bind_indirect_buffer": (("buffer", "b", REQUIRED),),
    "bind_parameter_buffer": (("buffer", "b", REQUIRED),),
    "bind_texture": (("texture", "b", REQUIRED), ("unit", "c", 0)),
    "uniform_i": (("reg", "a", REQUIRED), ("location", "b", REQUIRED)),
    "uniform_f": (("reg", "a", REQUIRED), ("location", "b", REQUIRED)),
    "draw_indexed": (("count", "b", REQUIRED), ("first", "c", 0), ("instances", "d", 1),
                     _INDEX_TYPE),
    "draw_reg": (("count", "a", REQUIRED), ("first", "b", REQUIRED),
                 ("instances", "c", REQUIRED)),
    "draw_indirect": (("offset", "b", 0),),
    "draw_indexed_indirect": (("offset", "b", 0), _INDEX_TYPE),
    "multi_draw_indirect": (("count", "c", REQUIRED), ("offset", "b", 0), ("stride", "d", 0)),
    "multi_draw_indexed_indirect": (("count", "c", REQUIRED), ("offset", "b", 0),
                                    ("stride", "d", 0), _INDEX_TYPE),
    "multi_draw_indirect_count": (("max_count", "d", REQUIRED), ("offset", "b", 0),
                                  ("count_offset", "c", 0)),
    "multi_draw_indexed_indirect_count": (("max_count", "d", REQUIRED), ("offset", "b", 0),
                                          ("count_offset", "c", 0), _INDEX_TYPE),
    "dispatch": (("x", "b", REQUIRED), ("y", "c", 1), ("z", "d", 1)),
    "dispatch_indirect": (("offset", "b", 0),),
    "barrier": (("bits", "b", 0xFFFFFFFF),),
    "fence_signal": (("fence", "b", REQUIRED),),
    "fence_wait": (("fence", "b", REQUIRED), ("timeout_us", "c", 1_000_000)),
    "upload": (("source", "b", REQUIRED), ("buffer", "c", REQUIRED)),
}
# fmt: on


def recording_method(op: isa.Op) -> str:
    """Name of the CommandBuffer method that records ``op``."""
    return op.name + "_" if op.name in ("and", "or", "not") else op.name


def _operand_expression(op: isa.Op, param: str, field: str, namespace: dict) -> str:
    """Python source that checks ``param`` for ``field`` of ``op`` and yields the field."""
    kind = op.operands[isa.FIELDS.index(field)]
    name = op.name
    if param == "index_type":
        return f"check_index_type({param}, {name!r})"
    if name == "li" and param == "value":
        return f"check_imm({param}, 'li')"
    if kind is Operand.REG:
        return f"check_reg({param}, {name + ' index' if param == 'index' else name!r})"
    if kind is Operand.U32:
        return f"check_u32({param}, {name + ' ' + param!r}, {op.max_of(field)})"
    if kind is Operand.I32:
        return f"check_i32({param}, {name!r})"
    if kind is Operand.F32:
        return f"check_f32({param}, {name!r})"
    if kind in isa.SLOT_OPERANDS:
        namespace[f"KIND_{field}"] = isa.SLOT_OPERANDS[kind]
        return f"slot_{field}"
    raise TypeError(f"{name}: field {field} ({kind.name}) cannot be generated")


def generate(name: str, signature: tuple[tuple[str, str, Any], ...]):
    """The recording method of op ``name`` with the given parameters."""
    op = BY_NAME[name]
    checks = ("reg", "u32", "i32", "imm", "f32", "index_type")
    namespace: dict[str, Any] = {"OP": op, **{f"check_{f}": getattr(operands, f) for f in checks}}
    params, fields, resolve = [], {"a": "0", "b": "0", "c": "0", "d": "0"}, []
    for param, field, default in signature:
        if default is REQUIRED:
            params.append(param)
        else:
            namespace[f"default_{param}"] = default
            params.append(f"{param}=default_{param}")
        fields[field] = _operand_expression(op, param, field, namespace)
        if fields[field].startswith("slot_"):  # resources first: they name the slot
            resolve.append(f"    slot_{field} = self._resource_slot(KIND_{field}, {param})")
    if Rule.MEM_U32 in op.rule:
        offset = next(param for param, field, _ in signature if field == "c")
        fields["c"] = f"self._buffer_offset(slot_b, {offset}, {name!r})"
    body = "\n".join(resolve)
    source = (
        f"def {recording_method(op)}(self, {', '.join(params)}):\n"
        f"{body}\n"
        f"    self._ins(OP, {fields['a']}, {fields['b']}, {fields['c']}, {fields['d']})\n"
    ).replace("(self, )", "(self)")
    exec(compile(source, f"<hypergl_compiler op {name}>", "exec"), namespace)
    method = namespace[recording_method(op)]
    method.__qualname__ = f"CommandBuffer.{method.__name__}"
    method.__module__ = __name__
    wiring = ", ".join(f"{field}={param}" for param, field, _ in signature)
    method.__doc__ = f"``{name}``: {op.meaning}" + (f" ({wiring})." if wiring else ".")
    return method


class OpMethods:
    """The recording methods of :class:`~.builder.CommandBuffer` (a mixin)."""

    # --- control ----------------------------------------------------------------
    def goto(self, target: str | Label) -> None:
        """``goto``: jump to a label."""
        self._jump(_OP_GOTO, 0, target, "b")

    def call(self, sub: str | int) -> None:
        """``call``: run subroutine ``sub`` (name, possibly defined later, or index)."""
        self._ins(_OP_CALL, 0, self._sub_ref(sub), 0, 0)

    def jz(self, reg: int, target: str | Label) -> None:
        """``jz``: jump to ``target`` if r[reg] == 0."""
        self._jump(_OP_JZ, operands.reg(reg, "jz"), target, "b")

    def jnz(self, reg: int, target: str | Label) -> None:
        """``jnz``: jump to ``target`` if r[reg] != 0."""
        self._jump(_OP_JNZ, operands.reg(reg, "jnz"), target, "b")

    def loop(self, reg: int, target: str | Label) -> None:
        """``loop``: r[reg] -= 1; jump to ``target`` if r[reg] != 0."""
        self._jump(_OP_LOOP, operands.reg(reg, "loop"), target, "b")

    def jump_table(self, reg: int, targets: Iterable[str | Label], default: str | Label) -> None:
        """``jump_table``: jump to ``targets[r[reg]]``, or to ``default`` when out of the table."""
        reg = operands.reg(reg, "jump_table")
        labels = tuple(self._label_ref(t, "jump_table") for t in targets)
        if not labels:
            raise CompileError("jump_table: the table of targets is empty")
        const = self._jump_table_constant(labels)
        self._jump(_OP_JUMP_TABLE, reg, default, "c", b=const)

    # --- memory --------------------------------------------------------------------
    def _mem_jump(self, op: isa.Op, buffer: Any, offset: int, target: Any) -> None:
        slot = self._resource_slot(ResourceKind.BUFFER, buffer)
        self._jump(op, 0, target, "d", b=slot, c=self._buffer_offset(slot, offset, op.name))

    def jump_if_zero(self, buffer: Any, offset: int, target: str | Label) -> None:
        """``jump_if_zero``: jump to ``target`` if the u32 at ``offset`` of ``buffer`` is 0."""
        self._mem_jump(_OP_JUMP_IF_ZERO, buffer, offset, target)

    def jump_if_not_zero(self, buffer: Any, offset: int, target: str | Label) -> None:
        """``jump_if_not_zero``: jump to ``target`` if the u32 at ``offset`` is not 0."""
        self._mem_jump(_OP_JUMP_IF_NOT_ZERO, buffer, offset, target)

    # --- GL: framebuffer and state ---------------------------------------------------
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
            operands.u32(mask, "clear mask", _OP_CLEAR.max_of("c")),
            operands.u32(stencil, "clear stencil"),
        )

    def bind_pipeline(self, pipeline: Any) -> None:
        """``bind_pipeline``: bind a pipeline (program, vertex layout, state)."""
        slot = self._resource_slot(ResourceKind.PIPELINE, pipeline)
        self._ins(_OP_BIND_PIPELINE, 0, slot, 0, 0)
        self._pipelines[-1] = slot

    def viewport(self, x: int, y: int, width: int, height: int) -> None:
        """``viewport`` from a constant (x, y, width, height)."""
        for what, value in (("width", width), ("height", height)):
            if type(value) is not int or value < 0:
                raise CompileError(f"viewport: {what} {value!r} is not a non-negative int")
        self._ins(_OP_VIEWPORT, 0, self.constant(ConstKind.I32, (x, y, width, height)), 0, 0)

    def viewport_reg(self, reg: int) -> None:
        """``viewport_reg``: viewport from registers reg..reg+3 (reg <= 4)."""
        if operands.reg(reg, "viewport_reg") > 4:
            raise CompileError(f"viewport_reg: register {reg!r} + 3 is outside r0..r7")
        self._ins(_OP_VIEWPORT_REG, int(reg), 0, 0, 0)

    def uniform_const(self, location: int, value: Any, type: str | int = "vec4") -> None:
        """``uniform_const``: uniform at ``location`` = ``value`` of GLSL ``type``.

        ``type`` is one of float, vec2, vec3, vec4, mat4, int, ivec4, uint.
        """
        code = _UNIFORM_BY_NAME.get(type) if isinstance(type, str) else operands.as_int(type)
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
        location = operands.u32(location, "uniform_const location")
        self._ins(_OP_UNIFORM_CONST, 0, location, const, code)

    # --- GL: draws -----------------------------------------------------------------------
    def draw(self, count: int | None = None, first: int = 0, instances: int = 1) -> None:
        """``draw`` ``count`` vertices from vertex ``first``, ``instances`` instances.

        Without a ``count``, the ``vertex_count`` declared with the pipeline bound
        last in the same code (main program or subroutine body) is drawn.
        """
        u32 = operands.u32
        if count is None:
            count = self._declared_vertex_count()
        self._ins(
            _OP_DRAW, 0, u32(count, "draw count"), u32(first, "draw first"),
            u32(instances, "draw instances"),
        )  # fmt: skip

    def _declared_vertex_count(self) -> int:
        slot = self._pipelines[-1]
        where = "this subroutine body" if len(self._stack) > 1 else "the program"
        if slot is None:
            raise CompileError(
                f"draw() without a count needs a pipeline bound earlier in {where}: "
                "bind one made with vertex_count=..., or pass draw(count)"
            )
        entry = self._resources[slot]
        count = entry.desc.get("vertex_count")
        if count is None:
            raise CompileError(
                f"draw() without a count: pipeline {entry.name!r} declares no vertex_count; "
                "make it with vertex_count=... or pass draw(count)"
            )
        return count

    # --- GL: transfers ---------------------------------------------------------------------
    def copy_buffer(
        self, src: Any, dst: Any, size: int, src_offset: int = 0, dst_offset: int = 0
    ) -> None:
        """``copy_buffer``: ``size`` bytes from ``src`` at ``src_offset`` to ``dst``."""
        b = self._resource_slot(ResourceKind.BUFFER, src)
        c = self._resource_slot(ResourceKind.BUFFER, dst)
        size = operands.u32(size, "copy_buffer size")
        for slot, offset, what in ((b, src_offset, "src_offset"), (c, dst_offset, "dst_offset")):
            offset = operands.u32(offset, f"copy_buffer {what}")
            limit = self._resources[slot].size
            if limit is not None and offset + size > limit:
                raise CompileError(
                    f"copy_buffer: {what} {offset} + size {size} is outside buffer "
                    f"{self._resources[slot].name!r} of {limit} bytes"
                )
        const = self.constant(ConstKind.U32, (src_offset, dst_offset, size))
        self._ins(_OP_COPY_BUFFER, 0, b, c, const)

    def read_framebuffer(self, readback: Any, framebuffer: Any, attachment: str = "color0") -> None:
        """``read_framebuffer``: read ``attachment`` of ``framebuffer`` into ``readback``."""
        code = (
            _ATTACHMENT_BY_NAME.get(attachment)
            if isinstance(attachment, str)
            else operands.as_int(attachment)
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

    def _jump_table_constant(self, labels: tuple[Label, ...]) -> int:
        if all(label.placed and label.section == 0 for label in labels):
            # Targets in the main code are final already: share the constant.
            data = struct.pack(f"<{len(labels)}I", *(label.index for label in labels))
            return self._constant(ConstKind.U32, data)
        # forward or relocated targets: a private entry, filled at end()
        const = len(self._constants)
        self._constants.append(Constant(ConstKind.U32, bytes(4 * len(labels))))
        self._table_fixups.append((const, labels))
        return const


for _name, _signature in SIGNATURES.items():
    setattr(OpMethods, recording_method(BY_NAME[_name]), generate(_name, _signature))

_OP_GOTO, _OP_CALL, _OP_JZ, _OP_JNZ, _OP_LOOP = (BY_NAME[n] for n in ("goto", "call", "jz", "jnz",
                                                                      "loop"))  # fmt: skip
_OP_JUMP_TABLE = BY_NAME["jump_table"]
_OP_JUMP_IF_ZERO, _OP_JUMP_IF_NOT_ZERO = BY_NAME["jump_if_zero"], BY_NAME["jump_if_not_zero"]
_OP_CLEAR, _OP_BIND_PIPELINE = BY_NAME["clear"], BY_NAME["bind_pipeline"]
_OP_VIEWPORT, _OP_VIEWPORT_REG = BY_NAME["viewport"], BY_NAME["viewport_reg"]
_OP_UNIFORM_CONST, _OP_DRAW = BY_NAME["uniform_const"], BY_NAME["draw"]
_OP_COPY_BUFFER, _OP_READ_FRAMEBUFFER = BY_NAME["copy_buffer"], BY_NAME["read_framebuffer"]
