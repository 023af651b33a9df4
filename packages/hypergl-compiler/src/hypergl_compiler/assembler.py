"""``asm``: reads the text format that :func:`.disasm.dis` writes back into a Program.

The format is described in :mod:`.disasm`; ``asm(dis(program))`` gives the same
bytes back. Every mistake raises CompileError naming the line.
"""

from __future__ import annotations

import ast
import json
import struct

from . import isa
from .errors import CompileError
from .isa import BY_NAME, ConstKind, Operand, ResourceKind
from .program import Constant, Program, Resource, Subroutine, normalize_desc
from .resource_table import valid_name

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
DIRECTIVES = (".meta", ".resource", ".const", ".sub", ".code", ".raw")


def _literal(token: str, is_float: bool) -> int:
    """An integer literal, or a float as its IEEE bits (written 0x... it is the bits)."""
    if not is_float:
        return int(token, 0)
    if token.lower().startswith("0x"):
        return int(token, 16)
    return _U32.unpack(_F32.pack(float(token)))[0]


class _Asm:
    def __init__(self) -> None:
        self.metadata: dict[str, str] = {}
        self.resources: list[Resource] = []
        self.constants: list[Constant] = []
        self.subs: list[tuple[str, str, int]] = []  # name, entry text, line
        self.labels: dict[str, int] = {}
        self.ins: list[tuple[int, str, list[str]]] = []  # line, mnemonic or .raw, operands

    def error(self, line: int, message: str) -> CompileError:
        return CompileError(f"line {line}: {message}")

    def json_prefix(self, text: str, line: int) -> tuple[str, str]:
        try:
            value, end = json.JSONDecoder().raw_decode(text)
        except json.JSONDecodeError:
            raise self.error(line, f"expected a quoted string at {text[:30]!r}") from None
        if not isinstance(value, str):
            raise self.error(line, f"expected a quoted string, got {value!r}")
        return value, text[end:].strip()

    def directive(self, word: str, rest: str, line: int) -> None:
        if word == ".meta":
            key, rest = self.json_prefix(rest, line)
            value, rest = self.json_prefix(rest, line)
            if rest:
                raise self.error(line, f"unexpected {rest!r} after .meta")
            self.metadata[key] = value
        elif word == ".resource":
            kind_text, _, rest = rest.partition(" ")
            try:
                kind = ResourceKind[kind_text.upper()]
            except KeyError:
                raise self.error(line, f"unknown resource kind {kind_text!r}") from None
            name, rest = self.json_prefix(rest.strip(), line)
            try:
                desc = ast.literal_eval(rest)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise self.error(
                    line, f"resource description {rest[:40]!r} is not a literal"
                ) from None
            if not isinstance(desc, dict):
                raise self.error(line, f"resource description {rest[:40]!r} is not a dict")
            self.resources.append(Resource(kind, name, normalize_desc(desc, f"line {line}")))
        elif word == ".const":
            self.constant(rest, line)
        elif word == ".sub":
            name, rest = self.json_prefix(rest, line)
            self.subs.append((name, rest, line))
        elif word == ".raw":
            self.ins.append((line, ".raw", [t.strip() for t in rest.split(",")]))

    def constant(self, rest: str, line: int) -> None:
        parts = rest.split(None, 2)
        if len(parts) < 2 or parts[0] != f"k{len(self.constants)}":
            raise self.error(line, f"expected .const k{len(self.constants)} KIND VALUES")
        try:
            kind = ConstKind[parts[1].upper()]
        except KeyError:
            raise self.error(line, f"unknown constant kind {parts[1]!r}") from None
        text = parts[2].strip() if len(parts) > 2 else ""
        if text == "hex" or text.startswith("hex "):
            try:
                data = bytes.fromhex(text[3:])
            except ValueError:
                raise self.error(line, f"bad hex data {text[4:40]!r}") from None
        elif kind is ConstKind.UTF8:
            value, after = self.json_prefix(text, line)
            if after:
                raise self.error(line, f"unexpected {after!r} after the string")
            data = value.encode("utf-8")
        elif kind is ConstKind.BYTES:
            raise self.error(line, "bytes constants are written as: hex <digits>")
        else:
            tokens = [t.strip() for t in text.split(",")] if text else []
            words = [self.word(kind, token, line) for token in tokens]
            data = struct.pack(f"<{len(words)}I", *words)
        self.constants.append(Constant(kind, data))

    def word(self, kind: ConstKind, token: str, line: int) -> int:
        try:
            value = _literal(token, kind is ConstKind.F32)
            if kind is ConstKind.I32:
                if not -(1 << 31) <= value < (1 << 31):
                    raise ValueError
                value &= 0xFFFFFFFF
        except (ValueError, OverflowError, struct.error):
            raise self.error(line, f"{token!r} is not a {kind.name.lower()} value") from None
        if not 0 <= value <= isa.U32_MAX:
            raise self.error(line, f"{token!r} is not a {kind.name.lower()} value")
        return value

    def index_of(self, token: str, names: dict[str, int], what: str, line: int) -> int:
        if token.startswith("#") and token[1:].isdigit():
            return int(token[1:])
        if token in names:
            return names[token]
        raise self.error(line, f"unknown {what} {token!r}")

    def operand(self, op, field, kind, token, line, names) -> int:
        what = f"{op.name} field {field}"
        if kind is Operand.REG:
            if len(token) == 2 and token[0] == "r" and token[1] in "01234567":
                return int(token[1])
            raise self.error(line, f"{what}: {token!r} is not a register r0..r7")
        if kind is Operand.TARGET:
            value = self.index_of(token, self.labels, "label", line)
            if value > len(self.ins):
                raise self.error(line, f"{what}: target {token!r} is outside the code")
            return value
        if kind is Operand.CONST:
            if token[:1] == "k" and token[1:].isdigit() and int(token[1:]) < len(self.constants):
                return int(token[1:])
            raise self.error(line, f"{what}: {token!r} is not a declared constant k<n>")
        if kind is Operand.SUB:
            value = self.index_of(token, names["sub"], "subroutine", line)
            if value >= len(self.subs):
                raise self.error(line, f"{what}: subroutine {token!r} is not declared")
            return value
        if kind in isa.SLOT_OPERANDS:
            value = self.index_of(token, names["res"], "resource", line)
            want = isa.SLOT_OPERANDS[kind]
            if value >= len(self.resources) or self.resources[value].kind is not want:
                raise self.error(line, f"{what}: {token!r} is not a {want.name.lower()}")
            return value
        try:
            value = _literal(token, kind is Operand.F32)
        except (ValueError, OverflowError, struct.error):
            raise self.error(line, f"{what}: {token!r} is not a number") from None
        if kind is Operand.I32 and -(1 << 31) <= value < 0:
            value &= 0xFFFFFFFF
        limit = op.max_of(field) if kind is Operand.U32 else isa.U32_MAX
        if not 0 <= value <= limit:
            raise self.error(line, f"{what}: {token!r} is outside 0..{limit}")
        return value

    def encode(self) -> bytes:
        names = {
            "res": {r.name: i for i, r in enumerate(self.resources)},
            "sub": {s[0]: i for i, s in enumerate(self.subs)},
        }
        out = bytearray()
        for line, mnemonic, tokens in self.ins:
            if mnemonic == ".raw":
                try:
                    values = [int(t, 0) for t in tokens]
                except ValueError:
                    raise self.error(line, f"bad .raw operands {tokens!r}") from None
                limits = (0xFFFF, 0xFFFF, isa.U32_MAX, isa.U32_MAX, isa.U32_MAX)
                if len(values) != 5 or any(
                    not 0 <= v <= m for v, m in zip(values, limits, strict=False)
                ):
                    raise self.error(line, ".raw takes op, a, b, c, d as unsigned integers")
                out += isa.INSTRUCTION_FORMAT.pack(*values)
                continue
            op = BY_NAME.get(mnemonic)
            if op is None:
                raise self.error(line, f"unknown mnemonic {mnemonic!r}")
            fields = [(f, k) for f, k in zip(isa.FIELDS, op.operands, strict=True) if k]
            if len(tokens) != len(fields):
                raise self.error(
                    line, f"{mnemonic} takes {len(fields)} operands, got {len(tokens)}"
                )
            values = dict.fromkeys(isa.FIELDS, 0)
            for (field, kind), token in zip(fields, tokens, strict=True):
                values[field] = self.operand(op, field, kind, token, line, names)
            out += isa.encode(op, **values)
        return bytes(out)


