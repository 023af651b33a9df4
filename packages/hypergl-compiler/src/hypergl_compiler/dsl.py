"""``SceneCompiler``: structured control flow over a CommandBuffer, and ``@subroutine``.

Every construct is a context manager that emits the jumps around its body, so
scene code reads like Python while recording flat bytecode::

    sc = SceneCompiler(cmd)
    with sc.loop(r0, 1000):
        with sc.condition(flags, 0):
            cmd.draw(3)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .builder import CommandBuffer, Label, Reg, valid_name
from .errors import CompileError
from .isa import STATS

MAX_SWITCH_CASES = 1 << 16


class SceneCompiler:
    """Structured recording on ``cmd``. Unknown attributes are forwarded to ``cmd``,
    so ``sc.draw(3)`` records like ``cmd.draw(3)``; ``sc.loop`` is the construct,
    ``cmd.loop`` the raw op."""

    def __init__(self, cmd: CommandBuffer) -> None:
        if not isinstance(cmd, CommandBuffer):
            raise CompileError(f"SceneCompiler needs a CommandBuffer, got {cmd!r}")
        self.cmd = cmd

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cmd, name)

    # ------------------------------------------------------------------ control flow
    @contextmanager
    def loop(self, reg: int, count: int | Reg) -> Iterator[int]:
        """Run the body ``count`` times, counting down in ``reg``.

        ``count`` is an int immediate or a register (``r3``) read once at entry.
        A count of zero runs the body zero times. The body must not change ``reg``
        (wrap nested work in :meth:`scope` if it needs the register).
        """
        cmd = self.cmd
        reg = cmd._reg(reg, "loop register")
        top, end = cmd.new_label("loop"), None
        if isinstance(count, Reg):
            if count != reg:
                cmd.mov(reg, count)
            end = cmd.new_label("loop_end")
            cmd.jz(reg, end)
        else:
            count = cmd._u32(count, "loop count")
            cmd.li(reg, count)
            if count == 0:
                end = cmd.new_label("loop_end")
                cmd.jz(reg, end)
        cmd.label(top)
        yield reg
        cmd.loop(reg, top)
        if end is not None:
            cmd.label(end)

    @contextmanager
    def condition(self, buffer: Any, offset: int, invert: bool = False) -> Iterator[None]:
        """Run the body if the u32 at ``offset`` of a mapped buffer is not zero
        (``invert``: if it is zero). The value is read when the VM gets there, so
        GPU- or CPU-written flags steer the program without re-recording."""
        cmd = self.cmd
        end = cmd.new_label("if_end")
        if invert:
            cmd.jump_if_not_zero(buffer, offset, end)
        else:
            cmd.jump_if_zero(buffer, offset, end)
        yield
        cmd.label(end)

    @contextmanager
    def reg_condition(self, reg: int, invert: bool = False) -> Iterator[None]:
        """Run the body if ``reg`` is not zero (``invert``: if it is zero)."""
        cmd = self.cmd
        end = cmd.new_label("if_end")
        if invert:
            cmd.jnz(reg, end)
        else:
            cmd.jz(reg, end)
        yield
        cmd.label(end)

    @contextmanager
    def while_not_zero(self, buffer: Any, offset: int) -> Iterator[None]:
        """Repeat the body while the u32 at ``offset`` of a mapped buffer is not zero."""
        cmd = self.cmd
        top, end = cmd.new_label("while"), cmd.new_label("while_end")
        cmd.label(top)
        cmd.jump_if_zero(buffer, offset, end)
        yield
        cmd.goto(top)
        cmd.label(end)

    @contextmanager
    def switch(self, reg: int, cases: int | Iterable[int]) -> Iterator[Switch]:
        """Dispatch on ``reg`` through one ``jump_table``.

        ``cases`` is a count (values 0..n-1) or the case values. Record bodies with
        ``with sw.case(value):`` and optionally ``with sw.default():``; values
        without a body (and out-of-table values, without a default) do nothing.
        """
        cmd = self.cmd
        if isinstance(cases, int) and not isinstance(cases, bool):
            if not 1 <= cases <= MAX_SWITCH_CASES:
                raise CompileError(f"switch: case count {cases} is not in 1..{MAX_SWITCH_CASES}")
            values = list(range(cases))
        else:
            try:
                values = list(cases)
            except TypeError:
                raise CompileError(f"switch: cases {cases!r} is not a count or values") from None
            if not values:
                raise CompileError("switch: no cases")
            for value in values:
                if type(value) is not int or not 0 <= value < MAX_SWITCH_CASES:
                    raise CompileError(f"switch: case value {value!r} is not in 0..65535")
        sw = Switch(cmd, values)
        cmd.jump_table(reg, [sw._labels.get(v, sw._default) for v in range(max(values) + 1)],
                       sw._default)  # fmt: skip
        yield sw
        cmd.label(sw._end)  # first, so that the disassembly names the end "switch_end"
        for label in (*sw._labels.values(), sw._default):
            if not label.placed:
                cmd.label(label)

    @contextmanager
    def scope(self, regs: Iterable[int]) -> Iterator[None]:
        """Save ``regs`` on the data stack around the body (push in order, pop reversed)."""
        cmd = self.cmd
        saved = [cmd._reg(reg, "scope") for reg in regs]
        for reg in saved:
            cmd.push(reg)
        yield
        for reg in reversed(saved):
            cmd.pop(reg)

    # ------------------------------------------------------------------ int/float helpers
    def set_int(self, reg: int, value: int) -> None:
        """r[reg] = value (int)."""
        self.cmd.li(reg, value)

    def set_float(self, reg: int, value: float) -> None:
        """r[reg] = value (float)."""
        self.cmd.lf(reg, value)

    def add(self, dst: int, a: int, b: int | Reg) -> None:
        """r[dst] = r[a] + b, where b is a register or an int immediate."""
        if isinstance(b, Reg):
            self.cmd.iadd(dst, a, b)
        else:
            self.cmd.iaddi(dst, a, b)

    def sub(self, dst: int, a: int, b: int | Reg) -> None:
        """r[dst] = r[a] - b, where b is a register or an int immediate."""
        if isinstance(b, Reg):
            self.cmd.isub(dst, a, b)
        elif type(b) is int:
            self.cmd.iaddi(dst, a, -b)
        else:
            raise CompileError(f"sub: {b!r} is not a register or int")

    def inc(self, reg: int, by: int = 1) -> None:
        """r[reg] += by."""
        self.cmd.iaddi(reg, reg, by)

    def dec(self, reg: int, by: int = 1) -> None:
        """r[reg] -= by."""
        self.sub(reg, reg, by)

    def fadd(self, dst: int, a: int, b: int) -> None:
        """r[dst] = r[a] + r[b] (float)."""
        self.cmd.fadd(dst, a, b)

    def fmul(self, dst: int, a: int, b: int) -> None:
        """r[dst] = r[a] * r[b] (float)."""
        self.cmd.fmul(dst, a, b)

    def to_float(self, dst: int, src: int) -> None:
        """r[dst] = float(r[src])."""
        self.cmd.itof(dst, src)

    def to_int(self, dst: int, src: int) -> None:
        """r[dst] = int(r[src]) toward zero."""
        self.cmd.ftoi(dst, src)

    # ------------------------------------------------------------------ clock, random, math
    def time(self, dst: int) -> None:
        """r[dst] = seconds since the context's first submit (float)."""
        self.cmd.get_time(dst)

    def delta(self, dst: int) -> None:
        """r[dst] = seconds since the context's previous submit (float; 0 on the first)."""
        self.cmd.get_delta(dst)

    def random(self, dst: int) -> None:
        """r[dst] = a float in [0, 1) from the context's seeded generator."""
        self.cmd.gen_rand(dst, 1)

    def random_int(self, dst: int) -> None:
        """r[dst] = a u32 from the context's seeded generator."""
        self.cmd.gen_rand(dst, 0)

    def sin_cos(self, sin: int, cos: int, angle: int) -> None:
        """r[sin] = sin(r[angle]), r[cos] = cos(r[angle]) (floats, radians)."""
        self.cmd.sin_cos(sin, cos, angle)

    def stat(self, dst: int, name: str) -> None:
        """r[dst] = a statistic of this submit so far, by name (isa.STATS: 'draws', ...)."""
        codes = {value: code for code, value in STATS.items()}
        if name not in codes:
            raise CompileError(f"stat: unknown statistic {name!r}; known: {sorted(codes)}")
        self.cmd.get_stat(dst, codes[name])

    def check(self, reg: int) -> None:
        """Stop the submit with a VMError naming r[reg] if it is 0 (``assert_reg``)."""
        self.cmd.assert_reg(reg)

    def ret_if_zero(self, reg: int, invert: bool = False) -> None:
        """Return from the subroutine if r[reg] == 0 (``invert``: if it is not 0).

        Two ops, ``jnz``/``jz`` over a ``ret``: a dedicated conditional return
        would be the ISA's only conditional terminator, which every tool that
        follows control flow (both verifiers, the disassembler) would then have
        to special-case, to save one dispatch on the path that returns."""
        cmd = self.cmd
        stay = cmd.new_label("stay")
        if invert:
            cmd.jz(reg, stay)
        else:
            cmd.jnz(reg, stay)
        cmd.ret()
        cmd.label(stay)


