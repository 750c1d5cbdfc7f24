"""The :class:`Say` itself, a text a person reads in no language yet (see
:mod:`table_controller.engine.words`, which is where the rest of the engine takes it
from). It imports nothing from the engine but its seats, so that the engine's lowest
modules (the cards) can say what they refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


# How a value that is not text reads in the English: a card is named
# (``cards.py`` says how, :func:`english_as`); anything else is formatted as it is.
_ENGLISH: dict[type, Callable[[Any], object]] = {}


def english_as(kind: type, english: Callable[[Any], object]) -> None:
    """Name a ``kind`` of value in a :class:`Say`'s English text with ``english``."""
    _ENGLISH[kind] = english


def _english(value: object) -> object:
    english = _ENGLISH.get(type(value))
    return value if english is None else english(value)


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


__all__ = ["Say", "Seat", "english_as", "say_in", "say_n"]
