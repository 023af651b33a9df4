"""GLSL of the batch renderer: a small ray-cast 3D scene per environment.

Each environment is a camera, a checkered floor and up to K spheres. The colour
of any pixel is computed analytically (no rasterised geometry), so one fragment
can evaluate two neighbouring pixels and write their RGB bytes packed four to an
RGBA8 texel: the framebuffer then holds the (H, W, 3) image byte for byte and
is read back as plain RGBA, which on Mesa is a memcpy, while reading RGB makes
the driver convert every pixel.

Three passes share one ``shade`` function, so they agree to the bit:

* ``stack_*``: every pixel shaded in full (floor, sky and spheres);
* ``background_*``: the frame without spheres, copied from a storage buffer
  (filled once by the full pass with every sphere hidden, while the cameras and
  floors stay put);
* ``sphere_*``: one small quad per sphere around its projection, where the
  spheres are ray-cast over the cached background.

Per-environment record (std430, ``vec4`` rows, see ``record_rows``)::

    0 eye.xyz            1 forward.xyz (unit, towards the image centre)
    2 right.xyz * tan    3 up.xyz * tan (scaled by the half field of view)
    4 floor.rgb, checker cells per unit of length
    5 + 2k: sphere k centre.xyz, radius (0 hides it)
    6 + 2k: sphere k colour.rgb
"""

from __future__ import annotations

from hypergl.bodies.views import TILE_GLSL
from hypergl.shader_prelude import VERSION

HEADER_ROWS = 5
OBJECT_ROWS = 2
# Each environment's tile in its stack: the rows of hypergl.bodies.views.Tiling.clip at
# binding 1, applied by the tiling's own tiled().
TILES: str = "layout(std430, binding = 1) readonly buffer Tiles { vec4 tiles[]; };\n" + TILE_GLSL


def record_rows(max_objects: int) -> int:
    """vec4 rows of one environment's record."""
    return HEADER_ROWS + OBJECT_ROWS * max_objects


def load_record(max_objects: int) -> str:
    """Vertex-stage GLSL: ``load_record(env)`` fills the flat varyings ``rec``.

    The record is read from the storage buffer once per vertex and handed to
    the fragment shader as flat varyings (per-pixel storage-buffer reads with a
    per-fragment index are gathers, which Mesa llvmpipe runs lane by lane),
    together with what is constant over the tile: per sphere, eye - centre and
    |eye - centre|^2 - radius^2.
    """
    rows = record_rows(max_objects)
    return f"""
#define ROWS {rows}
layout(std430, binding = 0) readonly buffer EnvState {{ vec4 state[]; }};
flat out vec4 rec[ROWS];
void load_record(int env) {{
    int b = env * ROWS;
    for (int i = 0; i < {HEADER_ROWS}; ++i) rec[i] = state[b + i];
    vec3 eye = state[b].xyz;
    for (int i = {HEADER_ROWS}; i < ROWS; i += {OBJECT_ROWS}) {{
        vec4 s = state[b + i];
        vec3 oc = eye - s.xyz;
        // A hidden sphere (radius 0) must never be hit, even by a ray through its centre.
        rec[i] = vec4(oc, s.w > 0.0 ? dot(oc, oc) - s.w * s.w : 3.0e38);
        rec[i + 1] = vec4(state[b + i + 1].rgb, max(s.w, 1e-6));
    }}
}}
"""


