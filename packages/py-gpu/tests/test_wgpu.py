"""The wgpu (WebGPU) backend: its adapter, its persistent buffers, and unavailability."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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
    if "cffi's libffi calls went to" in reason:  # an older system libffi (Debian 11's)
        pytest.skip(reason)
    assert available == "False"
    assert "no Vulkan, Metal or D3D12 adapter" in reason and "mesa-vulkan-drivers" in reason
    assert fell_back == "True"


def test_a_libffi_clash_names_the_shared_libffi():
    # cffi's message when its libffi calls reach an older shared libffi (Debian 11's
    # libffi.so.7, loaded globally by Mesa 20.3's llvmpipe through LLVM 11).
    pytest.importorskip("wgpu")
    import ctypes  # noqa: F401  (its _ctypes maps the system's shared libffi)

    from py_gpu.backends.wgpu_backend import listing_failed

    error = SystemError("ffi_prep_closure(): bad user_data (it seems that the version of the "
                        "libffi library seen at runtime is different from the 'ffi.h' file "
                        "seen at compile-time)")  # fmt: skip
    reason = listing_failed(error)
    assert reason.startswith("wgpu cannot list adapters: SystemError: ffi_prep_closure()")
    if "libffi.so" not in Path("/proc/self/maps").read_text(encoding="utf-8"):
        pytest.skip("no shared libffi in this process (CPython's _ctypes links it statically)")
    assert "cffi's libffi calls went to /" in reason and "libffi.so" in reason
    assert "makes no OpenGL context before it" in reason
    assert listing_failed(RuntimeError("no adapter")) == (
        "wgpu cannot list adapters: RuntimeError: no adapter"
    )
