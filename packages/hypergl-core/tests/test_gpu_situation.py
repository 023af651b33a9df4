"""Errors and `hypergl info` name the GPU situation: glvnd's vendors, the container's
variables, which device was chosen and whether it renders in software."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import hypergl
from hypergl import gpu_situation
from hypergl.gpu_situation import Situation, VendorFile


@pytest.mark.gl
def test_require_hardware_refuses_a_software_rasterizer():
    renderer = hypergl.context().capabilities.renderer
    if not gpu_situation.is_software(renderer):
        pytest.skip(f"this machine renders on hardware ({renderer})")
    with pytest.raises(hypergl.ContextError, match=r"require_hardware=True.*renders in software"):
        hypergl.context(require_hardware=True)


def test_require_hardware_must_be_a_bool():
    with pytest.raises(TypeError, match="require_hardware must be True or False, got 'yes'"):
        hypergl.context(require_hardware="yes")


def test_a_container_without_graphics_capability_is_named(monkeypatch):
    monkeypatch.setenv("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")
    hints = gpu_situation.situation().hints()
    assert any("has no 'graphics'" in hint for hint in hints), hints
    monkeypatch.setenv("NVIDIA_DRIVER_CAPABILITIES", "all")
    assert not any("graphics" in hint for hint in gpu_situation.situation().hints())


def test_an_nvidia_gpu_without_its_vendor_file_is_named():
    mesa = VendorFile("/usr/share/glvnd/egl_vendor.d/50_mesa.json", "libEGL_mesa.so.0")
    mesa_only = Situation(vendor_files=(mesa,), nvidia_nodes=True)
    assert any("no NVIDIA EGL vendor file" in hint for hint in mesa_only.hints())
    with_nvidia = Situation(vendor_files=(VendorFile("/usr/share/glvnd/egl_vendor.d/"
                                                     "10_nvidia.json", "libEGL_nvidia.so.0"),),
                            nvidia_nodes=True)  # fmt: skip
    assert with_nvidia.hints() == []


def test_vendor_files_follow_glvnd_variables(monkeypatch, tmp_path):
    vendor = tmp_path / "20_custom.json"
    vendor.write_text(json.dumps({"file_format_version": "1.0.0",
                                  "ICD": {"library_path": "libEGL_custom.so.0"}}))  # fmt: skip
    monkeypatch.setenv("__EGL_VENDOR_LIBRARY_FILENAMES", str(vendor))
    found = gpu_situation.situation()
    assert found.vendor_files == (VendorFile(str(vendor), "libEGL_custom.so.0"),)
    assert "20_custom.json (libEGL_custom.so.0)" in gpu_situation.explain()
    monkeypatch.delenv("__EGL_VENDOR_LIBRARY_FILENAMES")
    monkeypatch.setenv("__EGL_VENDOR_LIBRARY_DIRS", str(tmp_path / "none"))
    assert any("no EGL vendor at all" in h for h in gpu_situation.situation().hints())


@pytest.mark.gl
def test_info_prints_the_situation_and_the_chosen_renderer():
    out = subprocess.run([sys.executable, "-m", "hypergl", "info"], capture_output=True,
                         text=True, timeout=120, check=True).stdout  # fmt: skip
    assert "EGL vendor files (glvnd)" in out and "NVIDIA device nodes:" in out
    assert "the device hypergl.context() chose" in out