def sphere_bounds(width: int, height: int, framebuffer_width: int) -> str:
    """Vertex-stage GLSL: ``ivec4 sphere_bounds(vec4 s)``, where sphere `s` can show.

    Returns (first texel column, first image row, end column, end row) of a
    rectangle bounding the projection of the sphere's bounding cube, one pixel
    wider on each side, widened to whole texels (packed: pixel p lies in texels
    3p/4 .. (3p+2)/4); empty for a hidden sphere (radius 0), the whole tile for
    one reaching behind the camera. Needs ``rec`` filled by load_record().
    """
    if framebuffer_width != width:
        texels = "int t0 = (3 * p0) / 4; int t1 = (3 * (p1 - 1) + 2) / 4 + 1;"
    else:
        texels = "int t0 = p0; int t1 = p1;"
    return f"""
ivec4 sphere_bounds(vec4 s) {{
    if (s.w <= 0.0) return ivec4(0);
    vec3 eye = rec[0].xyz, f = rec[1].xyz, r = rec[2].xyz, u = rec[3].xyz;
    vec2 lo = vec2(1e9), hi = vec2(-1e9);
    bool behind = false;
    for (int k = 0; k < 8; ++k) {{
        vec3 corner = s.xyz + s.w * (vec3(k & 1, (k >> 1) & 1, (k >> 2) & 1) * 2.0 - 1.0);
        vec3 d = corner - eye;
        float z = dot(d, f);
        if (z < 1e-3) behind = true;
        vec2 ndc = vec2(dot(d, r) / dot(r, r), dot(d, u) / dot(u, u)) / max(z, 1e-3);
        vec2 px = vec2((ndc.x + 1.0) * {width}.0, (1.0 - ndc.y) * {height}.0) * 0.5;
        lo = min(lo, px);
        hi = max(hi, px);
    }}
    if (behind) {{ lo = vec2(0.0); hi = vec2({width}.0, {height}.0); }}
    int p0 = clamp(int(floor(lo.x)) - 1, 0, {width});
    int p1 = clamp(int(ceil(hi.x)) + 1, 0, {width});
    int r0 = clamp(int(floor(lo.y)) - 1, 0, {height});
    int r1 = clamp(int(ceil(hi.y)) + 1, 0, {height});
    if (p1 <= p0 || r1 <= r0) return ivec4(0);
    {texels}
    return ivec4(t0, r0, t1, r1);
}}
"""


def stack_vertex(width: int, height: int, max_objects: int, framebuffer_width: int) -> str:
    """Vertex shader of the full pass: instance i is the tile of environment `env_base + i`.

    The quad covers the environment's tile (rows i*H..(i+1)*H of its stack, upside
    down: ``Tiling.stacks``). Each sphere's bounds go to the fragment shader, which
    ray-casts spheres only inside them (llvmpipe skips a branch that no lane of a
    block takes).
    """
    spheres = "\n".join(
        f"    bounds[{o}] = sphere_bounds(state[b + {HEADER_ROWS + OBJECT_ROWS * o}]);"
        for o in range(max_objects)
    )
    return f"""{VERSION}layout(location = 0) uniform int env_base;
{load_record(max_objects)}
{TILES}
{sphere_bounds(width, height, framebuffer_width)}
flat out ivec4 bounds[{max_objects}];
void main() {{
    int env = env_base + gl_InstanceID;
    load_record(env);
    int b = env * ROWS;
{spheres}
    float x = float(gl_VertexID & 1) * 2.0 - 1.0;
    float y = float((gl_VertexID >> 1) & 1) * 2.0 - 1.0;
    gl_Position = tiled(vec4(x, y, 0.0, 1.0), tiles[env]);
}}
"""


