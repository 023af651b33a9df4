"""What a GL context can do, decided from its version and extension strings.

EGL hands out stub addresses for functions the driver does not support, so a
non-null function pointer proves nothing: every flag here comes from the
reported version or from an advertised extension.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Capabilities:
    version: str
    renderer: str
    vendor: str
    glsl_version: str
    major: int
    minor: int
    core_profile: bool
    extensions: frozenset[str] = field(repr=False)
    limits: dict[str, int] = field(repr=False)

    @classmethod
    def from_probe(cls, raw: dict[str, Any]) -> Capabilities:
        return cls(
            version=raw["version"],
            renderer=raw["renderer"],
            vendor=raw["vendor"],
            glsl_version=raw["glsl_version"],
            major=int(raw["major"]),
            minor=int(raw["minor"]),
            core_profile=bool(raw["core_profile"]),
            extensions=frozenset(raw["extensions"]),
            limits={str(k): int(v) for k, v in raw["limits"].items()},
        )

    def at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)

    def has(self, extension: str) -> bool:
        return extension in self.extensions

    @property
    def compute(self) -> bool:
        return self.at_least(4, 3) or self.has("GL_ARB_compute_shader")

    @property
    def storage_buffers(self) -> bool:
        return self.at_least(4, 3) or self.has("GL_ARB_shader_storage_buffer_object")

    @property
    def multi_draw_indirect(self) -> bool:
        return self.at_least(4, 3) or self.has("GL_ARB_multi_draw_indirect")

    @property
    def indirect_count(self) -> bool:
        return self.at_least(4, 6) or self.has("GL_ARB_indirect_parameters")

    @property
    def buffer_storage(self) -> bool:
        return self.at_least(4, 4) or self.has("GL_ARB_buffer_storage")

    @property
    def direct_state_access(self) -> bool:
        return self.at_least(4, 5) or self.has("GL_ARB_direct_state_access")

    @property
    def bindless_textures(self) -> bool:
        return self.has("GL_ARB_bindless_texture")

    @property
    def fp64(self) -> bool:
        return self.at_least(4, 0) or self.has("GL_ARB_gpu_shader_fp64")

    def features(self) -> dict[str, bool]:
        """Every boolean capability by name."""
        names = (
            "compute",
            "storage_buffers",
            "multi_draw_indirect",
            "indirect_count",
            "buffer_storage",
            "direct_state_access",
            "bindless_textures",
            "fp64",
        )
        return {name: getattr(self, name) for name in names}
