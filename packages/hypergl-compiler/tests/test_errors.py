"""The root of every HyperGL exception lives here, in the lowest distribution."""

from __future__ import annotations

import pytest

import hypergl_compiler
from hypergl_compiler import ArgumentError, CompileError, HGBError, HyperGLError, VerifyError


@pytest.mark.parametrize("error", [ArgumentError, CompileError, VerifyError, HGBError])
def test_every_compiler_error_is_a_hypergl_error_and_still_a_value_error(error):
    assert issubclass(error, HyperGLError) and issubclass(error, ValueError)


def test_the_root_is_an_exception_and_nothing_more():
    assert HyperGLError.__bases__ == (Exception,)
    assert "HyperGLError" in hypergl_compiler.__all__


def test_a_bad_recording_is_caught_by_the_root():
    with pytest.raises(HyperGLError, match="instruction 0"):
        hypergl_compiler.verify(hypergl_compiler.Program(code=b"\xff" * 16))
