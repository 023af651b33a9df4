"""py_3d scenes resident on the GPU (ModernGL on headless EGL): world-space triangles are
uploaded once per cached object set; a frame sends only the camera, the lights and the
settings as uniforms, and the GPU does py_3d's projection, culls and per-face lighting.

A geometry shader runs py_3d's ``_draw_triangle`` preamble per face (near/far and distance
culls, facing, two-sided flip, ``_lighting_channels``, ``Material.shade``, roughness, gamma,
each with py_3d's truncating colour steps) in float32; vertices go straight to py_3d's pixel
coordinates with ``w = 1``, so depth (camera ``z``) interpolates linearly in screen space as in
py_3d.  Faces py_3d shades per pixel (textures, smooth normals, fuzziness), lines and
wireframes are not drawn here: :class:`~.renderer.Py3DRasterRenderer` sends those scenes down
the array path (:mod:`._frame`).
"""

from __future__ import annotations

import weakref
from math import radians, tan

import numpy as np

MAX_LIGHTS = 32

_VERTEX = """
#version 330
in vec3 in_position;
in vec3 in_normal;
in vec3 in_center;
in float in_material;
out vec3 v_position;
out vec3 v_normal;
out vec3 v_center;
out float v_material;
void main() {
    v_position = in_position;
    v_normal = in_normal;
    v_center = in_center;
    v_material = in_material;
}
"""

_GEOMETRY = """
#version 330
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in vec3 v_position[];
in vec3 v_normal[];
in vec3 v_center[];
in float v_material[];
flat out vec3 g_color;

uniform vec3 eye, right, up, forward;
uniform vec4 projection;  // focal / aspect, focal, 0.5 * (W - 1), 0.5 * (H - 1)
uniform vec2 size;        // W, H
uniform vec2 planes;      // near, far
uniform float max_distance;  // < 0: none
uniform int cull_backfaces, two_sided, fast;
uniform float ambient, gamma, light_wrap, bounce_light;
uniform int light_count;
uniform vec4 light_where[32];  // xyz: direction to a sun or a lamp's position; w: 0 sun, 1 lamp
uniform vec4 light_color[32];  // rgb 0..1, intensity
uniform float light_radius[32];  // < 0: none
uniform sampler2D materials;  // rows: (color, diffuse) (absorption, roughness)
                              // (emission, specular) (shininess, reflectivity, fuzziness) (color8)

vec3 bytes(vec3 c) { return floor(clamp(c, 0.0, 1.0) * 255.0); }

vec3 unit(vec3 v, vec3 fallback) {
    float l = length(v);
    return l == 0.0 ? fallback : v / l;
}

void main() {
    vec3 screen[3];
    for (int k = 0; k < 3; k++) {
        vec3 r = v_position[k] - eye;
        float cz = dot(r, forward);
        if (cz < planes.x || cz > planes.y) return;
        float nx = (dot(r, right) * projection.x) / cz;
        float ny = (dot(r, up) * projection.y) / cz;
        screen[k] = vec3((nx + 1.0) * projection.z, (1.0 - ny) * projection.w, cz);
    }
    vec3 center = v_center[0];
    if (max_distance >= 0.0 && distance(center, eye) > max_distance) return;
    vec3 n = v_normal[0];
    vec3 view = unit(eye - center, vec3(0.0, 0.0, -1.0));
    float facing = dot(n, view);
    if (cull_backfaces == 1 && facing <= 0.0) return;
    if (two_sided == 1 && facing < 0.0) n = -n;
    int m = int(v_material[0] + 0.5);
    vec4 row0 = texelFetch(materials, ivec2(0, m), 0);
    vec4 row1 = texelFetch(materials, ivec2(1, m), 0);
    vec4 row2 = texelFetch(materials, ivec2(2, m), 0);
    vec4 row3 = texelFetch(materials, ivec2(3, m), 0);
    vec3 c8;
    if (fast == 1) {
        c8 = texelFetch(materials, ivec2(4, m), 0).rgb;
    } else {
        vec3 diffuse = vec3(0.0), specular = vec3(0.0);
        if (bounce_light > 0.0) {
            float sky = max(0.0, n.y) * bounce_light, ground = max(0.0, -n.y) * bounce_light;
            diffuse += vec3(0.22, 0.26, 0.34) * sky + vec3(0.32, 0.22, 0.14) * ground;
        }
        bool spec_on = row2.w > 0.0 || row3.y > 0.0;
        for (int i = 0; i < light_count; i++) {
            vec3 d;
            float intensity = light_color[i].w;
            if (light_where[i].w == 0.0) {
                d = light_where[i].xyz;
            } else {
                vec3 offset = light_where[i].xyz - center;
                float dist = length(offset);
                if (dist == 0.0) {
                    d = vec3(0.0, 1.0, 0.0);
                } else {
                    d = unit(offset / dist, vec3(0.0, 1.0, 0.0));
                    if (light_radius[i] >= 0.0 && dist > light_radius[i]) intensity = 0.0;
                    else intensity = intensity / (1.0 + dist * dist);
                }
            }
            float f = dot(n, d);
            float response = light_wrap > 0.0 ? max(0.0, (f + light_wrap) / (1.0 + light_wrap))
                                               : max(0.0, f);
            float strength = response * intensity;
            diffuse += light_color[i].rgb * strength;
            if (spec_on && strength > 0.0) {
                vec3 h = unit(d + view, d);
                specular += light_color[i].rgb * (pow(max(0.0, dot(n, h)), row3.x) * intensity);
            }
        }
        float spec_strength = row2.w * (1.0 - row1.w * 0.85) + row3.y * 0.5;
        vec3 c = row2.rgb + row0.rgb * (1.0 - row1.rgb) * (ambient + diffuse * row0.w);
        c8 = bytes(c + specular * spec_strength);
        float factor = row1.w != 0.0 ? 1.0 - row1.w * 0.18 : 1.0;
        c8 = bytes((c8 / 255.0) * factor);
    }
    if (abs(gamma - 1.0) >= 1e-9) c8 = bytes(pow(c8 / 255.0, vec3(1.0 / gamma)));
    for (int k = 0; k < 3; k++) {
        g_color = c8 / 255.0;
        // py_3d's pixel coordinates (y down) straight to NDC, y down too: the first row read
        // back is the top row.  w = 1: depth interpolates linearly in screen space.
        float z = 2.0 * (screen[k].z - planes.x) / (planes.y - planes.x) - 1.0;
        gl_Position = vec4(screen[k].x * 2.0 / size.x - 1.0, screen[k].y * 2.0 / size.y - 1.0,
                           z, 1.0);
        EmitVertex();
    }
    EndPrimitive();
}
"""

