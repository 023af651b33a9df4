"""MkDocs hook: pages generated from the code, so they cannot go stale.

``<!-- isa-table -->`` in a page becomes the instruction table of
``hypergl_compiler.isa`` (one row per op: code, mnemonic, operands, meaning, flags).
"""

from __future__ import annotations

from typing import Any

PLACEHOLDER = "<!-- isa-table -->"


def isa_table() -> str:
    from hypergl_compiler import isa

    rows = ["| code | mnemonic | operands | meaning | flags |",
            "| ---: | --- | --- | --- | --- |"]  # fmt: skip
    for op in isa.OPS:
        operands = ", ".join(
            f"{field}: {kind.name.lower()}"
            for field, kind in zip(isa.FIELDS, op.operands, strict=True)
            if kind is not isa.Operand.NONE
        )
        flags = ", ".join(f.name.lower() for f in isa.Flag if f and f in op.flags)
        meaning = op.meaning.replace("|", "\\|")
        rows.append(f"| `0x{op.code:02X}` | `{op.name}` | {operands} | {meaning} | {flags} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if PLACEHOLDER in markdown:
        markdown = markdown.replace(PLACEHOLDER, isa_table())
    return markdown
