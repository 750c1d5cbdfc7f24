"""A text a person reads, in no language yet.

The floors below the pages and the commands (the engine, vision, the store, the
configuration) know no language: what they say to a person is a :class:`Say`, a ``str``
whose value is the English text (so it prints, compares and goes into JSON as before)
and which carries its catalog msgid (``web_dashboard/translations``), its context, its
plural and its values. The page or the command that shows it says it in its reader's
language (``web_dashboard.i18n.said``). A value may itself be a :class:`Say` (said in the
same language), a :class:`~table_controller.engine.cards.Card` (named in it) or a
:class:`Seat` (the referee's 0-based seat in English, its JSON contract; a person reads
P1..Pn: :meth:`Say.for_people`, and ``said`` in any language).

``Say``, ``say_in`` and ``say_n`` are pybabel keywords (babel.cfg): their msgids are
extracted into the catalogs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table_controller.engine.cards import Card
from table_controller.engine.seats import player_labels, seat_label


class Seat:
    """One seat or several in a :class:`Say`. In the English text (the referee's messages
    and JSON, numbered from 0) ``english`` with the numbers: "seat 1", "seat(s) 0, 2", or
    bare ("1"); a person reads them as labels, "P2", "P1, P3" (:meth:`label`)."""

    __slots__ = ("seats", "english")

    def __init__(self, *seats: int, english: str = "seat {}") -> None:
        self.seats, self.english = tuple(seats), english

    def __str__(self) -> str:
        return self.english.format(", ".join(map(str, self.seats)))

    def label(self, name: Callable[[int], str] = seat_label) -> str:
        """The seats as a person reads them: P1..Pn, or as ``name`` names them."""
        return ", ".join(map(name, self.seats))


def _english(value: object) -> object:
    return value.name("en") if isinstance(value, Card) else value


def _for_people(value: object, name: Callable[[int], str]) -> object:
    if isinstance(value, Seat):
        return value.label(name)
    return value.for_people(name) if isinstance(value, Say) else value


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

    def for_people(self, name: Callable[[int], str] = seat_label) -> Say:
        """This text as a person reads it: its seats as P1..Pn (or as ``name`` names
        them), in English as ``player_labels`` writes the referee's message, in any
        language when said."""
        values = {k: _for_people(v, name) for k, v in self.values.items()}
        person = str.__new__(Say, player_labels(str(self), name))
        person.msgid, person.plural, person.n, person.context = \
            self.msgid, self.plural, self.n, self.context
        person.values = values
        return person

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or a pickle is the English text
        return (str, (str(self),))


def say_in(context: str, msgid: str, /, **values: object) -> Say:
    """A text whose English says two things, or one of the display's (``"display"``)."""
    return Say._made(msgid, None, None, context, values)


def say_n(singular: str, plural: str, n: int, /, **values: object) -> Say:
    """The form that agrees with ``n`` (``{n}`` is filled with it)."""
    return Say._made(singular, plural, n, None, values)


__all__ = ["Say", "Seat", "say_in", "say_n"]
