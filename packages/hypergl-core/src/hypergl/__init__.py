"""HyperGL: record a render loop once, replay it from a verified C++ VM in one call."""

from __future__ import annotations

from hypergl_compiler import (
    ArgumentError,
    CompileError,
    Program,
    SceneCompiler,
    VerifyError,
    subroutine,
)

from ._native import verify
from .capabilities import Capabilities
from .command_buffer import CommandBuffer, SubmitStats
from .context import Context, context
from .devices import Device, devices
from .draw_list import DrawList
from .errors import (
    ContextError,
    HyperGLError,
    ResourceError,
    ResourceTypeError,
    ShaderError,
    VMError,
)
from .pipelining import PhysicsPipeline, PipelineError, StepInParts
from .plugins import PluginError, installed_bridges
from .probe import probe
from .replay import DEFAULT_GROUP_BUDGET, DEFAULT_VERTEX_BUDGET
from .resources import (
    Buffer,
    ExternalSource,
    Fence,
    Framebuffer,
    Pipeline,
    Readback,
    Texture,
    TextureSet,
)
from .scene import Scene, save
from .trace_log import TraceLog

__version__ = "0.2.0"

__all__ = [
    "DEFAULT_GROUP_BUDGET",
    "DEFAULT_VERTEX_BUDGET",
    "ArgumentError",
    "Buffer",
    "Capabilities",
    "CommandBuffer",
    "CompileError",
    "Context",
    "ContextError",
    "Device",
    "DrawList",
    "ExternalSource",
    "Fence",
    "Framebuffer",
    "HyperGLError",
    "PhysicsPipeline",
    "Pipeline",
    "PipelineError",
    "PluginError",
    "Program",
    "Readback",
    "ResourceError",
    "ResourceTypeError",
    "Scene",
    "SceneCompiler",
    "ShaderError",
    "StepInParts",
    "SubmitStats",
    "Texture",
    "TextureSet",
    "TraceLog",
    "VMError",
    "VerifyError",
    "__version__",
    "context",
    "devices",
    "installed_bridges",
    "probe",
    "save",
    "subroutine",
    "verify",
]
