"""The ``hgb`` command: ``hgb info|dis|verify FILE``.

Exit status: 0 ok, 1 invalid input (one line on stderr, no traceback), 2 usage.
Works without a GPU: it only reads files and runs the Python verifier.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

from . import __version__, hgb
from .disasm import dis
from .errors import HGBError, HyperGLError
from .program import Program
from .verify import verify


def _read(path: str) -> tuple[hgb.FileInfo, Program]:
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size  # read(n) would allocate n bytes first
        if size > hgb.MAX_FILE_SIZE:
            raise HGBError(f"file of {size} bytes exceeds the limit of {hgb.MAX_FILE_SIZE}", 0)
        data = f.read(size + 1)
    if len(data) > hgb.MAX_FILE_SIZE:
        raise HGBError(f"file exceeds the limit of {hgb.MAX_FILE_SIZE} bytes", hgb.MAX_FILE_SIZE)
    return hgb.inspect(data, memory_limit=INSPECT_ONLY)


# Reading a file to show or verify it makes none of its resources: no memory limit.
INSPECT_ONLY = 1 << 62


def _info(path: str, info: hgb.FileInfo, program: Program) -> str:
    kinds = Counter(r.kind.name.lower() for r in program.resources)
    linked = program.linked
    lines = [
        f"file:         {path}",
        f"format:       .hgb {info.version[0]}.{info.version[1]}, {info.size} bytes, "
        f"crc32 0x{info.crc:08x}",
        "kind:         " + (f"linked (binds: {', '.join(linked)})" if linked else "self-contained"),
        f"instructions: {program.instruction_count}",
        f"constants:    {len(program.constants)}",
        f"resources:    {len(program.resources)}"
        + (f" ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})" if kinds else ""),
    ]
    for slot, r in enumerate(program.resources):
        keys = ", ".join(sorted(r.desc))
        lines.append(f"  [{slot}] {r.kind.name.lower():<11} {r.name}  {{{keys}}}")
    lines.append(f"subroutines:  {len(program.subroutines)}")
    for sub in program.subroutines:
        lines.append(f"  {sub.name} @ {sub.entry}")
    lines.append(f"labels:       {len(program.labels)}")
    for key, value in program.metadata.items():
        lines.append(f"meta:         {key} = {value}")
    names = ", ".join(
        f"{hgb.SECTION_NAMES.get(i, f'#{i}')} {length}B" for i, _o, length in info.sections
    )
    lines.append(f"sections:     {names}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hgb", description="Inspect HyperGL .hgb programs.")
    format_version = ".".join(map(str, hgb.VERSION))
    parser.add_argument(
        "--version",
        action="version",
        version=f"hgb {__version__} (hypergl-compiler; writes .hgb {format_version}, "
        "or 1.1 for a program without its new ops)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in (
        ("info", "summarise the header, resources and sections"),
        ("dis", "disassemble to the text format that asm() reads"),
        ("verify", "run the structural verifier"),
    ):
        commands.add_parser(name, help=text).add_argument("file", metavar="FILE")
    args = parser.parse_args(argv)
    try:
        info, program = _read(args.file)
        if args.command == "info":
            print(_info(args.file, info, program))
        elif args.command == "dis":
            sys.stdout.write(dis(program))
        else:
            verify(program)
            print(f"{args.file}: ok ({program.instruction_count} instructions)")
    except BrokenPipeError:  # `hgb dis FILE | head`: the reader left, that is fine
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except (HyperGLError, OSError) as exc:  # the root of every HyperGL error: one line
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"hgb: {args.file}: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