_FRAGMENT = """
#version 330
flat in vec3 g_color;
out vec4 color;
void main() { color = vec4(g_color, 1.0); }
"""


def available() -> str | None:
    """``None`` when ModernGL is importable, else why not."""
    try:
        import moderngl  # noqa: F401
    except ImportError as exc:
        return f"moderngl is not installed ({exc})"
    return None


class ResidentScenes:
    """A GL context holding the geometry of the scenes it drew (the last few, by identity)."""

    def __init__(self, context=None) -> None:
        import moderngl

        from ...backends.moderngl_backend import create_egl_context

        self._moderngl = moderngl
        self.ctx = context if context is not None else create_egl_context()
        self.program = self.ctx.program(
            vertex_shader=_VERTEX, geometry_shader=_GEOMETRY, fragment_shader=_FRAGMENT
        )
        self._resident: dict[int, tuple] = {}
        self._targets: dict[tuple[int, int], object] = {}
        #: ``uploads``: geometry uploads (one per new scene geometry), ``frames``: frames drawn.
        self.stats = {"uploads": 0, "frames": 0}

    def _upload(self, geo, table):
        entry = self._resident.get(id(geo))
        if entry is not None and entry[0]() is geo:
            return entry
        for old in list(self._resident.values()):  # keep one scene: release what went before
            for resource in old[1:]:
                resource.release()
        self._resident.clear()
        count = len(geo)
        data = np.empty((count, 3, 10), dtype="f4")
        data[:, :, 0:3] = geo.positions
        data[:, :, 3:6] = geo.normals[:, None]
        data[:, :, 6:9] = geo.centers[:, None]
        data[:, :, 9] = geo.material_index[:, None]
        with self.ctx:
            vbo = self.ctx.buffer(data.tobytes() if count else b"\0" * 40)
            vao = self.ctx.vertex_array(
                self.program,
                [(vbo, "3f 3f 3f 1f", "in_position", "in_normal", "in_center", "in_material")],
            )
            rows = np.zeros((max(1, len(table.color)), 5, 4), dtype="f4")
            rows[: len(table.color), 0, :3] = table.color
            rows[: len(table.color), 0, 3] = table.diffuse
            rows[: len(table.color), 1, :3] = table.absorption
            rows[: len(table.color), 1, 3] = table.roughness
            rows[: len(table.color), 2, :3] = table.emission
            rows[: len(table.color), 2, 3] = table.specular
            rows[: len(table.color), 3, 0] = table.shininess
            rows[: len(table.color), 3, 1] = table.reflectivity
            rows[: len(table.color), 3, 2] = table.fuzziness
            rows[: len(table.color), 4, :3] = table.color8
            materials = self.ctx.texture((5, rows.shape[0]), 4, rows.tobytes(), dtype="f4")
            materials.filter = (self._moderngl.NEAREST, self._moderngl.NEAREST)
        entry = (weakref.ref(geo), vao, vbo, materials)
        self._resident[id(geo)] = entry
        self.stats["uploads"] += 1
        return entry

    def render(self, geo, table, lights, camera, settings, fast: bool) -> np.ndarray:
        """The frame as uint8 ``(H, W, 3)``."""
        _, vao, _, materials = self._upload(geo, table)
        width, height = settings.width, settings.height
        with self.ctx:
            fbo = self._target(width, height)
            fbo.use()
            self.ctx.viewport = (0, 0, width, height)
            self.ctx.enable_only(self._moderngl.DEPTH_TEST)
            self.ctx.depth_func = "<"
            bg = settings.background.to_tuple()
            fbo.clear(bg[0] / 255, bg[1] / 255, bg[2] / 255, 1.0, depth=1.0)
            self._uniforms(lights, camera, settings, fast)
            materials.use(0)
            if len(geo):
                vao.render(self._moderngl.TRIANGLES, vertices=3 * len(geo))
            data = fbo.read(components=3, alignment=1)
        self.stats["frames"] += 1
        return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)

    def _target(self, width: int, height: int):
        if (width, height) not in self._targets:
            color = self.ctx.renderbuffer((width, height), components=4)
            depth = self.ctx.depth_renderbuffer((width, height))
            self._targets[width, height] = self.ctx.framebuffer([color], depth)
        return self._targets[width, height]

    def _uniforms(self, lights, camera, settings, fast: bool) -> None:
        p = self.program
        basis = camera.basis()
        for name, v in zip(("right", "up", "forward"), basis, strict=True):
            p[name].value = (v.x, v.y, v.z)
        p["eye"].value = camera.position.as_tuple()
        focal = 1.0 / tan(radians(camera.fov_degrees) / 2.0)
        w, h = settings.width, settings.height
        p["projection"].value = (focal / (w / h), focal, 0.5 * (w - 1), 0.5 * (h - 1))
        p["size"].value = (w, h)
        p["planes"].value = (camera.near, camera.far)
        distance = settings.max_render_distance
        p["max_distance"].value = -1.0 if distance is None else distance
        p["cull_backfaces"].value = int(settings.cull_backfaces)
        p["two_sided"].value = int(settings.two_sided_lighting)
        p["fast"].value = int(fast)
        p["ambient"].value = settings.ambient
        p["gamma"].value = settings.gamma
        p["light_wrap"].value = settings.light_wrap
        p["bounce_light"].value = settings.bounce_light
        p["materials"].value = 0
        rows = lights.lights[:MAX_LIGHTS]
        p["light_count"].value = len(rows)
        where, color, radius = [], [], []
        for row in rows:
            if row[0] == "sun":
                _, d, rgb, intensity = row
                where.append((*d, 0.0))
                radius.append(-1.0)
            else:
                _, position, rgb, intensity, r = row
                where.append((*position, 1.0))
                radius.append(-1.0 if r is None else float(r))
            color.append((*rgb, intensity))
        pad = MAX_LIGHTS - len(rows)
        p["light_where"].value = [tuple(map(float, x)) for x in where] + [(0.0,) * 4] * pad
        p["light_color"].value = [tuple(map(float, x)) for x in color] + [(0.0,) * 4] * pad
        p["light_radius"].value = radius + [0.0] * pad

    def close(self) -> None:
        with self.ctx:
            for entry in self._resident.values():
                for resource in entry[1:]:
                    resource.release()
            for fbo in self._targets.values():
                fbo.release()
        self._resident.clear()
        self._targets.clear()
        self.ctx.release()
