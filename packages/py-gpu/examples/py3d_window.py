"""py_3d's render benchmark scene, the camera moving, shown live in a window through py_gpu.

    python examples/py3d_window.py [--frames 600] [--width 640 --height 360]

Needs a display (or xvfb-run), glfw and moderngl.  On Linux, py3dengine 0.0.4 imports only
with its Windows-only wintypes names set (tests/py3d_wintypes_shim.py); this example sets them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # py3d_scenes, py3d_wintypes_shim
import py3d_scenes  # noqa: E402
import py3d_wintypes_shim  # noqa: E402, F401

from py_gpu.adapters.py3d import Py3DRasterRenderer, Py3DWindow  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    args = parser.parse_args(argv)
    scene = py3d_scenes.benchmark_scene_objects()
    settings = py3d_scenes.benchmark_settings(args.width, args.height)
    renderer = Py3DRasterRenderer()
    start, shown = time.perf_counter(), 0
    with Py3DWindow(args.width, args.height, title="py_3d through py_gpu") as window:
        while shown < args.frames and not window.should_close:
            window.show(renderer.render_rgb(scene, py3d_scenes.benchmark_camera(shown), settings))
            shown += 1
    print(f"{shown} frames, {shown / (time.perf_counter() - start):.1f} frames/s presented")


if __name__ == "__main__":
    main()
