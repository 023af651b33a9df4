"""Per-object records in mapped memory and the indirect commands that draw them: the one
core under :class:`hypergl.DrawList` and :class:`hypergl.bodies.BodyRenderer`.

Both draw many objects with no per-object work on the CPU: each object is a record in a
storage buffer mapped into NumPy (:func:`mapped_records`), and a buffer of indirect
commands (:class:`IndirectCommands`) draws them, a range of commands per pipeline, with
``multi_draw_[indexed_]indirect_count`` reading the range's draw count from a parameter
buffer where the GPU has it (GL 4.6 or ARB_indirect_parameters), else a plain multi-draw of
the whole range (commands the count leaves out must then draw nothing: zero instances).
Who writes the commands differs (a draw list once from NumPy, the body renderer's compute
pass every frame); how they are stored, bound and drawn is this module's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .resources import Buffer

if TYPE_CHECKING:
    from .context import Context

# DrawArraysIndirectCommand and DrawElementsIndirectCommand, as GL reads them
DRAW_COMMAND = np.dtype(
    [("count", "<u4"), ("instances", "<u4"), ("first", "<u4"), ("base_instance", "<u4")]
)
INDEXED_COMMAND = np.dtype([("count", "<u4"), ("instances", "<u4"), ("first_index", "<u4"),
                            ("base_vertex", "<i4"), ("base_instance", "<u4")])  # fmt: skip


def mapped_records(ctx: Context, dtype: np.dtype, capacity: int, *, name: str,
                   usage: str = "storage") -> tuple[Buffer, np.ndarray]:  # fmt: skip
    """A buffer of `capacity` records of `dtype`, zeroed, and its persistent mapping as a
    NumPy structured array (a write is seen by the next submit, nothing re-recorded)."""
    buffer = ctx.buffer(size=capacity * dtype.itemsize, usage=usage, name=name)
    records = buffer.map(dtype, capacity)
    records[:] = np.zeros((), dtype)
    return buffer, records


class IndirectCommands:
    """`capacity` indirect commands (``indexed``: DrawElementsIndirectCommand, else
    DrawArraysIndirectCommand) in ``buffer``, and the draw counts of their ranges in
    ``count_buffer`` (made by :meth:`set_counts`).

    ``mapped``: ``commands`` is the buffer's mapping (the CPU writes the commands); else the
    GPU writes them (bound as a storage buffer) and ``commands`` is None.
    """

    def __init__(self, ctx: Context, capacity: int, *, indexed: bool, name: str,
                 mapped: bool = True) -> None:  # fmt: skip
        self.dtype: np.dtype = INDEXED_COMMAND if indexed else DRAW_COMMAND
        self.indexed = indexed
        self.capacity = capacity
        self._ctx = ctx
        self._name = name
        self.commands: np.ndarray | None = None
        if mapped:
            self.buffer, self.commands = mapped_records(ctx, self.dtype, capacity, name=name,
                                                        usage="indirect")  # fmt: skip
        else:
            self.buffer = ctx.buffer(size=capacity * self.dtype.itemsize, usage="indirect",
                                     name=name)  # fmt: skip
        caps = ctx.capabilities
        # the draw counts come from count_buffer (else every command of a range is drawn)
        self.indirect_count: bool = caps is None or caps.indirect_count
        self.count_buffer: Buffer | None = None
        self.counts: np.ndarray | None = None

    def set_counts(self, counts: Sequence[int], name: str | None = None) -> np.ndarray:
        """Make the parameter buffer (`name`, default the commands' name + ``_counts``) of
        one draw count per range, `counts` in it; returns its mapping (write a range's
        count there; a GPU pass may write the buffer too)."""
        values = np.asarray(counts, np.uint32).reshape(-1)
        self.count_buffer = self._ctx.buffer(values, usage="parameter",
                                             name=name or f"{self._name}_counts")  # fmt: skip
        self.counts = self.count_buffer.map(np.uint32, len(values))
        return self.counts

    def bind(self, cmd: Any) -> None:
        """Record the bindings the draws read: the commands, and the counts where used."""
        cmd.bind_indirect_buffer(self.buffer)
        if self.indirect_count and self.count_buffer is not None:
            cmd.bind_parameter_buffer(self.count_buffer)

    def draw(self, cmd: Any, first: int, count: int, counted: int | None = None) -> None:
        """Record the multi-draw of commands ``first .. first + count - 1``: at most
        `count`, as many as draw count number `counted` says where the GPU reads counts
        (None: all `count`, a plain multi-draw). Bind first (:meth:`bind`)."""
        offset = first * self.dtype.itemsize  # the commands are packed (stride 0)
        if counted is not None and self.indirect_count:
            if self.indexed:
                cmd.multi_draw_indexed_indirect_count(count, offset=offset,
                                                      count_offset=4 * counted)  # fmt: skip
            else:
                cmd.multi_draw_indirect_count(count, offset=offset, count_offset=4 * counted)
        elif self.indexed:
            cmd.multi_draw_indexed_indirect(count, offset=offset)
        else:
            cmd.multi_draw_indirect(count, offset=offset)

    def buffers(self) -> list[Buffer]:
        """The buffers made here (to release)."""
        return [b for b in (self.buffer, self.count_buffer) if b is not None]
