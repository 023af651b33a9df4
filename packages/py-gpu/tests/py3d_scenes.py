"""py_3d's own example scenes, for py_gpu's py_3d adapter tests and benchmarks/py3d.py.

The scenes of py_3d's repository (github.com/Daniel-J-Mueller/py_3d, MIT): ``examples/
rendering_gallery.py`` (lit triangle, lit sphere, wire box), ``examples/
textured_sphere_polygons.py`` and ``examples/render_benchmark.py`` (``make_scene``, with
``gpu_render_benchmark.py``'s settings and moving camera).  The textured scene's
``assets/tv-test.png`` is not in py_3d's repository: :func:`tv_test_texture` draws a stand-in
test card (colour bars and a checkerboard).  Each scene function returns
``(scene, camera, settings)``; :data:`SCENES` names them.

Run it to write every scene, as py_3d's CPU renderer and through py_gpu, to ``out/``::

    python packages/py-gpu/tests/py3d_scenes.py
"""

from __future__ import annotations

from pathlib import Path


def lit_triangle():
    from py_3d import Camera, Lamp, Material, RenderSettings, Scene, Sun, Triangle

    scene = Scene()
    scene.add(
        Triangle(
            (-1.15, -0.95, 0.0),
            (1.15, -0.85, 0.0),
            (0.0, 1.05, 0.0),
            Material(color=(225, 90, 55), absorption=(0.05, 0.1, 0.2)),
        )
    )
    scene.add_light(Sun(direction=(0.0, 0.0, -1.0), color=(255, 245, 230), intensity=1.0))
    scene.add_light(Lamp(position=(-1.2, 1.6, -1.5), color=(100, 150, 255), intensity=1.5))
    camera = Camera(position=(0.0, 0.0, -4.0), target=(0.0, 0.0, 0.0))
    settings = RenderSettings(width=320, height=240, background=(8, 10, 14), ambient=0.08)
    return scene, camera, settings


def wire_box():
    from py_3d import Box, Camera, Material, RenderSettings, Scene

    scene = Scene()
    scene.add(
        Box(center=(0.0, 0.0, 0.0), size=(1.5, 1.5, 1.5), material=Material(color=(70, 220, 180)))
    )
    camera = Camera(position=(2.4, 1.7, -4.2), target=(0.0, 0.0, 0.0), fov_degrees=50)
    settings = RenderSettings(width=320, height=240, background=(6, 8, 12), wireframe=True)
    return scene, camera, settings


def lit_sphere(smooth: bool = False):
    from py_3d import Camera, Lamp, Material, RenderSettings, Scene, Sphere, Sun

    scene = Scene()
    scene.add(
        Sphere(
            center=(0.0, 0.0, 0.0),
            radius=1.0,
            material=Material(color=(85, 150, 235), absorption=(0.08, 0.05, 0.02)),
        )
    )
    scene.add_light(Sun(direction=(-0.5, -0.7, -1.0), color=(255, 245, 230), intensity=0.95))
    scene.add_light(Lamp(position=(1.7, 1.2, -2.0), color=(255, 80, 120), intensity=2.4))
    camera = Camera(position=(0.0, 0.0, -4.0), target=(0.0, 0.0, 0.0))
    settings = RenderSettings(
        width=320,
        height=240,
        background=(8, 10, 14),
        ambient=0.05,
        sphere_segments=24,
        sphere_rings=12,
        smooth_shading=smooth,
    )
    return scene, camera, settings


def smooth_sphere():
    """The gallery's lit sphere with ``smooth_shading=True`` (py_3d lights it per pixel)."""
    return lit_sphere(smooth=True)


