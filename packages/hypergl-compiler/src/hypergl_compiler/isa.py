"""The HyperGL instruction set: the one table everything else is derived from.

Every instruction is 16 bytes, little-endian::

    u16 op | u16 a | u32 b | u32 c | u32 d

Jump targets are instruction indices, resources are indices into the program's
typed resource table, larger payloads (clear colours, jump tables, uniform
blobs, copy ranges) live in the constant pool. There is never a pointer in the
bytecode. The C++ header of hypergl-core (opcode enum, operand kinds, rules,
mnemonics) is generated from this table by ``tools/gen_isa_header.py``.

Execution model: 8 registers of 32 bits (integer or float bits), a bounded data
stack (``push``/``pop``), a bounded call stack (``call``/``ret``). Running past
the last instruction halts, so a target equal to the code length means "end".

Adding an op touches three places:

1. this table: a row in ``OPS`` (with a new ``Rule`` bit and ``VerifyCode``
   if it needs a new static check, implemented in ``verify.py`` and
   ``verifier.cpp``), and a row in ``DEVICE_CALLS`` if it reaches the GPU in a
   new way; then ``python3 tools/gen_isa_header.py``;
2. its handler, ``HGL_OP(NAME)`` in hypergl-core's ``interpreter.cpp`` (the
   build fails without one: the dispatch table names a label per op);
3. its device implementations: a new device call is declared for every device
   from ``DEVICE_CALLS``, so ``gl_device.cpp`` and ``trace_device.cpp`` must
   define it (a missing one is an undefined symbol: the extension does not
   import); the null device is generated.

Everything else follows the table: recording (``cmd.emit(name, ...)``),
assembly and disassembly, the Python verifier, ``.hgb`` files, the trace log.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

INSTRUCTION_SIZE = 16
INSTRUCTION_FORMAT = struct.Struct("<HHIII")
NUM_REGISTERS = 8
DATA_STACK_DEPTH = 256
CALL_STACK_DEPTH = 64
MAX_BINDING_INDEX = 63  # highest buffer binding / texture unit an instruction may name
U32_MAX = 0xFFFFFFFF
# Buffer ranges bound to a uniform or storage binding: offsets are multiples of the
# largest offset alignment GL drivers ask for (GL_*_BUFFER_OFFSET_ALIGNMENT: 256 on
# NVIDIA and AMD, 16 on llvmpipe), so a program that verifies binds everywhere; the
# size is at most GL's guaranteed minimum GL_MAX_UNIFORM_BLOCK_SIZE.
RANGE_ALIGNMENT = 256
MAX_RANGE_SIZE = 16384
# Work groups per dimension of a dispatch: GL's guaranteed GL_MAX_COMPUTE_WORK_GROUP_COUNT.
MAX_GROUP_COUNT = 65535
# Work groups of one dispatch, x * y * z: drivers count them in 32 bits (llvmpipe
# wraps 65535**3 to 196,607), so more is refused statically. Per submit, the
# groups are bounded by submit(group_budget=...) at run time.
MAX_DISPATCH_GROUPS = (1 << 32) - 1
FIELDS = ("a", "b", "c", "d")
FIELD_MAX = {"a": 0xFFFF, "b": U32_MAX, "c": U32_MAX, "d": U32_MAX}


class Operand(enum.IntEnum):
    """What an instruction field holds. Unused fields must be zero."""

    NONE = 0
    REG = 1  # register index 0..7
    U32 = 2  # unsigned immediate, optionally bounded by the op's `max`
    I32 = 3  # signed immediate (two's complement bits)
    F32 = 4  # float immediate (IEEE-754 bits)
    TARGET = 5  # instruction index 0..len(code); len(code) means "end"
    CONST = 6  # constant pool index
    SUB = 7  # subroutine table index
    BUFFER = 8  # resource slot of kind buffer
    TEXTURE = 9  # resource slot of kind texture
    PIPELINE = 10  # resource slot of kind pipeline
    FRAMEBUFFER = 11  # resource slot of kind framebuffer
    FENCE = 12  # resource slot of kind fence
    READBACK = 13  # resource slot of kind readback
    EXTERNAL = 14  # resource slot of kind external source


class ResourceKind(enum.IntEnum):
    """Kinds of entries in a program's resource table."""

    BUFFER = 0
    TEXTURE = 1
    PIPELINE = 2
    FRAMEBUFFER = 3
    FENCE = 4
    READBACK = 5
    EXTERNAL = 6


