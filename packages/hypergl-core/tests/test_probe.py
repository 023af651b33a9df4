"""The capability probe on the machine's real OpenGL (llvmpipe here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hypergl

pytestmark = pytest.mark.gl


def test_probe_reports_a_modern_core_context():
    caps = hypergl.probe()
    assert caps.at_least(4, 3), caps.version
    assert caps.core_profile
    assert caps.version and caps.renderer and caps.glsl_version
    assert len(caps.extensions) > 50


def test_probe_reports_the_features_every_program_needs():
    caps = hypergl.probe()
    assert caps.storage_buffers
    assert caps.multi_draw_indirect
    assert caps.buffer_storage
    assert caps.compute


def test_probe_reads_limits():
    caps = hypergl.probe()
    assert caps.limits["max_texture_size"] >= 4096
    assert caps.limits["max_shader_storage_buffer_bindings"] >= 8
    assert caps.limits["max_compute_work_group_count_x"] >= 65535


def test_bindless_is_reported_from_the_extension_string_only():
    caps = hypergl.probe()
    assert caps.bindless_textures == ("GL_ARB_bindless_texture" in caps.extensions)


def test_info_command_prints_version_and_features():
    out = subprocess.run(
        [sys.executable, "-m", "hypergl", "info"], capture_output=True, text=True, check=True
    ).stdout
    assert "OpenGL" in out and "multi_draw_indirect" in out and "max_texture_size" in out
    assert "EGL devices\n  #0: " in out  # each device hypergl.context(device_index=...) opens
