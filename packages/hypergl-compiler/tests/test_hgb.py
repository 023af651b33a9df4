""".hgb files: exact round trips, self-contained and linked files, versions, bad input."""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypergl_compiler import (
    CommandBuffer,
    CompileError,
    Constant,
    HGBError,
    Program,
    Resource,
    Subroutine,
    hgb,
    verify,
)
from hypergl_compiler.isa import ConstKind, ResourceKind


def fix_crc(data: bytes) -> bytes:
    crc = zlib.crc32(data[28:], zlib.crc32(data[:24]))
    return data[:24] + struct.pack("<I", crc) + data[28:]


def section(data: bytes, ident: int) -> tuple[int, int]:
    """(offset, length) of a section, from the table."""
    count = struct.unpack_from("<I", data, 20)[0]
    for i in range(count):
        sid, offset, length, _ = struct.unpack_from("<IIII", data, 32 + 16 * i)
        if sid == ident:
            return offset, length
    raise KeyError(ident)


def test_round_trip_is_exact(scene):
    data = hgb.dumps(scene)
    loaded = hgb.loads(data)
    assert loaded == scene
    assert hgb.dumps(loaded) == data
    verify(loaded)


def test_save_and_load_files(scene, tmp_path):
    path = tmp_path / "scene.hgb"
    hgb.save(scene, path)
    assert hgb.load(path) == scene
    assert path.read_bytes()[:8] == hgb.MAGIC


def test_dumps_accepts_an_ended_command_buffer():
    cmd = CommandBuffer()
    cmd.draw(3)
    cmd.end()
    assert hgb.loads(hgb.dumps(cmd)) == cmd.program
    with pytest.raises(TypeError):
        hgb.dumps("not a program")


def test_self_contained_file_carries_full_descriptions(scene):
    loaded = hgb.loads(hgb.dumps(scene))
    by_name = {r.name: r for r in loaded.resources}
    assert by_name["vbo"].desc["data"] == bytes(range(64))  # a binary blob, not text
    assert by_name["albedo"].desc["format"] == "rgba8"
    assert "void main()" in by_name["main"].desc["vertex_shader"]
    assert by_name["main"].desc["vertex_layout"][0]["format"] == "vec3"
    assert bytes(range(64)) in hgb.dumps(scene)


def test_linked_file_names_resources_to_bind(build_scene):
    program = build_scene()
    data = hgb.dumps(program, linked=["main", "vbo"])
    loaded = hgb.loads(data)
    by_name = {r.name: r for r in loaded.resources}
    assert by_name["main"].desc == {"linked": True}
    assert by_name["vbo"].desc == {"linked": True, "size": 64}  # the verifier needs the size
    assert set(loaded.linked) == {"main", "vbo", "world"}
    assert struct.unpack_from("<I", data, 12)[0] & hgb.FLAG_LINKED
    verify(loaded)
    everything = hgb.loads(hgb.dumps(program, linked=True))
    assert len(everything.linked) == len(program.resources)
    with pytest.raises(CompileError, match="nope"):
        hgb.dumps(program, linked=["nope"])


def test_self_contained_flag_is_clear():
    cmd = CommandBuffer()
    cmd.buffer("b", size=4)
    data = hgb.dumps(cmd.end())
    assert struct.unpack_from("<I", data, 12)[0] == 0


def test_older_minor_loads(scene):
    sections = [s for s in hgb._sections(scene, list(scene.resources)) if s[0] != hgb.METADATA]
    data = hgb._assemble(sections, hgb.FLAG_LINKED, version=(1, 0))
    loaded = hgb.loads(data)
    assert loaded.code == scene.code and dict(loaded.metadata) == {}


def test_newer_minor_loads_and_skips_unknown_sections(scene):
    sections = [*hgb._sections(scene, list(scene.resources)), (42, b"future")]
    data = hgb._assemble(sections, hgb.FLAG_LINKED, version=(1, 9))
    assert hgb.loads(data) == scene


@pytest.mark.parametrize("major", [0, 2, 65535])
def test_other_major_is_refused_naming_both_versions(scene, major):
    data = bytearray(hgb.dumps(scene))
    struct.pack_into("<HH", data, 8, major, 3)
    with pytest.raises(HGBError) as info:
        hgb.loads(fix_crc(bytes(data)))
    assert f"{major}.3" in str(info.value) and "1.2" in str(info.value)
    assert info.value.offset == 8


# ---------------------------------------------------------------- specific defects
def test_truncated_header():
    with pytest.raises(HGBError, match="truncated") as info:
        hgb.loads(hgb.MAGIC + b"\x01")
    assert info.value.offset == 9


@pytest.mark.parametrize("data", [b"PK", b"hello\n", b"#!/bin/sh\necho hi\n"])
def test_a_short_file_of_another_kind_is_not_a_hgb_file(data):
    # the magic is checked before the length: not "truncated"
    with pytest.raises(HGBError, match=r"not a \.hgb file") as info:
        hgb.loads(data)
    assert info.value.offset == 0


def test_a_prefix_of_the_magic_is_truncated():
    with pytest.raises(HGBError, match="truncated: 4 bytes"):
        hgb.loads(hgb.MAGIC[:4])


