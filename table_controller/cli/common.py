"""What every command shares: one way to refuse input (one line on stderr,
``briscola-table <command>: ...``, exit status 2)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

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
