"""GLSL of the body renderer: the expand/cull compute pass, the vertex and fragment stages.

``{...}`` fields are filled by :class:`~hypergl_culverin.renderer.BodyRenderer` (bindings and
the bridge's record declaration). One std430 ``Part`` per drawn piece of a body::

    struct Part {
        vec4 offset_mode;  // xyz: offset from the centre of mass (body frame); w: mode
        vec4 rotation;     // quaternion of the part in the body frame
        vec4 scale_mesh;   // xyz: scale (capsule: radius, half height, radius; soft: first
                           // vertex in x); w: mesh index
        vec4 color;        // rgb, and a: the part's shade (a factor on rgb)
    };
"""

COMMON = """
struct Part {{ vec4 offset_mode; vec4 rotation; vec4 scale_mesh; vec4 color; }};
layout(std430, binding = {parts}) readonly buffer CulverinParts {{ Part parts[]; }};
struct ExtraBody {{ vec3 position; uint id; vec4 rotation; }};
layout(std430, binding = {extras}) readonly buffer CulverinExtras {{
    uint extra_count; uint extra_pad0; uint extra_pad1; uint extra_pad2;
    ExtraBody extras[];
}};
layout(std140, binding = {camera}) uniform CulverinCamera {{ mat4 view_proj; vec4 light;
                                                             vec4 lod; }};
vec3 rotate(vec4 q, vec3 v) {{ return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }}
vec4 qmul(vec4 a, vec4 b) {{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}}
"""

# One invocation per body row (source 0) or extra row (source 1: characters, wheels): each
# part that survives the frustum test is appended to its mesh's instance list, and the
# mesh's indirect command counts it. Far spheres and capsules take their coarse mesh.
EXPAND = (
    """#version 430
layout(local_size_x = 64) in;
{bodies}"""
    + COMMON
    + """
layout(std430, binding = {looks}) readonly buffer CulverinLooks {{ uvec2 looks[]; }};
layout(std430, binding = {mesh_info}) readonly buffer CulverinMeshInfo {{ vec4 mesh_info[]; }};
layout(std430, binding = {commands}) buffer CulverinCommands {{ uint commands[]; }};
layout(std430, binding = {instances}) writeonly buffer CulverinInstances {{
    uvec2 instances[];
}};
layout(location = 0) uniform int source;

void main() {{
    uint row = gl_GlobalInvocationID.x;
    vec3 position;
    vec4 rotation;
    uint id;
    if (source == 0) {{
        if (row >= culverin_count) return;
        position = vec3(culverin_bodies[row].position.xyz);
        rotation = culverin_bodies[row].rotation;
        id = culverin_bodies[row].id;
    }} else {{
        if (row >= extra_count) return;
        position = extras[row].position;
        rotation = extras[row].rotation;
        id = extras[row].id;
    }}
    if (id >= uint(looks.length())) return;
    uvec2 look = looks[id];
    mat4 m = transpose(view_proj);
    vec4 planes[6] = vec4[6](m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1],
                             m[3] + m[2], m[3] - m[2]);
    float ndc_per_unit = length(vec3(view_proj[0][1], view_proj[1][1], view_proj[2][1]));
    for (uint k = 0u; k < look.y; ++k) {{
        uint p = look.x + k;
        uint mesh = uint(parts[p].scale_mesh.w + 0.5);
        vec4 info = mesh_info[mesh];  // x: radius at unit scale, y: coarse mesh or -1
        if (int(parts[p].offset_mode.w + 0.5) != 2) {{  // soft bodies: never culled
            vec3 centre = position + rotate(rotation, parts[p].offset_mode.xyz);
            vec3 s = abs(parts[p].scale_mesh.xyz);
            float radius = info.x * max(s.x, max(s.y, s.z));
            bool inside = true;
            for (int i = 0; i < 6; ++i) {{
                if (dot(planes[i].xyz, centre) + planes[i].w < -radius * length(planes[i].xyz))
                    inside = false;
            }}
            if (!inside) continue;
            float w = dot(m[3], vec4(centre, 1.0));
            if (info.y >= 0.0 && radius * ndc_per_unit < lod.x * max(w, 1e-4))
                mesh = uint(info.y + 0.5);
        }}
        uint slot = atomicAdd(commands[5u * mesh + 1u], 1u);
        instances[commands[5u * mesh + 4u] + slot] = uvec2(row | (uint(source) << 31), p);
    }}
}}
"""
)

VERTEX = (
    """#version 430
{bodies}"""
    + COMMON
    + """
layout(std430, binding = {soft}) readonly buffer CulverinSoftVertices {{ vec4 soft_vertices[]; }};
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec2 a_instance;  // (row | source << 31, part)
// Few interpolants: llvmpipe sets up a plane per interpolant per triangle and interpolates
// each per pixel. v_surface is the normal, or a soft body's world position (its normal comes
// from the derivatives); v_color is flat: rgb times the part's shade, and a: the mode.
out vec3 v_surface;
flat out vec4 v_color;

void main() {{
    uint row = a_instance.x & 0x7fffffffu;
    vec3 position;
    vec4 rotation;
    if ((a_instance.x >> 31) == 0u) {{
        position = vec3(culverin_bodies[row].position.xyz);
        rotation = culverin_bodies[row].rotation;
    }} else {{
        position = extras[row].position;
        rotation = extras[row].rotation;
    }}
    Part part = parts[a_instance.y];
    int mode = int(part.offset_mode.w + 0.5);
    vec3 world;
    vec3 normal = a_normal;
    if (mode == 2) {{  // soft body: the vertex, in world space, from the soft-vertex buffer
        world = soft_vertices[uint(part.scale_mesh.x + 0.5) + uint(a_position.x + 0.5)].xyz;
    }} else {{
        vec3 s = part.scale_mesh.xyz;
        vec3 local;
        if (mode == 1) {{  // capsule: hemispheres to +-half height, the rest by the radius
            float side = a_position.y >= 0.0 ? 1.0 : -1.0;
            local = vec3(a_position.x * s.x, (a_position.y - side) * s.x + side * s.y,
                         a_position.z * s.x);
        }} else {{
            local = a_position * s;
            normal = a_normal / s;
        }}
        vec4 q = qmul(rotation, part.rotation);
        world = position + rotate(rotation, part.offset_mode.xyz) + rotate(q, local);
        normal = rotate(q, normal);
    }}
    v_surface = mode == 2 ? world : normal;
    v_color = vec4(part.color.rgb * part.color.a, float(mode));
    gl_Position = view_proj * vec4(world, 1.0);
}}
"""
)

FRAGMENT = """#version 430
in vec3 v_surface;
flat in vec4 v_color;
layout(std140, binding = {camera}) uniform CulverinCamera {{ mat4 view_proj; vec4 light;
                                                             vec4 lod; }};
out vec4 color;
void main() {{
    bool soft = v_color.a > 1.5;  // mode 2
    vec3 n = soft ? cross(dFdx(v_surface), dFdy(v_surface)) : v_surface;
    float facing = dot(normalize(n), light.xyz);  // light: unit length (set_camera)
    float lit = 0.35 + 0.65 * (soft ? abs(facing) : max(facing, 0.0));
    color = vec4(v_color.rgb * lit, 1.0);
}}
"""
