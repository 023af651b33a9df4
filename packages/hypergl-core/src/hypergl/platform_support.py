"""What a failed OpenGL context tells the user: why, and what still works without one.

macOS caps OpenGL at 4.1 (no compute shaders, no storage buffers) and has no EGL, so the
engine cannot render there; the rest of HyperGL can, and the error says so instead of
suggesting a Linux package.
"""

from __future__ import annotations

import sys

MINIMUM_GL = (4, 3)

WORKS_WITHOUT_GL = (
    "Without an OpenGL 4.3 context these still work: hypergl.context(device='trace') "
    "(runs programs and records every GL call) and device='null', the compiler and .hgb "
    "files (hgb info / dis / verify, hypergl.save, ctx.load on those devices), and py_gpu's "
    "wgpu backend (Metal on macOS, Vulkan or D3D12 elsewhere: pip install 'py-gpu[webgpu]')."
)

MACOS = (
    "macOS caps OpenGL at 4.1 and has no EGL: HyperGL's engine needs OpenGL 4.3 (compute "
    "shaders, storage buffers) and cannot render on this platform."
)


def too_old_message(version: str) -> str:
    """The ContextError text for a driver below OpenGL 4.3."""
    reason = f"HyperGL needs OpenGL 4.3 or newer, this driver has {version}."
    if sys.platform == "darwin":
        reason += " " + MACOS
    return f"{reason} {WORKS_WITHOUT_GL}"


def no_context_message(reason: str, fallback: str | None = None) -> str:
    """The ContextError text when no OpenGL context could be made at all: `reason` (EGL's
    failure) and, where the hidden-window fallback was tried, why it failed too."""
    if fallback is not None:
        reason += (f". The fallback, a hidden GLFW window, failed too: {fallback.rstrip('.')}"
                   ". Install an EGL driver (as above), or give the process a display (a "
                   "desktop session, or xvfb-run) so the fallback can make its window")  # fmt: skip
    if sys.platform == "darwin":
        return f"{MACOS} {WORKS_WITHOUT_GL} (The engine said: {reason})"
    from .gpu_situation import explain  # reads glvnd's files: only when it failed

    return f"{reason}. {explain()} {WORKS_WITHOUT_GL}"
