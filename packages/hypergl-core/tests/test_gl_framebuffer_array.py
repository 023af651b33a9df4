"""np.asarray(fb) reads the pixels; fb._repr_png_() is the picture Jupyter shows."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from hypergl.png import encode_png


def cleared(ctx, color):
    fb = ctx.framebuffer((6, 4))
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=color)
    cmd.end()
    cmd.submit()
    return fb


@pytest.mark.gl
def test_asarray_reads_the_pixels(gl_ctx):
    fb = cleared(gl_ctx, (1.0, 0.5, 0.0, 1.0))
    pixels = np.asarray(fb)
    assert pixels.shape == (4, 6, 4) and pixels.dtype == np.uint8
    assert pixels[0, 0].tolist() == [255, 128, 0, 255]
    np.testing.assert_array_equal(pixels, fb.read())
    assert np.asarray(fb, dtype=np.float32)[3, 5].tolist() == [255.0, 128.0, 0.0, 255.0]


@pytest.mark.gl
def test_repr_png_is_the_picture(gl_ctx):
    fb = cleared(gl_ctx, (0.0, 0.0, 1.0, 1.0))
    picture = Image.open(io.BytesIO(fb._repr_png_()))
    assert picture.size == (6, 4) and picture.mode == "RGBA"
    np.testing.assert_array_equal(np.asarray(picture), fb.read())


@pytest.mark.gl
def test_repr_png_of_a_released_framebuffer_is_none(gl_ctx):
    fb = gl_ctx.framebuffer((2, 2))
    gl_ctx.release(fb)
    assert fb._repr_png_() is None


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 3), (2, 3, 4)])
def test_encode_png_round_trips(shape):
    image = np.arange(np.prod(shape), dtype=np.uint8).reshape(shape)
    decoded = np.asarray(Image.open(io.BytesIO(encode_png(image))))
    np.testing.assert_array_equal(decoded, image)


def test_encode_png_rejects_bad_images():
    with pytest.raises(TypeError, match="uint8"):
        encode_png(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"shape \(2, 2, 2\)"):
        encode_png(np.zeros((2, 2, 2), np.uint8))
    with pytest.raises(ValueError, match=r"shape \(0, 2\)"):
        encode_png(np.zeros((0, 2), np.uint8))
