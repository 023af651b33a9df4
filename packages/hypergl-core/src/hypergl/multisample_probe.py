"""Whether a context's driver honours a pipeline made with ``multisample=False``.

GL asks that a primitive rasterized without multisampling in a multisampled framebuffer
write every sample it covers; Mesa 20.3's llvmpipe (Debian 11) writes one of four. One
draw into a 2 x 2 framebuffer of 4 samples a pixel says which, once per context.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

from .shader_prelude import FULL_SCREEN_VERTEX, VERSION

if TYPE_CHECKING:
    from .context import Context

_FRAGMENT = (
    VERSION
    + """layout(location = 0) out vec4 color;
void main() { color = vec4(1.0); }
"""
)
_verdicts: weakref.WeakKeyDictionary[Context, bool] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def writes_every_sample(ctx: Context) -> bool:
    """True where `ctx` draws a ``multisample=False`` pipeline into every sample (off
    the GL device, which draws nothing: True)."""
    from .context import Context

    if not isinstance(ctx, Context):
        raise TypeError(f"writes_every_sample needs a hypergl context, got {ctx!r}")
    with _lock:
        if ctx in _verdicts:
            return _verdicts[ctx]
        verdict = True
        if ctx.device == "gl" and ctx.limits.get("max_samples", 0) >= 4:
            verdict = _probe(ctx)
        _verdicts[ctx] = verdict
        return verdict


def _probe(ctx: Context) -> bool:
    target = ctx.framebuffer((2, 2), samples=4, depth=None, name="multisample_probe")
    pipeline = ctx.pipeline(vertex_shader=FULL_SCREEN_VERTEX, fragment_shader=_FRAGMENT,
                            multisample=False, name="multisample_probe")  # fmt: skip
    try:
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(target)
        cmd.clear(color=(0, 0, 0, 0))
        cmd.bind_pipeline(pipeline)
        cmd.draw(3)
        cmd.end()
        cmd.submit()
        return bool((target.read()[..., 0] == 255).all())  # resolved: every sample white
    finally:
        pipeline.release()
        target.release()
