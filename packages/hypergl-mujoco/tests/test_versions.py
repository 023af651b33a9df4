"""hypergl_mujoco runs on the MuJoCo it finds (>=3.5,<5) and refuses any other at import,
naming the version found and the range needed; it depends on no MuJoCo distribution.

``tools/dev.py mujoco-matrix`` runs this file on MuJoCo 3.4.0 too (its ``below`` leg),
where the import must fail: the tests that need the package imported skip there."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import mujoco
import pytest

SUPPORTED = ">=3.5.0,<5"


def installed_is_supported() -> bool:
    major, minor = (int(part) for part in mujoco.__version__.split(".")[:2])
    return (3, 5) <= (major, minor) < (5, 0)


needs_supported = pytest.mark.skipif(
    not installed_is_supported(), reason=f"MuJoCo {mujoco.__version__} is below the floor"
)


def test_import_checks_the_installed_mujoco():
    result = subprocess.run([sys.executable, "-c", "import hypergl_mujoco"],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    if installed_is_supported():
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode != 0
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("hypergl_mujoco.errors.MujocoVersionError: "), last
        assert f"found mujoco {mujoco.__version__}" in last and SUPPORTED in last, last
        assert "pip install" in last, last  # and how to get a supported one


@needs_supported
@pytest.mark.parametrize("version", ["3.3.7", "3.4.0", "2.3.7", "5.0.0", "10.1"])
def test_versions_outside_the_range_are_refused(version):
    from hypergl_mujoco import MujocoVersionError, versions

    expected = rf"needs MuJoCo {SUPPORTED}, found mujoco {version} "
    with pytest.raises(MujocoVersionError, match=expected):
        versions.check(version)


@needs_supported
@pytest.mark.parametrize("version", ["3.5.0", "3.17.0", "4.0.1", "4.2"])
def test_versions_inside_the_range_pass(version):
    from hypergl_mujoco import versions

    assert versions.check(version) == versions.parse(version)


@needs_supported
def test_an_unreadable_version_is_refused():
    from hypergl_mujoco import MujocoVersionError, versions

    with pytest.raises(MujocoVersionError, match="cannot read MuJoCo's version 'unknown'"):
        versions.check("unknown")


@needs_supported
def test_the_error_is_an_import_error_and_a_hypergl_error():
    import hypergl
    from hypergl_mujoco import MujocoVersionError

    assert issubclass(MujocoVersionError, ImportError)
    assert issubclass(MujocoVersionError, hypergl.HyperGLError)


@needs_supported
def test_no_mujoco_distribution_is_required():
    """Requiring `mujoco` or `mujoco-core` would let pip install it over the other (both
    write mujoco/): each is an extra, with the range the import check enforces."""
    requires = [r.replace("'", '"') for r in metadata.requires("hypergl-mujoco") or []]
    plain = [r for r in requires if "extra ==" not in r]
    assert not [r for r in plain if r.split(">")[0].split("=")[0].strip() in
                ("mujoco", "mujoco-core")], plain  # fmt: skip
    assert any(r.startswith("mujoco<5,>=3.5") and 'extra == "mujoco"' in r for r in requires)
    assert any(r.startswith("mujoco-core<5,>=4") and 'extra == "core"' in r for r in requires)


@needs_supported
def test_the_batch_is_optional():
    """``mujoco.batch.Batch`` came with MuJoCo 3.17: before it the renderer takes MjData."""
    from hypergl_mujoco import renderer, versions

    has_batch = versions.parse(mujoco.__version__) >= (3, 17, 0)
    assert (renderer.BATCH is not None) == has_batch
