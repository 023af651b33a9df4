"""One table per format family: Python's lookups and the C++ header derive from it."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl import format_table, formats
from hypergl_compiler import isa


def test_attachments_are_the_isa_table_inverted():
    assert {index: name for name, index in formats.ATTACHMENTS.items()} == isa.READ_ATTACHMENTS


def test_python_lookups_come_from_the_table():
    assert list(formats.TEXTURE_FORMATS) == [f.name for f in format_table.TEXTURE_FORMATS]
    assert set(formats.COLOR_FORMATS) | set(formats.DEPTH_FORMATS) == set(formats.TEXTURE_FORMATS)
    assert {t.name: t.code for t in format_table.SCALAR_TYPES} == formats.SCALAR_TYPES
    assert {t.name: t.size for t in format_table.SCALAR_TYPES} == formats.SCALAR_SIZES


@pytest.mark.gl
@pytest.mark.parametrize("fmt", [f.name for f in format_table.TEXTURE_FORMATS])
def test_the_gl_device_knows_every_format_of_the_table(gl_ctx, fmt):
    """gl_device's format lookup is generated from the same table (formats_generated.hpp)."""
    spec = next(f for f in format_table.TEXTURE_FORMATS if f.name == fmt)
    if spec.depth:
        fb = gl_ctx.framebuffer((4, 4), color=(), depth=fmt)
        assert fb.size == (4, 4)
        return
    pixels = np.ones((2, 2, spec.channels), np.dtype(spec.dtype))
    texture = gl_ctx.texture(pixels, format=fmt)
    assert texture.size == (2, 2)


def test_an_unknown_format_is_refused_by_name():
    ctx = hypergl.context(device="trace")
    with pytest.raises(ValueError, match="unknown texture format 'rgb565'"):
        ctx.texture(size=(2, 2), format="rgb565")
