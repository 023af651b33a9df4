"""Scenes: programs saved as .hgb and loaded back into live resources.

`hypergl.save(cmd, path)` stores a recorded program with full descriptions of
the resources it uses (buffer contents as they are now, texture pixels,
pipeline sources and state), so `ctx.load(path)` needs no Python set-up; a
resource saved as linked is supplied by the caller at load.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hypergl_compiler import Program, hgb
from hypergl_compiler import Resource as ResourceEntry
from hypergl_compiler.isa import ResourceKind

from .errors import ResourceError
from .formats import TEXTURE_FORMATS
from .pipeline_state import PIPELINE_STATE_KEYS
from .replay import (
    DEFAULT_GROUP_BUDGET,
    DEFAULT_VERTEX_BUDGET,
    PreparedSubmit,
    Replayer,
    SubmitStats,
)
from .resources import Buffer, GPUResource
from .scene_memory import check_scene_memory
from .submit_options import submit_options

if TYPE_CHECKING:
    from .command_buffer import CommandBuffer
    from .context_link import ContextLink
    from .resource_factory import ResourceFactory

# The Context facade stands above this module (ctx.load calls it): typed Any here.
Context = Any


def save(cmd: CommandBuffer, path: str | os.PathLike, *, linked: Iterable[str] | bool = ()) -> None:
    """Save an ended command buffer as a .hgb file (self-contained unless `linked`)."""
    program = cmd.program
    objects = cmd.bound_objects()
    resources = []
    for slot, entry in enumerate(program.resources):
        live = objects[slot] if slot < len(objects) else None
        if isinstance(live, Buffer) and not live.released:
            entry = ResourceEntry(
                entry.kind, entry.name, {**entry.desc, "data": live.read().tobytes()}
            )
        resources.append(entry)
    hgb.save(dataclasses.replace(program, resources=tuple(resources)), path, linked=linked)


class Scene:
    """A loaded program and the resources made for it; `submit()` replays it."""

    def __init__(
        self,
        context: Context,
        program: Program,
        objects: Sequence[GPUResource | None],
        replayer: Replayer | None = None,
    ) -> None:
        self.program = program
        self._objects = list(objects)
        # the context's handle for its engine; a replayer given has verified the program
        self._replayer = replayer or Replayer(context._link)
        self._replayer.verified(program)  # the C++ verifier runs at load (once)

    @property
    def objects(self) -> dict[str, GPUResource]:
        """The resources made for the scene, by their names in the file."""
        return {
            entry.name: obj
            for entry, obj in zip(self.program.resources, self._objects, strict=True)
            if obj is not None
        }

    def __getitem__(self, name: str) -> GPUResource:
        try:
            return self.objects[name]
        except KeyError:
            known = sorted(self.objects)
            raise KeyError(f"the scene has no resource {name!r}; it has {known}") from None

    def submit(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
        group_budget: int = DEFAULT_GROUP_BUDGET,
        clock: float | None = None,
        seed: int | None = None,
        keep_registers: bool = False,
        debug_sink: Callable[[str], Any] | None = None,
    ) -> SubmitStats:
        """Replay the scene's program once (see CommandBuffer.submit)."""
        options = submit_options(registers, budget, bindings, debug, vertex_budget, group_budget,
                                 clock, seed, keep_registers, debug_sink)  # fmt: skip
        return self._replayer.submit(self.program, self._objects, options)

    def prepare(
        self,
        *,
        registers: Sequence[Any] | Mapping[int, Any] | None = None,
        budget: int | None = None,
        bindings: Mapping[str, GPUResource] | None = None,
        debug: bool = False,
        vertex_budget: int = DEFAULT_VERTEX_BUDGET,
        group_budget: int = DEFAULT_GROUP_BUDGET,
        clock: float | None = None,
        seed: int | None = None,
        keep_registers: bool = False,
        debug_sink: Callable[[str], Any] | None = None,
    ) -> PreparedSubmit:
        """The scene's program with its arguments checked once (see CommandBuffer.prepare):
        ``prepared.submit()`` then replays it with the least Python per call."""
        options = submit_options(registers, budget, bindings, debug, vertex_budget, group_budget,
                                 clock, seed, keep_registers, debug_sink)  # fmt: skip
        return self._replayer.prepare(self.program, self._objects, options)


