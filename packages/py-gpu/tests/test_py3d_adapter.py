"""The py_3d adapter against the published py3dengine (pinned in py-gpu's test extra).

py3dengine 0.0.4 imports on Linux once conftest's set-up gives ``ctypes.wintypes`` its
Windows-only handle names; nothing here is a stand-in.  The parity table renders py_3d's own
example scenes (``tests/py3d_scenes.py``) with py_3d's CPU renderer and through py_gpu and
writes both side by side to ``out/``.
"""

from __future__ import annotations

import importlib.metadata
import math
from pathlib import Path

import numpy as np
import py3d_scenes
import py_3d
import pytest
from py_3d import CPURenderer, RenderEngine

import py_gpu
from py_gpu import FrameBuffer, RasterBatch
from py_gpu.adapters import py3d as adapter
from py_gpu.errors import TargetSizeError

# Side-by-side parity images: packages/py-gpu/out/ in a checkout (ignored), inside the
# distribution's own folder wherever its tests run.
OUT = Path(__file__).resolve().parents[1] / "out"
PARITY_BACKENDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("moderngl", id="moderngl", marks=pytest.mark.gl),
]


def rgb_of(buffer) -> np.ndarray:
    data = np.frombuffer(bytes(buffer.to_rgb_bytes()), dtype=np.uint8)
    return data.reshape(buffer.height, buffer.width, 3)


def share_within(a: np.ndarray, b: np.ndarray, tolerance: int = 8) -> float:
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) <= tolerance).mean())


def test_the_real_published_package_is_tested():
    assert importlib.metadata.version("py3dengine") == "0.0.4"
    assert py_3d.CPURenderer is CPURenderer


def test_py3d_gpu_renderer_gets_our_renderer_with_fast_materials():
    # py_3d's GPURenderer passes fast_materials; a TypeError would make it retry without.
    gpu = py_3d.GPURenderer(prefer_backend="numpy")
    assert isinstance(gpu.backend_renderer, adapter.Py3DRasterRenderer)
    assert gpu.backend_renderer.fast_materials is True
    scene, camera, settings = py3d_scenes.lit_triangle()
    buffer = RenderEngine(gpu).render(scene, camera, settings)
    assert (buffer.width, buffer.height) == (320, 240)


def test_fast_materials_skips_lighting():
    scene, camera, settings = py3d_scenes.lit_triangle()
    fast = adapter.Py3DRasterRenderer(prefer_backend="numpy", fast_materials=True)
    pixels = rgb_of(fast.render(scene, camera, settings))
    assert tuple(pixels[120, 160]) == (225, 90, 55)  # the material colour, unlit
    lit = rgb_of(adapter.Py3DRasterRenderer(prefer_backend="numpy").render(scene, camera, settings))
    assert tuple(lit[120, 160]) == tuple(
        rgb_of(CPURenderer().render(scene, camera, settings))[120, 160]
    )


@pytest.fixture(scope="module")
def references():
    """py_3d's CPU renderer's image of each example scene (slow: computed once)."""
    return {
        name: rgb_of(CPURenderer().render(*make())) for name, make in py3d_scenes.SCENES.items()
    }


@pytest.mark.parametrize("backend", PARITY_BACKENDS)
def test_parity_table_on_py3d_example_scenes(backend, references):
    renderer = adapter.Py3DRasterRenderer(prefer_backend=backend)
    OUT.mkdir(exist_ok=True)
    table = {}
    for name, make in py3d_scenes.SCENES.items():
        scene, camera, settings = make()
        assert renderer.unsupported_features(scene, settings) == ()
        ours = rgb_of(renderer.render(scene, camera, settings))
        table[name] = share_within(ours, references[name])
        side_by_side = np.concatenate([references[name], ours], axis=1)
        _write_png(OUT / f"py3d_parity_{name}_{backend}.png", side_by_side)
    print(f"\nparity ({backend}, share of pixels within 8/255 of py_3d's CPU renderer):")
    for name, share in table.items():
        print(f"  {name:28s} {share * 100:6.2f}%")
    assert renderer.stats["reference"] == 0
    assert min(table.values()) >= 0.99, table


