"""GLSL of the body renderer: the expand/cull compute pass, the vertex and fragment stages.

``{...}`` fields are filled by :class:`~hypergl.bodies.BodyRenderer`: bindings, ``{defines}``
(``MULTI_VIEW``, ``OUTPUT_COLOR``, ``OUTPUT_DEPTH``, ``OUTPUT_ID``: 0 or 1, so one text
serves every variant and none does work for an output it lacks: no colour, no shading;
``RAY_KIND``: 0 in the mesh pipeline, else the ray-cast mode its pipeline draws, see
``RAYCAST``) and ``{bodies}``, the record source's GLSL, which declares the records and
defines ``uint body_count()``, ``vec3 body_position(uint)``, ``vec4 body_rotation(uint)``
and ``uint body_id(uint)``.

With ``MULTI_VIEW`` each view (a ``View`` in a storage buffer) has its own camera, its own
range of record rows and its own tile of the framebuffer: the expansion runs once per
(row of the range, view), an instance carries its view in the part index's top bits
(``VIEW_SHIFT``), and the vertex stage maps the view's clip space into its tile and clips
what falls outside it with ``gl_ClipDistance[0..3]`` (its pipelines have
``clip_distances=4``): the rasterizer never visits another view's tile, no fragment is
discarded for it, and early depth testing stays on.

One std430 ``Part`` per drawn piece of a body::

    struct Part {
        vec4 offset_mode;  // xyz: offset from the centre of mass (body frame); w: mode
        vec4 rotation;     // quaternion of the part in the body frame
        vec4 scale_mesh;   // xyz: scale (capsule: radius, half height, radius; soft: first
                           // vertex in x, y 1 where smooth); w: mesh index
        vec4 color;        // rgb (times the part's shade), a: alpha
        vec4 material;     // specular, shininess (0..1), emission, reflectance
        vec4 texture;      // x: texture of the atlas (-1: none), y: its mapping
        vec4 uv_map;       // the mapping's numbers (see shading.TEXTURE_*)
    };

The fragment stage shades with the lights and textures of ``SHADING`` (see
:mod:`hypergl.bodies.shading`): the lights of the view's group (``View.range.w``, 0 with one
view) and the texture atlas at texture unit ``{atlas_unit}``.
"""

from ..shader_prelude import VERSION
from .soft_vertices import SOFT_VERTEX_GLSL
from .views import TILE_GLSL

# The tiling's vertex-stage half (views.py), braces doubled for the templates below.
TILE = TILE_GLSL.replace("{", "{{").replace("}", "}}")
VIEW_SHIFT = 20  # multi-view instances: part index in bits 0..19, view above

COMMON = (
    """
#define VIEW_SHIFT 20u
struct Part {{ vec4 offset_mode; vec4 rotation; vec4 scale_mesh; vec4 color; vec4 material;
               vec4 texture; vec4 uv_map; }};
layout(std430, binding = {parts}) readonly buffer BodyParts {{ Part parts[]; }};
struct ExtraBody {{ vec3 position; uint id; vec4 rotation; }};
// The small read-only tables in one buffer of sections: GL 4.3 promises a compute shader 8
// storage blocks only (Mesa 20.3 gives no more). mesh_info: x radius at unit scale, y coarse
// mesh or -1, z room in its instance list; looks: per id, (first part, part count,
// sort radius, 0).
layout(std430, binding = {tables}) readonly buffer BodyTables {{
    vec4 mesh_info[{max_meshes}];
    uint extra_count; uint extra_pad0; uint extra_pad1; uint extra_pad2;
    ExtraBody extras[{max_extras}];
    uvec4 looks[];  // x first part, y part count, z a sort radius's bits
}};
// eye: the camera's centre, homogeneous (w 0: an orthographic camera's backward direction)
{camera_block}#if MULTI_VIEW
// tile: xy scale and zw offset of the view's clip space into the framebuffer's; range: its
// first record row, its row count, and 1 (0: no view here).
// depth: the row giving a point's depth output (metres along the view axis; views.py)
struct View {{ mat4 view_proj; vec4 tile; uvec4 range; vec4 eye; vec4 depth; }};
layout(std430, binding = {views}) readonly buffer BodyViews {{ View views[]; }};
mat4 view_matrix(uint view) {{ return views[view].view_proj; }}
vec4 view_eye(uint view) {{ return views[view].eye; }}
float view_distance(uint view, vec4 p) {{ return dot(views[view].depth, p); }}
"""
    + TILE
    + """#else
mat4 view_matrix(uint view) {{ return view_proj; }}
vec4 view_eye(uint view) {{ return eye; }}
float view_distance(uint view, vec4 p) {{ return (view_proj * p).w; }}  // perspective
#endif
vec3 rotate(vec4 q, vec3 v) {{ return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }}
vec4 qmul(vec4 a, vec4 b) {{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}}
"""
)

# The shading buffer: the atlas's rectangles and every group's light poses.
SHADING_BUFFER = """
// shadow_tile: xy scale, zw offset of the light's view into its shadow map's tile;
// shadow: the light's view-projection (see BodyRenderer.set_shadow_map).
struct LightPose {{ vec4 position; vec4 direction; vec4 shadow_tile; mat4 shadow; }};
layout(std430, binding = {shading}) readonly buffer BodyShading {{
    uvec4 texture_rects[{max_textures}];  // each image: its column's x, y; width, height
    LightPose light_poses[];              // LIGHTS per group
}};
"""

# The lights' poses per view, from the vertex stage (flat: a view's group for every
# fragment), read from the shading buffer's group of the view.
LIGHT_POSES = """
flat {direction} vec4 v_light_position[LIGHTS];
flat {direction} vec4 v_light_direction[LIGHTS];
#if SHADOW_MAPS
flat {direction} mat4 v_shadow[SHADOW_MAPS];
flat {direction} vec4 v_shadow_tile[SHADOW_MAPS];
#endif
"""