def test_wrong_magic(scene):
    with pytest.raises(HGBError, match=r"not a \.hgb file") as info:
        hgb.loads(b"PK\x03\x04" + hgb.dumps(scene)[4:])
    assert info.value.offset == 0


def test_truncated_and_oversized_files(scene):
    data = hgb.dumps(scene)
    with pytest.raises(HGBError, match="truncated") as info:
        hgb.loads(data[:-1])
    assert info.value.offset == 16
    with pytest.raises(HGBError, match="oversized"):
        hgb.loads(data + b"\x00")


def test_corruption_is_caught_by_the_checksum(scene):
    data = bytearray(hgb.dumps(scene))
    data[len(data) // 2] ^= 0x40
    with pytest.raises(HGBError, match="checksum") as info:
        hgb.loads(bytes(data))
    assert info.value.offset == 24


def test_absurd_count_is_refused_before_allocating(scene):
    data = bytearray(hgb.dumps(scene))
    offset, _ = section(bytes(data), hgb.RESOURCES)
    struct.pack_into("<I", data, offset, 0xFFFFFFFF)
    with pytest.raises(HGBError, match="count 4294967295") as info:
        hgb.loads(fix_crc(bytes(data)))
    assert info.value.offset == offset


def test_absurd_blob_length_is_refused(scene):
    data = bytearray(hgb.dumps(scene))
    offset, _ = section(bytes(data), hgb.CONSTANTS)
    struct.pack_into("<I", data, offset + 8, 0x7FFFFFFF)  # length of constant 0
    with pytest.raises(HGBError, match="runs past") as info:
        hgb.loads(fix_crc(bytes(data)))
    assert info.value.offset == offset + 12


def test_section_outside_the_file(scene):
    data = bytearray(hgb.dumps(scene))
    struct.pack_into("<I", data, 32 + 8, 0xFFFFFFF0)  # length of the first section
    with pytest.raises(HGBError, match="outside") as info:
        hgb.loads(fix_crc(bytes(data)))
    assert info.value.offset == 36


def test_missing_code_section():
    data = hgb._assemble([(hgb.METADATA, struct.pack("<I", 0))], 0)
    with pytest.raises(HGBError, match="no code section"):
        hgb.loads(data)


def test_deep_nesting_is_bounded():
    value = b"\x07\x01\x00\x00\x00" * 40 + b"\x00"  # lists in lists in lists ...
    body = struct.pack("<II", 1, 0) + struct.pack("<I", 1) + b"x" + value
    data = hgb._assemble([(hgb.CODE, b""), (hgb.RESOURCES, body)], 0)
    with pytest.raises(HGBError, match="nested deeper"):
        hgb.loads(data)


def test_bad_utf8_and_unknown_tag():
    bad_name = struct.pack("<III", 1, 0, 2) + b"\xff\xfe" + b"\x08" + struct.pack("<I", 0)
    data = hgb._assemble([(hgb.CODE, b""), (hgb.RESOURCES, bad_name)], 0)
    with pytest.raises(HGBError, match="UTF-8"):
        hgb.loads(data)
    bad_tag = struct.pack("<III", 1, 0, 1) + b"x" + b"\x63"
    data = hgb._assemble([(hgb.CODE, b""), (hgb.RESOURCES, bad_tag)], 0)
    with pytest.raises(HGBError, match="unknown value tag 99"):
        hgb.loads(data)


def test_load_refuses_oversized_files_before_reading(tmp_path, monkeypatch, scene):
    path = tmp_path / "big.hgb"
    hgb.save(scene, path)
    monkeypatch.setattr(hgb, "MAX_FILE_SIZE", 64)
    with pytest.raises(HGBError, match="exceeds") as info:
        hgb.load(path)
    assert info.value.offset == 0


def test_writer_refuses_what_the_reader_would():
    dup = Program(code=b"", resources=(Resource(0, "a", {"size": 1}), Resource(1, "a", {})))
    with pytest.raises(CompileError, match="'a' appears twice"):
        hgb.dumps(dup)
    with pytest.raises(CompileError, match="NUL"):
        hgb.dumps(Program(code=b"", labels={0: "a\x00b"}))
    with pytest.raises(CompileError, match="nan"):
        hgb.dumps(Program(code=b"", resources=(Resource(1, "t", {"x": float("nan")}),)))


# ---------------------------------------------------------------- generated programs
names = st.from_regex(r"[a-z_][a-z0-9_.]{0,8}", fullmatch=True)
json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.binary(max_size=16),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def programs(draw) -> Program:
    n = draw(st.integers(0, 12))
    code = draw(st.binary(min_size=16 * n, max_size=16 * n))
    constants = draw(
        st.lists(st.builds(Constant, st.sampled_from(list(ConstKind)), st.binary(max_size=24)),
                 max_size=4)
    )  # fmt: skip
    resource_names = draw(st.lists(names, unique=True, max_size=4))
    resources = []
    for name in resource_names:
        kind = draw(st.sampled_from(list(ResourceKind)))
        desc = draw(st.dictionaries(st.text(max_size=6), json_like, max_size=4))
        if kind is ResourceKind.BUFFER:
            desc["size"] = draw(st.integers(0, 2**32 - 1))
        if draw(st.booleans()):
            desc["linked"] = True
        resources.append(Resource(kind, name, desc))
    subs = draw(st.lists(st.builds(Subroutine, names, st.integers(0, 2**32 - 1)), max_size=3))
    labels = draw(st.dictionaries(st.integers(0, n), names, max_size=4))
    metadata = draw(st.dictionaries(st.text(max_size=6), st.text(max_size=12), max_size=3))
    return Program(code, tuple(constants), tuple(resources), tuple(subs), labels, metadata)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_round_trip_property(program):
    data = hgb.dumps(program)
    # The format round trip, not the load limit: random buffers may declare up to 4 GiB
    # each (a limit only counts declared sizes; nothing is allocated here).
    loaded = hgb.loads(data, memory_limit=1 << 48)
    assert loaded == program
    assert hgb.dumps(loaded) == data


# ---------------------------------------------------------------- mutation fuzz
def _seeds(build_scene) -> list[bytes]:
    small = CommandBuffer()
    small.buffer("b", size=8, data=b"12345678")
    small.draw(3)
    return [
        hgb.dumps(build_scene()),
        hgb.dumps(build_scene(), linked=True),
        hgb.dumps(small.end()),
    ]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    choice = rng.randrange(5)
    if choice == 0:  # flip bytes
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    elif choice == 1:  # random byte values
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] = rng.randrange(256)
    elif choice == 2:  # truncate
        del out[rng.randrange(len(out)) :]
    elif choice == 3:  # rewrite a length, count or offset with an absurd or off-by-one value
        at = rng.randrange(0, max(1, len(out) - 4)) & ~3
        old = struct.unpack_from("<I", out, at)[0] if at + 4 <= len(out) else 0
        value = rng.choice([0, 1, old + 1, old - 1, len(data), 0x7FFFFFFF, 0xFFFFFFFF])
        struct.pack_into("<I", out, at, value & 0xFFFFFFFF)
    else:  # append garbage
        out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    result = bytes(out)
    if len(result) >= 28 and rng.random() < 0.7:  # keep the checksum right: reach the parser
        if len(result) >= 20 and rng.random() < 0.5:
            result = result[:16] + struct.pack("<I", len(result)) + result[20:]
        result = fix_crc(result)
    return result


