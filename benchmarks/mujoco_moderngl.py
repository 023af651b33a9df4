"""What a competent moderngl user writes alone to draw many MuJoCo worlds: the baseline column
of benchmarks/mujoco_pixels.py.

One instanced draw per geom type (a tessellated unit mesh each: plane, sphere, capsule,
ellipsoid, cylinder, box), every world's geom poses gathered in one NumPy call per field and
written into each type's instance buffer in one write, every world's camera in one uniform
block, the views tiled into one framebuffer (each instance's vertex moved into its world's
tile and clipped to it with ``gl_ClipDistance``), one read of the whole framebuffer split
into views. The picture is MuJoCo's with textures, shadows, reflection and skybox off: the
headlight and the model's directional lights per fragment (OpenGL's fixed-function model,
as ``mjr_render`` lights), the geoms' colours, specular and shininess. Compare it with
``BatchRenderer(..., scene_flags={shadow, reflection, skybox off}, texture=False)``.
Meshes, height fields and spot lights are not drawn (the benchmark's models have none).
"""

from __future__ import annotations

import mujoco
import numpy as np

VERTEX = """#version 430
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 i_position;
layout(location = 3) in vec3 i_x;  // the geom's rotation, by columns
layout(location = 4) in vec3 i_y;
layout(location = 5) in vec3 i_z;
layout(location = 6) in vec3 i_size;
layout(location = 7) in vec4 i_color;
layout(location = 8) in vec2 i_material;  // specular, shininess
layout(location = 9) in float i_view;
struct View { mat4 view_proj; vec4 eye; vec4 forward; vec4 light; vec4 tile; };
layout(std140, binding = 0) uniform Views { View views[VIEWS]; };
uniform int shape;  // 0 plane, 1 sphere / ellipsoid, 2 capsule, 3 cylinder, 4 box
out vec3 v_world;
out vec3 v_normal;
flat out vec4 v_color;
flat out vec2 v_material;
flat out int v_view;
void main() {
    int view = int(i_view + 0.5);
    vec3 local = a_position * i_size;
    vec3 normal = a_normal / max(i_size, vec3(1e-9));
    if (shape == 2) {  // capsule: hemispheres moved out to the half length
        local = vec3(a_position.xy * i_size.x, a_position.z * i_size.x
                     + sign(a_position.z) * i_size.z);
        normal = a_normal;
    }
    mat3 r = mat3(i_x, i_y, i_z);
    v_world = i_position + r * local;
    v_normal = r * normal;
    v_color = i_color;
    v_material = i_material;
    v_view = view;
    vec4 clip = views[view].view_proj * vec4(v_world, 1.0);
    gl_ClipDistance[0] = clip.w + clip.x;
    gl_ClipDistance[1] = clip.w - clip.x;
    gl_ClipDistance[2] = clip.w + clip.y;
    gl_ClipDistance[3] = clip.w - clip.y;
    clip.xy = clip.xy * views[view].tile.xy + views[view].tile.zw * clip.w;
    gl_Position = clip;
}
"""

FRAGMENT = """#version 430
struct View { mat4 view_proj; vec4 eye; vec4 forward; vec4 light; vec4 tile; };
layout(std140, binding = 0) uniform Views { View views[VIEWS]; };
uniform vec3 head_ambient, head_diffuse, head_specular;
uniform vec3 light_ambient, light_diffuse, light_specular;
uniform int model_light;  // 1: the model's directional light (views[].light: its direction)
in vec3 v_world;
in vec3 v_normal;
flat in vec4 v_color;
flat in vec2 v_material;
flat in int v_view;
out vec4 color;
vec3 term(vec3 L, vec3 N, vec3 V, vec3 ambient, vec3 diffuse, vec3 specular) {
    float facing = dot(N, L);
    vec3 c = ambient * v_color.rgb + max(facing, 0.0) * diffuse * v_color.rgb;
    float exponent = v_material.y * 128.0;
    float h = max(dot(N, normalize(L + V)), 1e-30);
    float shine = exponent > 0.0 ? pow(h, exponent) : 1.0;
    return c + (facing > 0.0 ? shine : 0.0) * specular * v_material.x;
}
void main() {
    vec3 N = normalize(v_normal);
    vec3 V = normalize(views[v_view].eye.xyz - v_world);
    vec3 total = term(-views[v_view].forward.xyz, N, V, head_ambient, head_diffuse,
                      head_specular);
    if (model_light == 1)
        total += term(-views[v_view].light.xyz, N, V, light_ambient, light_diffuse,
                      light_specular);
    color = vec4(clamp(total, 0.0, 1.0), 1.0);
}
"""