# One invocation per body row (source 0) or extra row (source 1: characters, wheels): each
# part that survives the frustum test is appended to its mesh's instance list, and the
# mesh's indirect command counts it. Far spheres and capsules take their coarse mesh.
#
# With occlusion culling the pass runs twice a frame (``phase``). Phase 1 lists, in the first
# command set, the parts that were visible at the end of the last frame; they are drawn and
# the depth tiles are made from what is then on screen (the tiles pass below). Phase 2 tests
# every part against those tiles: a part behind them is hidden by what is drawn already, so
# culling it cannot change the picture; the others that phase 1 left out go to the second
# command set. Either way phase 2 records the part's visibility for the next frame.
EXPAND = (
    VERSION
    + """{defines}
layout(local_size_x = 64) in;
{bodies}"""
    + COMMON
    + """
layout(std430, binding = {commands}) buffer BodyCommands {{ uint commands[]; }};
layout(std430, binding = {instances}) writeonly buffer BodyInstances {{
    uvec2 instances[];
}};
// Occlusion culling draws one view only: a multi-view pass declares neither of its buffers
// (its views take their place within the 8 storage blocks).
#define OCCLUSION (MULTI_VIEW == 0)
#if OCCLUSION
layout(std430, binding = {visibility}) buffer BodyVisibility {{ uint visible[]; }};
layout(std430, binding = {tiles}) readonly buffer BodyDepthTiles {{ float tiles[]; }};
#endif
layout(location = 0) uniform int source;
layout(location = 1) uniform int phase;  // 0: no occlusion culling; 1, 2: see above
layout(location = 2) uniform int width;  // of the framebuffer whose depth phase 2 reads
layout(location = 3) uniform int height;
// >= 0: the rows whose id has this rank in their view alone; -2: the sort keys alone
layout(location = 4) uniform int rank;
// The dispatch's invocations, one line of them: rows: `per_view` a view, for `view_total`
// views (one row and view each); extras: every (extra, view) pair, in turn. A work group
// per view cost llvmpipe 4 us each, most of them idle (0.5 ms of 64 views of 9 rows).
layout(location = 5) uniform int per_view;
layout(location = 6) uniform int view_total;
// a transparent pass's ids with a look: first_id .. end_id - 1 (a rank counts those alone)
layout(location = 7) uniform int first_id;
layout(location = 8) uniform int end_id;

#if OCCLUSION
// True when the sphere is certainly behind the depth tiles. The eight corners of its
// bounding cube bound its projection (a ratio of linear functions peaks at a corner) and
// its nearest depth (depth grows with clip w, which is linear).
bool hidden(vec3 centre, float radius) {{
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    float near = 1e30;
    for (int i = 0; i < 8; ++i) {{
        vec3 corner = centre + radius * vec3((i & 1) != 0 ? 1.0 : -1.0,
                                             (i & 2) != 0 ? 1.0 : -1.0,
                                             (i & 4) != 0 ? 1.0 : -1.0);
        vec4 clip = view_proj * vec4(corner, 1.0);
        if (clip.w < 1e-5) return false;  // reaches behind the eye: drawn
        vec3 ndc = clip.xyz / clip.w;
        lo = min(lo, ndc.xy);
        hi = max(hi, ndc.xy);
        near = min(near, ndc.z);
    }}
    vec2 size = vec2(width, height);
    // Pixels whose centres the projection may cover, clamped to the screen.
    ivec2 p0 = ivec2(max(floor((lo * 0.5 + 0.5) * size), vec2(0.0)));
    ivec2 p1 = ivec2(min(floor((hi * 0.5 + 0.5) * size), size - 1.0));
    if (p1.x < p0.x || p1.y < p0.y) return true;  // off screen
    float depth = near * 0.5 + 0.5;
    ivec2 grid = (ivec2(width, height) + 3) / 4;  // 4 x 4 pixel tiles, then 16 x 16
    int first = 0;
    ivec2 t0 = p0 / 4, t1 = p1 / 4;
    if (max(t1.x - t0.x, t1.y - t0.y) >= 8) {{
        first = grid.x * grid.y;
        grid = (grid + 3) / 4;
        t0 = p0 / 16;
        t1 = p1 / 16;
        if (max(t1.x - t0.x, t1.y - t0.y) >= 8) return false;  // large on screen: drawn
    }}
    float far = 0.0;
    for (int y = t0.y; y <= t1.y; ++y)
        for (int x = t0.x; x <= t1.x; ++x) far = max(far, tiles[first + y * grid.x + x]);
    return depth > far + 1e-6;  // 1e-6: beyond a 24-bit depth buffer's rounding
}}
#endif

// A transparent pass's sort key of a row in a view: mjr_render's camdist, the distance of
// its centre from the eye less its id's sort radius (looks[id].z); none (1e30): no look.
float sort_key(uint row, uint view) {{
    uint id = body_id(row);
    if (id >= uint(looks.length()) || looks[id].y == 0u) return 1e30;
    vec4 eye = view_eye(view);
    vec3 p = body_position(row);
    // an orthographic eye (w 0) lies far along its direction: nearer is farther along it
    float d = eye.w != 0.0 ? distance(p, eye.xyz / eye.w) : -dot(p, eye.xyz);
    return d - uintBitsToFloat(looks[id].z);
}}

// A transparent pass's sort keys, each view's per id after the commands (the commands'
// buffer holds them: the pass is at its 8 storage blocks): the least key of the id's rows in
// the view (rows of one id are drawn in one rank: a rangefinder ray's pieces), as uints
// of the same order (sign flipped, a negative's bits inverted), 0xffffffff: no row.
#define SORT_KEYS (10u * {max_meshes}u)
#define KEYS_A_VIEW ({keys_a_view}u)  // max_ids, rounded up to whole commands
uint ordered(float key) {{
    uint bits = floatBitsToUint(key);
    return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}}

// The rank of the row's id in its view: of the ids with a row there, those of a lesser
// key (ties by id), as mjr_render sorts its geoms (an id each), in O(ids).
uint sort_rank(uint id, uint view) {{
    uint first = SORT_KEYS + view * KEYS_A_VIEW;
    uint key = commands[first + id], place = 0u;
    for (uint other = uint(first_id); other < uint(end_id); ++other) {{
        uint k = commands[first + other];
        if (k < key || (k == key && other < id)) place += 1u;
    }}
    return place;
}}

// The parts of one row (of `source`) in one view, appended to their meshes' lists.
void list_parts(uint row, uint view, vec3 position, vec4 rotation, uint id) {{
    if (id >= uint(looks.length())) return;
    uvec2 look = looks[id].xy;
    mat4 vp = view_matrix(view);
    mat4 m = transpose(vp);
    vec4 planes[6] = vec4[6](m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1],
                             m[3] + m[2], m[3] - m[2]);
    float ndc_per_unit = length(vec3(vp[0][1], vp[1][1], vp[2][1]));
    for (uint k = 0u; k < look.y; ++k) {{
        uint p = look.x + k;
        uint mesh = uint(parts[p].scale_mesh.w + 0.5);
        vec4 info = mesh_info[mesh];  // x: radius at unit scale, y: coarse mesh or -1, z: room
        uint set = 0u;  // the first command set, or the second (phase 2)
        if (int(parts[p].offset_mode.w + 0.5) != 2) {{  // soft bodies: never culled
            vec3 centre = position + rotate(rotation, parts[p].offset_mode.xyz);
            vec3 s = abs(parts[p].scale_mesh.xyz);
#ifdef BODY_SCALE
            if (source == 0) s *= body_scale(row);  // a source whose rows scale their parts
#endif
            float radius = info.x * max(s.x, max(s.y, s.z));
            bool inside = true;
            for (int i = 0; i < 6; ++i) {{
                if (dot(planes[i].xyz, centre) + planes[i].w < -radius * length(planes[i].xyz))
                    inside = false;
            }}
#if OCCLUSION
            if (phase == 1 && (!inside || visible[p] == 0u)) continue;
            if (phase == 2) {{
                bool drawn = visible[p] != 0u;  // by phase 1
                bool shown = inside && !hidden(centre, radius);
                visible[p] = shown ? 1u : 0u;
                if (drawn || !shown) continue;
                set = 1u;
            }}
#endif
            if (!inside) continue;
            float w = dot(m[3], vec4(centre, 1.0));
            if (info.y >= 0.0 && radius * ndc_per_unit < lod.x * max(w, 1e-4))
                mesh = uint(info.y + 0.5);
        }} else if (phase == 2) {{
            continue;  // drawn by phase 1
        }}
        uint command = 5u * (mesh + set * {max_meshes}u);
        // A ray-cast proxy's list (mesh_info w 1) is drawn as one instance of 6 indices a
        // part (vertex pulling, see the vertex stage): its command counts the indices.
        bool pulled = mesh_info[mesh].w > 0.5;
        uint counter = pulled ? command : command + 1u, step = pulled ? 6u : 1u;
        uint slot = atomicAdd(commands[counter], step) / step;
        // Beyond the mesh's list (more rows share an id in a view than `copies` allow): take
        // the count back and drop the part rather than write over the next mesh's list. The
        // count never falls below the list's size again, so the slots below it stay unique.
        if (slot >= uint(mesh_info[mesh].z + 0.5)) {{
            atomicAdd(commands[counter], 0u - step);
            continue;
        }}
        instances[commands[command + 4u] + slot] = uvec2(row | (uint(source) << 31),
                                                          p | (view << VIEW_SHIFT));
    }}
}}

// Whether `view` draws: one of those dispatched and set (fewer may be set than recorded).
bool live_view(uint view) {{
#if MULTI_VIEW
    return view < uint(view_total) && views[view].range.z != 0u;
#else
    return view == 0u;
#endif
}}

void main() {{
    // (a line longer than a dispatch's 65535 groups wraps into y)
    uint line = gl_NumWorkGroups.x * 64u;
    uint index = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * line;
    if (source == 0) {{  // an invocation per row of the view's range
        uint view = index / uint(per_view), row = index % uint(per_view);
        if (!live_view(view)) return;
#if MULTI_VIEW
        if (row >= views[view].range.y) return;
        row += views[view].range.x;
#endif
        if (row >= body_count()) return;
        if (rank != -1) {{  // a transparent pass's (a row without a look: no key, no rank)
            float key = sort_key(row, view);
            if (key == 1e30) return;
            uint id = body_id(row);
            if (rank == -2) {{
                atomicMin(commands[SORT_KEYS + view * KEYS_A_VIEW + id], ordered(key));
                return;
            }}
            if (sort_rank(id, view) != uint(rank)) return;
        }}
        list_parts(row, view, body_position(row), body_rotation(row), body_id(row));
    }} else if (rank != -2) {{
        // The extras written, of every view, shared out over the invocations: a dispatch
        // sized for max_extras a view cost llvmpipe 5 ms of empty groups at 256 views.
        uint step = line * gl_NumWorkGroups.y;  // every invocation of the dispatch
        for (uint pair = index; pair < extra_count * uint(view_total); pair += step) {{
            uint view = pair / extra_count, row = pair % extra_count;
            if (live_view(view))
                list_parts(row, view, extras[row].position, extras[row].rotation,
                           extras[row].id);
        }}
    }}
}}
"""
)

# One invocation per 4 x 4 pixel tile of the depth attachment, one work group per 16 x 16:
# the farthest depth of each tile at both sizes (phase 2 of the expansion reads them).
DEPTH_TILES = (
    VERSION
    + """layout(local_size_x = 4, local_size_y = 4) in;
layout(binding = {depth_unit}) uniform sampler2D depth_attachment;
layout(std430, binding = {tiles}) writeonly buffer BodyDepthTiles {{ float tiles[]; }};
shared float group_far[16];

void main() {{
    ivec2 size = textureSize(depth_attachment, 0);
    ivec2 grid = (size + 3) / 4;
    ivec2 tile = ivec2(gl_GlobalInvocationID.xy);
    float far = 0.0;
    if (tile.x < grid.x && tile.y < grid.y) {{
        // textureGather: the 2 x 2 texels around a corner in one lookup (clamped at edges)
        for (int y = 0; y < 4; y += 2)
            for (int x = 0; x < 4; x += 2) {{
                vec2 corner = vec2(tile * 4 + ivec2(x, y) + 1);
                vec4 d = textureGather(depth_attachment, corner / vec2(size));
                far = max(far, max(max(d.x, d.y), max(d.z, d.w)));
            }}
        tiles[tile.y * grid.x + tile.x] = far;
    }}
    group_far[gl_LocalInvocationIndex] = far;
    barrier();
    if (gl_LocalInvocationIndex == 0u) {{
        for (int i = 1; i < 16; ++i) far = max(far, group_far[i]);
        ivec2 coarse = (grid + 3) / 4;
        ivec2 group = ivec2(gl_WorkGroupID.xy);
        if (group.x < coarse.x && group.y < coarse.y)
            tiles[grid.x * grid.y + group.y * coarse.x + group.x] = far;
    }}
}}
"""
)

# v_info.x of a smooth soft part (Part.smooth): MODE_SOFT (2) is a flat one's
SOFT_SMOOTH = "\n#define MODE_SOFT_SMOOTH 7\n"