SLOT_OPERANDS = {
    Operand.BUFFER: ResourceKind.BUFFER,
    Operand.TEXTURE: ResourceKind.TEXTURE,
    Operand.PIPELINE: ResourceKind.PIPELINE,
    Operand.FRAMEBUFFER: ResourceKind.FRAMEBUFFER,
    Operand.FENCE: ResourceKind.FENCE,
    Operand.READBACK: ResourceKind.READBACK,
    Operand.EXTERNAL: ResourceKind.EXTERNAL,
}


class ConstKind(enum.IntEnum):
    """Element type of a constant pool entry."""

    BYTES = 0
    U32 = 1
    I32 = 2
    F32 = 3
    UTF8 = 4


CONST_ELEMENT_SIZE = {
    ConstKind.BYTES: 1,
    ConstKind.U32: 4,
    ConstKind.I32: 4,
    ConstKind.F32: 4,
    ConstKind.UTF8: 1,
}


class Rule(enum.IntFlag):
    """Op-specific static checks, beyond each operand's own kind and range (a bit set)."""

    NONE = 0
    MEM_U32 = 1  # buffer b, static byte offset c: c % 4 == 0 and c + 4 <= size(b)
    JUMP_TABLE = 2  # constant b is u32 targets, each in 0..len(code)
    COPY_RANGE = 4  # constant d is u32 (src_offset, dst_offset, size) inside buffers b and c
    REG_RANGE4 = 8  # registers a..a+3 exist (a <= 4)
    SKIP_NEXT = 16  # an instruction follows, so the skip lands at most on "end"
    UNIFORM_SIZE = 32  # constant c holds exactly the components of uniform type d
    VIEWPORT_SIZE = 64  # constant b's width and height (elements 2 and 3) are >= 0
    BUFFER_RANGE = 128  # range (offset c, size d) of buffer b: c % RANGE_ALIGNMENT == 0,
    #                      0 < d <= MAX_RANGE_SIZE and c + d <= size(b)
    GROUP_COUNT = 256  # b * c * d <= MAX_DISPATCH_GROUPS


class VerifyCode(str, enum.Enum):
    """Why a verifier rejected a program: ``VerifyError.code``, the same from both verifiers.

    Listed in the order the checks run (see ``verify.py``).
    """

    CODE_LENGTH = "code_length"  # the code is not a whole number of 16-byte instructions
    SUBROUTINE_ENTRY = "subroutine_entry"  # a subroutine enters outside the code
    UNKNOWN_OPCODE = "unknown_opcode"
    UNUSED_FIELD = "unused_field"  # a field the op does not use is not 0
    REGISTER = "register"  # a register index outside r0..r7
    IMMEDIATE = "immediate"  # an immediate above the op's maximum for that field
    TARGET = "target"  # a jump target outside 0..len(code)
    CONSTANT_INDEX = "constant_index"  # no such constant
    CONSTANT_KIND = "constant_kind"  # the constant holds the wrong element type
    CONSTANT_SIZE = "constant_size"  # the constant is not a whole number of elements
    CONSTANT_COUNT = "constant_count"  # the constant has the wrong number of elements
    SUBROUTINE = "subroutine"  # no such subroutine
    SLOT_INDEX = "slot_index"  # no such resource slot
    SLOT_KIND = "slot_kind"  # the slot holds another kind of resource
    ALIGNMENT = "alignment"  # MEM_U32: the offset is not a multiple of 4
    BUFFER_BOUNDS = "buffer_bounds"  # MEM_U32: the u32 is outside the buffer
    JUMP_TABLE_TARGET = "jump_table_target"  # JUMP_TABLE: an entry outside the code
    COPY_SOURCE = "copy_source"  # COPY_RANGE: the source range is outside its buffer
    COPY_DESTINATION = "copy_destination"  # COPY_RANGE: the destination range is outside
    REGISTER_RANGE = "register_range"  # REG_RANGE4: registers a..a+3 go past r7
    SKIP_NEXT = "skip_next"  # SKIP_NEXT: no instruction follows the skip
    UNIFORM_SIZE = "uniform_size"  # UNIFORM_SIZE: constant size != the uniform type's
    VIEWPORT_SIZE = "viewport_size"  # VIEWPORT_SIZE: negative width or height
    RANGE_SIZE = "range_size"  # BUFFER_RANGE: an empty range, or one above MAX_RANGE_SIZE
    GROUP_COUNT = "group_count"  # GROUP_COUNT: x * y * z above MAX_DISPATCH_GROUPS


