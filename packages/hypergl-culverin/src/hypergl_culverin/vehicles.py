"""Wheels and tracks of vehicles, checked before Culverin sees them.

Culverin 0.15 needs at least two wheels, and a track naming a wheel that does not exist
(or with no wheels, or driven by a wheel outside it) segfaults it; radii and positions
are not checked by it at all.
"""

from __future__ import annotations

from typing import Any

from . import values
from .errors import BadValueError

MAX_WHEELS = 64


def vehicle_wheels(wheels: Any) -> list[dict[str, Any]]:
    """``[{"pos": (x, y, z), "radius": r}, ...]``, 2..MAX_WHEELS of them, checked."""
    if not isinstance(wheels, (list, tuple)) or not 2 <= len(wheels) <= MAX_WHEELS:
        raise BadValueError(f"wheels must be a list of 2..{MAX_WHEELS} dicts {{'pos': "
                            f"(x, y, z), 'radius': r}}, got {values.show(wheels)}")  # fmt: skip
    checked = []
    for k, wheel in enumerate(wheels):
        if not isinstance(wheel, dict) or set(wheel) != {"pos", "radius"}:
            raise BadValueError(f"wheel {k} must be a dict with 'pos' and 'radius' only, got "
                                f"{values.show(wheel)}")  # fmt: skip
        checked.append({"pos": values.vector(wheel["pos"], f"wheel {k} pos"),
                        "radius": values.positive(wheel["radius"], f"wheel {k} radius",
                                                  error=BadValueError)[0]})  # fmt: skip
    return checked


def vehicle_tracks(tracks: Any, wheel_count: int) -> list[dict[str, Any]]:
    """``[{"indices": [wheel, ...], "driven_wheel": wheel}, ...]``: each track names distinct
    existing wheels and is driven by one of them."""
    if not isinstance(tracks, (list, tuple)) or not 1 <= len(tracks) <= MAX_WHEELS:
        raise BadValueError(f"tracks must be a list of 1..{MAX_WHEELS} dicts, got "
                            f"{values.show(tracks)}")  # fmt: skip
    checked = []
    for k, track in enumerate(tracks):
        if not isinstance(track, dict) or set(track) != {"indices", "driven_wheel"}:
            raise BadValueError(f"track {k} must be a dict with 'indices' and 'driven_wheel' "
                                f"only, got {values.show(track)}")  # fmt: skip
        indices = track["indices"]
        if not isinstance(indices, (list, tuple)) or len(indices) < 2:
            raise BadValueError(f"track {k} indices must list at least 2 wheels, got "
                                f"{values.show(indices)}")  # fmt: skip
        wheels = [values.integer(i, f"track {k} wheel index", low=0, high=wheel_count - 1)
                  for i in indices]  # fmt: skip
        if len(set(wheels)) != len(wheels):
            raise BadValueError(f"track {k} names a wheel twice: {wheels}")
        driven = values.integer(track["driven_wheel"], f"track {k} driven_wheel", low=0,
                                high=wheel_count - 1)  # fmt: skip
        if driven not in wheels:
            raise BadValueError(f"track {k} driven_wheel {driven} is not one of its wheels "
                                f"{wheels}")  # fmt: skip
        checked.append({"indices": wheels, "driven_wheel": driven})
    return checked