VERTEX = (
    VERSION
    + """{defines}
{bodies}"""
    + SOFT_SMOOTH
    + COMMON
    + SHADING_BUFFER
    + LIGHT_POSES.replace("{direction}", "out")
    + """
// LIT_GRID 3 (every part a plane of 2 x 2 cells, shading.lighting_way): lit here, per
// vertex of its quadrants' quad, as fixed-function OpenGL lights MuJoCo's plane, the colours
// interpolated (Gouraud). v_lit[0]: every light, those casting shadows as if shadowed;
// v_lit[1 + k]: what shadow map k's light adds where it is not (the fragment stage looks up
// the shadows and adds those: each such light is a pass of its own, clamped alone).
#define VERTEX_LIT (RAY_KIND == 6 && LIT_GRID == 3 && OUTPUT_COLOR && SHADE)
#if VERTEX_LIT
out vec3 v_lit[1 + SHADOW_MAPS];
#if SHADOW_MAPS
// each directional shadow light's shadow_point (SHADOW_POINTS): affine over the plane
out vec4 v_shadow_point[SHADOW_MAPS];
#endif
VERTEX_LIGHTING
#endif
#if RAY_KIND && RAY_KIND != 6
// A ray-cast part's proxy quad, pulled from its mesh's instance list without instancing
// (llvmpipe shades each instance's 4 vertices in a batch of 8 lanes and pays per instance:
// 1 us a capsule of 64 cheetah worlds): vertex 4 k + c (gl_VertexID, the draw's base vertex
// 4 x the list's first) is corner c of the list's instance k. (A proxy is never soft: no
// soft vertices here, which keeps the stage within 8 storage blocks.) A plane keeps its mesh
// (meshes.plane_quads: the quad or, lit here, the 2 x 2 cells) and its vertex arrays.
layout(std430, binding = {instances}) readonly buffer BodyInstances {{ uvec2 pulled[]; }};
const vec3 PROXY_CORNERS[4] = vec3[4]({proxy_corners});
#define a_position PROXY_CORNERS[gl_VertexID & 3]
#define a_instance pulled[uint(gl_VertexID) >> 2]
const vec3 a_normal = vec3({proxy_normal});
#else
SOFT_VERTEX_STRUCT
layout(std430, binding = {soft}) readonly buffer BodySoftVertices {{ SoftVertex soft_vertices[]; }};
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec2 a_instance;  // (row | source << 31, part)
#endif
// Few interpolants: llvmpipe sets up a plane per interpolant per triangle and interpolates
// each per pixel. v_surface is the normal, or a soft body's world position (its normal comes
// from the derivatives); v_color is flat: rgb times the part's shade, and a: the mode.
out vec3 v_surface;
out vec3 v_world;  // the point in world space (a ray-cast part's: its proxy's)
#if RAY_KIND == 0 || RAY_KIND == 6
out vec3 v_object;  // the point in unit-shape coordinates (the part's frame / its scale)
#endif
flat out vec4 v_color;     // rgb, alpha
flat out vec4 v_material;  // specular, shininess, emission, reflectance
flat out vec4 v_uv_map;
flat out ivec4 v_info;     // mode, texture (-1: none), mapping, light group
flat out uvec4 v_texture_rect;  // the texture's (a cube's first face's) rectangle
flat out vec4 v_view_eye;  // the view's eye, homogeneous (world)
flat out vec3 v_forward;   // the view's direction (the headlight's)
#if OUTPUT_DEPTH
out float v_depth;  // the distance along the view axis (view_distance: clip w, perspective)
#endif
#if OUTPUT_ID
flat out float v_id;  // the record's id (exact as a float below 2^24)
#endif
#if RAY_KIND
// A ray-cast part (a pipeline per kind: RAY_KIND, the mode it draws): the fragment stage
// intersects the ray through the proxy's point with the exact surface, in the part's frame
// (metres, unscaled).
out vec3 v_local;        // the proxy's point
out vec2 v_clip_zw;      // its clip z, w (affine in the point: the hit's are found from it)
flat out vec4 v_eye;     // the eye in the part's frame, homogeneous
flat out vec2 v_eye_zw;  // the eye's clip z, w
flat out vec3 v_size;    // the part's scale
#if OUTPUT_DEPTH
flat out float v_eye_depth;  // view_distance of the eye (homogeneous): the hit's from it
#endif
flat out vec4 v_rotation;  // the part's frame: its normals to world space
#if RAY_KIND == 6
flat out float v_lit_grid;  // Material.lit_grid: its lighting per vertex of that grid
#endif

// The proxy's corner a_position.xz (of a unit quad) on the screen quad that bounds the part
// in its view: the projection of its bounding box clipped at the
// near plane (the clipped box's corners: the box's corners in front of it and its edges'
// crossings), within the view, so no fragment falls on another view's tile. Its point at
// depth 0 of normalized device coordinates (in front of the eye, clear of clipping), in
// world space; x, -z keep the quad's winding.
vec3 ray_proxy(uint view, vec3 centre, vec4 q, vec3 s) {{
    mat4 vp = view_matrix(view);
    vec3 extent = RAY_KIND == 4 ? vec3(s.x, s.y + s.x, s.x) : s;
    // u, n: the screen directions the rectangle's sides follow. A capsule's or cylinder's
    // along its axis on screen: a long one seen aslant gets a thin parallelogram, not its
    // wide upright bounding rectangle (its fragments are the cost).
    vec2 u = vec2(1.0, 0.0);
#if RAY_KIND == 4 || RAY_KIND == 5
    vec3 axis = rotate(q, vec3(0.0, extent.y, 0.0));
    vec4 top = vp * vec4(centre + axis, 1.0), bottom = vp * vec4(centre - axis, 1.0);
    vec2 along = top.xy / top.w - bottom.xy / bottom.w;
    if (top.w > 0.0 && bottom.w > 0.0 && dot(along, along) > 1e-12) u = normalize(along);
#endif
    vec2 n = vec2(-u.y, u.x);
    vec4 c[8];
    vec2 low = vec2(1e30), high = vec2(-1e30);  // upright: in x, y
    vec2 side_low = vec2(1e30), side_high = vec2(-1e30);  // along u, n
    bool cut = false;  // by the near plane
    for (int i = 0; i < 8; ++i) {{
        vec3 corner = extent * vec3((i & 1) != 0 ? 1.0 : -1.0, (i & 2) != 0 ? 1.0 : -1.0,
                                    (i & 4) != 0 ? 1.0 : -1.0);
        c[i] = vp * vec4(centre + rotate(q, corner), 1.0);
        if (c[i].z >= -c[i].w) {{
            vec2 at = c[i].xy / c[i].w;
            low = min(low, at);
            high = max(high, at);
            side_low = min(side_low, vec2(dot(at, u), dot(at, n)));
            side_high = max(side_high, vec2(dot(at, u), dot(at, n)));
        }} else {{
            cut = true;
        }}
    }}
    for (int i = 0; i < 8; ++i)
        for (int bit = 1; bit < 8; bit <<= 1) {{
            if ((i & bit) != 0) continue;  // each edge once: from its corner without `bit`
            float a = c[i].z + c[i].w, b = c[i | bit].z + c[i | bit].w;  // >= 0: in front
            if ((a < 0.0) == (b < 0.0)) continue;
            vec4 cross_near = mix(c[i], c[i | bit], a / (a - b));  // w: the near distance
            low = min(low, cross_near.xy / cross_near.w);
            high = max(high, cross_near.xy / cross_near.w);
        }}
    vec2 k = vec2(a_position.x, -a_position.z) * 0.5 + 0.5;  // which corner
    vec2 side = mix(side_low, side_high, k);
    vec2 ndc = side.x * u + side.y * n;
    // The parallelogram where it lies in the view, uncut; else the upright rectangle,
    // clamped to the view (none: empty).
    vec2 lu = side_low.x * u, hu = side_high.x * u, ln = side_low.y * n, hn = side_high.y * n;
    vec2 reach = max(max(abs(lu + ln), abs(lu + hn)), max(abs(hu + ln), abs(hu + hn)));
    if (cut || max(reach.x, reach.y) > 1.0) {{
        vec2 lo = clamp(low, -1.0, 1.0), hi = clamp(high, lo, vec2(1.0));
        ndc = mix(lo, hi, k);
    }}
    vec4 over = inverse(vp) * vec4(ndc, 0.0, 1.0);
    return over.xyz / over.w;
}}
#endif

void main() {{
    uint row = a_instance.x & 0x7fffffffu;
    vec3 position;
    vec4 rotation;
    uint id;
    if ((a_instance.x >> 31) == 0u) {{
        position = body_position(row);
        rotation = body_rotation(row);
        id = body_id(row);
    }} else {{
        position = extras[row].position;
        rotation = extras[row].rotation;
        id = extras[row].id;
    }}
#if MULTI_VIEW
    uint view = a_instance.y >> VIEW_SHIFT;
    Part part = parts[a_instance.y & ((1u << VIEW_SHIFT) - 1u)];
#else
    uint view = 0u;
    Part part = parts[a_instance.y];
#endif
#ifdef BODY_LOOK
    // the row's own colour, material and texture over its look's (one world's geom)
    if ((a_instance.x >> 31) == 0u)
        body_look(row, part.color, part.material, part.texture, part.uv_map);
#endif
    int mode = int(part.offset_mode.w + 0.5);
    vec3 world;
    vec3 normal = a_normal;
    vec3 s = part.scale_mesh.xyz;
#ifdef BODY_SCALE
    if ((a_instance.x >> 31) == 0u) s *= body_scale(row);
#endif
    vec3 local = vec3(0.0), centre = vec3(0.0);
    vec4 q = vec4(0.0, 0.0, 0.0, 1.0);
#if RAY_KIND == 0
    if (mode == 2) {{  // soft body: the vertex, in world space, from the soft-vertex buffer
        uint soft_first = uint(part.scale_mesh.x + 0.5);
#ifdef BODY_SOFT_FIRST
        if ((a_instance.x >> 31) == 0u) soft_first += body_soft_first(row);  // the row's own
#endif
        SoftVertex soft = soft_vertices[soft_first + uint(a_position.x + 0.5)];
        world = soft.position;
        if (part.scale_mesh.y > 0.5) {{  // smooth: shaded with the vertex's own normal
            normal = soft_normal(soft.normal);
            mode = MODE_SOFT_SMOOTH;
        }}
    }} else
#endif
    {{
#if RAY_KIND == 0
        if (mode == 1) {{  // capsule: hemispheres to +-half height, the rest by the radius
            float side = a_position.y >= 0.0 ? 1.0 : -1.0;
            local = vec3(a_position.x * s.x, (a_position.y - side) * s.x + side * s.y,
                         a_position.z * s.x);
        }} else {{
            local = a_position * s;
            normal = a_normal / s;
        }}
#endif
        q = qmul(rotation, part.rotation);
        centre = position + rotate(rotation, part.offset_mode.xyz);
#if RAY_KIND == 6
        // A plane is its own quad, clipped by the rasterizer: depth interpolated on a flat
        // surface is exact, so it needs no ray and no gl_FragDepth (early depth testing
        // stays on) and is lit once per vertex (its ground fill cost 14% less on llvmpipe).
        world = centre + rotate(q, a_position * vec3(s.x, 0.0, s.z));
#elif RAY_KIND
        world = ray_proxy(view, centre, q, s);
        local = rotate(vec4(-q.xyz, q.w), world - centre);  // the proxy's point, part frame
#else
        world = centre + rotate(q, local);
#endif
        normal = rotate(q, normal);
    }}
    v_surface = normal;  // (a flat soft body's: its face's, from v_world's derivatives)
    v_world = world;
    // a mirrored part (a plane's back: a negative scale) in its unmirrored frame, so that
    // its texture lies as its front's (MuJoCo draws a plane's back with the front's)
    vec3 unmirror = step(0.0, s) * 2.0 - 1.0;
#if RAY_KIND == 0
    // a soft vertex's row: (index, u, v): its texture coordinates as a plane's x and z
    v_object = mode == 2 || mode == MODE_SOFT_SMOOTH ? vec3(a_position.y, 0.0, a_position.z)
                                                     : a_position * unmirror;
#elif RAY_KIND == 6
    v_object = vec3(a_position.x, 0.0, a_position.z) * unmirror;
#endif
    v_color = part.color;
    v_material = part.material;
    v_uv_map = part.uv_map;
    mat4 vp = view_matrix(view);
    vec4 eye_h = view_eye(view);
#if MULTI_VIEW
    int group = int(views[view].range.w);
#else
    int group = 0;
#endif
    int texture_index = int(part.texture.x);
    v_info = ivec4(mode, texture_index, int(part.texture.y), group);
    v_texture_rect = texture_index >= 0 ? texture_rects[texture_index] : uvec4(0u);
    for (int i = 0; i < LIGHTS; ++i) {{
        LightPose pose = light_poses[group * LIGHTS + i];
        v_light_position[i] = pose.position;
        v_light_direction[i] = pose.direction;
    }}
#if SHADOW_MAPS
    for (int k = 0; k < SHADOW_MAPS; ++k) {{
        LightPose pose = light_poses[group * LIGHTS + SHADOW_LIGHT[k]];
        v_shadow[k] = pose.shadow;
        v_shadow_tile[k] = pose.shadow_tile;
    }}
#endif
    v_view_eye = eye_h;
    // Clip w is the distance along the view (perspective); an orthographic eye is the
    // direction back toward the camera.
    vec3 ahead = vec3(vp[0][3], vp[1][3], vp[2][3]);
    v_forward = eye_h.w == 0.0 ? -eye_h.xyz : normalize(ahead);
#if VERTEX_LIT
    {{
        vec3 N = normalize(normal);
        vec3 V = normalize(eye_h.xyz - world * eye_h.w);
        shadow_at = world;
#if SHADOW_MAPS
        for (int k = 0; k < SHADOW_MAPS; ++k) shadow_seen[k] = 0.0;
#endif
        v_lit[0] = light_surface(world, N, V, part.color.rgb, part.material, v_forward, false,
                                 false);
#if SHADOW_MAPS
        for (int k = 0; k < SHADOW_MAPS; ++k) {{
            for (int j = 0; j < SHADOW_MAPS; ++j) shadow_seen[j] = j == k ? 1.0 : 0.0;
            v_lit[1 + k] = light_surface(world, N, V, part.color.rgb, part.material, v_forward,
                                         false, false) - v_lit[0];
        }}
        for (int k = 0; k < SHADOW_MAPS; ++k) v_shadow_point[k] = vec4(0.0, 0.0, 0.0, 1.0);
        SHADOW_POINTS
#endif
    }}
#endif
    vec4 clip = vp * vec4(world, 1.0);
#if OUTPUT_DEPTH
    v_depth = view_distance(view, vec4(world, 1.0));
#endif
#if OUTPUT_ID
    v_id = float(id);
#endif
#if RAY_KIND
    vec4 eye = view_eye(view);
    v_local = local;
    v_clip_zw = clip.zw;  // before the tiling, which moves x, y only
    v_eye = vec4(rotate(vec4(-q.xyz, q.w), eye.xyz - centre * eye.w), eye.w);
    v_eye_zw = (view_matrix(view) * eye).zw;
#if OUTPUT_DEPTH
    v_eye_depth = view_distance(view, eye);
#endif
    v_size = s;
    v_rotation = q;
#if RAY_KIND == 6
    v_lit_grid = part.texture.w;
#endif
#endif
#if RAY_KIND == 6
    // meshes.plane_quads: the 2 x 2 cells (y 1) where this stage lights the part per vertex
    // of its quadrants (VERTEX_LIT), else the quad (y 0: a quarter of the triangles); the
    // other outside the clip volume, dropped before rasterizing
#if VERTEX_LIT
    bool quadrants = part.texture.w > 0.0 && part.texture.w >= max(abs(s.x), abs(s.z));
#else
    bool quadrants = false;
#endif
    if ((a_position.y > 0.5) != quadrants) {{
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }}
#endif
#if MULTI_VIEW
    // The view's own frustum sides, before the tiling: what lies beyond them would fall
    // on a neighbouring view's tile.
    gl_ClipDistance[0] = clip.w + clip.x;
    gl_ClipDistance[1] = clip.w - clip.x;
    gl_ClipDistance[2] = clip.w + clip.y;
    gl_ClipDistance[3] = clip.w - clip.y;
    clip = tiled(clip, views[view].tile);  // into the view's tile (views.Tiling)
#endif
    gl_Position = clip;
}}
"""
)

