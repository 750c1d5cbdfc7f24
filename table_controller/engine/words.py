"""A text a person reads, in no language yet.

The floors below the pages and the commands (the engine, vision, the store, the
configuration) know no language: what they say to a person is a :class:`Say`, a ``str``
whose value is the English text (so it prints, compares and goes into JSON as before)
and which carries its catalog msgid (``web_dashboard/translations``), its context, its
plural and its values. The page or the command that shows it says it in its reader's
language (``web_dashboard.i18n.said``). A value may itself be a :class:`Say` (said in the
same language) or a :class:`~table_controller.engine.cards.Card` (named in it).

``Say``, ``say_in`` and ``say_n`` are pybabel keywords (babel.cfg): their msgids are
extracted into the catalogs.
"""

from __future__ import annotations

from typing import Any

from table_controller.engine.cards import Card


def _english(value: object) -> object:
    return value.name("en") if isinstance(value, Card) else value


class Say(str):
    """``msgid`` with its ``{placeholders}`` filled, in English; see the module."""

    msgid: str
    plural: str | None
    n: int | None
    context: str | None
    values: dict[str, Any]

    def __new__(cls, msgid: str, /, **values: object) -> Say:
        return cls._made(msgid, None, None, None, values)

    @classmethod
    def _made(cls, msgid: str, plural: str | None, n: int | None, context: str | None,
              values: dict[str, Any]) -> Say:
        if plural is not None:
            values = {"n": n, **values}
        text = plural if plural is not None and n != 1 else msgid
        self = super().__new__(cls, text.format(**{k: _english(v) for k, v in values.items()}))
        self.msgid, self.plural, self.n, self.context = msgid, plural, n, context
        self.values = values
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or a pickle is the English text
        return (str, (str(self),))


def say_in(context: str, msgid: str, /, **values: object) -> Say:
    """A text whose English says two things, or one of the display's (``"display"``)."""
    return Say._made(msgid, None, None, context, values)


def say_n(singular: str, plural: str, n: int, /, **values: object) -> Say:
    """The form that agrees with ``n`` (``{n}`` is filled with it)."""
    return Say._made(singular, plural, n, None, values)


__all__ = ["Say", "say_in", "say_n"]
