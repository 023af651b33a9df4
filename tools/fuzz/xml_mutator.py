"""Structure-aware mutation of XML documents (MJCF models, URDF robots), for the fuzz targets.

A byte flip in an XML file mostly breaks its syntax, and the parser refuses it before any
code of ours runs. So a mutation here works on the parsed tree: one attribute's numbers set
to a value at the edge of what the checks bound (0, -1, 1e-30, 1e38, 1e300, nan, inf, a
large count), an attribute from the target's vocabulary added to an element, an element
deleted, duplicated, or moved first among its siblings (a URDF's joints child-first), a
reference (a joint's parent, a geom's mesh) pointed at another name, or a prolog added (an
entity declaration, a DOCTYPE). The tree is written back, so that most cases parse and
reach the loader. An input that does not parse gets libFuzzer's own byte mutation.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence

Mutate = Callable[[bytes, int], bytes]  # libFuzzer's byte mutator: (data, max_size)

NUMBERS = ("0", "-1", "1", "0.5", "1e-30", "-1e-30", "1e18", "1e38", "-1e38", "1e300", "nan",
           "inf", "-inf", "4000", "65535", "3", "2 2", "0 0 0", "1 1 1", "1e38 0 0",
           "0 0 1e300", "nan nan nan", "1 0 0 0", "0 0 0 0")  # fmt: skip
PROLOGS = (
    '<!DOCTYPE robot [<!ENTITY a "' + "x" * 64 + '">]>',
    '<!DOCTYPE robot [<!ENTITY % p "x">]>',
    '<!DOCTYPE robot [<!ENTITY e SYSTEM "/etc/passwd">]>',
    "<!DOCTYPE robot>",
    "<?xml version='1.0' encoding='utf-8'?>",
)


class Vocabulary:
    """What a target's documents are made of: attributes worth setting per tag, attributes
    that name another element (their values drawn from the names in use), and values
    worth trying for some attributes (a geom's type, a mesh's file name)."""

    def __init__(self, attributes: Mapping[str, Sequence[str]], references: Sequence[str],
                 values: Mapping[str, Sequence[str]] | None = None) -> None:  # fmt: skip
        self.attributes = attributes
        self.references = references
        self.values = values or {}


def _value(rng: random.Random, key: str, old: str | None, words: Vocabulary) -> str:
    if key in words.values and rng.random() < 0.7:
        return rng.choice(list(words.values[key]))
    if old is not None and rng.random() < 0.3:  # scale what is there
        parts = old.split()
        at = rng.randrange(len(parts)) if parts else 0
        if parts:
            parts[at] = rng.choice(NUMBERS).split()[0]
            return " ".join(parts)
    return rng.choice(NUMBERS)


def mutate_tree(rng: random.Random, root: ET.Element, words: Vocabulary) -> None:
    elements = list(root.iter())
    node = rng.choice(elements)
    parents = {child: parent for parent in elements for child in parent}
    action = rng.randrange(6)
    if action == 0 and node.attrib:  # one attribute's numbers
        key = rng.choice(sorted(node.attrib))
        node.set(key, _value(rng, key, node.get(key), words))
    elif action == 1:  # an attribute of the vocabulary
        names = words.attributes.get(node.tag) or [n for v in words.attributes.values()
                                                   for n in v]  # fmt: skip
        key = rng.choice(list(names))
        node.set(key, _value(rng, key, node.get(key), words))
    elif action == 2 and node in parents:  # delete
        parents[node].remove(node)
    elif action == 3 and node in parents:  # duplicate (a second link of one name...)
        parent = parents[node]
        parent.insert(list(parent).index(node), _copy(node))
    elif action == 4 and node in parents:  # first among its siblings
        parent = parents[node]
        parent.remove(node)
        parent.insert(0, node)
    else:  # a reference pointed elsewhere
        names = sorted({e.get("name") for e in elements if e.get("name")})
        holders = [(e, k) for e in elements for k in e.attrib if k in words.references]
        if names and holders:
            holder, key = rng.choice(holders)
            holder.set(key, rng.choice([*names, "missing"]))


def _copy(node: ET.Element) -> ET.Element:
    return ET.fromstring(ET.tostring(node))


def mutate(data: bytes, max_size: int, seed: int, byte_mutate: Mutate,
           words: Vocabulary) -> bytes:  # fmt: skip
    """One structure-aware mutation of the XML document `data` (libFuzzer's custom
    mutator contract)."""
    rng = random.Random(seed)
    text = data.decode("utf-8", "replace")
    prolog, _, body = text.rpartition("]>") if text.startswith("<!DOCTYPE") else ("", "", text)
    try:
        root = ET.fromstring(body)
    except (ET.ParseError, ValueError):
        return bytes(byte_mutate(data, max_size))
    for _ in range(1 + (rng.random() < 0.3) * rng.randrange(1, 4)):  # stacked sometimes
        mutate_tree(rng, root, words)
    head = rng.choice(PROLOGS) if rng.random() < 0.05 else (prolog + "]>" if prolog else "")
    out = (head + ET.tostring(root, encoding="unicode")).encode()
    return out if len(out) <= max_size else data