class Switch:
    """The case labels of one :meth:`SceneCompiler.switch`."""

    def __init__(self, cmd: CommandBuffer, values: list[int]) -> None:
        self._cmd = cmd
        self._labels: dict[int, Label] = {}
        for value in values:
            if value in self._labels:
                raise CompileError(f"switch: case value {value} is listed twice")
            self._labels[value] = cmd.new_label(f"case{value}")
        self._default = cmd.new_label("default")
        self._end = cmd.new_label("switch_end")

    @contextmanager
    def case(self, value: int) -> Iterator[None]:
        """The body run when the register equals ``value``."""
        label = self._labels.get(value) if type(value) is int else None
        if label is None:
            raise CompileError(f"switch: {value!r} is not one of the cases {list(self._labels)}")
        if label.placed:
            raise CompileError(f"switch: case {value} is recorded twice")
        self._cmd.label(label)
        yield
        self._cmd.goto(self._end)

    @contextmanager
    def default(self) -> Iterator[None]:
        """The body run for values without a case of their own."""
        if self._default.placed:
            raise CompileError("switch: default is recorded twice")
        self._cmd.label(self._default)
        yield
        self._cmd.goto(self._end)


def subroutine(fn: Callable[..., Any]) -> Callable[..., None]:
    """Record ``fn(target, *args)`` once per distinct ``args`` per program; each use emits
    one ``call``.

    ``target`` is a :class:`CommandBuffer` or a :class:`SceneCompiler`, passed on to
    ``fn`` as given; a SceneCompiler made inside the body records into the body too.
    The body goes into its own subroutine (named after the function, ``name.1``,
    ``name.2``... for further argument tuples). Arguments must be hashable; they
    are compared with their types, so ``1`` and ``1.0`` record separate bodies.
    """
    base = fn.__name__ if valid_name(fn.__name__) else "sub"

    @functools.wraps(fn)
    def wrapper(target: CommandBuffer | SceneCompiler, *args: Any) -> None:
        if isinstance(target, SceneCompiler):
            cmd = target.cmd
        elif isinstance(target, CommandBuffer):
            cmd = target
        else:
            raise CompileError(
                f"@subroutine {fn.__name__}: first argument {target!r} is not a "
                "CommandBuffer or a SceneCompiler"
            )
        for arg in args:
            try:
                hash(arg)
            except TypeError:
                raise CompileError(
                    f"@subroutine {fn.__name__}: argument {arg!r} is unhashable"
                ) from None
        key = (fn, tuple((type(arg), arg) for arg in args))
        index = cmd.recorded_subroutine(key)
        if index is None:
            name = cmd.free_subroutine_name(base)
            with cmd.define_subroutine(name, key=key) as index:
                fn(target, *args)
        cmd.call(index)

    return wrapper