def _write_png(path: Path, rgb: np.ndarray) -> None:
    height, width = rgb.shape[:2]
    py_3d.PixelBuffer.from_rgb_bytes(width, height, rgb.tobytes()).to_png(path)


def test_static_geometry_is_built_once_and_moving_camera_costs_no_triangle_python():
    scene = py3d_scenes.benchmark_scene_objects()
    settings = py3d_scenes.benchmark_settings()
    renderer = adapter.Py3DRasterRenderer(prefer_backend="numpy")
    renderer.render(scene, py3d_scenes.benchmark_camera(0), settings)
    built = renderer.geometry_stats["triangle_builds"]
    sphere, box = scene.objects
    assert built == len(sphere.to_triangles(segments=20, rings=10)) + len(box.to_triangles())
    frames = [
        rgb_of(renderer.render(scene, py3d_scenes.benchmark_camera(i), settings))
        for i in range(1, 4)
    ]
    assert renderer.geometry_stats["triangle_builds"] == built
    assert not np.array_equal(frames[0], frames[1])  # the camera did move
    # A new object is built alone; a changed tessellation rebuilds the sphere (py_3d's key).
    scene.add(py_3d.Triangle((0, 0, 0), (1, 0, 0), (0, 1, 0)))
    renderer.render(scene, py3d_scenes.benchmark_camera(0), settings)
    assert renderer.geometry_stats["triangle_builds"] == built + 1


@pytest.mark.gl
def test_an_unchanged_frame_is_neither_shaded_nor_uploaded_again():
    scene = py3d_scenes.benchmark_scene_objects()
    settings = py3d_scenes.benchmark_settings()
    renderer = adapter.Py3DRasterRenderer(prefer_backend="moderngl", resident=False)
    first = rgb_of(renderer.render(scene, py3d_scenes.benchmark_camera(0), settings))
    uploads = renderer.backend_impl.stats["uploads"]
    again = rgb_of(renderer.render(scene, py3d_scenes.benchmark_camera(0), settings))
    assert np.array_equal(first, again) and renderer.stats["reused"] == 1
    assert renderer.backend_impl.stats["uploads"] == uploads
    renderer.render(scene, py3d_scenes.benchmark_camera(1), settings)  # the camera moved
    assert renderer.stats["reused"] == 1
    assert renderer.backend_impl.stats["uploads"] == uploads + 1


@pytest.mark.gl
def test_resident_geometry_is_uploaded_once_while_the_camera_moves():
    scene = py3d_scenes.benchmark_scene_objects()
    settings = py3d_scenes.benchmark_settings()
    resident = adapter.Py3DRasterRenderer(prefer_backend="moderngl")
    arrays = adapter.Py3DRasterRenderer(prefer_backend="moderngl", resident=False)
    for index in range(4):
        camera = py3d_scenes.benchmark_camera(index)
        ours = rgb_of(resident.render(scene, camera, settings))
        assert share_within(ours, rgb_of(arrays.render(scene, camera, settings))) >= 0.999
    assert resident.stats["resident"] == 4 and resident.resident_unavailable is None
    assert resident._resident_scenes.stats == {"uploads": 1, "frames": 4}
    # Textures, smooth normals and fuzziness are shaded per pixel there too.
    for make in (py3d_scenes.textured_sphere_polygons, py3d_scenes.smooth_sphere):
        scene, camera, settings = make()
        ours = rgb_of(resident.render(scene, camera, settings))
        assert share_within(ours, rgb_of(arrays.render(scene, camera, settings))) >= 0.999
    assert resident.stats["resident"] == 6 and resident._resident_scenes.stats["uploads"] == 3
    # Lines and wireframes take the array path.
    scene, camera, settings = py3d_scenes.wire_box()
    resident.render(scene, camera, settings)
    assert resident.stats["resident"] == 6 and resident.stats["backend"] == 7
    shared = resident.backend_impl
    resident.close()
    # close() releases what the renderer owns, not the backend select_backend shares.
    assert shared is py_gpu.select_backend("moderngl")
    assert len(shared.render(RasterBatch.from_arrays(np.zeros((0, 3, 3))), 8, 8).pixels) == 192
    again = rgb_of(resident.render(scene, camera, settings))  # and it can render again
    assert np.array_equal(again, rgb_of(arrays.render(scene, camera, settings)))