def tv_test_texture(width: int = 64, height: int = 48):
    """A test card: seven colour bars over a black-and-white checkerboard strip."""
    from py_3d import PixelBuffer

    bars = [
        (192, 192, 192),
        (192, 192, 0),
        (0, 192, 192),
        (0, 192, 0),
        (192, 0, 192),
        (192, 0, 0),
        (0, 0, 192),
    ]
    data = bytearray()
    for y in range(height):
        for x in range(width):
            if y < height * 2 // 3:
                data += bytes(bars[x * len(bars) // width])
            else:
                data += b"\xf0\xf0\xf0" if (x // 4 + y // 4) % 2 else b"\x10\x10\x10"
    return PixelBuffer.from_rgb_bytes(width, height, data)


def textured_sphere_polygons():
    from py_3d import (
        Camera,
        Lamp,
        Material,
        RenderSettings,
        Scene,
        Sphere,
        Sun,
        TextBulletin,
        Triangle,
        planar_project_triangles,
    )

    tv_material = Material(texture=tv_test_texture(), absorption=(0.03, 0.03, 0.03), diffuse=0.95)
    rough_material = Material(color=(185, 145, 90), roughness=0.75, fuzziness=0.35)
    fuzzy_material = Material(color=(110, 210, 175), roughness=0.35, fuzziness=0.8)
    scene = Scene()
    scene.add(Sphere(center=(-0.9, 0.1, 0.0), radius=0.85, material=tv_material))
    panel = (
        Triangle((0.55, -0.7, -0.1), (2.05, -0.55, 0.05), (2.1, 0.75, 0.05), tv_material),
        Triangle((0.55, -0.7, -0.1), (2.1, 0.75, 0.05), (0.45, 0.65, -0.1), tv_material),
    )
    scene.add(
        *planar_project_triangles(
            panel,
            center=(1.3, 0.0, 0.0),
            u_axis=(1.0, 0.0, 0.0),
            v_axis=(0.0, 1.0, 0.0),
            scale=(1.7, 1.4),
            offset=(0.5, 0.5),
        )
    )
    scene.add(
        Triangle((-2.1, -1.05, 0.55), (2.25, -1.05, 0.55), (1.75, -1.05, 2.1), rough_material),
        Triangle((-2.1, -1.05, 0.55), (1.75, -1.05, 2.1), (-1.75, -1.05, 2.05), rough_material),
        Triangle((-1.95, 0.95, 0.4), (-1.3, 1.55, 0.25), (-0.65, 0.95, 0.4), fuzzy_material),
    )
    scene.add_light(Sun(direction=(-0.35, -0.7, -1.0), color=(255, 245, 225), intensity=0.9))
    scene.add_light(Lamp(position=(-2.1, 1.8, -2.2), color=(90, 140, 255), intensity=2.5))
    scene.add_light(Lamp(position=(1.8, 1.2, -1.3), color=(255, 110, 90), intensity=1.6))
    scene.add_bulletin(
        TextBulletin(
            "TEXTURED SPHERE + POLYGONS\nSPHERE UVS + PLANAR FACE PROJECTION",
            position=(10, 10),
            color=(245, 248, 255),
            background=(5, 7, 11),
            padding=5,
            scale=1,
        )
    )
    camera = Camera(position=(0.0, 0.45, -5.0), target=(0.0, 0.0, 0.35), fov_degrees=48)
    settings = RenderSettings(
        width=640,
        height=360,
        background=(7, 9, 14),
        ambient=0.12,
        sphere_segments=28,
        sphere_rings=14,
    )
    return scene, camera, settings


def benchmark_scene_objects():
    """``render_benchmark.make_scene``: a sphere and a box under a sun and two lamps."""
    from py_3d import Box, Lamp, Material, Scene, Sphere, Sun

    scene = Scene()
    scene.add(
        Sphere(
            center=(-0.8, 0.0, 0.0),
            radius=0.75,
            material=Material(color=(80, 145, 235), absorption=(0.05, 0.05, 0.02)),
        ),
        Box(
            center=(0.85, -0.05, 0.15),
            size=(1.05, 1.05, 1.05),
            material=Material(color=(225, 155, 70), absorption=(0.08, 0.16, 0.22)),
        ),
    )
    scene.add_light(Sun(direction=(-0.4, -0.7, -1.0), color=(255, 244, 225), intensity=0.85))
    scene.add_light(Lamp(position=(-2.0, 1.7, -2.0), color=(80, 150, 255), intensity=2.6))
    scene.add_light(Lamp(position=(2.0, 1.2, -1.2), color=(255, 90, 120), intensity=1.8))
    return scene


def benchmark_camera(index: int):
    """``gpu_render_benchmark.py``'s camera for frame ``index`` (it moves every frame)."""
    from py_3d import Camera

    return Camera(
        position=(1.4 * (index % 3 - 1), 0.6, -4.0), target=(0.0, 0.0, 0.0), fov_degrees=52
    )


def benchmark_settings(width: int = 320, height: int = 180):
    from py_3d import RenderSettings

    return RenderSettings(
        width=width,
        height=height,
        background=(7, 9, 14),
        ambient=0.06,
        sphere_segments=20,
        sphere_rings=10,
    )


def benchmark(width: int = 320, height: int = 180):
    return benchmark_scene_objects(), benchmark_camera(0), benchmark_settings(width, height)


def dense_scene(width: int = 320, height: int = 180):
    """The benchmark's lights over a 3 x 2 grid of spheres, >= 20,000 triangles in all."""
    from py_3d import Lamp, Material, RenderSettings, Scene, Sphere, Sun

    scene = Scene()
    for i in range(6):
        x, y = -1.5 + 1.5 * (i % 3), 0.55 - 1.1 * (i // 3)
        color = (80 + 30 * i, 145, 235 - 25 * i)
        scene.add(Sphere(center=(x, y, 0.0), radius=0.55, material=Material(color=color)))
    scene.add_light(Sun(direction=(-0.4, -0.7, -1.0), color=(255, 244, 225), intensity=0.85))
    scene.add_light(Lamp(position=(-2.0, 1.7, -2.0), color=(80, 150, 255), intensity=2.6))
    scene.add_light(Lamp(position=(2.0, 1.2, -1.2), color=(255, 90, 120), intensity=1.8))
    settings = RenderSettings(
        width=width,
        height=height,
        background=(7, 9, 14),
        ambient=0.06,
        sphere_segments=60,
        sphere_rings=30,
    )
    return scene, benchmark_camera(0), settings


SCENES = {
    "lit_triangle": lit_triangle,
    "lit_sphere": lit_sphere,
    "wire_box": wire_box,
    "smooth_sphere": smooth_sphere,
    "textured_sphere_polygons": textured_sphere_polygons,
    "benchmark": benchmark,
}


def main() -> None:  # pragma: no cover - a manual preview
    from py_3d import CPURenderer, PixelBuffer

    from py_gpu.adapters.py3d import Py3DRasterRenderer

    out = Path("out")
    out.mkdir(exist_ok=True)
    renderer = Py3DRasterRenderer()
    for name, make in SCENES.items():
        scene, camera, settings = make()
        ours = renderer.render(scene, camera, settings)
        reference = CPURenderer().render(scene, camera, settings)
        both = PixelBuffer.new(settings.width * 2, settings.height)
        both.blit(reference, 0, 0)
        both.blit(ours, settings.width, 0)
        both.to_png(out / f"py3d_{name}.png")
        print(f"wrote {out / f'py3d_{name}.png'} (left: py_3d CPU, right: py_gpu)")


if __name__ == "__main__":
    main()
