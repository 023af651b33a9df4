"""hypergl-compiler: record, store, inspect and verify HyperGL bytecode. Pure Python.

Record with :class:`CommandBuffer` (and :class:`SceneCompiler` for loops,
conditions, switches and ``@subroutine``), store with :mod:`.hgb`, check with
:func:`verify`, read with :func:`dis` and write text back with :func:`asm`.
A runtime binds its own objects to resource operands through the
:class:`ResourceResolver` protocol (``CommandBuffer(resolver=...)``).
"""

from __future__ import annotations

from . import hgb, isa
from .assembler import asm
from .builder import (
    REGISTERS,
    CommandBuffer,
    Label,
    Reg,
    r0,
    r1,
    r2,
    r3,
    r4,
    r5,
    r6,
    r7,
)
from .disasm import dis
from .dsl import SceneCompiler, Switch, subroutine
from .errors import ArgumentError, CompileError, HGBError, HyperGLError, VerifyError
from .program import Constant, Program, Resource, Subroutine
from .resource_table import ResourceHandle, ResourceResolver, ResourceTable
from .verify import verify, verify_parts

__version__ = "0.2.0"

__all__ = [
    "REGISTERS",
    "ArgumentError",
    "CommandBuffer",
    "CompileError",
    "Constant",
    "HGBError",
    "HyperGLError",
    "Label",
    "Program",
    "Reg",
    "Resource",
    "ResourceHandle",
    "ResourceResolver",
    "ResourceTable",
    "SceneCompiler",
    "Subroutine",
    "Switch",
    "VerifyError",
    "asm",
    "dis",
    "hgb",
    "isa",
    "r0",
    "r1",
    "r2",
    "r3",
    "r4",
    "r5",
    "r6",
    "r7",
    "subroutine",
    "verify",
    "verify_parts",
]