SHAPES = {int(mujoco.mjtGeom.mjGEOM_PLANE): 0, int(mujoco.mjtGeom.mjGEOM_SPHERE): 1,
          int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): 1, int(mujoco.mjtGeom.mjGEOM_CAPSULE): 2,
          int(mujoco.mjtGeom.mjGEOM_CYLINDER): 3, int(mujoco.mjtGeom.mjGEOM_BOX): 4}  # fmt: skip
INSTANCE = np.dtype([("position", "f4", 3), ("rotation", "f4", 9), ("size", "f4", 3),
                     ("color", "f4", 4), ("material", "f4", 2), ("view", "f4")])  # fmt: skip


def sphere(stacks: int = 12, slices: int = 16) -> np.ndarray:
    """(N, 6) triangle rows (position, normal) of a unit sphere about z, its equator a ring
    (a capsule's hemispheres part there)."""
    theta = np.linspace(0.0, np.pi, stacks + 1)
    phi = np.linspace(0.0, 2 * np.pi, slices + 1)
    grid = np.stack([np.outer(np.sin(theta), np.cos(phi)), np.outer(np.sin(theta), np.sin(phi)),
                     np.outer(np.cos(theta), np.ones_like(phi))], axis=-1)  # fmt: skip
    rows = []
    for i in range(stacks):
        for j in range(slices):
            a, b, c, d = grid[i, j], grid[i + 1, j], grid[i + 1, j + 1], grid[i, j + 1]
            rows += [a, b, c, a, c, d]
    points = np.array(rows, np.float32)
    return np.concatenate([points, points], axis=1)


def cylinder(slices: int = 16) -> np.ndarray:
    """A unit cylinder about z (radius 1, z in -1..1) with its caps."""
    phi = np.linspace(0.0, 2 * np.pi, slices + 1)
    rows = []
    for j in range(slices):
        c0, s0, c1, s1 = np.cos(phi[j]), np.sin(phi[j]), np.cos(phi[j + 1]), np.sin(phi[j + 1])
        quad = [(c0, s0, -1), (c1, s1, -1), (c1, s1, 1), (c0, s0, -1), (c1, s1, 1), (c0, s0, 1)]
        rows += [(*p, p[0], p[1], 0.0) for p in quad]
        rows += [(0, 0, 1, 0, 0, 1), (c0, s0, 1, 0, 0, 1), (c1, s1, 1, 0, 0, 1)]
        rows += [(0, 0, -1, 0, 0, -1), (c1, s1, -1, 0, 0, -1), (c0, s0, -1, 0, 0, -1)]
    return np.array(rows, np.float32)


def box() -> np.ndarray:
    rows = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            u, v = np.roll(np.eye(3), 1, axis=0)[axis], np.roll(np.eye(3), 2, axis=0)[axis]
            if sign < 0:
                u, v = v, u
            corners = [n - u - v, n + u - v, n + u + v, n - u - v, n + u + v, n - u + v]
            rows += [(*c, *n) for c in corners]
    return np.array(rows, np.float32)


def plane() -> np.ndarray:
    corners = [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, -1, 0), (1, 1, 0), (-1, 1, 0)]
    return np.array([(*c, 0, 0, 1) for c in corners], np.float32)


