"""What this machine offers for OpenGL, for errors and `hypergl info` to say.

Most "no GPU" reports come from the set-up around the driver, not the driver: a container
without ``graphics`` in ``NVIDIA_DRIVER_CAPABILITIES`` has the NVIDIA device nodes but no
EGL library for them; glvnd without NVIDIA's vendor file (``10_nvidia.json``) finds only
Mesa, which then renders on the CPU (llvmpipe) without a word. This reads what glvnd and
the container runtime were told, so a failure can name the cause.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

#: Where glvnd looks for EGL vendor files when no variable overrides it.
VENDOR_DIRS = ("/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d")
#: Variables that decide which EGL driver a process gets.
VARIABLES = ("__EGL_VENDOR_LIBRARY_FILENAMES", "__EGL_VENDOR_LIBRARY_DIRS",
             "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
             "HYPERGL_EGL_LIBRARY", "EGL_PLATFORM", "LIBGL_ALWAYS_SOFTWARE")  # fmt: skip
#: Renderer strings of software rasterizers.
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "swiftshader", "software rasterizer",
                      "lavapipe", "microsoft basic render")  # fmt: skip


@dataclass(frozen=True)
class VendorFile:
    """One glvnd EGL vendor file and the library it names."""

    path: str
    library: str  # "" where the file cannot be read


@dataclass(frozen=True)
class Situation:
    vendor_files: tuple[VendorFile, ...]
    variables: dict[str, str] = field(default_factory=dict)
    nvidia_nodes: bool = False  # /dev/nvidia0 and friends exist: an NVIDIA GPU is here

    @property
    def nvidia_vendor(self) -> bool:
        return any("nvidia" in f.library.lower() or "nvidia" in f.path.lower()
                   for f in self.vendor_files)  # fmt: skip

    def hints(self) -> list[str]:
        """What is probably wrong, in the user's terms; empty when nothing stands out."""
        out = []
        capabilities = self.variables.get("NVIDIA_DRIVER_CAPABILITIES")
        if capabilities is not None:
            granted = {c.strip() for c in capabilities.split(",")}
            if not granted & {"graphics", "all"}:
                out.append(f"NVIDIA_DRIVER_CAPABILITIES={capabilities} has no 'graphics': the "
                           "container runtime leaves out NVIDIA's EGL and GL libraries (run "
                           "the container with NVIDIA_DRIVER_CAPABILITIES=all or "
                           "compute,utility,graphics)")  # fmt: skip
        if self.nvidia_nodes and not self.nvidia_vendor:
            out.append("an NVIDIA GPU is present (/dev/nvidia0) but glvnd has no NVIDIA EGL "
                       "vendor file (10_nvidia.json in " + " or ".join(VENDOR_DIRS) + "): EGL "
                       "can only reach Mesa, which renders on the CPU")  # fmt: skip
        if not self.vendor_files and "HYPERGL_EGL_LIBRARY" not in self.variables:
            out.append("glvnd lists no EGL vendor at all: install an EGL driver (Mesa: apt "
                       "install libegl-mesa0 libgl1-mesa-dri; or the GPU vendor's)")  # fmt: skip
        return out

    def lines(self) -> list[str]:
        """The situation as `hypergl info` prints it."""
        out = ["EGL vendor files (glvnd)"]
        out += [f"  {f.path} -> {f.library or '(unreadable)'}" for f in self.vendor_files]
        if not self.vendor_files:
            out.append("  none")
        out += [f"  {name}={value}" for name, value in self.variables.items()]
        out.append(f"  NVIDIA device nodes: {'yes' if self.nvidia_nodes else 'no'}")
        out += [f"  hint: {hint}" for hint in self.hints()]
        return out


def is_software(renderer: str) -> bool:
    """Whether an OpenGL/EGL renderer string names a software rasterizer."""
    name = renderer.lower()
    return any(word in name for word in SOFTWARE_RENDERERS)


def _vendor_paths() -> list[Path]:
    files = os.environ.get("__EGL_VENDOR_LIBRARY_FILENAMES")
    if files:
        return [Path(p) for p in files.split(os.pathsep) if p]
    dirs = os.environ.get("__EGL_VENDOR_LIBRARY_DIRS")
    folders = [Path(d) for d in dirs.split(os.pathsep) if d] if dirs else map(Path, VENDOR_DIRS)
    return [p for folder in folders if folder.is_dir() for p in sorted(folder.glob("*.json"))]


def _library(path: Path) -> str:
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["ICD"]["library_path"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def situation() -> Situation:
    """Read glvnd's vendor files, the variables that steer EGL, and the NVIDIA device nodes."""
    return Situation(
        vendor_files=tuple(VendorFile(str(p), _library(p)) for p in _vendor_paths()),
        variables={name: os.environ[name] for name in VARIABLES if name in os.environ},
        nvidia_nodes=Path("/dev/nvidia0").exists() or Path("/dev/nvidiactl").exists(),
    )


def explain() -> str:
    """One paragraph for an error message: the vendor files found and any hints."""
    found = situation()
    vendors = ", ".join(f"{Path(f.path).name} ({f.library or '?'})" for f in found.vendor_files)
    text = f"EGL vendors found: {vendors or 'none'}."
    hints = found.hints()
    return text + ("".join(f" Hint: {h}." for h in hints) if hints else "")
