"""What every command shares: one way to refuse input (one line on stderr,
``briscola-table <command>: ...``, exit status 2), and the terminal's language.

The terminal speaks its user's language (:func:`terminal_language`: the locale, as
gettext programs do; English when it is none of it, en, fr), from the same catalogs as
the pages and the display (``web_dashboard/translations``): :func:`_t` and :func:`_tn`.
What another part of the table says (a configuration key, a damaged store, a camera, the
enrollment's requests) comes as a ``Say`` (``table_controller.engine.words``) and is said
in that language too: :func:`said`. argparse's own refusals read the same catalogs
(:data:`ARGPARSE_MESSAGES`). ``--help`` is in that language too: every command's help,
description and epilog is :func:`_t` when the parser is built (``main()`` knows the
locale by then); metavars and option names are as they are.
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


def said(text: object) -> str:
    """What another part of the table said (a ``Say``, or an exception made of one), in
    the terminal's language; any other text as it is."""
    from web_dashboard.i18n import said as said_in

    return said_in(terminal_language(), text)


# argparse's own refusals, word for word as Python 3.11's argparse writes them (it asks
# gettext's default domain, "messages", which is our catalogs' name): with the catalogs
# bound to that domain (:func:`speak_argparse`) they read in the locale's language.
ARGPARSE_MESSAGES = (
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    # and the words of its --help
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
)


def speak_argparse() -> None:
    """argparse's refusals and its --help words from the catalogs (see
    :data:`ARGPARSE_MESSAGES`)."""
    import gettext

    from firmware_bridge.words import CATALOGS

    gettext.bindtextdomain("messages", str(CATALOGS))


class Parser(argparse.ArgumentParser):
    """argparse, but a refused argument is one line (``briscola-table mat: argument
    --dpi: ...``) instead of the usage block and the message: the usage is in --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} "
                     + _t("(see {command} --help)", command=self.prog) + "\n")


def fail(command: str | None, message: object) -> int:
    """Say what is wrong in one line, the same way for every command; exit status 2.
    ``message`` is already in the terminal's language (:func:`_t`), or is what another
    part said (a ``Say``, an exception made of one: :func:`said`)."""
    print(f"{PROG}{' ' + command if command else ''}: {said(message)}", file=sys.stderr,
          flush=True)
    return 2
