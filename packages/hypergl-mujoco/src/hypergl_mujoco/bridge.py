"""The ``hypergl.bridges: mujoco`` entry point: ``ctx.bridge("mujoco", model, ...)``."""

from __future__ import annotations

from typing import Any

import hypergl

from .renderer import BatchRenderer


def mujoco_bridge(ctx: hypergl.Context, model: Any, **options: Any) -> BatchRenderer:
    """A :class:`BatchRenderer` of `model` drawing in `ctx` (options as its own)."""
    return BatchRenderer(model, context=ctx, **options)
