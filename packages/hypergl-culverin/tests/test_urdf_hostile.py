"""URDF files written by a hostile hand (issue 36, items 5, 6 and 10): a long chain listed
child-first plans in one pass over its links, an entity declaration is refused before it
can expand, and a mesh path outside the allowed folders is refused with one message that
says neither where a link points nor whether a file exists there."""

from __future__ import annotations

from pathlib import Path

import pytest

from hypergl_culverin import UrdfError, urdf

pytest.importorskip("culverin")
pytestmark = pytest.mark.culverin
TETRA_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def chain(path: Path, links: int, *, child_first: bool) -> Path:
    """A chain l0 - l1 - ... of bare links; its joints listed from the last child up."""
    order = range(links - 1, 0, -1) if child_first else range(1, links)
    joints = "".join(f'<joint name="j{k}" type="fixed"><parent link="l{k - 1}"/>'
                     f'<child link="l{k}"/><origin xyz="0 0 0.01"/></joint>'
                     for k in order)  # fmt: skip
    links_xml = "".join(f'<link name="l{k}"/>' for k in range(links))
    path.write_text(f"<robot name='r'>{links_xml}{joints}</robot>")
    return path


# --- item 5: planning is linear in the links ----------------------------------------------------
def test_a_long_child_first_chain_plans_in_one_pass(tmp_path):
    # 30,000 links, 3 MiB: one joint resolved per pass over the rest took minutes.
    path = chain(tmp_path / "chain.urdf", 30_000, child_first=True)
    links, joints = urdf.plan(path, (0, 0, 0), fixed_base=True)
    assert len(links) == 30_000 and len(joints) == 29_999
    by_name = {link.name: link for link in links}
    assert by_name["l29999"].position[2] == pytest.approx(299.99, abs=1e-6)


def test_joints_that_form_a_loop_are_refused(tmp_path):
    path = tmp_path / "loop.urdf"
    path.write_text("<robot name='r'><link name='a'/><link name='b'/><link name='c'/>"
                    "<joint name='bc' type='fixed'><parent link='b'/><child link='c'/></joint>"
                    "<joint name='cb' type='fixed'><parent link='c'/><child link='b'/></joint>"
                    "</robot>")  # fmt: skip
    with pytest.raises(UrdfError, match=r"the joints form a loop \(links \['b', 'c'\]"):
        urdf.plan(path, (0, 0, 0), fixed_base=False)


# --- item 6: no entity declarations -------------------------------------------------------------
@pytest.mark.parametrize(
    "doctype",
    [
        # 90x under expat's 100x amplification guard: 176 MiB of tree for a 32 MiB limit
        '<!DOCTYPE robot [<!ENTITY a "' + "x" * 1000 + '">]>',
        '<!DOCTYPE robot [<!ENTITY % p "x">]>',  # a parameter entity
        '<!DOCTYPE robot [<!ENTITY e SYSTEM "/etc/passwd">]>',  # an external one
    ],
)
def test_an_entity_declaration_is_refused(tmp_path, doctype):
    path = tmp_path / "entity.urdf"
    uses = "&a;" * 90 if "ENTITY a" in doctype else ""
    path.write_text(f"{doctype}<robot name='r'><link name='l'>{uses}</link></robot>")
    with pytest.raises(UrdfError, match=r"declares the entity '%?\w+': a URDF may not "):
        urdf.plan(path, (0, 0, 0), fixed_base=False, memory_limit=32 << 20)


def test_a_doctype_without_entities_and_namespaces_still_read(tmp_path):
    path = tmp_path / "plain.urdf"
    path.write_text("<?xml version='1.0'?><!DOCTYPE robot><robot name='r' "
                    "xmlns:xacro='http://www.ros.org/wiki/xacro'><link name='l'/>"
                    "<xacro:property name='x' value='1'/></robot>")  # fmt: skip
    links, joints = urdf.plan(path, (0, 0, 0), fixed_base=False)
    assert [link.name for link in links] == ["l"] and joints == []


# --- item 10: one refusal for every path outside --------------------------------------------------
def test_a_path_outside_is_refused_alike_whatever_lies_there(bridge, tmp_path):
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "tetra.obj").write_text(TETRA_OBJ)
    folder = tmp_path / "robot"
    folder.mkdir()
    (folder / "link.obj").symlink_to(outside / "tetra.obj")  # exists, outside
    (folder / "dangling.obj").symlink_to(outside / "none.obj")  # does not exist, outside
    names = ["link.obj", "dangling.obj", "../secret/tetra.obj", "../secret/none.obj"]
    messages = []
    for k, name in enumerate(names):
        path = folder / f"{k}.urdf"
        path.write_text(
            "<robot name='r'><link name='l'><visual><geometry>"
            f"<mesh filename='{name}'/></geometry></visual></link></robot>"
        )
        with pytest.raises(UrdfError) as caught:
            bridge.load_urdf(path)
        message = str(caught.value)
        assert str(outside) not in message and "exist" not in message, message
        messages.append(message.replace(repr(name), "NAME"))
    assert len(set(messages)) == 1, messages
    assert "outside the folders meshes are read from" in messages[0]