# In the fragment stage of a pipeline that draws a reflective part alone (REFLECTION; the
# others' text has no lookup by pixel): the mirror pass's picture added (MuJoCo blends the
# mirror over it, one to one) where a reflective part lies on the mirror plane, seen from
# the plane's front.
REFLECTION_ADD = """
    bool on_mirror = abs(dot(mirror_plane.xyz, P) + mirror_plane.w) < MIRROR_EPSILON
        && v_material.w > 0.0
        && dot(mirror_plane.xyz, v_view_eye.xyz) + mirror_plane.w * v_view_eye.w > 0.0;
    vec3 mirrored = texelFetch(body_reflection, ivec2(gl_FragCoord.xy), 0).rgb;
    color.rgb = min(color.rgb + (on_mirror ? mirrored : vec3(0.0)), 1.0);
"""

# Exact surfaces of the ray-cast parts, for the fragment stage of the pipeline of each kind
# (RAY_KIND: 3 sphere / ellipsoid, 4 capsule, 5 cylinder; one each, since llvmpipe
# runs every branch a fragment's work might take). A proxy is two triangles over the part's
# screen rectangle (the vertex stage's ray_proxy: 2 triangles where a box is 12, and
# llvmpipe pays per triangle). The ray runs from the eye through the proxy's point
# p = v_local: p + t d, d = p * eye.w - eye.xyz (from the eye, or along an orthographic view),
# t = 0 at the proxy and -1 at a perspective eye. Sphere and cylinder are solved on the unit
# shape (p, d divided by the scale: t does not change), the capsule in units of its radius.
RAYCAST = """
// Each keeps the nearer of its entry and (t, n) so far.
// Solved from the ray's point nearest the centre, q: 1 - |q|^2 has no large terms to
// cancel, where b^2 - a (|o|^2 - 1) does (a thin ellipsoid seen from afar: its unit
// sphere's o is thousands of radii long, and float lost the 1: pixels lost with distance).
void enter_sphere(vec3 p, vec3 d, vec3 c, inout float t, inout vec3 n) {{
    vec3 o = p - c;
    float a = dot(d, d), mid = -dot(o, d) / a;
    vec3 q = o + mid * d;
    float disc = 1.0 - dot(q, q);
    float root = mid - sqrt(max(disc, 0.0) / a);
    if (disc >= 0.0 && root < t) {{ t = root; n = q + (root - mid) * d; }}
}}
#if SAMPLES > 1
// Sample i's offset from the pixel's centre, in pixels: 4 samples where GL drivers put
// them (glGetMultisamplefv's standard pattern), other counts spread over the pixel.
vec2 sample_offset(int i) {{
#if SAMPLES == 4
    const vec2 STANDARD[4] = vec2[4](vec2(0.375, 0.125), vec2(0.875, 0.375),
                                     vec2(0.125, 0.625), vec2(0.625, 0.875));
    return STANDARD[i] - 0.5;
#else
    return vec2((float(i) + 0.5) / float(SAMPLES), fract(0.5 + 0.618034 * float(i))) - 0.5;
#endif
}}
#if RAY_KIND == 3 || RAY_KIND == 4
// How far the ray through the proxy's point `from` passes outside the part (<= 0: it meets
// it, as ray_hit says) and how that changes a pixel across and up (`from` moving by
// from_dx, from_dy): the distance of the ray's nearest point from the unit sphere's centre,
// or from the capsule's axis segment in radii, less 1. Near an edge it is close to linear
// across the screen, so the fragment stage finds which samples the part covers from its
// plane at the pixel's centre: a fragment solves one ray, not the six of a ray a sample
// (the centre, 4 samples, then a covered one to shade where the centre missed): 5-19 of a
// 256-cheetah frame's ~165 ms CPU on llvmpipe, the picture within -0.7..+0.4 dB on 170
// views. Its derivatives are the exact ones at the centre (the nearest points' parameters
// are at their optimum: they do not move it), not differences across the pixel's quad,
// which across a part thinner than a pixel see both of its sides.
vec3 ray_miss(vec3 from, vec3 from_dx, vec3 from_dy) {{
    vec3 scale = RAY_KIND == 3 ? v_size : vec3(v_size.x);
    vec3 p = from / scale, u = (from * v_eye.w - v_eye.xyz) / scale;
#if RAY_KIND == 3
    vec3 w = p;
#else
    // the axis's point nearest the ray (the lines' nearest pair), within the segment
    float h = v_size.y / v_size.x;
    float a = dot(u, u), across = max(a - u.y * u.y, 1e-30 * a);
    vec3 w = p - vec3(0.0, clamp((a * p.y - u.y * dot(u, p)) / across, -h, h), 0.0);
#endif
    float t = -dot(w, u) / dot(u, u);
    vec3 nearest = w + t * u;  // the ray's nearest point, from the centre or the axis
    float distance = length(nearest);
    vec3 away = nearest / max(distance, 1e-30);
    float moved = 1.0 + t * v_eye.w;  // the ray's direction turns with its point (perspective)
    return vec3(distance - 1.0, dot(away, from_dx / scale) * moved,
                dot(away, from_dy / scale) * moved);
}}
#endif
#endif
vec4 ray_hit(vec3 from) {{  // through the proxy's point `from`: (local normal, t); t 1e30: a miss
    vec3 d = from * v_eye.w - v_eye.xyz;
    float t = 1e30;
    vec3 n = vec3(0.0, 1.0, 0.0);
#if RAY_KIND == 3
    vec3 p = from / v_size;
    enter_sphere(p, d / v_size, vec3(0.0), t, n);
    n /= v_size;  // a scaled surface's normal: the unit shape's divided by the scale
#else
    // The side: the unit-radius cylinder about y (a capsule's: in units of its radius).
    float r = RAY_KIND == 4 ? v_size.x : 1.0;
    vec3 scale = RAY_KIND == 4 ? vec3(r) : v_size;
    float h = RAY_KIND == 4 ? v_size.y / r : 1.0;
    vec3 p = from / scale, u = d / scale;
    // from the ray's point nearest the axis, as enter_sphere (a thin one seen from afar)
    float a = dot(u.xz, u.xz), mid = -dot(p.xz, u.xz) / max(a, 1e-30);
    vec2 q = p.xz + mid * u.xz;
    float disc = 1.0 - dot(q, q);
    float side = -sign(u.y);  // the end met first along the axis
    if (a > 1e-12) {{
        if (disc < 0.0) return vec4(n, t);  // outside the infinite cylinder: a miss
        float root = mid - sqrt(disc / a);
        float y = p.y + root * u.y;
        if (abs(y) <= h) return vec4(vec3(p.x + root * u.x, 0.0, p.z + root * u.z) / scale, root);
        side = sign(y);  // beyond an end: through that end, or not at all
    }}
#if RAY_KIND == 4
    enter_sphere(p, u, vec3(0.0, side * h, 0.0), t, n);  // the hemisphere at that end
#else
    float root = (side * h - p.y) / u.y;  // the flat cap at that end
    vec2 at = p.xz + root * u.xz;
    if (dot(at, at) <= 1.0) {{ t = root; n = vec3(0.0, side, 0.0); }}
    n /= scale;
#endif
#endif
    return vec4(n, t);
}}
"""

