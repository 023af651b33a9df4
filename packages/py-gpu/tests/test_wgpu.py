"""The wgpu (WebGPU) backend: its adapter, its persistent buffers, and unavailability."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import py_gpu


@pytest.fixture(scope="module")
def wgpu_backend():
    status = py_gpu.available_backends().get("wgpu")
    if status is None or not status.available:
        pytest.skip(f"wgpu unavailable: {status.reason if status else 'not installed'}")
    return py_gpu.select_backend("wgpu")


def test_declares_webgpu(wgpu_backend):
    caps = wgpu_backend.capabilities
    assert caps.api == "webgpu" and caps.accelerated and caps.supports_async_readback
    assert wgpu_backend.adapter_info["backend_type"] in ("Vulkan", "Metal", "D3D12")


def test_persistent_buffers(wgpu_backend, make_batch):
    small = make_batch(np.random.default_rng(1), 10, 64, 48)
    big = make_batch(np.random.default_rng(2), 5000, 64, 48)
    wgpu_backend.render(small, 64, 48)
    uploads, allocations = wgpu_backend.stats["uploads"], wgpu_backend.stats["allocations"]
    for _ in range(3):
        wgpu_backend.render(small, 64, 48)
    assert wgpu_backend.stats["uploads"] == uploads
    for batch in (big, small, big):
        wgpu_backend.render(batch, 64, 48)
    assert wgpu_backend.stats["allocations"] <= allocations + 1
    handle = wgpu_backend.upload(big)
    uploads = wgpu_backend.stats["uploads"]
    expected = py_gpu.select_backend("cpu").render(big, 64, 48).pixels
    for _ in range(3):
        assert wgpu_backend.render(handle, 64, 48).pixels == expected
    assert wgpu_backend.stats["uploads"] == uploads
    handle.release()
    with pytest.raises(ValueError, match="released"):
        wgpu_backend.render(handle, 64, 48)
    with pytest.raises(TypeError, match="RasterBatch"):
        wgpu_backend.upload([big])


def test_odd_sizes_read_back_whole_rows(wgpu_backend, make_batch):
    # Rows of 37 RGBA pixels are padded to 256 bytes in the copy: the padding must not leak.
    batch = make_batch(np.random.default_rng(9), 40, 37, 23)
    cpu = py_gpu.select_backend("cpu")
    assert wgpu_backend.render(batch, 37, 23).pixels == cpu.render(batch, 37, 23).pixels


def test_larger_than_the_device_says_so(wgpu_backend, make_batch):
    from py_gpu.errors import InvalidSizeError

    batch = make_batch(np.random.default_rng(9), 4, 16, 16)
    with pytest.raises(InvalidSizeError, match="40000x8 is larger"):
        wgpu_backend.render(batch, 40000, 8)


def test_without_a_vulkan_adapter_it_is_unavailable_and_auto_falls_back():
    pytest.importorskip("wgpu")
    script = textwrap.dedent(
        """
        import py_gpu
        status = py_gpu.available_backends()["wgpu"]
        print(status.available)
        print(status.reason)
        print(py_gpu.select_backend("auto").name != "wgpu")
        """
    )
    env = dict(os.environ, VK_ICD_FILENAMES="/nonexistent/icd.json",
               VK_DRIVER_FILES="/nonexistent/icd.json")  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    available, reason, fell_back = result.stdout.strip().splitlines()[-3:]
    assert available == "False"
    assert "no Vulkan, Metal or D3D12 adapter" in reason and "mesa-vulkan-drivers" in reason
    assert fell_back == "True"
