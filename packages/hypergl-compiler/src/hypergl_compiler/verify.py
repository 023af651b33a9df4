"""The structural verifier, driven by the ISA table.

It enforces exactly the rules (and the order) of hypergl-core's C++ verifier, so
both report the same first failure, with the same :class:`~.isa.VerifyCode`:
(0) code length a multiple of 16, (1) every subroutine entry inside the code,
(2) each instruction in order: known opcode, fields a, b, c, d by operand kind,
then the op's rules in increasing bit order.

Speed: a program is mostly repeated instructions, so the instructions are first
deduplicated in C (``set(struct.iter_unpack(...))``) and each distinct one is
checked once. Only when one fails is the code walked in order to find the first
failing index. The one index-dependent rule (SKIP_NEXT) can only fail on the
last instruction and is checked there.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from .errors import VerifyError
from .isa import (
    BY_CODE,
    CONST_ELEMENT_SIZE,
    FIELDS,
    INSTRUCTION_FORMAT,
    INSTRUCTION_SIZE,
    MAX_DISPATCH_GROUPS,
    MAX_RANGE_SIZE,
    NUM_REGISTERS,
    RANGE_ALIGNMENT,
    SLOT_OPERANDS,
    UNIFORM_TYPES,
    ConstKind,
    Operand,
    ResourceKind,
    Rule,
    VerifyCode,
)
from .program import Constant, Program, Resource, Subroutine

# Check codes of the per-op plans (small ints: cheap to dispatch on).
_NONE, _REG, _MAX, _TARGET, _CONST, _SUB, _SLOT = range(7)


def _plan(op) -> tuple:
    """(field index, check, parameter) for every checked field of ``op``, in field order."""
    consts = {field: (kind, count) for field, kind, count in op.const}
    plan = []
    for i, (field, kind) in enumerate(zip(FIELDS, op.operands, strict=True)):
        if kind is Operand.NONE:
            plan.append((i, _NONE, None))
        elif kind is Operand.REG:
            plan.append((i, _REG, None))
        elif kind is Operand.U32:
            plan.append((i, _MAX, op.max_of(field)))
        elif kind in (Operand.I32, Operand.F32):
            continue
        elif kind is Operand.TARGET:
            plan.append((i, _TARGET, None))
        elif kind is Operand.CONST:
            plan.append((i, _CONST, consts.get(field)))
        elif kind is Operand.SUB:
            plan.append((i, _SUB, None))
        else:
            plan.append((i, _SLOT, SLOT_OPERANDS[kind]))
    return tuple(plan)


_PLANS = {code: (op.name, _plan(op), op.rule) for code, op in BY_CODE.items()}


def verify(program: Program) -> None:
    """Raise :class:`VerifyError` for the first rule ``program`` breaks; return None if valid."""
    verify_parts(program.code, program.constants, program.resources, program.subroutines)


def verify_parts(
    code: bytes,
    constants: Sequence[Constant],
    resources: Sequence[Resource],
    subroutines: Sequence[Subroutine],
) -> None:
    """:func:`verify` on the raw parts of a program (what the C++ verifier receives)."""
    if len(code) % INSTRUCTION_SIZE:
        raise VerifyError(
            -1, "", f"code length {len(code)} is not a multiple of 16", VerifyCode.CODE_LENGTH
        )
    n = len(code) // INSTRUCTION_SIZE
    for sub in subroutines:
        if not 0 <= sub.entry < n:
            raise VerifyError(
                -1,
                "call",
                f"subroutine {sub.name!r} entry {sub.entry} is outside 0..{n - 1}",
                VerifyCode.SUBROUTINE_ENTRY,
            )
    checker = _Checker(n, constants, resources, len(subroutines))
    if n == 0:
        return
    uniq = set(struct.iter_unpack("<HHIII", code))
    valid = _fast_predicates(checker).get
    if all(valid(ins[0], _reject)(ins) for ins in uniq):
        last = INSTRUCTION_FORMAT.unpack_from(code, (n - 1) * INSTRUCTION_SIZE)
        failure = checker.check(last, n - 1)
        if failure:
            raise VerifyError(n - 1, _PLANS[last[0]][0], failure[1], failure[0])
        return
    _verify_in_order(code, checker)
    raise AssertionError("the fast check rejected an instruction that the in-order one accepts")


def _verify_in_order(code: bytes, checker: _Checker) -> None:
    """The reference walk: each instruction in order, with the reason of the first failure."""
    check = checker.check
    for index, ins in enumerate(struct.iter_unpack("<HHIII", code)):
        failure = check(ins, index)
        if failure:
            plan = _PLANS.get(ins[0])
            raise VerifyError(index, plan[0] if plan else "?", failure[1], failure[0])


def _reject(_ins: tuple) -> bool:
    return False


# One boolean expression per op, generated from the ISA table: true when the
# instruction passes every check except SKIP_NEXT. Per-program facts (code
# length, slot sets per kind, valid constants per declared kind/count, buffer
# sizes) are arguments of `_make_predicates`, so building them costs microseconds.
_SLOT_ARGS = {kind: f"slots_{kind.name.lower()}" for kind in ResourceKind}
_CONST_DECLS = sorted({(kind, count) for op in BY_CODE.values() for _f, kind, count in op.const})
_CONST_ARGS = {decl: f"consts_{decl[0].name.lower()}_{decl[1]}" for decl in _CONST_DECLS}


def _expression(op) -> str:
    parts = []
    consts = {field: (kind, count) for field, kind, count in op.const}
    for i, (field, kind) in enumerate(zip(FIELDS, op.operands, strict=True), start=1):
        x = f"i[{i}]"
        if kind is Operand.NONE:
            parts.append(f"not {x}")
        elif kind is Operand.REG:
            parts.append(f"{x} < {NUM_REGISTERS}")
        elif kind is Operand.U32:
            if op.max_of(field) < (0xFFFF if field == "a" else 0xFFFFFFFF):
                parts.append(f"{x} <= {op.max_of(field)}")
        elif kind is Operand.TARGET:
            parts.append(f"{x} <= n")
        elif kind is Operand.CONST:
            decl = consts.get(field)
            parts.append(f"{x} in {_CONST_ARGS[decl]}" if decl else f"{x} < const_count")
        elif kind is Operand.SUB:
            parts.append(f"{x} < sub_count")
        elif kind in SLOT_OPERANDS:
            parts.append(f"{x} in {_SLOT_ARGS[SLOT_OPERANDS[kind]]}")
    if Rule.MEM_U32 in op.rule:
        parts.append("i[3] % 4 == 0 and i[3] + 4 <= sizes[i[2]]")
    if Rule.JUMP_TABLE in op.rule:
        parts.append("i[2] in jump_tables")
    if Rule.BUFFER_RANGE in op.rule:
        parts.append(f"i[3] % {RANGE_ALIGNMENT} == 0 and 0 < i[4] <= {MAX_RANGE_SIZE}"
                     " and i[3] + i[4] <= sizes[i[2]]")  # fmt: skip
    if Rule.COPY_RANGE in op.rule:
        parts.append("copy_ok(i[2], i[3], i[4])")
    if Rule.REG_RANGE4 in op.rule:
        parts.append(f"i[1] <= {NUM_REGISTERS - 4}")
    if Rule.UNIFORM_SIZE in op.rule:
        parts.append("const_bytes[i[3]] == uniform_bytes[i[4]]")
    if Rule.VIEWPORT_SIZE in op.rule:
        parts.append("i[2] in viewports")
    if Rule.GROUP_COUNT in op.rule:
        parts.append(f"i[2] * i[3] * i[4] <= {MAX_DISPATCH_GROUPS}")
    return " and ".join(parts) or "True"


def _generate():
    args = ["n", "const_count", "sub_count", "sizes", "jump_tables", "copy_ok", "const_bytes",
            "uniform_bytes", "viewports"]  # fmt: skip
    args += list(_SLOT_ARGS.values()) + list(_CONST_ARGS.values())
    lines = [f"def make({', '.join(args)}):", "    return {"]
    lines += [f"        {code}: lambda i: {_expression(op)}," for code, op in BY_CODE.items()]
    lines.append("    }")
    namespace: dict = {}
    exec("\n".join(lines), namespace)  # trusted source: built from the ISA table above
    return namespace["make"]


_make_predicates = _generate()
_UNIFORM_BYTES = [4 * UNIFORM_TYPES[code][2] for code in sorted(UNIFORM_TYPES)]


def _viewport_ok(data: bytes) -> bool:
    """An i32 (x, y, width, height) constant with width, height >= 0."""
    _x, _y, width, height = struct.unpack("<4i", data)
    return width >= 0 and height >= 0


def _fast_predicates(checker: _Checker) -> dict:
    n, constants, sizes = checker.n, checker.constants, checker.sizes
    slot_sets = {kind: set() for kind in ResourceKind}
    for slot, kind in enumerate(checker.kinds):
        slot_sets[kind].add(slot)
    const_sets = {}
    for kind, count in _CONST_DECLS:
        const_sets[kind, count] = frozenset(
            index
            for index in range(checker.const_count)
            if checker._const("b", index, (kind, count)) is None
        )
    jump_tables = frozenset(
        index
        for index in const_sets.get((ConstKind.U32, 0), ())
        if all(t <= n for t in struct.unpack(f"<{len(constants[index].data) // 4}I",
                                              constants[index].data))
    )  # fmt: skip
    size_of = [0 if s is None else s for s in sizes]  # as in _Checker._buffer
    viewports = frozenset(
        index
        for index in const_sets.get((ConstKind.I32, 4), ())
        if _viewport_ok(constants[index].data)
    )

    def copy_ok(b: int, c: int, d: int) -> bool:
        src, dst, size = struct.unpack("<3I", constants[d].data)
        return src + size <= size_of[b] and dst + size <= size_of[c]

    return _make_predicates(
        n,
        checker.const_count,
        checker.sub_count,
        size_of,
        jump_tables,
        copy_ok,
        [len(c.data) for c in constants],
        _UNIFORM_BYTES,
        viewports,
        *(frozenset(slot_sets[kind]) for kind in _SLOT_ARGS),
        *(const_sets[decl] for decl in _CONST_DECLS),
    )


class _Checker:
    """Per-program context of the checks: sizes and kinds looked up once."""

    def __init__(
        self,
        n: int,
        constants: Sequence[Constant],
        resources: Sequence[Resource],
        sub_count: int,
    ) -> None:
        self.n = n
        self.constants = constants
        self.const_count = len(constants)
        self.kinds = [r.kind for r in resources]
        self.names = [r.name for r in resources]
        self.sizes = [r.size if r.kind is ResourceKind.BUFFER else None for r in resources]
        self.sub_count = sub_count

    def check(
        self, ins: tuple[int, int, int, int, int], index: int | None = None
    ) -> tuple[VerifyCode, str] | None:
        """(code, reason) when ``ins`` is invalid, else None. ``index`` None skips SKIP_NEXT."""
        plan = _PLANS.get(ins[0])
        if plan is None:
            return VerifyCode.UNKNOWN_OPCODE, f"unknown opcode 0x{ins[0]:02x}"
        _name, fields, rule = plan
        for i, check, param in fields:
            value = ins[i + 1]
            field = FIELDS[i]
            if check == _NONE:
                if value:
                    return VerifyCode.UNUSED_FIELD, f"unused field {field} is {value}, must be 0"
            elif check == _REG:
                if value >= NUM_REGISTERS:
                    return VerifyCode.REGISTER, f"field {field}: register {value} is outside r0..r7"
            elif check == _MAX:
                if value > param:
                    return VerifyCode.IMMEDIATE, f"field {field}: immediate {value} exceeds {param}"
            elif check == _TARGET:
                if value > self.n:
                    return (
                        VerifyCode.TARGET,
                        f"field {field}: jump target {value} is outside 0..{self.n}",
                    )
            elif check == _CONST:
                failure = self._const(field, value, param)
                if failure:
                    return failure
            elif check == _SUB:
                if value >= self.sub_count:
                    return VerifyCode.SUBROUTINE, (
                        f"field {field}: subroutine {value} of {self.sub_count} is undefined"
                    )
            else:  # slot
                if value >= len(self.kinds):
                    return VerifyCode.SLOT_INDEX, (
                        f"field {field}: resource slot {value} of {len(self.kinds)} is undefined"
                    )
                if self.kinds[value] is not param:
                    return VerifyCode.SLOT_KIND, (
                        f"field {field}: slot {value} ({self.names[value]!r}) is a "
                        f"{self.kinds[value].name.lower()}, expected a {param.name.lower()}"
                    )
        if rule:
            return self._rules(ins, rule, index)
        return None

    def _const(self, field: str, value: int, declared) -> tuple[VerifyCode, str] | None:
        if value >= self.const_count:
            return VerifyCode.CONSTANT_INDEX, (
                f"field {field}: constant {value} of {self.const_count} is undefined"
            )
        if declared is None:
            return None
        kind, count = declared
        const = self.constants[value]
        if kind is not ConstKind.BYTES and const.kind is not kind:
            return VerifyCode.CONSTANT_KIND, (
                f"field {field}: constant {value} is {const.kind.name.lower()}, "
                f"expected {kind.name.lower()}"
            )
        size = CONST_ELEMENT_SIZE[const.kind]
        if len(const.data) % size:
            return VerifyCode.CONSTANT_SIZE, (
                f"field {field}: constant {value} is not a whole number of elements"
            )
        have = len(const.data) // size
        if (count and have != count) or (not count and have < 1):
            need = count or "at least 1"
            return VerifyCode.CONSTANT_COUNT, (
                f"field {field}: constant {value} has {have} elements, expected {need}"
            )
        return None

    def _buffer(self, slot: int) -> tuple[int, str]:
        """Size of a buffer for the bounds rules (0 without a declared int size, like the
        C++ verifier) and how to name it in a reason."""
        size = self.sizes[slot]
        if size is None:
            return 0, f"buffer {self.names[slot]!r} (no declared size)"
        return size, f"buffer {self.names[slot]!r} of {size} bytes"

    def _rules(self, ins, rule: Rule, index: int | None) -> tuple[VerifyCode, str] | None:
        _op, a, b, c, d = ins
        if Rule.MEM_U32 in rule:
            size, what = self._buffer(b)
            if c % 4:
                return VerifyCode.ALIGNMENT, f"offset {c} is not a multiple of 4"
            if c + 4 > size:
                return VerifyCode.BUFFER_BOUNDS, f"offset {c} + 4 is outside {what}"
        if Rule.JUMP_TABLE in rule:
            data = self.constants[b].data
            for target in struct.unpack(f"<{len(data) // 4}I", data):
                if target > self.n:
                    return (
                        VerifyCode.JUMP_TABLE_TARGET,
                        f"jump table target {target} is outside 0..{self.n}",
                    )
        if Rule.COPY_RANGE in rule:
            src, dst, size = struct.unpack("<3I", self.constants[d].data)
            src_size, src_what = self._buffer(b)
            if src + size > src_size:
                return (
                    VerifyCode.COPY_SOURCE,
                    f"copy source range {src}+{size} is outside {src_what}",
                )
            dst_size, dst_what = self._buffer(c)
            if dst + size > dst_size:
                return VerifyCode.COPY_DESTINATION, (
                    f"copy destination range {dst}+{size} is outside {dst_what}"
                )
        if Rule.BUFFER_RANGE in rule:
            if c % RANGE_ALIGNMENT:
                return VerifyCode.ALIGNMENT, (
                    f"range offset {c} is not a multiple of {RANGE_ALIGNMENT}"
                )
            if not 0 < d <= MAX_RANGE_SIZE:
                return VerifyCode.RANGE_SIZE, f"range size {d} is outside 1..{MAX_RANGE_SIZE}"
            size, what = self._buffer(b)
            if c + d > size:
                return VerifyCode.BUFFER_BOUNDS, f"range {c}+{d} is outside {what}"
        if Rule.REG_RANGE4 in rule and a > NUM_REGISTERS - 4:
            return VerifyCode.REGISTER_RANGE, f"registers r{a}..r{a + 3} are outside r0..r7"
        if Rule.SKIP_NEXT in rule and index is not None and index + 1 >= self.n:
            return VerifyCode.SKIP_NEXT, "no instruction follows the skip"
        if Rule.UNIFORM_SIZE in rule:
            have, need = len(self.constants[c].data), _UNIFORM_BYTES[d]
            if have != need:
                name = UNIFORM_TYPES[d][0]
                return VerifyCode.UNIFORM_SIZE, (
                    f"constant {c} has {have} bytes, uniform type {d} ({name}) needs {need}"
                )
        if Rule.VIEWPORT_SIZE in rule and not _viewport_ok(self.constants[b].data):
            _x, _y, width, height = struct.unpack("<4i", self.constants[b].data)
            return VerifyCode.VIEWPORT_SIZE, (
                f"viewport constant {b} has width {width} and height {height}; both must be >= 0"
            )
        if Rule.GROUP_COUNT in rule and b * c * d > MAX_DISPATCH_GROUPS:
            return VerifyCode.GROUP_COUNT, (
                f"dispatch of {b} x {c} x {d} = {b * c * d} work groups is above "
                f"{MAX_DISPATCH_GROUPS} (2**32 - 1, what drivers count)"
            )
        return None
