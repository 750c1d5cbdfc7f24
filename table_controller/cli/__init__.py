"""The ``briscola-table`` command: one subcommand per job.

This package is the top floor: each module registers the subcommands of one part
of the table (``referee``, ``run``/``demo``, the vision commands, the board's, the
dashboard's) and may import anything below it; nothing below imports it. Heavy
imports (OpenCV, Flask) happen inside the handlers, so that ``briscola-table
referee`` starts fast on a Pi.

Every command says what is wrong with its input the same way: one line on stderr,
``briscola-table <command>: ...``, and exit status 2 (:func:`fail`, and
:class:`Parser` for what argparse refuses).
"""

from __future__ import annotations

import argparse
import os
import sys

from table_controller.cli import club, dashboard, firmware, referee, table, video, vision
from table_controller.cli.common import PROG, Parser, _t, fail, speak_argparse

# In the order the commands appear in --help.
COMMAND_MODULES = (referee, table, vision, firmware, dashboard, club)


def build_parser() -> argparse.ArgumentParser:
    speak_argparse()
    parser = Parser(
        prog=PROG,
        description=_t("A referee for Briscola played with real cards on an instrumented table."))
    # Subcommands' parsers are made by parser_class, so they refuse in one line too.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    # Refereeing a recorded video adds its options (--video, ...) to `referee`;
    # the video module uses the referee command's report, so it is wired here.
    video.add_arguments(sub.choices["referee"])
    return parser


def quiet_libraries() -> None:
    """OpenCV prints its own ``[ WARN:0@0.04] ... can't open/read file`` lines before the
    project's message; it reads its log level once, when it is imported."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")


def main(argv: list[str] | None = None) -> int:
    quiet_libraries()
    from vision.allocator import keep_freed_memory

    keep_freed_memory()  # frames' buffers reused, not faulted in again each frame
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
        print(f"\n{PROG} {args.command}: " + _t("stopped (Ctrl-C)"), file=sys.stderr,
              flush=True)
        return 130
    except BrokenPipeError:
        return 0


__all__ = ["main", "build_parser", "fail", "Parser", "PROG"]


if __name__ == "__main__":
    sys.exit(main())