def scene_functions(width: int, height: int, max_objects: int) -> str:
    """Fragment-stage GLSL: the tile's record and the scene's colour functions.

    ``ray(pixel)`` for a pixel centre in image coordinates (x right, y down),
    ``background(rd, a)`` (floor or sky), ``sphere_hit(rd, a, colour)`` and
    ``shade(pixel)``. Mesa llvmpipe runs both sides of a branch under a mask, so
    the cost is the arithmetic of the whole shader: no normalize (hits are
    solved with the ray's squared length `a`), loops unrolled in Python
    (constant indices into the varying array are registers), per sphere only a
    dot product and a compare to pick the hit, then one square root. Spheres
    are ordered by their centres' distance along the ray: exact unless two of
    them intersect.
    """
    rows = record_rows(max_objects)
    hits = []
    for o in range(max_objects):
        row = HEADER_ROWS + OBJECT_ROWS * o
        hits.append(f"""
    s = rec[{row}];
    bb = dot(s.xyz, rd);
    if (bb * bb > a * s.w && bb < 0.0 && -bb < along) {{
        along = -bb;
        hit = s;
        paint = rec[{row + 1}];
    }}""")
    return f"""
#define IMG_W {width}
#define IMG_H {height}
#define ROWS {rows}
flat in vec4 rec[ROWS];  // this tile's record, from load_record() in the vertex shader

const vec3 LIGHT = vec3(0.3698, 0.8783, 0.3698);  // normalised (0.4, 0.95, 0.4)
const vec3 SKY_TOP = vec3(0.45, 0.62, 0.85);
const vec3 SKY_LOW = vec3(0.80, 0.86, 0.92);

vec3 ray(vec2 pixel) {{  // not normalised
    vec2 ndc = vec2(2.0 / float(IMG_W), -2.0 / float(IMG_H)) * pixel + vec2(-1.0, 1.0);
    return rec[1].xyz + ndc.x * rec[2].xyz + ndc.y * rec[3].xyz;
}}

vec3 background(vec3 rd, float a) {{
    vec3 eye = rec[0].xyz;
    if (rd.y < 0.0) {{
        vec2 p = eye.xz - (eye.y / rd.y) * rd.xz;
        vec2 cell = floor(p * rec[4].w);
        return rec[4].rgb * (fract((cell.x + cell.y) * 0.5) < 0.25 ? 0.9 : 0.72);
    }}
    return mix(SKY_LOW, SKY_TOP, min(rd.y * inversesqrt(a) * 2.0, 1.0));
}}

bool sphere_hit(vec3 rd, float a, out vec3 colour) {{
    float along = 1e30;
    float bb;
    vec4 s, hit, paint;{"".join(hits)}
    float t = (along - sqrt(max(along * along - a * hit.w, 0.0))) / a;
    vec3 normal = (hit.xyz + t * rd) / paint.w;
    colour = paint.rgb * (0.35 + 0.65 * max(dot(normal, LIGHT), 0.0));
    return along < 1e30;
}}

vec3 shade(vec2 pixel) {{
    vec3 rd = ray(pixel);
    float a = dot(rd, rd);
    vec3 colour;
    return sphere_hit(rd, a, colour) ? colour : background(rd, a);
}}

// shade() where `near` says whether a sphere may show: the same colour, less work.
vec3 shade_near(vec2 pixel, bool near) {{
    vec3 rd = ray(pixel);
    float a = dot(rd, rd);
    vec3 colour;
    if (near && sphere_hit(rd, a, colour)) return colour;
    return background(rd, a);
}}
"""


def stack_fragment(width: int, height: int, max_objects: int, packed: bool) -> str:
    """Fragment shader of the full pass over one vertical stack of tiles.

    GL row e*H + r holds image row r of environment e (top row first), so a
    bottom-up read of the stack is already (E, H, W, C). Packed: texel x holds
    bytes 4x..4x+3 of the image row's RGB bytes, i.e. two neighbouring pixels.
    """
    inside = " ||\n        ".join(
        f"all(greaterThanEqual(t, bounds[{o}].xy)) && all(lessThan(t, bounds[{o}].zw))"
        for o in range(max_objects)
    )
    head = f"""{VERSION}out vec4 frag;
flat in ivec4 bounds[{max_objects}];
bool near_sphere(int x, int row) {{
    ivec2 t = ivec2(x, row);
    return {inside};
}}
"""
    if packed:
        body = """
void main() {
    int x = int(gl_FragCoord.x);
    int y = int(gl_FragCoord.y);
    float row = float(y % IMG_H) + 0.5;
    bool near = near_sphere(x, y % IMG_H);
    int p = (4 * x) / 3;
    int c = 4 * x - 3 * p;
    vec3 a = shade_near(vec2(float(p) + 0.5, row), near);
    vec3 q = shade_near(vec2(float(p) + 1.5, row), near);
    if (c == 0) frag = vec4(a, q.r);
    else if (c == 1) frag = vec4(a.gb, q.rg);
    else frag = vec4(a.b, q);
}
"""
    else:
        body = """
void main() {
    int y = int(gl_FragCoord.y);
    bool near = near_sphere(int(gl_FragCoord.x), y % IMG_H);
    frag = vec4(shade_near(vec2(gl_FragCoord.x, float(y % IMG_H) + 0.5), near), 1.0);
}
"""
    return head + scene_functions(width, height, max_objects) + body


