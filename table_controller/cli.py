"""The ``briscola-table`` command: one subcommand per job.

Each package contributes its subcommands through a ``register(subparsers)``
function in its ``cli`` module; heavy imports (OpenCV, Flask) happen inside the
handlers so that ``briscola-table referee`` starts fast on a Pi.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add subcommands, in the order they appear in --help.
COMMAND_MODULES = (
    "table_controller.referee_cli",
    "table_controller.app_cli",
    "vision.cli",
    "firmware_bridge.cli",
    "web_dashboard.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="briscola-table",
        description="A referee for Briscola played with real cards on an instrumented table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that package has no commands yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
