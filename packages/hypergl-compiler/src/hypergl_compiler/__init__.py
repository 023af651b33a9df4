"""hypergl-compiler: record, store, inspect and verify HyperGL bytecode. Pure Python."""

from __future__ import annotations

__version__ = "0.1.0"