def _background_fetch(framebuffer_width: int) -> str:
    return """
layout(binding = 0) uniform sampler2D cached;  // this stack's background, texel for texel
vec4 cached_texel() {
    return texelFetch(cached, ivec2(gl_FragCoord.xy), 0);
}
"""


def background_fragment(framebuffer_width: int) -> str:
    """The cached background, texel for texel (unpack then store returns the same bytes)."""
    return (
        VERSION
        + "out vec4 frag;\n"
        + _background_fetch(framebuffer_width)
        + "void main() { frag = cached_texel(); }\n"
    )


def sphere_vertex(
    width: int, height: int, max_objects: int, framebuffer_width: int, incremental: bool
) -> str:
    """Instance i: a quad over the bounds of sphere i % K of tile i / K (see sphere_bounds).

    Incremental: the quad also covers the sphere's bounds in the previous frame
    (binding 2 holds the previous state), which repaints where it was: then the
    framebuffer, which keeps its pixels between frames, needs no background pass.
    """
    previous = ""
    if incremental:
        previous = """
    ivec4 was = sphere_bounds(previous[index]);
    if (was.z > was.x)
        box = box.z > box.x ? ivec4(min(box.xy, was.xy), max(box.zw, was.zw)) : was;"""
    return f"""{VERSION}layout(location = 0) uniform int env_base;
{load_record(max_objects)}
{TILES}
layout(std430, binding = 2) readonly buffer Previous {{ vec4 previous[]; }};
{sphere_bounds(width, height, framebuffer_width)}
void main() {{
    int tile = gl_InstanceID / {max_objects};
    int env = env_base + tile;
    load_record(env);
    int index = env * ROWS + {HEADER_ROWS} + {OBJECT_ROWS} * (gl_InstanceID % {max_objects});
    ivec4 box = sphere_bounds(state[index]);{previous}
    int corner_x = (gl_VertexID & 1) != 0 ? box.z : box.x;
    int corner_y = (gl_VertexID & 2) != 0 ? box.w : box.y;  // image rows, top down
    vec4 corner = vec4(2.0 * float(corner_x) / {framebuffer_width}.0 - 1.0,
                       1.0 - 2.0 * float(corner_y) / {height}.0, 0.0, 1.0);
    gl_Position = tiled(corner, tiles[env]);  // the tile's clip space, y up
}}
"""


def sphere_fragment(width: int, height: int, max_objects: int, framebuffer_width: int) -> str:
    """Spheres ray-cast over the cached background, bytes packed as in the full pass."""
    packed = framebuffer_width != width
    if packed:
        body = """
void main() {
    int x = int(gl_FragCoord.x);
    float row = float(int(gl_FragCoord.y) % IMG_H) + 0.5;
    int p = (4 * x) / 3;
    int c = 4 * x - 3 * p;
    vec4 texel = cached_texel();
    vec3 rd = ray(vec2(float(p) + 0.5, row));
    vec3 a;
    bool hit_a = sphere_hit(rd, dot(rd, rd), a);
    rd = ray(vec2(float(p) + 1.5, row));
    vec3 q;
    bool hit_q = sphere_hit(rd, dot(rd, rd), q);
    if (c == 0) {
        if (hit_a) texel.rgb = a;
        if (hit_q) texel.a = q.r;
    } else if (c == 1) {
        if (hit_a) texel.rg = a.gb;
        if (hit_q) texel.ba = q.rg;
    } else {
        if (hit_a) texel.r = a.b;
        if (hit_q) texel.gba = q;
    }
    frag = texel;
}
"""
    else:
        body = """
void main() {
    vec3 rd = ray(vec2(gl_FragCoord.x, float(int(gl_FragCoord.y) % IMG_H) + 0.5));
    vec3 colour;
    frag = sphere_hit(rd, dot(rd, rd), colour) ? vec4(colour, 1.0) : cached_texel();
}
"""
    return (
        VERSION
        + "out vec4 frag;\n"
        + _background_fetch(framebuffer_width)
        + scene_functions(width, height, max_objects)
        + body
    )