# The fixed-function lighting and the atlas's trilinear sampling (see shading.py): in the
# fragment stage of every draw pipeline.
ATLAS = """
layout(binding = {atlas_unit}) uniform sampler2D body_atlas;

// GL's LINEAR_MIPMAP_LINEAR: the level of detail from the derivatives of uv (in texels).
// Each level is read by the sampler's bilinear filter at uv in 0..1: it has a one-texel
// border.
vec4 atlas_sample(uvec4 r, vec2 uv, vec2 dx, vec2 dy, bool repeat) {{
    vec2 size = vec2(r.zw);
    uv = repeat ? fract(uv) : clamp(uv, 0.0, 1.0);
    // llvmpipe's own estimate (its default, without GALLIVM_PERF=no_rho_approx): the
    // largest texel step along either axis, not the length of the step.
    vec2 step = max(abs(dx), abs(dy)) * size;
    float lambda = log2(max(max(step.x, step.y), 1e-12));
    // Magnified (lambda <= 0): level 0 alone, as the second level's weight is 0 (two
    // lookups always: an early return is no branch on llvmpipe, it made three).
    int last = findMSB(int(max(r.z, r.w)));
    lambda = clamp(lambda, 0.0, float(last));
    int d1 = int(lambda);
    // Level d1's rows start below the levels above: sum of max(h >> j, 1) for j < d1, and
    // 2 borders each; level d1 + 1's right below d1's (one address for both: 7% of the
    // floor's texturing on llvmpipe). At the last level the second one's weight is 0.
    ivec2 size1 = max(ivec2(r.zw) >> d1, ivec2(1));
    int h = int(r.w), bits = findMSB(h) + 1, k = min(d1, bits);
    int top = int(r.y) + 2 * h - bitCount(h) - 2 * (h >> k) + bitCount(h >> k)
            + max(d1 - bits, 0) + 2 * d1;
    vec2 atlas_size = vec2(textureSize(body_atlas, 0));
    vec2 at1 = vec2(float(r.x), float(top)) + 1.0 + uv * vec2(size1);
    vec2 at2 = vec2(float(r.x), float(top + size1.y + 2)) + 1.0
             + uv * vec2(max(size1 >> 1, ivec2(1)));
    return mix(textureLod(body_atlas, at1 / atlas_size, 0.0),
               textureLod(body_atlas, at2 / atlas_size, 0.0), lambda - float(d1));
}}

// A cube map along d (r: its first face; the six side by side, GL's order); dx, dy: d's
// derivatives.
vec4 atlas_cube(uvec4 r, vec3 d, vec3 dx, vec3 dy) {{
    vec3 a = abs(d);
    int face;
    vec3 s, t, m;  // d's components that give the face's sc, tc and major axis
    if (a.x >= a.y && a.x >= a.z) {{
        face = d.x > 0.0 ? 0 : 1;
        s = d.x > 0.0 ? vec3(0, 0, -1) : vec3(0, 0, 1);
        t = vec3(0, -1, 0);
        m = vec3(sign(d.x), 0, 0);
    }} else if (a.y >= a.z) {{
        face = d.y > 0.0 ? 2 : 3;
        s = vec3(1, 0, 0);
        t = d.y > 0.0 ? vec3(0, 0, 1) : vec3(0, 0, -1);
        m = vec3(0, sign(d.y), 0);
    }} else {{
        face = d.z > 0.0 ? 4 : 5;
        s = d.z > 0.0 ? vec3(1, 0, 0) : vec3(-1, 0, 0);
        t = vec3(0, -1, 0);
        m = vec3(0, 0, sign(d.z));
    }}
    float ma = dot(m, d);
    vec2 sc = vec2(dot(s, d), dot(t, d));
    vec2 uv = 0.5 * (sc / ma + 1.0);
    // The face coordinates' derivatives from d's: 0.5 (dsc ma - sc dma) / ma^2
    vec2 du = 0.5 * (vec2(dot(s, dx), dot(t, dx)) * ma - sc * dot(m, dx)) / (ma * ma);
    vec2 dv = 0.5 * (vec2(dot(s, dy), dot(t, dy)) * ma - sc * dot(m, dy)) / (ma * ma);
    r.x += uint(face) * (r.z + 2u);
    return atlas_sample(r, uv, du, dv, false);
}}

"""

LIGHTING = """
struct Light {{ vec4 position; vec4 direction; vec4 ambient; vec4 diffuse; vec4 specular;
               vec4 attenuation; }};
// The lights' colours, cones and kinds (every group alike: constant indices, a broadcast
// on llvmpipe); their poses per group come from the vertex stage (LIGHT_POSES).
layout(std140, binding = {lights_block}) uniform BodyLights {{ Light light_looks[LIGHTS]; }};
#if SHADOW_MAPS
layout(binding = {shadow_unit}) uniform sampler2D body_shadow_map;

// 1 where the light of shadow map k reaches P (its map's depth there is not nearer), 0
// in its shadow; outside its view, lit (as MuJoCo's map reads its cleared border). One
// texel fetch (the map's nearest texel): texture() cost llvmpipe a level of detail per
// fragment, and its early returns are no branches there (every lane runs every path).
// The bias is a slope's, in texels (MuJoCo's glPolygonOffset: 1.5 texels of the surface's
// depth slope): P looked up from SHADOW_SLOPE_BIAS * sin(angle to the light) + SHADOW_BIAS
// texels out along its normal N, which is nearer the light than its own surface anywhere in
// that texel; a constant depth bias would be metres in a directional map of a large
// extent, and a floor's contact shadows and thin casters' shadows would vanish in it.
// shadow_light's point in map k's clip space, moved out by its bias (shadow_test's input).
// Affine in P where N and L are constant (a plane's, a directional light's): the vertex
// stage gives a plane's (v_shadow_point), interpolated.
vec4 shadow_point(int k, vec3 P, vec3 N, vec3 L) {{
    mat4 m = v_shadow[k];
    vec4 s = m * vec4(P, 1.0);
    ivec2 size = textureSize(body_shadow_map, 0);
    // a texel's size at P, in metres (the wider of x and y): the tile's texels across 2 of
    // the light's x / w and y / w. Of a row a * view x + b * view z (an off-axis window's),
    // a is what scales metres: its length less its part along w's row (-view z; 0 in a box)
    float texels = v_shadow_tile[k].x * float(size.x);
    vec3 r0 = vec3(m[0][0], m[1][0], m[2][0]), r1 = vec3(m[0][1], m[1][1], m[2][1]);
    vec3 r3 = vec3(m[0][3], m[1][3], m[2][3]);
    float across = sqrt(max(min(dot(r0, r0) - dot(r0, r3) * dot(r0, r3),
                                dot(r1, r1) - dot(r1, r3) * dot(r1, r3)), 1e-30));
    float texel = 2.0 * abs(s.w) / (texels * across);
    float c = dot(N, L);
    vec3 out_n = c < 0.0 ? -N : N;  // toward the light: either side of a two-sided surface
    float sine = sqrt(max(1.0 - c * c, 0.0));
    return s + m * vec4(out_n * (texel * (SHADOW_SLOPE_BIAS * sine + SHADOW_BIAS)), 0.0);
}}
float shadow_test(int k, vec4 s) {{
    ivec2 size = textureSize(body_shadow_map, 0);
    float texels = v_shadow_tile[k].x * float(size.x);
    vec3 q = s.xyz / s.w;
    // outside the view, or on its tile's border texels (MuJoCo's map, drawn one texel inset,
    // holds its cleared depth there: lit)
    vec2 local = (q.xy * 0.5 + 0.5) * texels;
    bool outside = !(s.w > 0.0) || abs(q.z) > 1.0 || any(lessThan(local, vec2(1.0)))
                   || any(greaterThanEqual(local, vec2(texels - 1.0)));
    vec2 uv = (q.xy * v_shadow_tile[k].xy + v_shadow_tile[k].zw) * 0.5 + 0.5;
    ivec2 texel_at = clamp(ivec2(uv * vec2(size)), ivec2(0), size - 1);
    float nearest = texelFetch(body_shadow_map, texel_at, 0).r;
    return outside || 0.5 * q.z + 0.5 <= nearest ? 1.0 : 0.0;
}}
float shadow_light(int k, vec3 P, vec3 N, vec3 L) {{
    return shadow_test(k, shadow_point(k, P, N, L));
}}
#endif

// One light's term, added to `total` (or to `passes`: a light that casts shadows is drawn
// as MuJoCo draws it, in a pass of its own added to the others, with its own clamp; a spot's
// cutoff bounds it there too, as fixed-function OpenGL's: the light seen past the cone in
// MuJoCo's picture is its vertices' interpolated, see light_grid). i: its slot; kind
// (LIGHT_KIND_*), shadow_map (-1: none) and pass are constants of the call (LIGHT_CALLS, made
// with the pipeline from the renderer's lights): each call compiles to its own light's path
// alone (llvmpipe runs every branch a fragment might take: a branch on a uniform kind costs
// every light every kind's work). look_up (a constant of each caller): its shadow looked up
// at shadow_at, else the one the fragment's first call looked up (light_grid lights three
// points of one fragment).
vec3 shadow_at;  // where the shadows are looked up: the fragment's point
#if SHADOW_MAPS
float shadow_seen[SHADOW_MAPS];  // each map's shadow_light there
#endif
#define LIGHT_KIND_HEAD 1
#define LIGHT_KIND_DIRECTIONAL 2
#define LIGHT_KIND_POINT 3
#define LIGHT_KIND_SPOT 4
void add_light(int i, int kind, int shadow_map, bool pass, vec3 P, vec3 N, vec3 V, vec3 rgb,
               vec4 material, vec3 forward, bool two_sided, inout vec3 total,
               inout vec3 passes, bool look_up) {{
    Light light = light_looks[i];
    vec3 L;
    float factor = 1.0;
    if (kind == LIGHT_KIND_HEAD) {{
        L = -forward;  // the headlight: along the view
    }} else if (kind == LIGHT_KIND_DIRECTIONAL) {{
        L = -v_light_direction[i].xyz;
    }} else {{
        vec3 to_light = v_light_position[i].xyz - P;
        float distance = length(to_light);
        L = to_light / max(distance, 1e-12);
        vec3 k = light.attenuation.xyz;
        factor /= max(k.x + k.y * distance + k.z * distance * distance, 1e-12);
        if (kind == LIGHT_KIND_SPOT) {{  // its cone, and its exponent
            float c = dot(-L, v_light_direction[i].xyz);
            bool inside = c >= light.direction.w;
            factor *= inside ? pow(max(c, 1e-30), light.ambient.w) : 0.0;
        }}
    }}
    float facing = dot(N, L);  // two-sided: N already turned toward the eye
    vec3 c = light.ambient.rgb * rgb + max(facing, 0.0) * light.diffuse.rgb * rgb;
#if SPECULAR
    float exponent = material.y * 128.0;
    float h = max(dot(N, normalize(L + V)), 1e-30);
    float shine = exponent > 0.0 ? pow(h, exponent) : 1.0;
    c += (facing > 0.0 ? shine : 0.0) * light.specular.rgb * material.x;
#endif
#if SHADOW_MAPS
    if (shadow_map >= 0) {{
        if (look_up) shadow_seen[shadow_map] = shadow_light(shadow_map, shadow_at, N, L);
        factor *= shadow_seen[shadow_map];
    }}
#endif
    if (pass)
        passes += clamp(factor * c, 0.0, 1.0);
    else
        total += factor * c;
}}

// The sum of the lights on a surface of colour rgb and material (specular, shininess,
// emission): OpenGL's fixed-function model with a local viewer, clamped as drawn.
vec3 light_surface(vec3 P, vec3 N, vec3 V, vec3 rgb, vec4 material, vec3 forward,
                   bool two_sided, bool look_up) {{
    vec3 total = material.z * rgb;
    vec3 passes = vec3(0.0);
    LIGHT_CALLS
    return clamp(total, 0.0, 1.0) + passes;
}}
"""
SHADING = ATLAS + LIGHTING
VERTEX = VERTEX.replace("VERTEX_LIGHTING", LIGHTING, 1)  # (LIT_GRID 3's, defined above)
VERTEX = VERTEX.replace(
    "SOFT_VERTEX_STRUCT", SOFT_VERTEX_GLSL.replace("{", "{{").replace("}", "}}"), 1
)


