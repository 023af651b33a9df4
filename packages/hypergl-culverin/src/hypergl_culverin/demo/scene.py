"""The demo's frame, built once: world, bridge, renderer, forest, camera and the recorded
program. Shared by ``hypergl demo`` and the benchmarks that time its parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import hypergl

BACKGROUND = (0.62, 0.76, 0.92, 1.0)


@dataclass
class DemoScene:
    world: Any
    bridge: Any
    bodies: Any  # BodyRenderer
    camera: Any
    forest: Any
    target: Any
    ring: Any  # readback ring, or None (a window)
    cmd: Any  # the recorded frame's drawing (the bodies as the last snapshot left them)
    sync: Any  # the recorded snapshot: the bridge's upload of the physics state

    def snapshot(self, frame: int) -> None:
        """Frame `frame`'s camera, and the physics state copied into the records: after
        it the world may be stepped while ``cmd`` draws (:mod:`hypergl.pipelining`)."""
        self.aim(frame)
        self.sync.submit()

    def aim(self, frame: int) -> None:
        """Move the camera for `frame` (writes into mapped uniform buffers)."""
        view_proj = self.camera.update(0.6 + 0.004 * frame)
        self.bodies.set_camera(view_proj)
        self.bodies.update()

    def release(self) -> None:
        self.bodies.release()
        self.bridge.release()


def build_scene(
    ctx: hypergl.Context,
    *,
    scene: str = "bodies",
    bodies: int = 10_000,
    ragdolls: int = 1_000,
    size: tuple[int, int] = (640, 360),
    window: bool = False,
    readback: bool = True,
    physics_threads: int | None = None,
) -> DemoScene:
    from ..renderer import BodyRenderer
    from .camera import Camera
    from .forest import Forest
    from .ragdoll_world import build_ragdoll_world
    from .world import build_world

    def factory(w, capacity):
        return ctx.bridge("culverin", w, capacity=capacity)

    if scene == "ragdolls":
        world, bridge = build_ragdoll_world(factory, ragdolls, physics_threads)
    elif scene == "bodies":
        world, bridge = build_world(factory, bodies, physics_threads)
    else:
        raise ValueError(f"scene must be 'bodies' or 'ragdolls', got {scene!r}")
    # Spheres under ~9 px of radius (most of the 10,000) on the coarse mesh.
    renderer = BodyRenderer(bridge, max_ids=bridge.capacity + 16, camera_binding=1,
                            sphere_detail=(5, 8), lod_threshold=0.05)  # fmt: skip
    target = ctx.screen if window else ctx.framebuffer(size, name="frame")
    camera = Camera(ctx, target.size)
    forest = Forest(ctx, camera)
    ring = ctx.readback(target, components=3, depth=3) if readback and not window else None
    cmd = ctx.command_buffer(name="demo_frame")
    cmd.bind_framebuffer(target)
    cmd.clear(color=BACKGROUND, depth=1.0)
    forest.record(cmd)
    # The GPU expansion and the multi-draws; occlusion culling against the depth of the
    # forest and of the bodies seen last frame (a window's own framebuffer has no depth
    # texture to read). The bridge's upload is a program of its own, the snapshot: the
    # world may step while this one draws.
    renderer.record(cmd, sync=False, occlusion=None if window else target)
    if ring is not None:
        cmd.read_framebuffer(ring, target)
    cmd.end()
    sync = ctx.command_buffer(name="demo_snapshot")
    renderer.record_sync(sync)
    sync.end()
    return DemoScene(world, bridge, renderer, camera, forest, target, ring, cmd, sync)
