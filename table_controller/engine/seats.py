"""Seats as people read them. The referee numbers seats from 0 (its JSON contract);
a person never reads a 0-based seat: P1 is seat 0."""

from __future__ import annotations

import re
from collections.abc import Callable


def seat_label(seat: int) -> str:
    """What players see for a seat: P1 is seat 0 (the referee's numbering)."""
    return f"P{seat + 1}"


_SEAT_RANGE = re.compile(r"\b(seats?(?: are)?) (\d+)\.\.(\d+)\b(?:, not (\d+)\b)?",
                         re.IGNORECASE)
_SEATS = re.compile(r"\b(?:seats|seat\(s\)) (\d+(?:(?:, | and | or )\d+)*)\b|\bseat (\d+)\b",
                    re.IGNORECASE)


def player_labels(text: str, label: Callable[[int], str] = seat_label) -> str:
    """A referee message as players read it on the table: every seat number it
    names becomes the seat's label. "seat 1 played 5s but it is seat 0's turn"
    -> "P2 played 5s but it is P1's turn"; "won by seat(s) 0, 2" -> "won by P1,
    P3"; "seats are 0..3" -> "seats are P1..P4". Only numbers written as seats
    change (not card ranks or counts), and "seat -1" stays as it is. The
    referee's own messages keep numbering seats from 0: they are its contract.
    ``label`` names a seat (the terminal gives players' names)."""
    def one(n: str) -> str:
        return label(int(n))

    text = _SEAT_RANGE.sub(lambda m: f"{m[1]} {one(m[2])}..{one(m[3])}"
                           + (f", not {one(m[4])}" if m[4] else ""), text)
    return _SEATS.sub(lambda m: re.sub(r"\d+", lambda d: one(d[0]), m[1] or m[2]), text)