def asm(text: str) -> Program:
    """Assemble the text format of :func:`dis` into a Program (raises CompileError)."""
    state = _Asm()
    label_lines: dict[str, int] = {}
    for number, raw_line in enumerate(text.splitlines(), 1):
        line = raw_line.strip()
        if not line or line.startswith(";"):
            continue
        word, _, rest = line.partition(" ")
        if word in DIRECTIVES:
            if word == ".raw":
                rest = rest.partition(";")[0]
            state.directive(word, rest.strip(), number)
            continue
        line = line.partition(";")[0].strip()
        if line.endswith(":"):
            name = line[:-1].strip()
            if not valid_name(name):
                raise state.error(number, f"label {name!r} is not an identifier")
            if name in state.labels:
                raise state.error(number, f"duplicate label {name!r}")
            state.labels[name] = len(state.ins)
            label_lines[name] = number
            continue
        mnemonic, _, operands = line.partition(" ")
        tokens = [t.strip() for t in operands.split(",")] if operands.strip() else []
        state.ins.append((number, mnemonic, tokens))
    code = state.encode()
    n = len(state.ins)
    subs = []
    for name, entry, line in state.subs:
        index = state.index_of(entry, state.labels, "label", line)
        if index >= n:
            raise state.error(line, f"subroutine {name!r} entry {entry!r} is outside the code")
        subs.append(Subroutine(name, index))
    labels: dict[int, str] = {}
    for name, index in state.labels.items():
        labels.setdefault(index, name)
    return Program(
        code=code,
        constants=tuple(state.constants),
        resources=tuple(state.resources),
        subroutines=tuple(subs),
        labels=labels,
        metadata=state.metadata,
    )