def load_scene(
    context: Context,
    link: ContextLink,
    factory: ResourceFactory,
    source: Any,
    bindings: Mapping[str, GPUResource],
    memory_limit: int | None = None,
) -> Scene:
    """Read, check against `memory_limit` (every resource), then make the resources.

    The resources are made by the context's `factory` (the one ``ctx.buffer()`` and the
    rest use), not through the `context` facade, which the Scene only holds."""
    limit = hgb.check_memory_limit(memory_limit)
    if not isinstance(bindings, Mapping):
        raise TypeError(f"bindings must map resource names to objects, got {bindings!r}")
    if isinstance(source, (bytes, bytearray, memoryview)):
        program = hgb.loads(source, memory_limit=limit)
    else:
        program = hgb.load(source, memory_limit=limit)
    unknown = set(bindings) - {entry.name for entry in program.resources}
    if unknown:
        raise ResourceError(f"bindings name resources the file lacks: {sorted(unknown)}")
    check_scene_memory(program, bindings, limit)  # before anything is made
    replayer = Replayer(link)
    replayer.verified(program)  # and the C++ verifier too: validate first, then make
    objects: list[GPUResource | None] = []
    try:
        for entry in program.resources:
            if entry.name in bindings:
                objects.append(bindings[entry.name])
            elif entry.linked:
                raise ResourceError(
                    f"resource '{entry.name}' is linked: pass bindings={{'{entry.name}': obj}}"
                )
            else:
                objects.append(_inflate(factory, entry))
        return Scene(context, program, objects, replayer)
    except BaseException:
        for obj in objects:
            if obj is not None and obj.name not in bindings and not obj.released:
                obj.release()
        raise


def _inflate(factory: ResourceFactory, entry: ResourceEntry) -> GPUResource:
    """Create the live resource a self-contained description asks for."""
    d = entry.desc
    try:
        if entry.kind is ResourceKind.BUFFER:
            return factory.buffer(d.get("data"), size=d["size"], usage=d.get("usage") or "storage")
        if entry.kind is ResourceKind.TEXTURE:
            return _inflate_texture(factory, d)
        if entry.kind is ResourceKind.PIPELINE:
            state = {key: d[key] for key in PIPELINE_STATE_KEYS if key in d}
            return factory.pipeline(
                vertex_shader=d.get("vertex_shader"),
                fragment_shader=d.get("fragment_shader"),
                compute_shader=d.get("compute_shader"),
                vertex_count=d.get("vertex_count"),
                **state,
            )
        if entry.kind is ResourceKind.FRAMEBUFFER:
            return factory.framebuffer(
                (d["width"], d["height"]),
                color=d.get("color") or (),
                depth=d.get("depth"),
                samples=d.get("samples", 0),
            )
        if entry.kind is ResourceKind.FENCE:
            return factory.fence()
        if entry.kind is ResourceKind.READBACK:
            return factory.readback(
                (d["width"], d["height"]),
                attachment=d.get("attachment", "color0"),
                components=d.get("components", 4),
                depth=d.get("depth", 3),
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise ResourceError(
            f"resource '{entry.name}' cannot be made from its description: {exc}"
        ) from None
    raise ResourceError(
        f"resource '{entry.name}' ({entry.kind.name.lower()}) must be bound by the caller"
    )


def _inflate_texture(factory: ResourceFactory, d: Mapping[str, Any]) -> GPUResource:
    width, height, layers = d["width"], d["height"], d.get("layers") or 0
    data = d.get("data")
    options = {"filter": d.get("filter", "linear"), "wrap": d.get("wrap", "repeat")}

    def image(raw: Any, w: int, h: int, what: str) -> np.ndarray:
        dtype, channels = TEXTURE_FORMATS[d["format"]]
        shape = ((layers,) if layers else ()) + (h, w, channels)
        if not isinstance(raw, bytes):
            raise TypeError(f"{what} must be bytes, got {type(raw).__name__}")
        if len(raw) != (expected := int(np.prod(shape)) * np.dtype(dtype).itemsize):
            raise ValueError(f"{what} has {len(raw)} bytes, a {w}x{h} {d['format']} image "
                             f"{'of ' + str(layers) + ' layers ' if layers else ''}takes "
                             f"{expected}")  # fmt: skip
        return np.frombuffer(raw, dtype).reshape(shape)

    if d.get("texture_set"):  # rgba8 layers
        return factory.texture_set(image(data, width, height, "its data"), **options)
    pixels = None if data is None else image(data, width, height, "its data")
    mipmaps: bool | list[np.ndarray] = bool(d.get("mipmaps"))
    if (given := d.get("mip_levels")) is not None:  # the caller's levels, each half the last
        if not isinstance(given, list):
            raise TypeError(f"its mip_levels must be a list, got {type(given).__name__}")
        # the texture's own checks then say whether the levels make its chain
        mipmaps = [image(raw, max(width >> i, 1), max(height >> i, 1), f"its mip level {i}")
                   for i, raw in enumerate(given, start=1)]  # fmt: skip
    return factory.texture(
        pixels, size=(width, height), format=d["format"], layers=layers,
        mipmaps=mipmaps, cube=bool(d.get("cube")), **options,
    )  # fmt: skip
