"""The ``briscola-table`` command: one subcommand per job.

Each package contributes its subcommands through a ``register(subparsers)``
function in its ``cli`` module; heavy imports (OpenCV, Flask) happen inside the
handlers so that ``briscola-table referee`` starts fast on a Pi.

Every command says what is wrong with its input the same way: one line on stderr,
``briscola-table <command>: ...``, and exit status 2 (:func:`fail`, and
:class:`Parser` for what argparse refuses).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

# Modules that add subcommands, in the order they appear in --help.
COMMAND_MODULES = (
    "table_controller.referee_cli",
    "table_controller.app_cli",
    "vision.cli",
    "firmware_bridge.cli",
    "web_dashboard.cli",
)

PROG = "briscola-table"


class Parser(argparse.ArgumentParser):
    """argparse, but a refused argument is one line (``briscola-table mat: argument
    --dpi: ...``) instead of the usage block and the message: the usage is in --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def fail(command: str | None, message: str) -> int:
    """Say what is wrong in one line, the same way for every command; exit status 2."""
    print(f"{PROG}{' ' + command if command else ''}: {message}", file=sys.stderr, flush=True)
    return 2


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="A referee for Briscola played with real cards on an instrumented table.")
    # Subcommands' parsers are made by parser_class, so they refuse in one line too.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that package has no commands yet
                continue
            raise
        module.register(sub)
    return parser


def quiet_libraries() -> None:
    """OpenCV prints its own ``[ WARN:0@0.04] ... can't open/read file`` lines before the
    project's message; it reads its log level once, when it is imported."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")


def main(argv: list[str] | None = None) -> int:
    quiet_libraries()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a refused argument (said in one line)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print(f"\n{PROG} {args.command}: stopped (Ctrl-C)", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
