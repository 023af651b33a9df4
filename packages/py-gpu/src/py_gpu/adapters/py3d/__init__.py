"""Adapter for rendering py_3d scenes (``py3dengine``, import ``py_3d``) through py_gpu.

:class:`Py3DRasterRenderer` implements py_3d's ``Renderer`` protocol (py_3d's ``GPURenderer``
constructs it).  It caches each py_3d object's triangles as NumPy arrays, keyed as py_3d's
``cache_static_geometry`` keys them, and draws a frame with arrays only: py_3d's projection,
lighting (suns, lamps, ambient, absorption, diffuse, emission, specular, roughness, fuzziness)
and gamma per face, and per pixel where py_3d shades per pixel (textures with their UVs, smooth
normals), on any py_gpu backend.  Flat-shaded scenes are drawn from geometry kept on the GPU
instead (uploaded once; a frame sends the camera, lights and settings).  :mod:`.capabilities`
names what it does not reproduce; such a scene goes to py_3d's CPU renderer unless speed was
asked for.  :mod:`.legacy` keeps py_gpu 0.0.1's per-triangle path as a baseline.

Modules: :mod:`._geometry` (object arrays and their cache), :mod:`._shading`, :mod:`._frame` (a
frame with arrays), :mod:`._resident` (a frame from GPU-resident geometry), :mod:`._overlays`
(text bulletins), :mod:`.pixels` (``PixelBuffer`` conversion), :mod:`.renderer`,
:mod:`.window` (``Py3DWindow``, a GLFW window showing the frames; imported on use: it needs
glfw and moderngl).
"""

from __future__ import annotations

from typing import Any

from .capabilities import NOT_REPRODUCED, REPRODUCED
from .legacy import LegacyPy3DRasterRenderer, scene_to_raster_batch
from .pixels import frame_to_py3d_pixel_buffer
from .renderer import Py3DRasterRenderer


def __getattr__(name: str) -> Any:
    if name == "Py3DWindow":  # glfw and moderngl only when a window is asked for
        from .window import Py3DWindow

        return Py3DWindow
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NOT_REPRODUCED",
    "REPRODUCED",
    "LegacyPy3DRasterRenderer",
    "Py3DRasterRenderer",
    "Py3DWindow",
    "frame_to_py3d_pixel_buffer",
    "scene_to_raster_batch",
]
