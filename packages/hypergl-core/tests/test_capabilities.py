"""Capabilities come from version and extension strings, never from function pointers."""

from __future__ import annotations

from hypergl import Capabilities


def make(major: int, minor: int, extensions: tuple[str, ...] = ()) -> Capabilities:
    return Capabilities.from_probe(
        {
            "version": f"{major}.{minor}",
            "renderer": "test",
            "vendor": "test",
            "glsl_version": "4.50",
            "major": major,
            "minor": minor,
            "core_profile": True,
            "extensions": list(extensions),
            "limits": {"max_texture_size": 16384},
        }
    )


def test_gl45_without_extensions():
    caps = make(4, 5)
    assert caps.multi_draw_indirect and caps.storage_buffers and caps.compute
    assert caps.buffer_storage and caps.direct_state_access and caps.fp64
    assert not caps.indirect_count
    assert not caps.bindless_textures


def test_indirect_count_from_version_or_extension():
    assert make(4, 6).indirect_count
    assert make(4, 5, ("GL_ARB_indirect_parameters",)).indirect_count


def test_bindless_only_from_extension():
    assert not make(4, 6).bindless_textures
    assert make(4, 6, ("GL_ARB_bindless_texture",)).bindless_textures


def test_gl33_lacks_compute_and_mdi():
    caps = make(3, 3)
    assert not (caps.compute or caps.multi_draw_indirect or caps.storage_buffers)
    assert not caps.fp64


def test_features_lists_every_flag():
    assert set(make(4, 5).features()) == {
        "compute",
        "storage_buffers",
        "multi_draw_indirect",
        "indirect_count",
        "buffer_storage",
        "direct_state_access",
        "bindless_textures",
        "fp64",
    }
