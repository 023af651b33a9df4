"""py_3d scenes resident on the GPU (ModernGL on headless EGL): world-space triangles are
uploaded once per cached object set; a frame sends only the camera, the lights and the
settings as uniforms, and the GPU does py_3d's projection, culls and per-face lighting.

A geometry shader runs py_3d's ``_draw_triangle`` preamble per face (near/far and distance
culls, facing, two-sided flip, ``_lighting_channels``, ``Material.shade``, roughness, gamma,
each with py_3d's truncating colour steps) in float32; vertices go straight to py_3d's pixel
coordinates with ``w = 1``, so depth (camera ``z``) and the ``noperspective`` barycentric
weights interpolate linearly in screen space as in py_3d.  The fragment shader does py_3d's
per-pixel branch for the faces py_3d shades per pixel: texture at the interpolated UV (all
textures packed in one atlas, sampled nearest, clamped), smooth normals lit per pixel,
fuzziness noise.  Lines and wireframes are not drawn here: :class:`~.renderer.
Py3DRasterRenderer` sends those scenes down the array path (:mod:`._frame`).
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
in vec2 in_uv;
in vec3 in_vertex_normal;
in vec2 in_flags;  // has UVs, has vertex normals (per face)
out vec3 v_position;
out vec3 v_normal;
out vec3 v_center;
out float v_material;
out vec2 v_uv;
out vec3 v_vertex_normal;
out vec2 v_flags;
void main() {
    v_position = in_position;
    v_normal = in_normal;
    v_center = in_center;
    v_material = in_material;
    v_uv = in_uv;
    v_vertex_normal = in_vertex_normal;
    v_flags = in_flags;
}
"""

# py_3d's _lighting_channels and Material.shade, shared by the geometry and fragment stages.
_LIGHTING = """
uniform vec3 eye;
uniform int fast, two_sided, smooth_shading;
uniform float ambient, gamma, light_wrap, bounce_light;
uniform int light_count;
uniform vec4 light_where[32];  // xyz: direction to a sun or a lamp's position; w: 0 sun, 1 lamp
uniform vec4 light_color[32];  // rgb 0..1, intensity
uniform float light_radius[32];  // < 0: none
uniform sampler2D materials;  // rows: (color, diffuse) (absorption, roughness)
    // (emission, specular) (shininess, reflectivity, fuzziness, texture) (color8) (texture region)
uniform sampler2D atlas;

vec3 bytes(vec3 c) { return floor(clamp(c, 0.0, 1.0) * 255.0); }

vec3 unit(vec3 v, vec3 fallback) {
    float l = length(v);
    return l == 0.0 ? fallback : v / l;
}

vec4 material(int m, int row) { return texelFetch(materials, ivec2(row, m), 0); }

void lighting(vec3 point, vec3 n, vec3 view, int m, out vec3 diffuse, out vec3 specular) {
    diffuse = vec3(0.0);
    specular = vec3(0.0);
    if (bounce_light > 0.0) {
        float sky = max(0.0, n.y) * bounce_light, ground = max(0.0, -n.y) * bounce_light;
        diffuse += vec3(0.22, 0.26, 0.34) * sky + vec3(0.32, 0.22, 0.14) * ground;
    }
    vec4 row3 = material(m, 3);
    bool spec_on = material(m, 2).w > 0.0 || row3.y > 0.0;
    for (int i = 0; i < light_count; i++) {
        vec3 d;
        float intensity = light_color[i].w;
        if (light_where[i].w == 0.0) {
            d = light_where[i].xyz;
        } else {
            vec3 offset = light_where[i].xyz - point;
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
}

vec3 shade(int m, vec3 base, vec3 diffuse, vec3 specular) {  // Material.shade, as bytes
    vec4 row0 = material(m, 0), row1 = material(m, 1), row2 = material(m, 2);
    float spec_strength = row2.w * (1.0 - row1.w * 0.85) + material(m, 3).y * 0.5;
    vec3 c = row2.rgb + base * (1.0 - row1.rgb) * (ambient + diffuse * row0.w);
    return bytes(c + specular * spec_strength);
}

vec3 finish(int m, vec3 c8, float factor) {  // surface attributes, then gamma
    float roughness = material(m, 1).w;
    if (roughness != 0.0) factor *= 1.0 - roughness * 0.18;
    c8 = bytes((c8 / 255.0) * factor);
    if (abs(gamma - 1.0) >= 1e-9) c8 = bytes(pow(c8 / 255.0, vec3(1.0 / gamma)));
    return c8;
}
"""

