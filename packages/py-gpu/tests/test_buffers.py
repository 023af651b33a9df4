"""Frame/depth buffers, PNG (decoded with Pillow) and PPM output."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from py_gpu import DepthBuffer, FrameBuffer
from py_gpu.errors import InvalidColorError, InvalidSizeError, TargetSizeError
from py_gpu.png import FILTERS, encode_png


def _image(width: int, height: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    smooth = np.stack(
        [xx * 255 // max(1, width - 1), yy * 255 // max(1, height - 1), (xx + yy) % 256], 2
    )
    noisy = rng.integers(0, 256, (height, width, 3))
    mixed = np.where((yy % 3 == 0)[:, :, None], noisy, smooth)
    return mixed.astype(np.uint8)


def _filter_types(png: bytes) -> list[int]:
    data, pos = b"", 8
    width = height = 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        if kind == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * 3 + 1
    return [raw[y * stride] for y in range(height)]


@pytest.mark.parametrize("strategy", FILTERS)
@pytest.mark.parametrize("size", [(1, 1), (7, 5), (64, 33)])
def test_png_round_trips_through_pillow(tmp_path, strategy, size):
    expected = _image(*size)
    frame = FrameBuffer.from_numpy(expected)
    path = tmp_path / "out.png"
    frame.to_png(path, filter=strategy)
    with Image.open(path) as image:
        assert image.mode == "RGB" and image.size == size
        assert np.array_equal(np.asarray(image), expected)


def test_adaptive_png_uses_row_filters():
    frame = FrameBuffer.from_numpy(_image(120, 40))
    types = _filter_types(frame.to_png_bytes())
    assert set(types) - {0}, "adaptive filtering should pick filters other than None"
    assert all(t in (0, 1, 2, 3) for t in types)
    assert _filter_types(frame.to_png_bytes(filter="paeth")) == [4] * 40


def test_png_grey_and_rgba():
    grey = np.arange(48, dtype=np.uint8).reshape(6, 8)
    with Image.open(io.BytesIO(encode_png(grey.tobytes(), 8, 6, 1))) as image:
        assert np.array_equal(np.asarray(image), grey)
    rgba = np.random.default_rng(3).integers(0, 256, (5, 4, 4), dtype=np.uint8)
    with Image.open(io.BytesIO(encode_png(rgba.tobytes(), 4, 5, 4))) as image:
        assert image.mode == "RGBA" and np.array_equal(np.asarray(image), rgba)
    with pytest.raises(ValueError, match="needs 60 bytes"):
        encode_png(b"\0" * 10, 4, 5, 3)
    with pytest.raises(ValueError, match="unknown PNG filter"):
        encode_png(b"\0" * 3, 1, 1, 3, filter="best")


def test_ppm_and_basic_pixels(tmp_path):
    frame = FrameBuffer.new(3, 2, (1, 2, 3))
    frame.set_pixel(2, 1, (250, 0, 9))
    frame.set_pixel(5, 5, (1, 1, 1))  # outside: ignored, as in 0.0.1
    assert frame.get_pixel(2, 1) == (250, 0, 9)
    assert frame.to_ppm_bytes().startswith(b"P6\n3 2\n255\n")
    frame.to_ppm(tmp_path / "f.ppm")
    with Image.open(tmp_path / "f.ppm") as image:
        assert image.getpixel((2, 1)) == (250, 0, 9)
    with pytest.raises(IndexError):
        frame.get_pixel(3, 0)
    assert frame.to_numpy().shape == (2, 3, 3)


@pytest.mark.parametrize("size", [(0, 4), (4, -1), (2.5, 3), ("3", 3), (True, 2)])
def test_bad_sizes(size):
    with pytest.raises(InvalidSizeError):
        FrameBuffer.new(*size)
    with pytest.raises(InvalidSizeError):
        DepthBuffer.new(*size)


@pytest.mark.parametrize("color", [(256, 0, 0), (-1, 0, 0), (0, 0), (0, float("nan"), 0), "red"])
def test_bad_colours(color):
    with pytest.raises(InvalidColorError):
        FrameBuffer.new(2, 2, color)


def test_wrong_pixel_count():
    with pytest.raises(TargetSizeError):
        FrameBuffer(2, 2, bytearray(5))
    with pytest.raises(TargetSizeError):
        DepthBuffer(2, 2, [0.0])


def test_depth_buffer():
    depth = DepthBuffer.new(3, 2)
    assert depth.get(1, 1) == float("inf")
    depth.values[4] = 0.5
    assert depth.to_numpy()[1, 1] == 0.5
    depth.clear(2.0)
    assert set(depth.values) == {2.0}


def test_frame_is_an_array_and_a_picture():
    frame = FrameBuffer.new(3, 2, (10, 20, 30))
    frame.set_pixel(2, 1, (255, 0, 7))
    array = np.asarray(frame)
    assert array.shape == (2, 3, 3) and array.dtype == np.uint8
    assert array[1, 2].tolist() == [255, 0, 7] and array[0, 0].tolist() == [10, 20, 30]
    array[0, 0] = (1, 2, 3)  # a view: no copy unless asked
    assert frame.get_pixel(0, 0) == (1, 2, 3)
    copied = np.array(frame, copy=True)
    copied[0, 0] = 0
    assert frame.get_pixel(0, 0) == (1, 2, 3)
    assert np.asarray(frame, dtype=np.float32)[1, 2].tolist() == [255.0, 0.0, 7.0]
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":  # NumPy 1's copy=False may copy
        with pytest.raises(ValueError, match="without a copy"):
            np.array(frame, dtype=np.float32, copy=False)
    # _repr_png_ is what Jupyter displays
    picture = Image.open(io.BytesIO(frame._repr_png_()))
    assert picture.size == (3, 2)
    assert np.asarray(picture.convert("RGB")).tolist() == array.tolist()