FRAGMENT = (
    VERSION
    + """{defines}"""
    + SOFT_SMOOTH
    + """in vec3 v_surface;
in vec3 v_world;
#if RAY_KIND == 0 || RAY_KIND == 6
in vec3 v_object;
#endif
flat in vec4 v_color;
flat in vec4 v_material;
flat in vec4 v_uv_map;
flat in ivec4 v_info;
flat in uvec4 v_texture_rect;
flat in vec4 v_view_eye;
flat in vec3 v_forward;
#if OUTPUT_COLOR
layout(location = 0) out vec4 color;
#endif
// TRANSPARENT: blended by alpha, every output (GL blends each by its own alpha): the depth
// and the id replaced (alpha 1), as MuJoCo's depth and segmentation have them
#if OUTPUT_DEPTH
in float v_depth;
#if DEPTH_BUFFER
float depth_out;  // 1 / metres, kept in the depth buffer (gl_FragDepth, at the end)
#elif TRANSPARENT
layout(location = DEPTH_LOCATION) out vec4 depth_blend;
float depth_out;
#else
layout(location = DEPTH_LOCATION) out float depth_out;
#endif
#endif
#if OUTPUT_ID
flat in float v_id;
#if TRANSPARENT
layout(location = ID_LOCATION) out vec4 id_blend;
#else
layout(location = ID_LOCATION) out float id_out;
#endif
#endif
#if TRANSPARENT && !TRANSPARENT_NEAREST && OUTPUT_COLOR
layout(location = 2) uniform int layer_once;  // 1: a sorted pass's layer, drawn once
#endif
#if RAY_KIND
in vec3 v_local;
in vec2 v_clip_zw;
flat in vec4 v_eye;
flat in vec2 v_eye_zw;
flat in vec3 v_size;
flat in vec4 v_rotation;
#if RAY_KIND == 6
flat in float v_lit_grid;
#endif
#if OUTPUT_DEPTH
flat in float v_eye_depth;
#endif
vec3 rotate(vec4 q, vec3 v) {{ return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }}
#if RAY_KIND != 6
"""
    + RAYCAST
    + """#endif
#endif
"""
    + LIGHT_POSES.replace("{direction}", "in")
    + SHADING
    + """
#if RAY_KIND == 6 && OUTPUT_COLOR && SHADE && LIT_GRID == 3
in vec3 v_lit[1 + SHADOW_MAPS];  // the vertex stage's lighting (see VERTEX_LIT)
#if SHADOW_MAPS
in vec4 v_shadow_point[SHADOW_MAPS];  // a directional light's shadow_point, interpolated
// Light i's (kind, shadow map k) shadow at P: 1 lit, 0 in its shadow (shadow_light).
float shadow_of(int i, int kind, int k, vec3 P, vec3 N, vec3 forward) {{
    vec3 L = kind == LIGHT_KIND_HEAD ? -forward
           : kind == LIGHT_KIND_DIRECTIONAL ? -v_light_direction[i].xyz
           : normalize(v_light_position[i].xyz - P);
    return shadow_light(k, P, N, L);
}}
#endif
#elif RAY_KIND == 6 && OUTPUT_COLOR && SHADE && LIT_GRID
// MuJoCo's planes as fixed-function OpenGL lights them: once per vertex of the plane's grid
// of quads (mjr_makeContext's), the colours interpolated over each quad's two triangles
// (Gouraud); its shadows still per fragment (a shadow pass's texture). A spot's cone or a
// highlight between a coarse grid's vertices is not MuJoCo's without it (a walker's floor
// has cells of 2.5 m). v_lit_grid > 0: a finite plane's size[2] (cells of 2 max(it, half
// size / 198) from the centre, clipped at the edges); < 0: an infinite plane's cell.
void grid_cell(float x, float half_size, out float lo, out float hi) {{
    float cell = v_lit_grid > 0.0 ? 2.0 * max(v_lit_grid, half_size / 198.0) : -v_lit_grid;
    float k = floor(x / cell);
    lo = max(k * cell, -half_size);
    hi = min((k + 1.0) * cell, half_size);
}}
vec3 lit_vertex(vec3 P, vec3 N, vec3 rgb, vec3 forward, bool look_up) {{
    vec3 V = normalize(v_view_eye.xyz - P * v_view_eye.w);
    return light_surface(P, N, V, rgb, v_material, forward, false, look_up);
}}
vec3 light_grid(vec3 P, vec3 N, vec3 rgb, vec3 forward) {{
    // the point in the plane's frame: the quad's x, its z the plane's -y (Y_TO_Z)
    vec2 at = vec2(v_object.x * abs(v_size.x), -v_object.z * abs(v_size.z));
    vec2 half_size = abs(v_size.xz);
    vec2 lo, hi;
    grid_cell(at.x, half_size.x, lo.x, hi.x);
    grid_cell(at.y, half_size.y, lo.y, hi.y);
    vec2 t = clamp((at - lo) / max(hi - lo, 1e-12), 0.0, 1.0);
    // a corner's point: the fragment's moved in the plane (its frame's x, -z)
    #define CORNER(c) (P + rotate(v_rotation, vec3((c).x - at.x, 0.0, -((c).y - at.y))))
    // GL_QUADS (x0 y0, x1 y0, x1 y1, x0 y1) as Mesa draws them: two triangles about the
    // x1 y0 - x0 y1 diagonal (found against MuJoCo's picture: the other one mirrors it)
    vec3 c1 = lit_vertex(CORNER(vec2(hi.x, lo.y)), N, rgb, forward, true);
    vec3 c3 = lit_vertex(CORNER(vec2(lo.x, hi.y)), N, rgb, forward, false);
    bool lower = t.x + t.y <= 1.0;
    vec3 c = lit_vertex(CORNER(lower ? lo : hi), N, rgb, forward, false);  // x0 y0 or x1 y1
    #undef CORNER
    return lower ? (1.0 - t.x - t.y) * c + t.x * c1 + t.y * c3
                 : (t.x + t.y - 1.0) * c + (1.0 - t.y) * c1 + (1.0 - t.x) * c3;
}}
#endif
#if MIRROR || REFLECTION
// A planar mirror (BodyRenderer's mirror= and set_reflection): its plane (normal, -normal .
// point) and, in the mirror pass, x: the reflectance that scales the reflected colours.
layout(location = 0) uniform vec4 mirror_plane;
layout(location = 1) uniform vec4 mirror_look;
#endif
#if REFLECTION
layout(binding = {reflection_unit}) uniform sampler2D body_reflection;
#endif
#if FLAT_TEXTURE && (TEXTURE_PLANAR || TEXTURE_BOX)
layout(binding = {flat_unit}) uniform sampler2D body_flat_texture;
#endif
// The texel at unit-shape coordinates X (the part's frame), as the part's mapping says.
// TEXTURE_PLANAR, TEXTURE_BOX, TEXTURE_CUBE (0 or 1): whether a part this pipeline draws has
// that mapping (the pipeline is made for its parts' mappings: every path is run here).
vec4 surface_texel(vec3 X) {{
    int index = v_info.y, mapping = v_info.z;
    vec4 texel = vec4(1.0);
#if TEXTURE_CUBE
    vec3 d = X * v_uv_map.xyz;
    if (mapping == 4) d = vec3(d.x, -d.z, d.y);  // the part's y is the cube's z
    vec4 cube = atlas_cube(v_texture_rect, d, dFdx(d), dFdy(d));
    if (mapping >= 3) texel = cube;
#endif
#if TEXTURE_PLANAR || TEXTURE_BOX
    vec2 uv = vec2(0.0);
#if TEXTURE_PLANAR
    if (mapping == 1) uv = vec2(X.x, X.z) * v_uv_map.xy + v_uv_map.zw;
#endif
#if TEXTURE_BOX
    if (mapping == 2) {{  // a box's faces: each 0..1 across
        vec3 a = abs(X);
        vec2 face = a.z >= a.x && a.z >= a.y ? vec2(X.x, -X.y)
                  : a.x >= a.y ? vec2(X.y, -X.z) : vec2(X.x, -X.z);
        uv = (face * 0.5 + 0.5) * v_uv_map.xy;
    }}
#endif
#if FLAT_TEXTURE
    // the atlas's one 2D image, its own GL texture (repeat, LINEAR_MIPMAP_LINEAR): the
    // sampler's level of detail from uv's derivatives is atlas_sample's
    vec4 flat_texel = texture(body_flat_texture, uv);
#else
    vec4 flat_texel = atlas_sample(v_texture_rect, uv, dFdx(uv), dFdy(uv), true);
#endif
    if (mapping == 1 || mapping == 2) texel = flat_texel;
#endif
    return index < 0 ? vec4(1.0) : texel;
}}

void main() {{
    bool soft = false;
    vec3 n, P, X;
#if RAY_KIND == 6
    // The plane (RAY_KIND 6, 'ray_plane'): its quad rasterized, its depth exact.
    n = v_surface;
    P = v_world;
    X = v_object;
#if OUTPUT_DEPTH
    depth_out = 1.0 / v_depth;  // affine in the point, interpolated: exact on a flat surface
#endif
#elif RAY_KIND
    // the interpolated proxy point, its world point and clip zw, where the pixel is shaded
    vec3 local_at = v_local, world_at = v_world;
    vec2 clip_at = v_clip_zw;
#if OUTPUT_DEPTH
    float depth_at = v_depth;
#endif
#if SAMPLES > 1
    // Multisampled: the proxy covers more than the part, so the ray says which samples the
    // part covers (the mask; the edge antialiased as a mesh's): a sphere's or capsule's
    // ray_miss plane, a cylinder's ray a sample. A pixel whose centre misses is shaded at
    // its first covered sample (the one ray a sphere or capsule solves, there).
    // (the derivatives here, in uniform control flow, where they are defined)
    vec3 local_dx = dFdx(v_local), local_dy = dFdy(v_local);
    vec3 world_dx = dFdx(v_world), world_dy = dFdy(v_world);
    vec2 clip_dx = dFdx(v_clip_zw), clip_dy = dFdy(v_clip_zw);
#if OUTPUT_DEPTH
    float depth_dx = dFdx(v_depth), depth_dy = dFdy(v_depth);
#endif
    int covered = 0;
    vec2 shift = vec2(0.0);
    vec4 hit = vec4(0.0, 0.0, 0.0, 1e30);  // xyz: the local normal, w: the step to the surface
#if RAY_KIND == 3 || RAY_KIND == 4
    vec3 miss_slope = ray_miss(v_local, local_dx, local_dy);  // (hit: solved below)
    bool centre = miss_slope.x <= 0.0;
    for (int i = SAMPLES - 1; i >= 0; --i) {{
        vec2 o = sample_offset(i);
        if (miss_slope.x + dot(miss_slope.yz, o) <= 0.0) {{
#else
    hit = ray_hit(local_at);  // the centre's, kept where it hits
    bool centre = hit.w < 1e29;
    for (int i = SAMPLES - 1; i >= 0; --i) {{
        vec2 o = sample_offset(i);
        if (ray_hit(v_local + local_dx * o.x + local_dy * o.y).w < 1e29) {{
#endif
            covered |= 1 << i;
            if (!centre) shift = o;
        }}
    }}
    if (covered == 0) discard;
    gl_SampleMask[0] = covered;
    local_at += local_dx * shift.x + local_dy * shift.y;
    world_at += world_dx * shift.x + world_dy * shift.y;
    clip_at += clip_dx * shift.x + clip_dy * shift.y;
#if OUTPUT_DEPTH
    depth_at += depth_dx * shift.x + depth_dy * shift.y;
#endif
    if (!(hit.w < 1e29)) hit = ray_hit(local_at);  // at the covered sample, or a sphere's
#else
    vec4 hit = ray_hit(local_at);  // xyz: the local normal, w: the step to the surface
#endif
    if (!(hit.w < 1e29)) discard;  // a miss (or NaN: never a depth)
    vec2 zw = clip_at + hit.w * (v_eye.w * clip_at - v_eye_zw);
    // Nearer than the near plane (the eye inside the part too) or beyond the far one:
    // clipped, as a mesh's surface there is.
    if (!(zw.y > 0.0 && abs(zw.x) <= zw.y)) discard;
    gl_FragDepth = 0.5 * zw.x / zw.y + 0.5;
    n = rotate(v_rotation, hit.xyz);
    P = world_at + hit.w * (world_at * v_view_eye.w - v_view_eye.xyz);
    vec3 local = local_at + hit.w * (local_at * v_eye.w - v_eye.xyz);  // the hit, part frame
#if RAY_KIND == 4
    // A capsule's unit coordinates: its cylinder y in -1..1, its caps 1..2 beyond
    float r = v_size.x, half_height = v_size.y;
    float y = abs(local.y) <= half_height ? local.y / half_height
            : sign(local.y) * (1.0 + (abs(local.y) - half_height) / r);
    X = vec3(local.x / r, y, local.z / r);
#else
    X = local / v_size;
#endif
#if OUTPUT_DEPTH
    // the hit's distance, along the ray as zw (clip w for a perspective view)
    depth_out = 1.0 / (depth_at + hit.w * (v_eye.w * depth_at - v_eye_depth));  // 1 / metres
#endif
#else
    soft = v_info.x == 2 || v_info.x == MODE_SOFT_SMOOTH;
    P = v_world;
    n = v_surface;
    if (soft) {{
        // OpenGL's two-sided lighting: a face seen from behind is lit with its normal turned
        // over. The face's normal from the derivatives, turned toward the eye (their sign
        // follows the screen's handedness, which a mirror pass turns over); a smooth soft
        // body's vertex normal turns with its face's (the normals MuJoCo gives a skin agree
        // with its faces' winding)
        vec3 face = cross(dFdx(P), dFdy(P));
        if (dot(face, v_view_eye.xyz - P * v_view_eye.w) < 0.0) face = -face;
        n = v_info.x == 2 ? face : (dot(n, face) < 0.0 ? -n : n);
    }}
    X = v_object;
#if OUTPUT_DEPTH
    depth_out = 1.0 / v_depth;  // stored as 1 / metres: 0 (a clear) is nothing hit
#endif
#endif
#if MIRROR
    // MuJoCo's clip plane: only what lies on the eye's side of the mirror is reflected
    // (not the mirror itself, nor what is behind it)
    if (dot(mirror_plane.xyz, P) + mirror_plane.w < MIRROR_EPSILON) discard;
#endif
#if OUTPUT_COLOR && SHADE
    vec4 texel = surface_texel(X);
    vec3 N = normalize(n);
#if SPECULAR
    vec3 V = normalize(v_view_eye.xyz - P * v_view_eye.w);
#else
    vec3 V = vec3(0.0);  // no part of this pipeline has a specular material: no V needed
#endif
    vec3 rgb = v_color.rgb;
    vec3 forward = v_forward;
#if MIRROR
    rgb *= mirror_look.x;  // the reflected colour (its emission too; not its specular)
    // MuJoCo reflects the lights with the scene, the headlight too: seen from the mirrored
    // eye here, the lights stay where they are, and the headlight along the real view
    forward -= 2.0 * dot(mirror_plane.xyz, forward) * mirror_plane.xyz;
#endif
    shadow_at = P;
#if RAY_KIND == 6 && LIT_GRID == 3
    vec3 lit = v_lit[0];  // lit per vertex (VERTEX_LIT), its shadows per fragment
#if SHADOW_MAPS
    SHADOW_TERMS
#endif
#elif RAY_KIND == 6 && LIT_GRID == 2
    vec3 lit = light_grid(P, N, rgb, forward);  // no part of the pipeline lit per fragment
#elif RAY_KIND == 6 && LIT_GRID
    vec3 lit = v_lit_grid != 0.0 ? light_grid(P, N, rgb, forward)
                                 : light_surface(P, N, V, rgb, v_material, forward, soft, true);
#else
    vec3 lit = light_surface(P, N, V, rgb, v_material, forward, soft, true);
#endif
    color = vec4(clamp(lit * texel.rgb, 0.0, 1.0), v_color.a * texel.a);
{reflection}#elif OUTPUT_COLOR
    color = v_color;  // unshaded
#endif
#if OUTPUT_COLOR && !TRANSPARENT
    color.a = 1.0;  // covers its samples whole: the coverage a sky drawn after the resolve reads
#endif
#if TRANSPARENT
#if OUTPUT_COLOR && TRANSPARENT_NEAREST
    color = vec4(0.0);  // the second draw: the colour stays as blended, the rest is the nearest's
#elif OUTPUT_COLOR
    // mjr_render draws a transparent geom twice (its sorted list front to back, then back
    // to front): drawn twice in a row, a layer of alpha a covers 1 - (1 - a)^2 of what is
    // behind it (one draw of a sorted pass's layers: a)
    if (layer_once == 0) color.a = color.a * (2.0 - color.a);
#endif
#if OUTPUT_DEPTH && !DEPTH_BUFFER
    depth_blend = vec4(depth_out, 0.0, 0.0, 1.0);
#endif
#if OUTPUT_ID
    id_blend = vec4(v_id + ID_OFFSET, 0.0, 0.0, 1.0);
#endif
#elif OUTPUT_ID
    id_out = v_id + ID_OFFSET;  // beside colour id + 1: 0 (a clear) is none; else the id
#endif
#if DEPTH_BUFFER
    // the depth output without colour, in the depth buffer: DEPTH_SCALE / metres, exact
    // (a power of two), tested greater (0, a clear: nothing hit); the ray-cast parts'
    // clip depth above is replaced
    gl_FragDepth = depth_out * DEPTH_SCALE;
#endif
}}
"""
)