class Flag(enum.IntFlag):
    """How the interpreter and tools treat an op."""

    NONE = 0
    TERMINATOR = 1  # control never falls through (halt, goto, ret, jump_table)
    BRANCH = 2  # may transfer control to a TARGET operand
    BIND = 4  # a state bind: skipped when identical to the current binding
    DRAW = 8  # counts as a draw in the statistics
    GL = 16  # reaches the device (GL, trace or null)


# Index type of indexed draws: operand value -> bytes per index.
INDEX_TYPES = {0: 2, 1: 4}
# Component layout of `uniform_const`: operand value -> (name, float/int, components).
UNIFORM_TYPES = {
    0: ("float", "f", 1),
    1: ("vec2", "f", 2),
    2: ("vec3", "f", 3),
    3: ("vec4", "f", 4),
    4: ("mat4", "f", 16),
    5: ("int", "i", 1),
    6: ("ivec4", "i", 4),
    7: ("uint", "u", 1),
}
# Clear mask bits of `clear`.
CLEAR_COLOR, CLEAR_DEPTH, CLEAR_STENCIL = 1, 2, 4
# Attachment of `read_framebuffer`: operand value -> name.
READ_ATTACHMENTS = {0: "color0", 1: "color1", 2: "color2", 3: "color3", 4: "depth"}
# What `get_stat` reads (operand b), counted so far in the current submit.
STATS = {0: "instructions", 1: "draws", 2: "dispatches", 3: "binds_issued", 4: "binds_skipped",
         5: "device_calls"}  # fmt: skip
# Kinds of `gen_rand` (operand b): a u32, or a float in [0, 1).
RAND_KINDS = {0: "u32", 1: "float"}
# Bytes one `dump` may show: the sink is bounded per submit too (DEBUG_OUTPUT_LIMIT).
MAX_DUMP_BYTES = 256
# Bytes of text print/dump may produce in one submit; the rest is cut (marked "...").
DEBUG_OUTPUT_LIMIT = 65536


@dataclass(frozen=True)
class Op:
    code: int
    name: str
    a: Operand = Operand.NONE
    b: Operand = Operand.NONE
    c: Operand = Operand.NONE
    d: Operand = Operand.NONE
    meaning: str = ""
    rule: Rule = Rule.NONE
    flags: Flag = Flag.NONE
    # Inclusive upper bound of U32 immediates, per field (absent: the field's own max).
    max: tuple[tuple[str, int], ...] = ()
    # For CONST operands: (field, kind, element count or 0 for "one or more").
    const: tuple[tuple[str, ConstKind, int], ...] = ()

    @property
    def operands(self) -> tuple[Operand, Operand, Operand, Operand]:
        return (self.a, self.b, self.c, self.d)

    def max_of(self, field: str) -> int:
        return dict(self.max).get(field, FIELD_MAX[field])


R, U, SI, F = Operand.REG, Operand.U32, Operand.I32, Operand.F32
T, K, S = Operand.TARGET, Operand.CONST, Operand.SUB
BUF, TEX, PIPE, FB = Operand.BUFFER, Operand.TEXTURE, Operand.PIPELINE, Operand.FRAMEBUFFER
FEN, RB, EXT = Operand.FENCE, Operand.READBACK, Operand.EXTERNAL
TERM, BR, BIND, DRAW, GL = Flag.TERMINATOR, Flag.BRANCH, Flag.BIND, Flag.DRAW, Flag.GL
BINDING_MAX = (("c", MAX_BINDING_INDEX),)

