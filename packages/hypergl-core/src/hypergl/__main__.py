"""`hypergl` / `python -m hypergl`: command-line entry."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import HyperGLError
from .plugins import installed_commands, load_command

# Where the subcommands that other distributions add come from, for the hint.
_PROVIDERS = {"demo": "hypergl-culverin[demo]"}


def _info(_args: argparse.Namespace) -> int:
    from .devices import devices
    from .gpu_situation import is_software, situation
    from .headless import probe_headless

    print(f"hypergl {__version__}")
    for line in situation().lines():
        print(line)
    where, caps = probe_headless()  # raises ContextError, naming what was found on each path
    egl_error = where.get("egl_error")
    print(f"platform  {where['platform']}" +
          (f" (the fallback: EGL gave no context: {egl_error})" if egl_error else ""))  # fmt: skip
    print("EGL devices")
    try:
        listed = devices()
    except HyperGLError as exc:
        print(f"  none ({exc})")
        listed = []
    for device in listed:
        print(f"  {device}" + ("  [software]" if device.software else ""))
    print(f"OpenGL    {caps.version} ({'core' if caps.core_profile else 'compat'} profile)")
    kind = "software: renders on the CPU" if is_software(caps.renderer) else "hardware"
    print(f"renderer  {caps.renderer} ({kind}; the device hypergl.context() chose)")
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
    commands.add_parser("info", help="print the EGL devices, OpenGL version, features and limits")
    commands.add_parser(
        "play", add_help=False, help="play a .hgb scene headless or in a --window (see --help)"
    )
    plugged = installed_commands()
    for name in plugged:  # each parses its own options: hypergl NAME --help
        commands.add_parser(name, help=f"see: hypergl {name} --help", add_help=False)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["play"]:  # parses its own options
        from .play import main as play_main

        try:
            return play_main(argv[1:])
        except (HyperGLError, OSError) as exc:  # a bad file (unreadable, unverifiable): one line
            print(f"hypergl: error: {exc}", file=sys.stderr)
            return 1
    if argv[:1] and argv[0] in plugged:
        try:
            return int(load_command(argv[0])(argv[1:]) or 0)
        except HyperGLError as exc:  # PluginError, or what the command left uncaught
            print(f"hypergl: error: {exc}", file=sys.stderr)
            return 1
    if argv[:1] and argv[0] in _PROVIDERS:
        print(f"hypergl: error: '{argv[0]}' comes with another distribution: "
              f"pip install '{_PROVIDERS[argv[0]]}'", file=sys.stderr)  # fmt: skip
        return 2
    args = parser.parse_args(argv)
    handlers = {"info": _info}
    try:
        return handlers[args.command](args)
    except HyperGLError as exc:
        print(f"hypergl: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
