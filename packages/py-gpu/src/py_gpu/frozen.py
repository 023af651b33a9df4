"""Validated arrays are read-only and beyond the caller's reach.

A check passes on the values it saw.  Had the caller kept a writable array sharing that memory,
it could change them afterwards (an index out of range, a negative index that NumPy wraps, a
NaN) and skip the check.  So a validated array is made read-only, and copied when it is the
caller's own memory, except where a copy would cost every frame (see ``keep_callers``).
"""

from __future__ import annotations

from typing import Any


def frozen(array: Any, source: object, *, keep_callers: bool = False) -> Any:
    """`array`, validated from the caller's `source`, as a read-only array nobody else writes.

    An array the conversion made (it owns its memory, it is not `source`) is frozen as is: no
    copy.  A view of other memory is copied.  The caller's own array (`array is source`) is
    copied too, unless ``keep_callers``: then it is frozen in place (zero-copy; the caller sees
    it become read-only), for batches built every frame.
    """
    if not array.flags.owndata or (array is source and not keep_callers):
        array = array.copy()
    array.flags.writeable = False
    return array
