"""`ctx.trace`: the calls a trace context has made."""

from __future__ import annotations

from typing import Any


class TraceLog(list[tuple[Any, ...]]):
    """The calls a trace context has made: tuples ``(mnemonic, *args)``.

    A snapshot taken when ``ctx.trace`` is read; ``clear()`` also empties the
    context's log.
    """

    def __init__(self, entries: list[tuple[Any, ...]], native: Any) -> None:
        super().__init__(entries)
        self._native = native

    def clear(self) -> None:
        super().clear()
        self._native.clear_trace()

    def calls(self) -> list[str]:
        """Just the mnemonics, in order."""
        return [entry[0] for entry in self]
