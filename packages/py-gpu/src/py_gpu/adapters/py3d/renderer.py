"""``Py3DRasterRenderer``: py_3d's ``Renderer`` protocol on a py_gpu backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...backends import RasterBackend, select_backend
from ._frame import render_arrays
from ._geometry import GeometryCache
from ._overlays import draw_bulletins
from ._resident import MAX_LIGHTS, ResidentScenes
from ._shading import LightSet, MaterialTable
from .capabilities import NOT_REPRODUCED, REPRODUCED, unsupported_features
from .pixels import rgb_to_py3d_pixel_buffer


@dataclass
class Py3DRasterRenderer:
    """Renders py_3d scenes through py_gpu, looking like py_3d's ``CPURenderer``.

    Keywords are those py_3d's ``GPURenderer`` and its benchmark pass:

    * ``reference_compatible=True`` (default): parity first.  A scene whose features are all in
      :data:`~.capabilities.REPRODUCED` is drawn on the backend; one that uses a feature in
      :data:`~.capabilities.NOT_REPRODUCED` (ray-traced shadows, reflections, ...) by py_3d's
      own ``CPURenderer``.
    * ``reference_compatible=False``: speed over parity, every scene on the backend (features it
      does not reproduce are left out).
    * ``fast_materials=True``: as py_3d's benchmark means it, skip lighting: faces get their
      material colour (with gamma); implies speed over parity.
    * ``prefer_backend``: the py_gpu backend (``"auto"``, ``"moderngl"``, ``"numpy"``, ...), or
      ``backend_impl`` a started one.
    * ``resident=True`` (default): with ``"auto"`` or ``"moderngl"`` and no ``backend_impl``,
      scenes without lines or a wireframe are drawn from geometry kept on the GPU
      (:mod:`._resident`): a frame sends only the camera, lights and settings.  Other scenes
      take the array path (:mod:`._frame`).

    Geometry is cached per py_3d object as py_3d's ``cache_static_geometry`` keys it; a frame of
    unchanged objects runs no Python per triangle or per pixel (text bulletins aside).
    :meth:`render_rgb` returns the frame as a NumPy array, for windows and video.
    """

    backend_impl: RasterBackend | None = None
    reference_compatible: bool = True
    prefer_backend: str = "auto"
    fast_materials: bool = False
    resident: bool = True
    name: str = "py_gpu py_3d renderer"
    backend: str = "py_gpu"
    capabilities: tuple[str, ...] = REPRODUCED
    not_reproduced: tuple[str, ...] = NOT_REPRODUCED
    _geometry: GeometryCache = field(default_factory=GeometryCache, init=False, repr=False)
    _tables: dict = field(default_factory=dict, init=False, repr=False)
    _reference: object = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._given_backend = self.backend_impl is not None
        if self.backend_impl is None and not self.reference_compatible:  # fail early if unknown
            self.backend_impl = select_backend(self.prefer_backend)
        #: How frames were drawn: ``{"backend": n, "reference": n}``; and the triangles built.
        #: ``reused``: frames whose inputs equalled the previous frame's (nothing redrawn).
        #: ``resident``: frames drawn from GPU-resident geometry.
        self.stats: dict[str, int] = {"backend": 0, "reference": 0, "reused": 0, "resident": 0}
        self._last_frame: tuple | None = None
        self._resident_scenes = None
        #: Why the GPU-resident path is not used (``None`` while it may be).
        self.resident_unavailable: str | None = None

    @property
    def prefer_speed(self) -> bool:
        return self.fast_materials or not self.reference_compatible

    @property
    def geometry_stats(self) -> dict[str, int]:
        return self._geometry.stats

    def clear_cache(self) -> None:
        self._geometry.clear()
        self._tables.clear()
        self._last_frame = None

    def unsupported_features(self, scene: Any, settings: Any) -> tuple[str, ...]:
        """The features of ``scene`` this renderer does not reproduce (see ``capabilities``)."""
        table = self._prepare(scene, settings)[3]
        return unsupported_features(scene, settings, table)

    def render(self, scene: Any, camera: Any, settings: Any, target: Any = None) -> Any:
        """py_3d's ``Renderer.render``: a ``PixelBuffer`` backed by the frame's bytes
        (``target`` filled when given)."""
        rgb = self._backend_rgb(scene, camera, settings)
        if rgb is None:
            return self._reference_renderer().render(scene, camera, settings, target)
        buffer = rgb_to_py3d_pixel_buffer(settings.width, settings.height, rgb, target)
        draw_bulletins(buffer, scene, camera)
        return buffer

    def render_rgb(self, scene: Any, camera: Any, settings: Any) -> np.ndarray:
        """The frame, text bulletins included, as uint8 ``(H, W, 3)`` (row 0 at the top): for
        windows (:class:`~.window.Py3DWindow`) and video."""
        buffer = self.render(scene, camera, settings)
        data = np.frombuffer(bytes(buffer.to_rgb_bytes()), dtype=np.uint8)
        return data.reshape(settings.height, settings.width, 3)

    def _backend_rgb(self, scene, camera, settings) -> np.ndarray | None:
        """The frame without bulletins, or ``None`` when parity asks for py_3d's reference
        renderer (the scene uses a feature in ``not_reproduced``)."""
        lines, _, geo, table = self._prepare(scene, settings)
        if not self.prefer_speed and unsupported_features(scene, settings, table):
            self.stats["reference"] += 1
            return None
        self.stats["backend"] += 1
        # py_3d's cameras, settings, lights and primitives are frozen: equal inputs over the
        # same cached geometry give the same frame, which is then neither shaded nor sent again.
        key = (camera, settings, tuple(scene.lights), tuple(lines), self.fast_materials)
        last = self._last_frame
        if last is not None and last[0] is geo and _equal(last[1], key):
            self.stats["reused"] += 1
            return last[2]
        if self._resident_fits(geo, table, lines, settings, scene.lights):
            self.stats["resident"] += 1
            rgb = self._resident_scenes.render(
                geo, table, LightSet.of(scene.lights), camera, settings, self.fast_materials
            )
        else:
            rgb = self._array_frame(geo, table, scene, lines, camera, settings)
        rgb.flags.writeable = False
        self._last_frame = (geo, key, rgb)
        return rgb

    def _array_frame(self, geo, table, scene, lines, camera, settings):
        if self.backend_impl is None:
            self.backend_impl = select_backend(self.prefer_backend)
        return render_arrays(
            geo,
            table,
            LightSet.of(scene.lights),
            scene,
            lines,
            camera,
            settings,
            self.backend_impl,
            self.fast_materials,
        )

    def _resident_fits(self, geo, table, lines, settings, lights) -> bool:
        """Whether this frame can be drawn from GPU-resident geometry (starting it if so)."""
        if not self.resident or self.resident_unavailable is not None:
            return False
        if self._given_backend or self.prefer_backend not in ("auto", "moderngl"):
            return False
        if lines or settings.wireframe or len(lights) > MAX_LIGHTS:
            return False
        if self._resident_scenes is None:
            try:
                self._resident_scenes = ResidentScenes()
            except Exception as exc:  # no moderngl or no EGL here: the array path draws
                self.resident_unavailable = f"{type(exc).__name__}: {exc}"
                return False
        return True

    def _prepare(self, scene, settings):
        from py_3d import Line3, LineSet3, Point3

        lines, objects = [], []
        for obj in scene.objects:
            (lines if isinstance(obj, (Point3, Line3, LineSet3)) else objects).append(obj)
        geo = self._geometry.scene_arrays(objects, settings)
        cached = self._tables.get(id(geo))
        if cached is None or cached[0] is not geo:
            self._tables.clear()  # one scene's table at a time
            cached = self._tables[id(geo)] = (geo, MaterialTable.of(geo.materials))
        return lines, objects, geo, cached[1]

    def _reference_renderer(self):
        if self._reference is None:
            from py_3d import CPURenderer

            self._reference = CPURenderer(cache_static_geometry=True)
        return self._reference

    def close(self) -> None:
        """Release the GPU-resident geometry and its context.  The backend is left running:
        ``select_backend`` shares one per process, and one passed in belongs to the caller."""
        if self._resident_scenes is not None:
            self._resident_scenes.close()
        self._resident_scenes = None
        if not self._given_backend:
            self.backend_impl = None
        self._last_frame = None


def _equal(a: tuple, b: tuple) -> bool:
    try:
        return bool(a == b)
    except Exception:  # a value py_3d did not freeze, compared element-wise: not the same frame
        return False