def test_a_feature_not_reproduced_goes_to_py3d_reference_unless_speed_was_asked():
    scene, camera, settings = py3d_scenes.lit_triangle()
    shadows = type(settings)(**{**settings.__dict__, "ray_traced_shadows": True})
    assert "ray_traced_shadows" in adapter.NOT_REPRODUCED
    parity = adapter.Py3DRasterRenderer(prefer_backend="numpy")
    assert parity.unsupported_features(scene, shadows) == ("ray_traced_shadows",)
    image = rgb_of(parity.render(scene, camera, shadows))
    assert parity.stats == {"backend": 0, "reference": 1, "reused": 0, "resident": 0}
    assert np.array_equal(image, rgb_of(CPURenderer().render(scene, camera, shadows)))
    speed = adapter.Py3DRasterRenderer(prefer_backend="numpy", reference_compatible=False)
    speed.render(scene, camera, shadows)
    assert speed.stats["backend"] == 1 and speed.stats["reference"] == 0


def test_render_fills_a_target_and_rejects_one_of_another_size():
    scene, camera, settings = py3d_scenes.lit_triangle()
    renderer = adapter.Py3DRasterRenderer(prefer_backend="numpy")
    target = py_3d.PixelBuffer.new(320, 240)
    assert renderer.render(scene, camera, settings, target) is target
    assert tuple(rgb_of(target)[0, 0]) == (8, 10, 14)
    with pytest.raises(TargetSizeError, match="8x8"):
        renderer.render(scene, camera, settings, py_3d.PixelBuffer.new(8, 8))
    with pytest.raises(TargetSizeError, match="8x8"):
        adapter.frame_to_py3d_pixel_buffer(FrameBuffer.new(4, 4), py_3d.PixelBuffer.new(8, 8))


def test_lines_points_and_bulletins_match_py3d():
    scene, camera, settings = py3d_scenes.lit_triangle()
    scene.add(
        py_3d.Line3((-1.5, -1.2, -0.2), (1.5, 1.2, -0.2), py_3d.Material(color=(250, 250, 0)))
    )
    scene.add(
        py_3d.LineSet3([((-1.5, 1.0, 0.5), (1.5, 1.0, 0.5))], py_3d.Material(color=(0, 250, 0)))
    )
    scene.add(py_3d.Point3((0.0, 0.0, -0.5), py_3d.Material(color=(255, 0, 255))))
    scene.add_bulletin(py_3d.TextBulletin("HELLO", position=(4, 4), scale=2))
    scene.add_bulletin(py_3d.FloatingTextBulletin("TOP", position=(0.0, 1.05, 0.0)))
    ours = rgb_of(
        adapter.Py3DRasterRenderer(prefer_backend="numpy").render(scene, camera, settings)
    )
    reference = rgb_of(CPURenderer().render(scene, camera, settings))
    assert share_within(ours, reference, 0) >= 0.999


def test_legacy_path_keeps_py_gpu_001_projection():
    # The 0.0.1 path stays as the benchmarks' baseline: NDC to pixel edges [0, W], y down.
    scene = py_3d.Scene()
    scene.add(
        py_3d.Triangle((-1, -1, 0), (1, -1, 0), (0, 1, 0), py_3d.Material(color=(200, 100, 50)))
    )
    camera = py_3d.Camera(position=(0, 0, -3), target=(0, 0, 0))
    settings = py_3d.RenderSettings(width=64, height=48, background=(5, 6, 7))
    batch = adapter.scene_to_raster_batch(scene, camera, settings)
    assert isinstance(batch, RasterBatch) and len(batch) == 1
    xyz, _ = batch.arrays()
    focal = 1 / math.tan(math.radians(30))
    top = xyz[0, 2]
    assert np.isclose(top[0], 32.0) and np.isclose(top[1], (1 - focal / 3) * 24)
    legacy = adapter.LegacyPy3DRasterRenderer(reference_compatible=False, prefer_backend="numpy")
    pixels = rgb_of(legacy.render(scene, camera, settings))
    assert tuple(pixels[0, 0]) == (5, 6, 7) and tuple(pixels[30, 32]) != (5, 6, 7)
