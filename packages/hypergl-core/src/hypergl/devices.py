"""`hypergl.devices()`: the machine's EGL devices, and which one `device_index` opens.

EGL lists every GPU of the machine (and Mesa's software rasterizer) whatever
``CUDA_VISIBLE_DEVICES`` says. A worker that a scheduler (Ray, Slurm, a job
launcher) gives GPUs through ``CUDA_VISIBLE_DEVICES`` should render on those, so
there ``device_index`` counts within the visible GPUs, as CUDA does: index ``i``
opens the EGL device whose ``EGL_CUDA_DEVICE_NV`` (NVIDIA's EGL_NV_device_cuda)
is ``i``, since the driver numbers CUDA devices within the visible ones (the
NVIDIA driver asks CUDA, which applies the variable). With no index given, such
a worker opens visible GPU 0. Where no device reports a CUDA id (Mesa, AMD,
Intel, or ``CUDA_VISIBLE_DEVICES`` unset), ``device_index`` is the position in
EGL's list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import _core, _egl
from .errors import ContextError


@dataclass(frozen=True)
class Device:
    """One EGL device and what it says about itself ("" where it says nothing)."""

    index: int | None  # what hypergl.context(device_index=...) takes; None: hidden
    egl_index: int  # its position in EGL's list
    renderer: str  # EGL_EXT_device_query_name
    vendor: str  # EGL_EXT_device_query_name
    driver: str  # EGL_EXT_device_persistent_id
    drm_device: str  # EGL_EXT_device_drm, e.g. /dev/dri/card0
    drm_render_node: str  # EGL_EXT_device_drm_render_node, e.g. /dev/dri/renderD128
    cuda_device: int | None  # EGL_NV_device_cuda
    software: bool  # EGL_MESA_device_software (llvmpipe)
    extensions: tuple[str, ...]

    @property
    def name(self) -> str:
        if self.renderer:
            return self.renderer
        if self.software:
            return "software rasterizer (Mesa)"
        return self.drm_render_node or self.drm_device or f"EGL device {self.egl_index}"

    def __str__(self) -> str:
        where = self.drm_render_node or self.drm_device
        cuda = "" if self.cuda_device is None else f", CUDA {self.cuda_device}"
        index = "hidden by CUDA_VISIBLE_DEVICES" if self.index is None else f"#{self.index}"
        return f"{index}: {self.name}" + (f" ({where}{cuda})" if where or cuda else "")


def _cuda_visible() -> bool:
    return os.environ.get("CUDA_VISIBLE_DEVICES") is not None


def devices() -> list[Device]:
    """Every EGL device of the machine, in EGL's order (EGL_EXT_device_enumeration).

    Raises ContextError when there is no EGL library or it cannot list devices.
    """
    _egl.initialise_display()
    raw = _core.egl_devices()
    by_cuda = _cuda_visible() and any(d["cuda_device"] >= 0 for d in raw)
    out = []
    for d in raw:
        cuda = d["cuda_device"] if d["cuda_device"] >= 0 else None
        index = cuda if by_cuda else d["index"]
        out.append(Device(
            index=index, egl_index=d["index"], renderer=d["renderer"], vendor=d["vendor"],
            driver=d["driver"], drm_device=d["drm_device"],
            drm_render_node=d["drm_render_node"], cuda_device=cuda, software=d["software"],
            extensions=tuple(d["extensions"].split()),
        ))  # fmt: skip
    return out


def egl_device_index(device_index: int | None) -> int | None:
    """The EGL device `device_index` names (None: let the engine choose).

    Raises TypeError / ValueError for a bad index and ContextError, naming the
    index and what exists, when no device has it.
    """
    if device_index is None:
        if not _cuda_visible():
            return None
        try:
            listed = devices()
        except ContextError:
            return None  # the engine's own search reports what is missing
        visible = [d for d in listed if d.cuda_device is not None and d.index == 0]
        return visible[0].egl_index if visible else None
    if isinstance(device_index, bool) or not isinstance(device_index, int):
        raise TypeError(f"device_index must be an int or None, got {device_index!r}")
    if device_index < 0:
        raise ValueError(f"device_index must be >= 0, got {device_index}")
    try:
        listed = devices()
    except ContextError as exc:
        raise ContextError(
            f"device_index={device_index}: no EGL devices to choose from ({exc})"
        ) from None
    for device in listed:
        if device.index == device_index:
            return device.egl_index
    if not listed:
        raise ContextError(f"device_index={device_index}: EGL lists no devices on this machine")
    choices = "; ".join(str(d) for d in listed)
    scope = " (counted within CUDA_VISIBLE_DEVICES)" if any(
        d.cuda_device is not None for d in listed) and _cuda_visible() else ""  # fmt: skip
    raise ContextError(f"device_index={device_index} does not exist{scope}; "
                       f"the EGL devices here: {choices}")  # fmt: skip
