"""`hypergl` / `python -m hypergl`: command-line entry."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import HyperGLError


def _info(_args: argparse.Namespace) -> int:
    from .probe import probe

    caps = probe()
    print(f"hypergl {__version__}")
    print(f"OpenGL    {caps.version} ({'core' if caps.core_profile else 'compat'} profile)")
    print(f"renderer  {caps.renderer}")
    print(f"vendor    {caps.vendor}")
    print(f"GLSL      {caps.glsl_version}")
    print("features")
    for name, present in caps.features().items():
        print(f"  {name:<22} {'yes' if present else 'no'}")
    print("limits")
    for name, value in sorted(caps.limits.items()):
        print(f"  {name:<36} {value}")
    print(f"extensions: {len(caps.extensions)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hypergl", description=__doc__)
    parser.add_argument("--version", action="version", version=f"hypergl {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("info", help="print the OpenGL version, features and limits")
    commands.add_parser("demo", help="the physics-to-render demo (see: hypergl demo --help)",
                        add_help=False)  # fmt: skip
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["demo"]:  # the demo parses its own options
        from .demo import main as demo_main

        return demo_main(argv[1:])
    args = parser.parse_args(argv)
    handlers = {"info": _info}
    try:
        return handlers[args.command](args)
    except HyperGLError as exc:
        print(f"hypergl: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