# fmt: off
OPS: tuple[Op, ...] = (
    # --- control ------------------------------------------------------------
    Op(0x00, "nop", meaning="do nothing"),
    Op(0x01, "halt", meaning="stop the program", flags=TERM),
    Op(0x02, "goto", b=T, meaning="jump to b", flags=TERM | BR),
    Op(0x03, "call", b=S, meaning="push the return index, jump to subroutine b"),
    Op(0x04, "ret", meaning="return to the index on top of the call stack", flags=TERM),
    Op(0x05, "jz", a=R, b=T, meaning="jump to b if r[a] == 0", flags=BR),
    Op(0x06, "jnz", a=R, b=T, meaning="jump to b if r[a] != 0", flags=BR),
    Op(0x07, "loop", a=R, b=T, meaning="r[a] -= 1; jump to b if r[a] != 0", flags=BR),
    Op(0x08, "jump_table", a=R, b=K, c=T,
       meaning="jump to table b[r[a]] (u32 targets), or to c if r[a] is out of the table",
       rule=Rule.JUMP_TABLE, flags=TERM | BR, const=(("b", ConstKind.U32, 0),)),
    Op(0x09, "push", a=R, meaning="push r[a] on the data stack"),
    Op(0x0A, "pop", a=R, meaning="pop the data stack into r[a]"),
    # --- ALU: moves and immediates -------------------------------------------
    Op(0x10, "li", a=R, b=U, meaning="r[a] = b (32-bit immediate)"),
    Op(0x11, "lf", a=R, b=F, meaning="r[a] = b (float immediate)"),
    Op(0x12, "mov", a=R, b=R, meaning="r[a] = r[b]"),
    # --- ALU: integer (two's complement, wrapping) ---------------------------
    Op(0x13, "iadd", a=R, b=R, c=R, meaning="r[a] = r[b] + r[c]"),
    Op(0x14, "isub", a=R, b=R, c=R, meaning="r[a] = r[b] - r[c]"),
    Op(0x15, "imul", a=R, b=R, c=R, meaning="r[a] = r[b] * r[c]"),
    Op(0x16, "idiv", a=R, b=R, c=R,
       meaning="r[a] = r[b] / r[c], signed, toward zero; error if r[c] == 0"),
    Op(0x17, "irem", a=R, b=R, c=R, meaning="r[a] = r[b] % r[c], signed; error if r[c] == 0"),
    Op(0x18, "iaddi", a=R, b=R, c=SI, meaning="r[a] = r[b] + c"),
    Op(0x19, "ineg", a=R, b=R, meaning="r[a] = -r[b]"),
    # --- ALU: bits -------------------------------------------------------------
    Op(0x1A, "and", a=R, b=R, c=R, meaning="r[a] = r[b] & r[c]"),
    Op(0x1B, "or", a=R, b=R, c=R, meaning="r[a] = r[b] | r[c]"),
    Op(0x1C, "xor", a=R, b=R, c=R, meaning="r[a] = r[b] ^ r[c]"),
    Op(0x1D, "not", a=R, b=R, meaning="r[a] = ~r[b]"),
    Op(0x1E, "shl", a=R, b=R, c=R, meaning="r[a] = r[b] << (r[c] & 31)"),
    Op(0x1F, "shr", a=R, b=R, c=R, meaning="r[a] = r[b] >> (r[c] & 31), logical"),
    Op(0x20, "sar", a=R, b=R, c=R, meaning="r[a] = r[b] >> (r[c] & 31), arithmetic"),
    # --- ALU: float ------------------------------------------------------------
    Op(0x21, "fadd", a=R, b=R, c=R, meaning="r[a] = r[b] + r[c] (float)"),
    Op(0x22, "fsub", a=R, b=R, c=R, meaning="r[a] = r[b] - r[c] (float)"),
    Op(0x23, "fmul", a=R, b=R, c=R, meaning="r[a] = r[b] * r[c] (float)"),
    Op(0x24, "fdiv", a=R, b=R, c=R, meaning="r[a] = r[b] / r[c] (float, IEEE: no error)"),
    Op(0x25, "itof", a=R, b=R, meaning="r[a] = float(signed r[b])"),
    Op(0x26, "ftoi", a=R, b=R, meaning="r[a] = signed int(r[b]) toward zero, saturating; NaN -> 0"),
    # --- ALU: compare (result 1 or 0) -----------------------------------------
    Op(0x27, "ieq", a=R, b=R, c=R, meaning="r[a] = r[b] == r[c]"),
    Op(0x28, "ine", a=R, b=R, c=R, meaning="r[a] = r[b] != r[c]"),
    Op(0x29, "ilt", a=R, b=R, c=R, meaning="r[a] = r[b] < r[c], signed"),
    Op(0x2A, "ile", a=R, b=R, c=R, meaning="r[a] = r[b] <= r[c], signed"),
    Op(0x2B, "ult", a=R, b=R, c=R, meaning="r[a] = r[b] < r[c], unsigned"),
    Op(0x2C, "feq", a=R, b=R, c=R, meaning="r[a] = r[b] == r[c] (float)"),
    Op(0x2D, "flt", a=R, b=R, c=R, meaning="r[a] = r[b] < r[c] (float)"),
    Op(0x2E, "fle", a=R, b=R, c=R, meaning="r[a] = r[b] <= r[c] (float)"),
    # --- memory: mapped buffers -------------------------------------------------
    Op(0x30, "load", a=R, b=BUF, c=U, meaning="r[a] = u32 at byte offset c of buffer b",
       rule=Rule.MEM_U32),
    Op(0x31, "store", a=R, b=BUF, c=U, meaning="u32 at byte offset c of buffer b = r[a]",
       rule=Rule.MEM_U32),
    Op(0x32, "load_indexed", a=R, b=BUF, c=R, d=U,
       meaning="r[a] = u32 at byte offset d + 4 * r[c] of buffer b (checked at run time)"),
    Op(0x33, "store_indexed", a=R, b=BUF, c=R, d=U,
       meaning="u32 at byte offset d + 4 * r[c] of buffer b = r[a] (checked at run time)"),
    Op(0x34, "skip_if_zero", b=BUF, c=U,
       meaning="skip the next instruction if the u32 at offset c of buffer b is 0",
       rule=Rule.MEM_U32 | Rule.SKIP_NEXT),
    Op(0x35, "skip_if_not_zero", b=BUF, c=U,
       meaning="skip the next instruction if the u32 at offset c of buffer b is not 0",
       rule=Rule.MEM_U32 | Rule.SKIP_NEXT),
    Op(0x36, "jump_if_zero", b=BUF, c=U, d=T,
       meaning="jump to d if the u32 at offset c of buffer b is 0",
       rule=Rule.MEM_U32, flags=BR),
    Op(0x37, "jump_if_not_zero", b=BUF, c=U, d=T,
       meaning="jump to d if the u32 at offset c of buffer b is not 0",
       rule=Rule.MEM_U32, flags=BR),
    # --- GL: framebuffer and state -------------------------------------------
    Op(0x40, "clear", b=K, c=U, d=U,
       meaning="clear the bound framebuffer: colour/depth from constant b (r, g, b, a, depth), "
               "mask c (1 colour, 2 depth, 4 stencil), stencil value d",
       flags=GL, max=(("c", 7),), const=(("b", ConstKind.F32, 5),)),
    Op(0x41, "bind_pipeline", b=PIPE, meaning="bind pipeline b (program, vertex layout, state)",
       flags=BIND | GL),
    Op(0x42, "bind_framebuffer", b=FB, meaning="render into framebuffer b", flags=BIND | GL),
    Op(0x43, "bind_vertex_buffer", b=BUF, c=U, meaning="buffer b feeds vertex binding c",
       flags=BIND | GL, max=BINDING_MAX),
    Op(0x44, "bind_index_buffer", b=BUF, meaning="buffer b holds the indices of indexed draws",
       flags=BIND | GL),
    Op(0x45, "bind_uniform_buffer", b=BUF, c=U, meaning="buffer b at uniform block binding c",
       flags=BIND | GL, max=BINDING_MAX),
    Op(0x46, "bind_storage_buffer", b=BUF, c=U, meaning="buffer b at storage block binding c",
       flags=BIND | GL, max=BINDING_MAX),
    Op(0x47, "bind_indirect_buffer", b=BUF,
       meaning="buffer b holds the commands of indirect draws and dispatches", flags=BIND | GL),
    Op(0x48, "bind_parameter_buffer", b=BUF,
       meaning="buffer b holds the draw count of *_indirect_count draws", flags=BIND | GL),
    Op(0x49, "bind_texture", b=TEX, c=U, meaning="texture b (with its sampler) on unit c",
       flags=BIND | GL, max=BINDING_MAX),
    Op(0x4A, "viewport", b=K, meaning="viewport from constant b (x, y, width, height: i32)",
       rule=Rule.VIEWPORT_SIZE, flags=GL, const=(("b", ConstKind.I32, 4),)),
    Op(0x4B, "viewport_reg", a=R,
       meaning="viewport from registers a..a+3 (x, y, width, height)",
       rule=Rule.REG_RANGE4, flags=GL),
    Op(0x4C, "uniform_i", a=R, b=U,
       meaning="int uniform at location b of the bound pipeline = r[a]",
       flags=GL),
    Op(0x4D, "uniform_f", a=R, b=U,
       meaning="float uniform at location b of the bound pipeline = r[a]", flags=GL),
    Op(0x4E, "uniform_const", b=U, c=K, d=U,
       meaning="uniform at location b = constant c, of type d (0 float .. 4 mat4, 5 int, "
               "6 ivec4, 7 uint)",
       rule=Rule.UNIFORM_SIZE, flags=GL, max=(("d", 7),), const=(("c", ConstKind.BYTES, 0),)),
    Op(0x4F, "bind_uniform_range", a=U, b=BUF, c=U, d=U,
       meaning="bytes c..c+d of buffer b at uniform block binding a",
       rule=Rule.BUFFER_RANGE, flags=GL, max=(("a", MAX_BINDING_INDEX),)),
    # --- GL: draws and compute -----------------------------------------------
    Op(0x50, "draw", b=U, c=U, d=U,
       meaning="draw b vertices from vertex c, d instances", flags=DRAW | GL),
    Op(0x51, "draw_indexed", a=U, b=U, c=U, d=U,
       meaning="draw b indices (type a: 0 u16, 1 u32) from index c, d instances",
       flags=DRAW | GL, max=(("a", 1),)),
    Op(0x52, "draw_reg", a=R, b=R, c=R,
       meaning="draw r[a] vertices from vertex r[b], r[c] instances", flags=DRAW | GL),
    Op(0x53, "draw_indirect", b=U,
       meaning="one draw from the command at byte offset b of the indirect buffer",
       flags=DRAW | GL),
    Op(0x54, "draw_indexed_indirect", a=U, b=U,
       meaning="one indexed draw (type a) from the command at offset b of the indirect buffer",
       flags=DRAW | GL, max=(("a", 1),)),
    Op(0x55, "multi_draw_indirect", b=U, c=U, d=U,
       meaning="c draws from commands at offset b of the indirect buffer, stride d (0: packed)",
       flags=DRAW | GL),
    Op(0x56, "multi_draw_indexed_indirect", a=U, b=U, c=U, d=U,
       meaning="c indexed draws (type a) from commands at offset b, stride d (0: packed)",
       flags=DRAW | GL, max=(("a", 1),)),
    Op(0x57, "multi_draw_indirect_count", b=U, c=U, d=U,
       meaning="up to d draws from commands at offset b; the count is the u32 at offset c "
               "of the parameter buffer",
       flags=DRAW | GL),
    Op(0x58, "multi_draw_indexed_indirect_count", a=U, b=U, c=U, d=U,
       meaning="up to d indexed draws (type a) from offset b; count at offset c of the "
               "parameter buffer",
       flags=DRAW | GL, max=(("a", 1),)),
    Op(0x59, "dispatch", b=U, c=U, d=U,
       meaning="run the bound compute pipeline on b x c x d groups",
       rule=Rule.GROUP_COUNT, flags=GL, max=tuple((f, MAX_GROUP_COUNT) for f in "bcd")),
    Op(0x5A, "dispatch_indirect", b=U,
       meaning="run the bound compute pipeline with group counts at offset b of the indirect "
               "buffer",
       flags=GL),
    Op(0x5B, "barrier", b=U, meaning="memory barrier with GL barrier bits b", flags=GL),
    # --- GL: transfers and synchronisation --------------------------------------
    Op(0x60, "copy_buffer", b=BUF, c=BUF, d=K,
       meaning="copy bytes from buffer b to buffer c; constant d = (src offset, dst offset, size)",
       rule=Rule.COPY_RANGE, flags=GL, const=(("d", ConstKind.U32, 3),)),
    Op(0x61, "fence_signal", b=FEN, meaning="insert fence b after the commands so far", flags=GL),
    Op(0x62, "fence_wait", b=FEN, c=U,
       meaning="wait up to c microseconds for fence b (CPU side); error on timeout", flags=GL),
    Op(0x63, "read_framebuffer", a=U, b=RB, c=FB,
       meaning="read attachment a of framebuffer c into readback slot b", flags=GL,
       max=(("a", 4),)),
    Op(0x64, "upload", b=EXT, c=BUF,
       meaning="copy external source b (e.g. a physics world) into buffer c", flags=GL),
    Op(0x65, "bind_storage_range", a=U, b=BUF, c=U, d=U,
       meaning="bytes c..c+d of buffer b at storage block binding a",
       rule=Rule.BUFFER_RANGE, flags=GL, max=(("a", MAX_BINDING_INDEX),)),
    Op(0x66, "skip_if_not_ready", b=FEN,
       meaning="skip the next instruction if fence b has not passed yet (polls, never waits; "
               "a fence never signalled has passed)",
       rule=Rule.SKIP_NEXT, flags=GL),
    Op(0x67, "bind_uniform_range_reg", a=U, b=BUF, c=R, d=U,
       meaning="bytes r[c]..r[c]+d of buffer b at uniform block binding a (offset checked at "
               "run time: a multiple of 256, the range inside b)",
       flags=GL, max=(("a", MAX_BINDING_INDEX), ("d", MAX_RANGE_SIZE))),
    Op(0x68, "bind_storage_range_reg", a=U, b=BUF, c=R, d=U,
       meaning="bytes r[c]..r[c]+d of buffer b at storage block binding a (offset checked at "
               "run time: a multiple of 256, the range inside b)",
       flags=GL, max=(("a", MAX_BINDING_INDEX), ("d", MAX_RANGE_SIZE))),
    Op(0x69, "resolve_framebuffer", b=FB, c=FB,
       meaning="copy the colour attachments of framebuffer b, and its depth where c has one, "
               "into single-sampled framebuffer c of its size and formats (a multisampled b "
               "resolved: colour averaged over each pixel's samples, one sample's depth)",
       flags=GL),
    # --- clock, random numbers, math, statistics, debugging ---------------------
    Op(0x70, "get_time", a=R,
       meaning="r[a] = seconds since the context's first submit (float; the context's clock)"),
    Op(0x71, "get_delta", a=R,
       meaning="r[a] = seconds since the context's previous submit (float; 0 on the first)"),
    Op(0x72, "gen_rand", a=R, b=U,
       meaning="r[a] = the next number of the context's seeded generator: b 0 a u32, "
               "1 a float in [0, 1)",
       max=(("b", 1),)),
    Op(0x73, "sin_cos", a=R, b=R, c=R,
       meaning="r[a] = sin(r[c]), then r[b] = cos(r[c]) (floats, radians)"),
    Op(0x74, "get_stat", a=R, b=U,
       meaning="r[a] = statistic b of this submit so far (0 instructions, 1 draws, 2 dispatches, "
               "3 binds issued, 4 binds skipped, 5 device calls; saturating u32)",
       max=(("b", 5),)),
    Op(0x75, "assert_reg", a=R,
       meaning="stop with an error naming r[a] and its value if r[a] == 0"),
    Op(0x76, "print", a=R,
       meaning="write r[a] (as u32, i32 and float) to the submit's debug output"),
    Op(0x77, "dump", b=BUF, c=R, d=U,
       meaning="write bytes r[c]..r[c]+d of buffer b (hex) to the submit's debug output "
               "(range checked at run time)",
       max=(("d", MAX_DUMP_BYTES),)),
)
# fmt: on