MESHES = {0: plane, 1: sphere, 2: lambda: sphere(12, 16), 3: cylinder, 4: box}


class InstancedRenderer:
    """`worlds` copies of `model` seen by camera `camera`, drawn as described above."""

    def __init__(self, model: mujoco.MjModel, worlds: int, camera: str, width: int,
                 height: int) -> None:  # fmt: skip
        import moderngl

        self.model, self.worlds, self.width, self.height = model, worlds, width, height
        self.camera = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera)
        self.ctx = moderngl.create_standalone_context(backend="egl", require=430)
        self.columns = int(np.ceil(np.sqrt(worlds)))
        self.rows = -(-worlds // self.columns)
        size = (self.columns * width, self.rows * height)
        self.fbo = self.ctx.simple_framebuffer(size, components=4)
        self.ctx.enable(moderngl.DEPTH_TEST)
        for k in range(4):
            self.ctx.enable_direct(0x3000 + k)  # GL_CLIP_DISTANCE0 + k
        source = {"VIEWS": str(worlds)}
        define = "\n".join(f"#define {k} {v}" for k, v in source.items())
        self.program = self.ctx.program(
            vertex_shader=VERTEX.replace("#version 430", f"#version 430\n{define}"),
            fragment_shader=FRAGMENT.replace("#version 430", f"#version 430\n{define}"),
        )
        head = model.vis.headlight
        for name, value in (("head_ambient", head.ambient), ("head_diffuse", head.diffuse),
                            ("head_specular", head.specular)):  # fmt: skip
            self.program[name].value = tuple(float(v) * bool(head.active) for v in value)
        directional = [i for i in range(model.nlight)
                       if int(model.light_type[i]) == int(mujoco.mjtLightType.mjLIGHT_DIRECTIONAL)
                       and model.light_active[i]]  # fmt: skip
        self.light = directional[0] if directional else -1
        self.program["model_light"].value = int(self.light >= 0)
        if self.light >= 0:
            for name, field in (("light_ambient", model.light_ambient),
                                ("light_diffuse", model.light_diffuse),
                                ("light_specular", model.light_specular)):  # fmt: skip
                self.program[name].value = tuple(float(v) for v in field[self.light])
        self.views = self.ctx.buffer(reserve=worlds * 128)
        self.draws = []
        visible = model.geom_rgba[:, 3] > 0
        groups = model.geom_group < 3
        for geom_type, shape in SHAPES.items():
            geoms = np.nonzero((model.geom_type == geom_type) & visible & groups)[0]
            if not len(geoms):
                continue
            mesh = self.ctx.buffer(MESHES[shape]().tobytes())
            instances = self.ctx.buffer(reserve=worlds * len(geoms) * INSTANCE.itemsize)
            vao = self.ctx.vertex_array(self.program, [
                (mesh, "3f 3f", "a_position", "a_normal"),
                (instances, "3f 3f 3f 3f 3f 4f 2f 1f/i", "i_position", "i_x", "i_y", "i_z",
                 "i_size", "i_color", "i_material", "i_view"),
            ])  # fmt: skip
            rows = np.zeros((worlds, len(geoms)), INSTANCE)
            size = model.geom_size[geoms].astype(np.float32)
            if shape == 0:  # a plane: its half sizes (0: out to the far plane)
                far = float(model.vis.map.zfar * model.stat.extent)
                size = np.where(size == 0, far, size)
                size[:, 2] = 1.0
            elif shape == 1 and geom_type == int(mujoco.mjtGeom.mjGEOM_SPHERE):
                size[:, 1:] = size[:, :1]
            elif shape in (2, 3):  # radius, radius, half length
                size = np.stack([size[:, 0], size[:, 0], size[:, 1]], axis=1)
            rows["size"] = size
            rows["color"] = model.geom_rgba[geoms]
            material = model.geom_matid[geoms]
            rows["material"][..., 0] = np.where(material >= 0, model.mat_specular[material], 0.5)
            rows["material"][..., 1] = np.where(material >= 0, model.mat_shininess[material],
                                                0.5)  # fmt: skip
            rows["view"] = np.arange(worlds, dtype=np.float32)[:, None]
            self.draws.append((shape, geoms, rows, instances, vao))
        self.cull = moderngl.CULL_FACE

    def _views(self, datas: list) -> np.ndarray:
        """Each world's camera (view-projection, eye, forward), light and tile."""
        model, cam = self.model, self.camera
        position = np.stack([d.cam_xpos[cam] for d in datas])  # (W, 3)
        frame = np.stack([d.cam_xmat[cam] for d in datas]).reshape(-1, 3, 3)
        extent = float(model.stat.extent)
        near, far = model.vis.map.znear * extent, model.vis.map.zfar * extent
        top = near * np.tan(np.radians(float(model.cam_fovy[cam])) / 2)
        right = top * self.width / self.height
        projection = np.array([[near / right, 0, 0, 0], [0, near / top, 0, 0],
                               [0, 0, -(far + near) / (far - near), -2 * far * near / (far - near)],
                               [0, 0, -1, 0]])  # fmt: skip
        view = np.zeros((len(datas), 4, 4))
        view[:, :3, :3] = frame.transpose(0, 2, 1)
        view[:, :3, 3] = -np.einsum("wji,wj->wi", frame, position)
        view[:, 3, 3] = 1.0
        block = np.zeros((len(datas), 32), np.float32)
        block[:, :16] = (projection @ view).transpose(0, 2, 1).reshape(-1, 16)
        block[:, 16:19] = position
        block[:, 20:23] = -frame[:, :, 2]  # MuJoCo's camera looks along its -z
        if self.light >= 0:
            block[:, 24:27] = np.stack([d.light_xdir[self.light] for d in datas])
        k = np.arange(len(datas))
        column, row = k % self.columns, k // self.columns
        block[:, 28] = 1.0 / self.columns
        block[:, 29] = 1.0 / self.rows
        block[:, 30] = -1.0 + (2 * column + 1) / self.columns
        block[:, 31] = 1.0 - (2 * row + 1) / self.rows
        return block

    def render(self, datas: list) -> np.ndarray:
        """(worlds, H, W, 3) uint8, top row first. Its context is made current first (the
        process's other renderers make theirs current: without it, its calls go to theirs)."""
        with self.ctx:
            return self._render(datas)

    def _render(self, datas: list) -> np.ndarray:
        self.views.write(self._views(datas).tobytes())
        xpos = np.stack([d.geom_xpos for d in datas])  # (W, ngeom, 3): one gather per field
        xmat = np.stack([d.geom_xmat for d in datas])
        self.fbo.use()
        self.fbo.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)
        self.views.bind_to_uniform_block(0)
        for shape, geoms, rows, instances, vao in self.draws:
            rows["position"] = xpos[:, geoms]
            # MuJoCo's xmat is row-major: its columns are the geom's axes
            rows["rotation"] = xmat[:, geoms].reshape(-1, len(geoms), 3, 3).transpose(
                0, 1, 3, 2).reshape(-1, len(geoms), 9)  # fmt: skip
            instances.write(rows.tobytes())
            self.program["shape"].value = shape
            if shape == 0:
                self.ctx.disable(self.cull)  # a plane seen from either side
            else:
                self.ctx.enable(self.cull)
            vao.render(instances=rows.size)
        pixels = np.frombuffer(self.fbo.read(components=3), np.uint8)
        image = pixels.reshape(self.rows, self.height, self.columns, self.width, 3)[::-1, ::-1]
        tiles = np.moveaxis(image, 2, 1).reshape(-1, self.height, self.width, 3)
        return tiles[: self.worlds]

    def release(self) -> None:
        self.ctx.release()
