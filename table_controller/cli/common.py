"""What every command shares: one way to refuse input (one line on stderr,
``briscola-table <command>: ...``, exit status 2), and the terminal's language.

The terminal speaks its user's language (:func:`terminal_language`: the locale, as
gettext programs do; English when it is none of it, en, fr), from the same catalogs as
the pages and the display (``web_dashboard/translations``): :func:`_t` and :func:`_tn`.
What another part of the table says in an exception (a configuration key, a damaged
store) is passed on as it is. ``--help`` stays English.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

PROG = "briscola-table"


def terminal_language(environ: dict[str, str] | None = None) -> str:
    """The terminal speaks its user's language, as gettext programs do: LANGUAGE,
    LC_ALL, LC_MESSAGES, LANG (it, en or fr); English otherwise (C, POSIX, unset)."""
    from web_dashboard.i18n import LANGUAGES

    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for value in (env.get(var) or "").split(":"):
            if value[:2].lower() in LANGUAGES:
                return value[:2].lower()
            if value:  # the first one set decides, as in gettext
                return "en"
    return "en"


def N_(msgid: str) -> str:  # noqa: N802 (gettext's marker name)
    """Marks a text for pybabel where it is only named (translated where it is said)."""
    return msgid


def _t(msgid: str, **values: object) -> str:
    """``msgid`` in the terminal's language, its ``{placeholders}`` filled."""
    from web_dashboard.i18n import tr

    return tr(terminal_language(), msgid, **values)


def _tn(singular: str, plural: str, n: int, **values: object) -> str:
    """The form that agrees with ``n``, in the terminal's language."""
    from web_dashboard.i18n import trn

    return trn(terminal_language(), singular, plural, n, **values)


class Parser(argparse.ArgumentParser):
    """argparse, but a refused argument is one line (``briscola-table mat: argument
    --dpi: ...``) instead of the usage block and the message: the usage is in --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} "
                     + _t("(see {command} --help)", command=self.prog) + "\n")


def fail(command: str | None, message: str) -> int:
    """Say what is wrong in one line, the same way for every command; exit status 2.
    ``message`` is already in the terminal's language (:func:`_t`)."""
    print(f"{PROG}{' ' + command if command else ''}: {message}", file=sys.stderr, flush=True)
    return 2