# --- what the interpreter asks of a device -------------------------------------------
# The calls every device (gl, trace, null) implements, in the order of the C++
# interface. Handlers of several ops may share one call (draw and draw_reg both
# call `draw`). Parameter types: u32, i32, buffer, resource, external (an
# external source), clear_values (5 floats: r, g, b, a, depth), uniform_data
# (the components of an isa UNIFORM_TYPES value).
@dataclass(frozen=True)
class DeviceCall:
    name: str
    params: tuple[tuple[str, str], ...]  # (type, name)
    returns: str = "void"  # or "bool"
    idle: str = ""  # what a device that does nothing returns
    meaning: str = ""


def _params(text: str) -> tuple[tuple[str, str], ...]:
    """'u32 count, buffer b' -> (('u32', 'count'), ('buffer', 'b'))."""
    return tuple(tuple(part.split()) for part in text.split(",") if part.strip())  # type: ignore[misc]


DEVICE_CALLS: tuple[DeviceCall, ...] = (
    DeviceCall("clear", _params("clear_values values, u32 mask, u32 stencil")),
    DeviceCall("bind_pipeline", _params("resource pipeline")),
    DeviceCall("bind_framebuffer", _params("resource framebuffer")),
    DeviceCall("bind_vertex_buffer", _params("u32 binding, buffer buffer")),
    DeviceCall("bind_index_buffer", _params("buffer buffer")),
    DeviceCall("bind_uniform_buffer", _params("u32 binding, buffer buffer")),
    DeviceCall("bind_storage_buffer", _params("u32 binding, buffer buffer")),
    DeviceCall("bind_uniform_range", _params("u32 binding, buffer buffer, u32 offset, u32 size")),
    DeviceCall("bind_storage_range", _params("u32 binding, buffer buffer, u32 offset, u32 size")),
    DeviceCall("bind_indirect_buffer", _params("buffer buffer")),
    DeviceCall("bind_parameter_buffer", _params("buffer buffer")),
    DeviceCall("bind_texture", _params("u32 unit, resource texture")),
    DeviceCall("viewport", _params("i32 x, i32 y, i32 width, i32 height")),
    DeviceCall(
        "uniform",
        _params("u32 location, u32 type, uniform_data data"),
        meaning="`type` is an UNIFORM_TYPES index; `data` holds its components",
    ),
    DeviceCall("draw", _params("u32 count, u32 first, u32 instances")),
    DeviceCall("draw_indexed", _params("u32 index_type, u32 count, u32 first, u32 instances")),
    DeviceCall("draw_indirect", _params("u32 offset")),
    DeviceCall("draw_indexed_indirect", _params("u32 index_type, u32 offset")),
    DeviceCall("multi_draw_indirect", _params("u32 offset, u32 count, u32 stride")),
    DeviceCall(
        "multi_draw_indexed_indirect", _params("u32 index_type, u32 offset, u32 count, u32 stride")
    ),
    DeviceCall("multi_draw_indirect_count", _params("u32 offset, u32 count_offset, u32 max_count")),
    DeviceCall(
        "multi_draw_indexed_indirect_count",
        _params("u32 index_type, u32 offset, u32 count_offset, u32 max_count"),
    ),
    DeviceCall("dispatch", _params("u32 x, u32 y, u32 z")),
    DeviceCall("dispatch_indirect", _params("u32 offset")),
    DeviceCall("barrier", _params("u32 bits")),
    DeviceCall(
        "copy_buffer",
        _params(
            "buffer source, buffer destination, u32 source_offset, u32 destination_offset, u32 size"
        ),
    ),
    DeviceCall("fence_signal", _params("resource fence")),
    DeviceCall(
        "fence_ready",
        _params("resource fence"),
        returns="bool",
        idle="true",
        meaning="true when the fence has passed (or was never signalled); never waits",
    ),
    DeviceCall(
        "fence_wait",
        _params("resource fence, u32 timeout_us"),
        returns="bool",
        idle="true",
        meaning="false when the wait timed out",
    ),
    DeviceCall(
        "read_framebuffer", _params("u32 attachment, resource readback, resource framebuffer")
    ),
    DeviceCall("upload", _params("external source, buffer destination")),
    DeviceCall("resolve_framebuffer", _params("resource source, resource destination")),
)
DEVICE_PARAM_TYPES = ("u32", "i32", "buffer", "resource", "external", "clear_values",
                      "uniform_data")  # fmt: skip
assert all(t in DEVICE_PARAM_TYPES for call in DEVICE_CALLS for t, _ in call.params)


BY_NAME: dict[str, Op] = {op.name: op for op in OPS}
BY_CODE: dict[int, Op] = {op.code: op for op in OPS}
assert len(BY_NAME) == len(OPS) and len(BY_CODE) == len(OPS), "duplicate op in the ISA table"


def encode(op: Op, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> bytes:
    """One instruction as its 16 bytes."""
    return INSTRUCTION_FORMAT.pack(op.code, a, b, c, d)


def decode(raw: bytes, index: int = 0) -> tuple[int, int, int, int, int]:
    """(op, a, b, c, d) of instruction `index` in `raw`."""
    return INSTRUCTION_FORMAT.unpack_from(raw, index * INSTRUCTION_SIZE)
