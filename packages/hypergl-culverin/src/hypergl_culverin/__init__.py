"""hypergl-culverin: Culverin (Jolt Physics) body state into HyperGL storage buffers."""

from __future__ import annotations

__version__ = "0.1.0"