def test_mutation_fuzz_only_hgb_errors_escape(build_scene):
    rng = random.Random(20261130)
    seeds = _seeds(build_scene)
    outcomes = {"loaded": 0, "rejected": 0}
    for _ in range(6000):
        data = _mutate(rng, rng.choice(seeds))
        try:
            program = hgb.loads(data)
        except HGBError as err:
            assert isinstance(err.offset, int) and 0 <= err.offset <= max(len(data), 32)
            assert str(err.offset) in str(err)
            outcomes["rejected"] += 1
        else:
            assert isinstance(program, Program)
            outcomes["loaded"] += 1
    assert outcomes["rejected"] > 3000


@pytest.mark.parametrize("path", [1, 2, 3.0, None, b"scene.hgb"])
def test_paths_must_be_file_names(path):
    # An int would be taken as a file descriptor: hgb.load(1) would read and close stdout.
    with pytest.raises(TypeError, match="expected a file path"):
        hgb.load(path)
    with pytest.raises(TypeError, match="expected a file path"):
        hgb.save(CommandBuffer().end(), path)


# --- loads within limits ------------------------------------------------------------
def four_huge_buffers() -> bytes:
    """A small file whose four buffers ask for 16 GiB (issue 17)."""
    cmd = CommandBuffer()
    for i in range(4):
        cmd.buffer(f"huge{i}", size=(1 << 32) - 1)
    cmd.halt()
    return hgb.dumps(cmd.end())


def test_buffers_over_the_memory_limit_are_refused_naming_the_resource():
    data = four_huge_buffers()
    assert len(data) < 1024
    with pytest.raises(HGBError, match=r"buffer 'huge\d' of 4294967295 bytes .* memory limit"):
        hgb.loads(data)  # the default: at most 4 GiB
    with pytest.raises(HGBError, match="buffer 'huge0' of 4294967295 bytes"):
        hgb.loads(data, memory_limit=1 << 20)
    program = hgb.loads(data, memory_limit=1 << 40)  # raised: reading allocates nothing
    assert [r.size for r in program.resources] == [(1 << 32) - 1] * 4


def test_the_default_memory_limit_follows_the_machine():
    limit = hgb.default_memory_limit()
    assert 1 << 20 <= limit <= 4 << 30


@pytest.mark.parametrize("limit", [0, -1, 2.5, "1GB", True])
def test_a_bad_memory_limit_is_named(limit, tmp_path):
    with pytest.raises(TypeError, match="memory_limit"):
        hgb.loads(four_huge_buffers(), memory_limit=limit)
    path = tmp_path / "huge.hgb"
    path.write_bytes(four_huge_buffers())
    with pytest.raises(TypeError, match="memory_limit"):
        hgb.load(path, memory_limit=limit)
