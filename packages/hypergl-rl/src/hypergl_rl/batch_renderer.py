"""`BatchRenderer`: E small 3D scenes rendered and read back as one (E, H, W, C) array.

Why it is fast on a software rasteriser like Mesa llvmpipe (measured in
benchmarks/rl_throughput.py, where the pixels match a plain moderngl version):

* one recorded program, one prepared ``submit()`` and one prepared read per
  stack per frame (checked once: ``cmd.prepare()``, ``fb.reader()``): no
  per-environment Python;
* per-environment state (camera, floor, spheres) lives in one persistently
  mapped storage buffer: the caller writes NumPy arrays that alias GPU memory;
* the tiles are laid out by the body renderer's tiling (``hypergl.bodies.views.
  Tiling.stacks``): one column (width W, height E*H) from the bottom, each tile
  upside down, so a bottom-up read of the stack is already in (E, H, W, C) memory
  order and lands straight in the caller's array: no flip, no transpose, no copy;
* for RGB, each RGBA8 texel carries four bytes of the RGB image (the scene is
  ray-cast, so a fragment can shade the two pixels its bytes belong to): reading
  RGBA is a memcpy, reading RGB makes the driver convert every pixel, and
  slicing RGB out of RGBA in NumPy costs more than the whole render;
* the sphere-less background (floor, sky) is rendered once per camera/floor
  change into a texture; with direct reads the framebuffer keeps its pixels
  between frames, so a frame repaints only the quads around each sphere's old
  and new place (over the cached background): most pixels cost nothing;
* stacks taller than the GPU's framebuffer limit are split (the tiling's
  ``stacks``); each stack is read into its slice of the output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hypergl import transforms
from hypergl.bodies.views import Tiling
from hypergl.errors import ResourceError
from hypergl.serialised import Guard, closing, serialised
from hypergl.shader_prelude import FULL_SCREEN_VERTEX

from .errors import ObservationArrayError, ObservationDtypeError, RLConfigError, positive_int
from .shaders import (
    HEADER_ROWS,
    OBJECT_ROWS,
    background_fragment,
    record_rows,
    sphere_fragment,
    sphere_vertex,
    stack_fragment,
    stack_vertex,
)

READBACK_MODES = ("direct", "ring")
# Flat varyings per tile: 5 + 3 * K vec4 (record and sphere bounds), 29 for K = 8. Mesa and
# desktop GPUs take 32; a driver with fewer fails to link the pipeline with a ShaderError.
MAX_OBJECTS = 8


class BatchRenderer:
    """Renders `num_envs` scenes of `width` x `height` pixels per :meth:`render`.

    State is written through mapped NumPy views (no copy, seen by the next
    render): ``eye``/``forward``/``right``/``up`` (or :meth:`look_at`),
    ``floor_color``, ``checker`` (cell size), and per sphere ``position``,
    ``radius`` (0 hides it) and ``color`` (RGB in 0..1).

    RGB frames are packed four bytes per texel when ``3 * width % 4 == 0``
    (``pack_rgb=None``, the default; ``False`` renders RGBA and lets the driver
    convert to RGB on read, the only way for other widths).

    ``readback='direct'`` reads the frame just rendered straight into the output
    array. ``readback='ring'`` captures each frame into a ring of persistently
    mapped pixel-pack buffers inside the program and returns the *previous*
    frame (one frame of latency; the first call returns its own frame).

    ``cache_background=True`` (the default) renders floor and sky once while the
    header rows (cameras, floors) stay the same, compared byte for byte each
    frame; changing any of them re-renders every background (about two frames'
    work). Frames are identical to the fully shaded ones (``False``).
    """

    # Public attributes, declared for type checkers (set in __init__ and _views).
    context: Any
    num_envs: int
    width: int
    height: int
    components: int
    max_objects: int
    readback: str
    packed: bool
    framebuffer_width: int
    incremental: bool
    output: np.ndarray
    frames: int
    state: np.ndarray
    eye: np.ndarray
    forward: np.ndarray
    right: np.ndarray
    up: np.ndarray
    floor_color: np.ndarray
    checker: np.ndarray
    position: np.ndarray
    radius: np.ndarray
    color: np.ndarray

    def __init__(
        self,
        num_envs: int,
        width: int = 84,
        height: int = 84,
        *,
        max_objects: int = 4,
        components: int = 3,
        readback: str = "direct",
        ring_depth: int = 3,
        pack_rgb: bool | None = None,
        cache_background: bool = True,
        context: Any = None,
    ) -> None:
        self._guard = Guard(ResourceError, "this BatchRenderer has been closed")
        num_envs = positive_int(num_envs, "num_envs")
        width = positive_int(width, "width")
        height = positive_int(height, "height")
        max_objects = positive_int(max_objects, "max_objects", maximum=MAX_OBJECTS)
        if isinstance(components, bool) or components not in (3, 4):
            raise RLConfigError(f"components must be 3 (RGB) or 4 (RGBA), got {components!r}")
        if readback not in READBACK_MODES:
            raise RLConfigError(f"readback must be one of {READBACK_MODES}, got {readback!r}")
        ring_depth = positive_int(ring_depth, "ring_depth", maximum=16)
        if readback == "ring" and ring_depth < 2:
            raise RLConfigError(
                f"ring_depth must be >= 2 for one frame of latency, got {ring_depth}"
            )
        # RGB packs 4 bytes per texel when a row of RGB bytes is a whole number of texels.
        packable = components == 3 and (3 * width) % 4 == 0
        if pack_rgb is None:
            pack_rgb = packable
        elif not isinstance(pack_rgb, bool):
            raise RLConfigError(f"pack_rgb must be True, False or None, got {pack_rgb!r}")
        elif pack_rgb and not packable:
            raise RLConfigError(f"pack_rgb needs components=3 and a width whose RGB row is a "
                                f"whole number of 4-byte texels (3 * width % 4 == 0), got "
                                f"components={components}, width={width}")  # fmt: skip
        if not isinstance(cache_background, bool):
            raise RLConfigError(f"cache_background must be True or False, got {cache_background!r}")

        import hypergl

        if context is not None and (
            not isinstance(context, hypergl.Context) or context.device != "gl"
        ):
            raise RLConfigError(f"context must be a hypergl.Context on the gl device, got "
                                f"{context!r}")  # fmt: skip
        self._owns_context = context is None
        self.context = hypergl.context() if context is None else context
        limits = self.context.limits  # the same table on every device
        limit = min(limits["max_renderbuffer_size"], limits["max_texture_size"])
        if width > limit or height > limit:
            raise RLConfigError(f"a {width}x{height} tile exceeds this GPU's limit of {limit}")

        self.num_envs, self.width, self.height = num_envs, width, height
        self.components, self.max_objects, self.readback = components, max_objects, readback
        self.packed = pack_rgb
        self._read_components = 4 if self.packed or components == 4 else 3
        self.framebuffer_width = 3 * width // 4 if self.packed else width

        self.cache_background = cache_background
        self.incremental = False
        self._objects: list = []
        before = {id(obj) for obj in self.context.live_objects()}
        try:
            self._build(limit, ring_depth)
        except BaseException:
            if self._owns_context:
                self.context.close()
            else:  # leave a shared context as it was
                for obj in self.context.live_objects():
                    if id(obj) not in before:
                        obj.release()
            raise
        self.output = np.zeros((num_envs, height, width, components), np.uint8)
        self._targets_of: tuple[np.ndarray, list, list] | None = None
        self.frames = 0

    def _build(self, limit: int, ring_depth: int) -> None:
        """Create the GPU objects and record the programs."""
        fbw = self.framebuffer_width
        self.tilings: list[tuple[int, Tiling]] = Tiling.stacks(
            self.num_envs, (fbw, self.height), limit
        )
        self.stacks: list[tuple[int, int]] = [(first, t.views) for first, t in self.tilings]

        rows = record_rows(self.max_objects)
        w, h, k = self.width, self.height, self.max_objects
        self._buffer = self.context.buffer(size=self.num_envs * rows * 16, usage="storage")
        self.state = self._buffer.map(np.float32, (self.num_envs, rows, 4))
        self.state[:] = 0.0
        self._views()
        self.floor_color[:] = (0.55, 0.55, 0.5)
        self.checker[:] = 2.0
        self.look_at(eye=(0.0, 2.0, -3.0), target=(0.0, 0.0, 0.0), fov=60.0)
        # each environment's tile (Tiling.clip: its clip space's scale and offset in its
        # stack), read by the vertex stage's tiled()
        tiles = np.concatenate([tiling.clip() for _, tiling in self.tilings])
        self._tiles = self.context.buffer(data=tiles, usage="storage")

        strip = {"topology": "triangle_strip", "depth_test": False, "cull": "none"}
        make = self.context.pipeline
        self._full = make(
            vertex_shader=stack_vertex(w, h, k, fbw),
            fragment_shader=stack_fragment(w, h, k, self.packed),
            **strip,
        )
        self._framebuffers = [
            self.context.framebuffer(tiling.size, depth=None) for _, tiling in self.tilings
        ]
        self._rings = []
        if self.readback == "ring":
            self._rings = [
                self.context.readback(fb, components=self._read_components, depth=ring_depth)
                for fb in self._framebuffers
            ]
        self._objects = [self._full, self._buffer, self._tiles, *self._framebuffers, *self._rings]
        if self.cache_background:
            # The frame without spheres, as RGBA8 texels laid out like the stacks: read
            # into these arrays and written into one texture per stack when cameras move.
            self._staging = [np.empty((t.size[1], t.size[0], 4), np.uint8) for _, t in self.tilings]
            self._cached_header: bytes | None = None
            self._textures = [
                self.context.texture(size=tiling.size, filter="nearest", wrap="clamp")
                for _, tiling in self.tilings
            ]
            self._stack_index = {start: i for i, (start, _) in enumerate(self.stacks)}
            self._background = make(
                vertex_shader=FULL_SCREEN_VERTEX,
                fragment_shader=background_fragment(fbw),
                topology="triangles",
                depth_test=False,
                cull="none",
            )
            # Direct reads keep the framebuffer to themselves between frames: only the
            # spheres' old and new places are repainted (ring reads repaint it all).
            self.incremental = self.readback == "direct"
            self._previous = self.context.buffer(size=self._buffer.size, usage="storage")
            self._previous_state = self._previous.map(np.float32, self.state.shape)
            self._spheres = make(
                vertex_shader=sphere_vertex(w, h, k, fbw, self.incremental),
                fragment_shader=sphere_fragment(w, h, k, fbw),
                **strip,
            )
            self._objects += [self._background, self._spheres, self._previous, *self._textures]
        self._record()

    # --- state views ---------------------------------------------------------------------
    def _views(self) -> None:
        s = self.state
        self.eye, self.forward = s[:, 0, :3], s[:, 1, :3]
        self.right, self.up = s[:, 2, :3], s[:, 3, :3]
        self.floor_color, self.checker = s[:, 4, :3], s[:, 4, 3]
        objects = s[:, HEADER_ROWS:, :].reshape(self.num_envs, self.max_objects, OBJECT_ROWS, 4)
        self.position, self.radius = objects[:, :, 0, :3], objects[:, :, 0, 3]
        self.color = objects[:, :, 1, :3]

    @serialised
    def look_at(self, eye: Any, target: Any, fov: Any = 60.0, envs: Any = slice(None)) -> None:
        """Point the cameras of `envs` from `eye` at `target`, vertical field of view in degrees.

        Vectorised: `eye`/`target` broadcast to (n, 3), `fov` to (n,). World up is +y.
        """
        eye = np.asarray(eye, np.float32)
        target = np.asarray(target, np.float32)
        forward = target - eye
        norm = np.linalg.norm(forward, axis=-1, keepdims=True)
        if not np.all(np.isfinite(norm)) or np.any(norm == 0):
            raise RLConfigError(f"look_at: eye {eye.tolist()} and target {target.tolist()} "
                                "must be distinct finite points")  # fmt: skip
        right_norm = np.linalg.norm(np.cross(forward / norm, np.float32([0.0, 1.0, 0.0])),
                                    axis=-1)  # fmt: skip
        if np.any(right_norm < 1e-6):
            raise RLConfigError("look_at: the camera looks straight up or down; tilt it")
        # the view's rows are the camera's right, up and backward axes (hypergl's camera math)
        view = transforms.look_along(eye, forward, (0.0, 1.0, 0.0))
        right, up, forward = view[..., 0, :3], view[..., 1, :3], -view[..., 2, :3]
        fov = np.asarray(fov, np.float32)
        if not np.all((fov > 0) & (fov < 180)):
            raise RLConfigError(f"look_at: fov must be in (0, 180) degrees, got {fov.tolist()}")
        tan = np.tan(np.radians(fov) / 2)[..., None]
        aspect = self.width / self.height
        self.eye[envs] = eye
        self.forward[envs] = forward
        self.right[envs] = right * tan * aspect
        self.up[envs] = up * tan

    # --- the program -----------------------------------------------------------------------
    def _record(self) -> None:
        """Record the programs once; render() replays one of them per step."""
        self._full_program = self._program(self._record_full, capture=not self.cache_background)
        if self.cache_background:
            self._main_program = self._program(self._record_cached, capture=True)
            self._background_readers = [
                fb.reader(staging, rect=(0, 0, self.framebuffer_width, count * self.height))
                for (_, count), fb, staging in zip(
                    self.stacks, self._framebuffers, self._staging, strict=True
                )
            ]
        else:
            self._main_program = self._full_program

    def _program(self, body, capture: bool):
        """A recorded program, prepared once (``cmd.prepare()``)."""
        cmd = self.context.command_buffer(name="batch_renderer")
        for i, ((start, count), fb) in enumerate(zip(self.stacks, self._framebuffers, strict=True)):
            cmd.bind_framebuffer(fb)
            cmd.viewport(0, 0, self.framebuffer_width, count * self.height)
            body(cmd, start, count)
            if capture and self._rings:
                cmd.read_framebuffer(self._rings[i], fb)
        cmd.end()
        return cmd.prepare()

    def _record_full(self, cmd, start: int, count: int) -> None:
        cmd.bind_pipeline(self._full)
        cmd.bind_storage_buffer(self._buffer, 0)
        cmd.bind_storage_buffer(self._tiles, 1)
        cmd.uniform_const(0, start, "int")
        cmd.draw(4, instances=count)  # one quad per environment; they tile the stack

    def _record_cached(self, cmd, start: int, count: int) -> None:
        texture = self._textures[self._stack_index[start]]
        if not self.incremental:
            cmd.bind_pipeline(self._background)
            cmd.bind_texture(texture, 0)
            cmd.draw(3)  # the cached background over the whole stack
        cmd.bind_pipeline(self._spheres)
        cmd.bind_texture(texture, 0)
        cmd.bind_storage_buffer(self._previous, 2)
        cmd.bind_storage_buffer(self._buffer, 0)
        cmd.bind_storage_buffer(self._tiles, 1)
        cmd.uniform_const(0, start, "int")
        cmd.draw(4, instances=count * self.max_objects)  # a small quad per sphere

    def _refresh_background(self) -> None:
        """Re-render the sphere-less background if a camera or floor changed since last time.

        The full pass runs with every sphere hidden, each stack is read into a
        staging array and written into its texture. Costs about two frames; free
        while cameras and floors stay put.
        """
        header = self.state[:, :HEADER_ROWS].tobytes()
        if header == self._cached_header:
            return
        radius = self.radius.copy()
        self.radius[:] = 0.0
        try:
            self._full_program.submit()
            for reader in self._background_readers:
                reader.read()
        finally:
            self.radius[:] = radius
        for texture, staging in zip(self._textures, self._staging, strict=True):
            texture.write(staging)
        self._cached_header = header
        self._previous_state[:] = self.state
        self._previous_state[:, HEADER_ROWS::OBJECT_ROWS, 3] = 0.0  # the frame has no spheres

    # --- rendering -----------------------------------------------------------------------
    def _targets(self, out: Any) -> list[np.ndarray]:
        """Per stack, the view of `out` that receives that stack's bottom-up read."""
        if self._targets_of is not None and self._targets_of[0] is out:
            return self._targets_of[1]
        if out is not self.output:
            self.check_output(out)
        shape = (self.framebuffer_width, self._read_components)
        targets = [
            out[start : start + count]
            .reshape(-1)
            .view(np.uint8)
            .reshape(count * self.height, *shape)
            for start, count in self.stacks
        ]
        readers = [
            fb.reader(target, components=self._read_components,
                      rect=(0, 0, self.framebuffer_width, count * self.height))
            for (_, count), fb, target in zip(self.stacks, self._framebuffers, targets, strict=True)
        ]  # fmt: skip
        self._targets_of = (out, targets, readers)
        return targets

    def check_output(self, out: Any) -> np.ndarray:
        """`out` if it can receive a frame in place, else ObservationArrayError/DtypeError."""
        shape = (self.num_envs, self.height, self.width, self.components)
        if not isinstance(out, np.ndarray):
            raise ObservationDtypeError(
                f"out must be a NumPy uint8 array of shape {shape}, got {type(out).__name__}"
            )
        if out.dtype != np.uint8:
            raise ObservationDtypeError(f"out must have dtype uint8, got {out.dtype}")
        if out.shape != shape:
            raise ObservationArrayError(f"out must have shape {shape}, got {out.shape}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ObservationArrayError("out must be a writable C-contiguous array")
        return out

    @serialised
    def render(self, out: np.ndarray | None = None) -> np.ndarray:
        """Render every environment and return the (E, H, W, C) uint8 frame.

        Without `out` the renderer's own array ``self.output`` is filled and
        returned (overwritten by the next call). In ring mode the frame returned
        is the previous call's.

        The step path is one prepared submit and one prepared read per stack:
        the program, its resources, every read rectangle (and the last `out`
        array) were checked once.
        """
        if out is None:
            out = self.output
        targets = self._targets(out)
        try:
            if self.cache_background:
                self._refresh_background()
            self._main_program.submit()
            self.frames += 1
            if self._rings:
                for ring, target in zip(self._rings, targets, strict=True):
                    lag = 1 if ring.frames_written > 1 else 0  # one frame late, but the first
                    ring.read(lag, into=target, origin="bottom")
            else:
                for reader in self._targets_of[2]:
                    reader.read()
                if self.incremental:
                    # Where the spheres are now is where the next frame repaints. The
                    # frame is complete (the read returned), so nothing still reads it.
                    np.copyto(self._previous_state, self.state)
        except Exception:
            self._cached_header = None  # the framebuffer may be part-drawn: repaint all
            raise
        return out

    @closing
    def close(self) -> None:
        """Release the GPU objects (and the context, if this renderer created it); safe
        to call twice, and from another thread than a render's (it waits for that render;
        later ones raise ResourceError)."""
        if self.context.closed:
            return
        if self._owns_context:
            self.context.close()
        else:
            for obj in self._objects:
                if not obj.released:
                    obj.release()

    def __enter__(self) -> BatchRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<BatchRenderer {self.num_envs} x {self.width}x{self.height}x{self.components} "
            f"stacks={len(self.stacks)} packed={self.packed} readback={self.readback}>"
        )
