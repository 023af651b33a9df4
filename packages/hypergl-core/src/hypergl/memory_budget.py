"""One check for the memory that a file, a model or a caller asks for, before any is allocated.

Whoever makes something sized by input it does not trust (``ctx.load`` for an ``.hgb``,
hypergl-mujoco's ``BatchRenderer`` for a model and its image size) lists what it will
allocate as (what, bytes) parts and passes them here with its memory limit: the parts are
added up and the first one that takes the total past the limit is refused, by name, with the
total and the limit. Only then is anything made.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypergl_compiler.hgb import check_memory_limit, default_memory_limit

from .errors import ResourceError


def memory_limit(value: Any) -> int:
    """A caller's ``memory_limit=``: a positive int of bytes; None:
    ``hypergl_compiler.hgb.default_memory_limit()`` (a quarter of the machine's memory, at
    most 4 GiB)."""
    return check_memory_limit(value)


def check_memory(parts: Iterable[tuple[str, int]], limit: int, *, whole: str, hint: str,
                 error: type[Exception] = ResourceError) -> int:  # fmt: skip
    """The total of `parts` ((what, bytes) pairs, e.g. ``("resource 'x' (buffer, 64
    bytes)", 64)``), or `error` naming the part that takes it past `limit` bytes:
    "<what> brings <whole> to <total> bytes, over the memory limit of <limit> bytes;
    <hint>"."""
    total = 0
    for what, size in parts:
        total += size
        if total > limit:
            raise error(f"{what} brings {whole} to {total} bytes, over the memory limit of "
                        f"{limit} bytes; {hint}")  # fmt: skip
    return total


__all__ = ["check_memory", "default_memory_limit", "memory_limit"]