# The sky cache (record_resolved_sky), one buffer: per view, the keys of what its sky depends
# on (its matrix's first three columns, an orthographic eye's direction, its tile and
# whether it is on) as last drawn into the cache, and whether this frame's differ (stale:
# the cache pass redraws its quad; keys of all ones, a NaN's bits and never a view's, redraw
# every view); then each pixel's sky colour as the cube's lookup gave it, rgba8 packed in a
# uint (packUnorm4x8: what the colour attachment stores of it, as MuJoCo's 8-bit sky under
# its bodies' samples), row by row of `sky_width` pixels. A storage buffer, not a texture:
# llvmpipe reads it in ~8 ms less a 256-cheetah frame (43 against 51 ms, its 1.8 M pixels);
# packed, not as vec4 floats: 4 bytes a pixel, not 16 (the fused pass ~3 ms less).
SKY_BUFFER = """struct SkyKey {{ vec4 key[6]; uvec4 stale; }};
layout(std430, binding = {sky}) buffer BodySky {{
    SkyKey sky_keys[{max_views}];
    uint sky_colors[];
}};
"""


# The sky: after the bodies, a quad over each view's tile (instance = view) whose fragments
# look up a cube map along their view ray; what lies beyond a cylinder about the eye
# (``sky.y`` its radius and half height, about world z) is hidden, as behind MuJoCo's
# skybox. The quad lies at ``sky.z`` along the view, no farther than the cylinder anywhere
# in a view of up to 120 degrees, and writes no depth of its own: the depth test culls it
# early under every nearer surface (a depth written per fragment cost every pixel its
# shading). ``sky_axes`` turn world directions into the cube's. The haze's quad lies at
# ``sky.w``.
SKY_VERTEX = (
    VERSION
    + """{defines}
"""
    + COMMON
    + """
// The view ray (world, not normalised) and its origin (the eye, or an orthographic view's
// point on the near plane): both affine across the screen for a perspective or
// orthographic projection, so interpolated exactly, with no divide per fragment.
out vec3 v_direction;
out vec3 v_origin;
flat out uint v_view;
const vec2 CORNERS[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1),
                                vec2(1, 1), vec2(-1, 1));
layout(location = 0) uniform vec4 sky;
layout(location = 8) uniform int haze_pass;
#ifdef SKY_CACHE
"""
    + SKY_BUFFER
    + """#endif
void main() {{
    uint view = uint(gl_InstanceID);
    vec2 corner = CORNERS[gl_VertexID];
    mat4 vp = view_matrix(view);
    mat4 inv = inverse(vp);
    vec4 near = inv * vec4(corner, -1.0, 1.0);
    vec4 eye = view_eye(view);
    // The ray from the view's rotation and projection alone (its matrix's first three
    // columns, not the eye's translation): a view's sky is the same wherever its camera
    // moves, bit for bit (the sky cache's key, SKY_CHECK). Perspective: the direction whose
    // clip x, y, w are (corner, 1); orthographic: the view's own.
    mat3 xyw = mat3(vp[0].xyw, vp[1].xyw, vp[2].xyw);
    v_direction = eye.w == 0.0 ? -eye.xyz : inverse(xyw) * vec3(corner, 1.0);
    v_view = view;
#if MULTI_VIEW
    // a view beyond those set draws nothing
    corner = views[view].range.z == 0u ? vec2(3.0)
                                       : tiled(vec4(corner, 0.0, 1.0), views[view].tile).xy;
#endif
#ifdef SKY_CACHE
    if (sky_keys[view].stale.x == 0u) corner = vec2(3.0);  // its sky as cached: kept
#endif
    // the quad's depth: a point that far ahead of the eye (orthographic: from the near plane)
    vec3 ahead = eye.w == 0.0 ? -eye.xyz : normalize(vec3(vp[0][3], vp[1][3], vp[2][3]));
    vec3 from = eye.w == 0.0 ? (near.xyz / near.w) : eye.xyz;
    v_origin = from;
    vec4 at = vp * vec4(from + ahead * (haze_pass != 0 ? sky.w : sky.z), 1.0);
    gl_Position = vec4(corner, clamp(at.z / at.w, -1.0, 1.0), 1.0);
}}
"""
)