_GEOMETRY = (
    """
#version 330
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in vec3 v_position[];
in vec3 v_normal[];
in vec3 v_center[];
in float v_material[];
in vec2 v_uv[];
in vec3 v_vertex_normal[];
in vec2 v_flags[];
flat out vec3 g_color;  // the face's colour, when it is shaded flat
flat out int g_per_pixel, g_material, g_textured, g_smooth;
flat out vec3 g_normal, g_view, g_diffuse, g_specular;  // the face's, as lit
flat out vec3 g_p0, g_p1, g_p2, g_n0, g_n1, g_n2, g_depths;
flat out vec2 g_uv0, g_uv1, g_uv2;
noperspective out vec3 g_weights;  // py_3d's screen-space barycentric weights

uniform vec3 right, up, forward;
uniform vec4 projection;  // focal / aspect, focal, 0.5 * (W - 1), 0.5 * (H - 1)
uniform vec2 size;        // W, H
uniform vec2 planes;      // near, far
uniform float max_distance;  // < 0: none
uniform int cull_backfaces;
"""
    + _LIGHTING
    + """
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
    vec3 c8, diffuse = vec3(0.0), specular = vec3(0.0);
    int textured = 0, smoothed = 0, per_pixel = 0;
    if (fast == 1) {
        c8 = bytes(material(m, 4).rgb / 255.0);
        if (abs(gamma - 1.0) >= 1e-9) c8 = bytes(pow(c8 / 255.0, vec3(1.0 / gamma)));
    } else {
        lighting(center, n, view, m, diffuse, specular);
        c8 = finish(m, shade(m, material(m, 0).rgb, diffuse, specular), 1.0);
        textured = (v_flags[0].x > 0.5 && material(m, 3).w >= 0.0) ? 1 : 0;
        smoothed = (v_flags[0].y > 0.5 && smooth_shading == 1) ? 1 : 0;
        per_pixel = (textured == 1 || smoothed == 1 || material(m, 3).z != 0.0) ? 1 : 0;
    }
    for (int k = 0; k < 3; k++) {
        g_color = c8 / 255.0;
        g_per_pixel = per_pixel; g_material = m; g_textured = textured; g_smooth = smoothed;
        g_normal = n; g_view = view; g_diffuse = diffuse; g_specular = specular;
        g_p0 = v_position[0]; g_p1 = v_position[1]; g_p2 = v_position[2];
        g_n0 = v_vertex_normal[0]; g_n1 = v_vertex_normal[1]; g_n2 = v_vertex_normal[2];
        g_uv0 = v_uv[0]; g_uv1 = v_uv[1]; g_uv2 = v_uv[2];
        g_depths = vec3(screen[0].z, screen[1].z, screen[2].z);
        g_weights = vec3(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0);
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
)

_FRAGMENT = (
    """
#version 330
flat in vec3 g_color;
flat in int g_per_pixel, g_material, g_textured, g_smooth;
flat in vec3 g_normal, g_view, g_diffuse, g_specular;
flat in vec3 g_p0, g_p1, g_p2, g_n0, g_n1, g_n2, g_depths;
flat in vec2 g_uv0, g_uv1, g_uv2;
noperspective in vec3 g_weights;
out vec4 color;
"""
    + _LIGHTING
    + """
float surface_noise(int x, int y, float depth) {  // _surface_noise: the low 16 bits survive
    uint value = (uint(x) * 73856093u) ^ (uint(y) * 19349663u)
                 ^ (uint(int(depth * 1000.0)) * 83492791u);
    value = (value ^ (value >> 13u)) * 1274126177u;
    return float(value & 65535u) / 65535.0;
}

void main() {
    if (g_per_pixel == 0) {
        color = vec4(g_color, 1.0);
        return;
    }
    int m = g_material;
    vec3 w = g_weights;
    vec3 diffuse = g_diffuse, specular = g_specular;
    if (g_smooth == 1) {
        vec3 point = g_p0 * w.x + g_p1 * w.y + g_p2 * w.z;
        vec3 n = unit(g_n0 * w.x + g_n1 * w.y + g_n2 * w.z, g_normal);
        vec3 view = unit(eye - point, g_view);
        if (two_sided == 1 && dot(n, view) < 0.0) n = -n;
        lighting(point, n, view, m, diffuse, specular);
    }
    vec3 base = material(m, 0).rgb;
    if (g_textured == 1) {  // PixelBuffer.sample_nearest(u, v, wrap=False)
        vec4 region = material(m, 5);
        vec2 uv = clamp(g_uv0 * w.x + g_uv1 * w.y + g_uv2 * w.z, 0.0, 1.0);
        ivec2 texel = clamp(ivec2(uv * region.zw), ivec2(0), ivec2(region.zw) - 1);
        base = texelFetch(atlas, ivec2(region.xy) + texel, 0).rgb * 255.0;
        base = base / 255.0;
    }
    vec3 c8 = shade(m, base, diffuse, specular);
    float factor = 1.0;
    float fuzz = material(m, 3).z;
    if (fuzz != 0.0) {
        float depth = dot(w, g_depths);
        ivec2 pixel = ivec2(gl_FragCoord.xy);
        float noise = surface_noise(pixel.x, pixel.y, depth);
        float roughness = material(m, 1).w;
        factor = roughness != 0.0 ? 1.0 - roughness * 0.18 : 1.0;
        factor *= 1.0 + (noise - 0.5) * fuzz * 0.55;
        c8 = bytes((c8 / 255.0) * factor);
        if (abs(gamma - 1.0) >= 1e-9) c8 = bytes(pow(c8 / 255.0, vec3(1.0 / gamma)));
    } else {
        c8 = finish(m, c8, 1.0);
    }
    color = vec4(c8 / 255.0, 1.0);
}
"""
)


def _atlas(table) -> tuple[np.ndarray, np.ndarray]:
    """The scene's textures packed into one image: ``(regions (N, 4) x, y, w, h, pixels)``."""
    if not table.textures:
        return np.zeros((0, 4), dtype="f4"), np.zeros((1, 1, 3), dtype=np.uint8)
    from ...mesh import TextureAtlas

    atlas = TextureAtlas(table.textures)
    return atlas.regions.astype("f4"), atlas.pixels


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
        data = np.zeros((count, 3, 17), dtype="f4")
        data[:, :, 0:3] = geo.positions
        data[:, :, 3:6] = geo.normals[:, None]
        data[:, :, 6:9] = geo.centers[:, None]
        data[:, :, 9] = geo.material_index[:, None]
        data[:, :, 10:12] = geo.uvs
        data[:, :, 12:15] = geo.vertex_normals
        data[:, :, 15] = geo.has_uv[:, None]
        data[:, :, 16] = geo.has_vertex_normals[:, None]
        regions, atlas_pixels = _atlas(table)
        with self.ctx:
            vbo = self.ctx.buffer(data.tobytes() if count else b"\0" * 68)
            layout = "3f 3f 3f 1f 2f 3f 2f"
            names = ("in_position", "in_normal", "in_center", "in_material", "in_uv",
                     "in_vertex_normal", "in_flags")  # fmt: skip
            vao = self.ctx.vertex_array(self.program, [(vbo, layout, *names)])
            rows = np.zeros((max(1, len(table.color)), 6, 4), dtype="f4")
            m = len(table.color)
            rows[:m, 0, :3], rows[:m, 0, 3] = table.color, table.diffuse
            rows[:m, 1, :3], rows[:m, 1, 3] = table.absorption, table.roughness
            rows[:m, 2, :3], rows[:m, 2, 3] = table.emission, table.specular
            rows[:m, 3, 0], rows[:m, 3, 1] = table.shininess, table.reflectivity
            rows[:m, 3, 2], rows[:m, 3, 3] = table.fuzziness, table.texture
            rows[:m, 4, :3] = table.color8
            textured = table.texture >= 0
            rows[:m, 5][textured] = regions[table.texture[textured]]
            materials = self.ctx.texture((6, rows.shape[0]), 4, rows.tobytes(), dtype="f4")
            materials.filter = (self._moderngl.NEAREST, self._moderngl.NEAREST)
            h, w = atlas_pixels.shape[:2]
            atlas = self.ctx.texture((w, h), 3, atlas_pixels.tobytes(), alignment=1)
            atlas.filter = (self._moderngl.NEAREST, self._moderngl.NEAREST)
        entry = (weakref.ref(geo), vao, vbo, materials, atlas)
        self._resident[id(geo)] = entry
        self.stats["uploads"] += 1
        return entry

    def render(self, geo, table, lights, camera, settings, fast: bool) -> np.ndarray:
        """The frame as uint8 ``(H, W, 3)``."""
        _, vao, _, materials, atlas = self._upload(geo, table)
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
            atlas.use(1)
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
        p["atlas"].value = 1
        p["smooth_shading"].value = int(settings.smooth_shading)
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
