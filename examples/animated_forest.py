"""Record a forest that sways and flickers by itself into a .hgb file, then play it.

The program reads the VM's clock (``get_time``), turns it into a sway with ``sin_cos``,
flickers the light with ``gen_rand`` and counts its frames in a register kept across
submits: every frame is one ``submit()`` with no Python scene code, so the file plays
anywhere ``hypergl play`` runs::

    python examples/animated_forest.py --out forest.hgb
    hypergl play forest.hgb --frames 90 --out forest/   # forest/play.mp4, forest/last.png

Needs OpenGL 4.3 (headless EGL works).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import hypergl

TREES = 32  # 4 rows of 8
VERTEX = """#version 430
layout(location = 0) uniform float sway;   // sin(2 t)
layout(location = 1) uniform float light;  // 0.8 .. 1.0, flickering
out vec3 v_color;
void main() {
    int i = gl_InstanceID;
    float row = float(i / 8);
    float x = -0.85 + 1.7 * float(i % 8) / 7.0 + 0.1 * (row - 1.5) * 0.5;
    float y = 0.35 - 0.4 * row;
    float h = 0.3 + 0.06 * float((i * 7) % 3);
    float bend = sway * (0.06 + 0.02 * float(i % 3));
    vec2 p = gl_VertexID == 0 ? vec2(-0.07, 0.0)
           : gl_VertexID == 1 ? vec2(0.07, 0.0) : vec2(bend, h);
    gl_Position = vec4(x + p.x, y + p.y, 0.0, 1.0);
    v_color = vec3(0.12, 0.35 + 0.12 * row, 0.16) * light;
}
"""
FRAGMENT = """#version 430
in vec3 v_color;
out vec4 color;
void main() { color = vec4(v_color, 1.0); }
"""


def record(ctx: hypergl.Context, size: int = 256) -> hypergl.CommandBuffer:
    """The self-animating program over a framebuffer and a pipeline of `ctx`."""
    screen = ctx.framebuffer((size, size), name="screen")
    trees = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, name="trees")
    cmd = ctx.command_buffer("forest")
    sc = hypergl.SceneCompiler(cmd)
    cmd.bind_framebuffer(screen)
    cmd.clear(color=(0.05, 0.07, 0.12, 1.0))
    cmd.bind_pipeline(trees)
    sc.time(0)  # r0 = seconds since the first frame
    sc.set_float(1, 2.0)
    cmd.fmul(0, 0, 1)  # r0 = 2 t (radians)
    sc.sin_cos(1, 2, 0)  # r1 = sin(2 t), r2 = cos(2 t)
    cmd.uniform_f(1, 0)
    sc.random(3)  # r3 in [0, 1)
    sc.set_float(4, 0.2)
    cmd.fmul(3, 3, 4)
    sc.set_float(4, 0.8)
    cmd.fadd(3, 3, 4)  # r3 = 0.8 + 0.2 * random
    cmd.uniform_f(3, 1)
    sc.inc(7)  # frames played so far (with keep_registers)
    cmd.draw(3, instances=TREES)
    cmd.end()
    return cmd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="forest.hgb", help="the .hgb file to write")
    parser.add_argument("--size", type=int, default=256, help="frame width and height")
    args = parser.parse_args()
    with hypergl.context() as ctx:
        hypergl.save(record(ctx, args.size), Path(args.out))
    print(f"wrote {args.out}: hypergl play {args.out} --frames 90 --out forest/")


if __name__ == "__main__":
    main()