SKY_FRAGMENT = (
    VERSION
    + """{defines}
"""
    + COMMON
    + """
#if !SKY_UNDER  // (SKY_UNDER: a full-screen triangle, FULL_SCREEN_VERTEX, gives no view ray)
in vec3 v_direction;
in vec3 v_origin;
flat in uint v_view;
#endif
#if SKY_UNDER || defined(SKY_CACHE)
"""
    + SKY_BUFFER
    + """layout(location = 9) uniform int sky_width;  // the framebuffer's, a row of sky_colors
#endif
#if !SKY_UNDER
// The sky's GL cube map (mipmapped, LINEAR_MIPMAP_LINEAR, seamless: MuJoCo's skybox).
layout(binding = {sky_unit}) uniform samplerCube sky_cube;
#endif
layout(location = 0) uniform vec4 sky;  // y: the distance (x unused)
layout(location = 1) uniform vec4 sky_x;  // rows of the world-to-cube rotation
layout(location = 2) uniform vec4 sky_y;
layout(location = 3) uniform vec4 sky_z;
#if SKY_GROUND
layout(location = 4) uniform vec4 haze_plane;  // the ground (see HAZE_FRAGMENT)
layout(location = 5) uniform vec4 haze_normal;
#endif
#if SKY_UNDER == 2
// The multisampled passes' samples themselves (SKY_SAMPLES a pixel), resolved here.
layout(binding = {resolved_unit}) uniform sampler2DMS sample_color;
#elif SKY_UNDER
// The multisampled passes resolved: colour with its coverage in alpha (cleared to 0, the
// bodies' 1, blended layers' accumulated).
layout(binding = {resolved_unit}) uniform sampler2D resolved_color;
#endif
#if OUTPUT_COLOR
layout(location = 0) out vec4 color;
#endif
#if OUTPUT_DEPTH
layout(location = DEPTH_LOCATION) out float depth_out;
#endif
#if OUTPUT_ID
layout(location = ID_LOCATION) out float id_out;
#endif
void main() {{
#if SKY_UNDER == 2
    // The resolve and the sky under it in one pass: each pixel's samples averaged (as the
    // resolve's blit averages them), plus (1 - coverage) of the cached sky. Every pixel is
    // written (no copy of the resolve beneath): llvmpipe's blit resolve, the copy and the
    // sky pass over it were ~52 ms CPU of a 256-cheetah 84x84 frame.
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec4 front = vec4(0.0);
    for (int i = 0; i < SKY_SAMPLES; ++i) front += texelFetch(sample_color, at, i);
    front *= 1.0 / float(SKY_SAMPLES);
    // an `if`, not a select: llvmpipe then reads the sky for the lanes that show some
    // (~10 ms less of a 256-cheetah frame)
    vec3 under = vec3(0.0);
    if (front.a < 1.0) under = unpackUnorm4x8(sky_colors[at.y * sky_width + at.x]).rgb;
    color = vec4(front.rgb + (1.0 - front.a) * under, 1.0);
#elif SKY_UNDER
    // Single-sampled, after the resolve: the sky under what the samples hold, (1 - coverage)
    // of it. A pixel covered whole keeps its colour (the framebuffer holds the resolve's
    // copy): discarded, so that llvmpipe skips the rest for blocks of them (an `if` runs
    // both ways there, masked).
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec4 front = texelFetch(resolved_color, at, 0);
    if (front.a >= 1.0) discard;
    vec3 under = unpackUnorm4x8(sky_colors[at.y * sky_width + at.x]).rgb;
    color = vec4(front.rgb + (1.0 - front.a) * under, 1.0);
#else
    // D not normalised: the cube's lookup and the test below do not depend on its length.
    vec3 D = v_direction;
    vec3 d = vec3(dot(sky_x.xyz, D), dot(sky_y.xyz, D), dot(sky_z.xyz, D));
    vec3 dx = dFdx(d), dy = dFdy(d);  // before any discard: derivatives need every lane
#if SKY_GROUND
    // The ground nearer than the cylinder (between the quad and it): the ground shows.
    float t_sky = sky.y / max(max(length(D.xy), abs(D.z)), 1e-30);
    float toward = dot(D, haze_normal.xyz);
    float height = dot(v_origin - haze_plane.xyz, haze_normal.xyz);
    if (toward < 0.0 && height > 0.0 && height < -toward * t_sky) discard;
#endif
#if OUTPUT_COLOR
    color = vec4(textureGrad(sky_cube, d, dx, dy).rgb, 1.0);
#ifdef SKY_CACHE
    ivec2 at = ivec2(gl_FragCoord.xy);
    sky_colors[at.y * sky_width + at.x] = packUnorm4x8(color);
#endif
#endif
#endif
#if OUTPUT_DEPTH
    depth_out = 0.0;  // 1 / metres: nothing hit
#endif
#if OUTPUT_ID
    id_out = 0.0;  // id + 1: none
#endif
}}
"""
)

SKY_CHECK = (
    VERSION
    + """{defines}
"""
    + COMMON
    + SKY_BUFFER
    + """
layout(local_size_x = 64) in;
layout(location = 0) uniform int view_count;
void main() {{
    uint view = gl_GlobalInvocationID.x;
    if (view >= uint(view_count)) return;
    mat4 vp = view_matrix(view);
    vec4 eye = view_eye(view);
#if MULTI_VIEW
    vec4 tile = views[view].tile;
    float on = float(views[view].range.z);
#else
    vec4 tile = vec4(1.0, 1.0, 0.0, 0.0);
    float on = 1.0;
#endif
    vec4 key[6] = vec4[6](vp[0], vp[1], vp[2], eye.w == 0.0 ? eye : vec4(0.0, 0.0, 0.0, 1.0),
                          tile, vec4(on, 0.0, 0.0, 0.0));
    bool stale = false;
    for (int k = 0; k < 6; ++k) {{
        stale = stale || any(notEqual(floatBitsToUint(sky_keys[view].key[k]),
                                      floatBitsToUint(key[k])));
        sky_keys[view].key[k] = key[k];
    }}
    sky_keys[view].stale = uvec4(stale ? 1u : 0u);
}}
"""
)

# Haze: after the sky, over the same quads, a band of colour blended where a ground plane
# meets the sky, as MuJoCo draws it: a truncated cone about the eye's foot on the plane
# (radius sky.y at the eye's height, (1 - ratio) times it at the plane), transparent at
# both ends and opaque at the height haze.w between them. haze_plane: the plane's point
# (xyz) and its normal in haze_normal.xyz; haze: rgb, alpha; haze_shape: x ratio, y the
# opaque height (0..1 of the cone).
HAZE_FRAGMENT = (
    VERSION
    + """{defines}
"""
    + COMMON
    + """
in vec3 v_direction;
in vec3 v_origin;
flat in uint v_view;
layout(location = 0) uniform vec4 sky;  // y: the sky's distance
layout(location = 4) uniform vec4 haze_plane;
layout(location = 5) uniform vec4 haze_normal;
layout(location = 6) uniform vec4 haze;
layout(location = 7) uniform vec4 haze_shape;
#if OUTPUT_COLOR
layout(location = 0) out vec4 color;
#endif
// Blended like the colour: alpha 0 keeps the other outputs as they are.
#if OUTPUT_DEPTH
layout(location = DEPTH_LOCATION) out vec4 depth_out;
#endif
#if OUTPUT_ID
layout(location = ID_LOCATION) out vec4 id_out;
#endif
void main() {{
    vec3 D = normalize(v_direction);
    vec3 n = haze_normal.xyz;
    float e = dot(v_origin - haze_plane.xyz, n) / sky.y;  // the eye's height, in sky units
    float down = dot(D, n);
    float across = sqrt(max(1.0 - down * down, 0.0));
    float r = haze_shape.x;
    // The cone's wall: radius 1 + r z / e at height z (-e at the plane, 0 at the eye).
    float t = 1.0 / max(across - r * down / max(e, 1e-12), 1e-12);
    float height = 1.0 + t * down / max(e, 1e-12);  // 0 at the plane, 1 at the eye
    if (e < 0.0 || down > 0.0 || height < 0.0 || height > 1.0) discard;
    float h = haze_shape.y;
    float alpha = height < h ? height / h : (1.0 - height) / (1.0 - h);
#if OUTPUT_COLOR
    color = vec4(haze.rgb, haze.a * alpha);
#endif
#if OUTPUT_DEPTH
    depth_out = vec4(0.0);
#endif
#if OUTPUT_ID
    id_out = vec4(0.0);
#endif
}}
"""
)

# The background of the extra outputs, drawn with FULL_SCREEN_VERTEX (a plain clear
# writes one colour to every attachment): colour, depth +inf (nothing hit), id -1.
BACKGROUND_FRAGMENT = (
    VERSION
    + """{defines}
layout(location = 0) uniform vec4 background;
#if OUTPUT_COLOR
layout(location = 0) out vec4 color;
#endif
#if OUTPUT_DEPTH
layout(location = DEPTH_LOCATION) out float depth_out;
#endif
#if OUTPUT_ID
layout(location = ID_LOCATION) out float id_out;
#endif
void main() {{
#if OUTPUT_COLOR
    color = background;
#endif
#if OUTPUT_DEPTH
    depth_out = 0.0;  // 1 / metres: nothing hit
#endif
#if OUTPUT_ID
    id_out = 0.0;  // id + 1: none
#endif
}}
"""
)
