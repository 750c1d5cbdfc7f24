"""The physical events the referee consumes, their JSON Lines form and their record tokens.

JSON Lines is a contract with the vision tracker and external tools::

    {"type":"hand","players":2,"dealer":1}        a new hand starts
    {"type":"trump","card":"5s"}                  the face-up briscola is seen
    {"type":"play","seat":0,"card":"9b"}          a card appears in seat 0's zone
    {"type":"collect"}                            the trick's cards were taken
    {"type":"swap","seat":0,"card":"7s"}          the face-up card is now 7s
    {"type":"call","seat":3,"card":"1d","points":61}   chiamata: the auction's result
    {"type":"undo"}                               retract the last accepted event
    {"type":"correct","seat":1,"card":"6c"}       seat 1's last card was 6c, not what was
                                                  read (optional "was":"7c" names it)

Unknown extra fields (such as the tracker's frame time ``"t"``) are ignored.
Each event also has a short token for game records (``0:9b``, ``trump:5s``...)
whose text form round-trips through :func:`parse_token`.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

from table_controller.cards import Card, CardError
from table_controller.rules import DEFAULT_BID, Variant


class ViolationKind(enum.StrEnum):
    OUT_OF_TURN = "out_of_turn"
    DUPLICATE_CARD = "duplicate_card"
    NOT_IN_DECK = "not_in_deck"
    ILLEGAL_SWAP = "illegal_swap"
    NO_TRUMP = "no_trump"
    HAND_OVER = "hand_over"
    BAD_EVENT = "bad_event"
    # Extension: a card the referee knows is in another seat's hand (the face-up
    # briscola after it was drawn, or the card a seat took by a swap).
    NOT_HELD = "not_held"


class IllegalEvent(ValueError):
    """An event the referee rejects; ``kind`` says which rule it breaks."""

    def __init__(self, kind: ViolationKind, message: str, seat: int | None = None,
                 card: Card | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.seat = seat
        self.card = card


def _bad(message: str) -> IllegalEvent:
    return IllegalEvent(ViolationKind.BAD_EVENT, message)


@dataclass(frozen=True, slots=True)
class HandStart:
    players: int | None = None  # None: the referee's default
    dealer: int | None = None  # None: next in turn (or seat before 0 for the first hand)
    variants: frozenset[Variant] | None = None
    removed: tuple[Card, ...] | None = None
    # Briscola chiamata may carry the auction's result in the hand event itself.
    caller: int | None = None
    called: Card | None = None
    points: int | None = None

    type = "hand"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "hand"}
        if self.players is not None:
            out["players"] = self.players
        if self.dealer is not None:
            out["dealer"] = self.dealer
        if self.variants is not None:
            out["variants"] = sorted(v.value for v in self.variants)
        if self.removed is not None:
            out["removed"] = [str(c) for c in self.removed]
        if self.caller is not None:
            out["caller"] = self.caller
        if self.called is not None:
            out["called"] = str(self.called)
        if self.points is not None:
            out["points"] = self.points
        return out

    def __str__(self) -> str:
        return "hand"


@dataclass(frozen=True, slots=True)
class Trump:
    card: Card
    type = "trump"

    def to_json(self) -> dict[str, Any]:
        return {"type": "trump", "card": str(self.card)}

    def __str__(self) -> str:
        return f"trump:{self.card}"


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: Card
    type = "play"

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "seat": self.seat, "card": str(self.card)}

    def __str__(self) -> str:
        return f"{self.seat}:{self.card}"


@dataclass(frozen=True, slots=True)
class Collect:
    type = "collect"

    def to_json(self) -> dict[str, Any]:
        return {"type": "collect"}

    def __str__(self) -> str:
        return "collect"


@dataclass(frozen=True, slots=True)
class Swap:
    seat: int
    card: Card  # the card now lying face up under the stock
    type = "swap"

    def to_json(self) -> dict[str, Any]:
        return {"type": "swap", "seat": self.seat, "card": str(self.card)}

    def __str__(self) -> str:
        return f"swap:{self.seat}:{self.card}"


@dataclass(frozen=True, slots=True)
class Call:
    seat: int
    card: Card
    points: int = DEFAULT_BID
    type = "call"

    def to_json(self) -> dict[str, Any]:
        return {"type": "call", "seat": self.seat, "card": str(self.card), "points": self.points}

    def __str__(self) -> str:
        return f"call:{self.seat}:{self.card}:{self.points}"


@dataclass(frozen=True, slots=True)
class Undo:
    type = "undo"

    def to_json(self) -> dict[str, Any]:
        return {"type": "undo"}

    def __str__(self) -> str:
        return "undo"


@dataclass(frozen=True, slots=True)
class Correct:
    """A card named wrongly: seat ``seat``'s most recent play this hand (or its play of
    ``was``) was in fact ``card``; everything after it is refereed again."""

    seat: int
    card: Card
    was: Card | None = None
    type = "correct"

    def to_json(self) -> dict[str, Any]:
        out = {"type": "correct", "seat": self.seat, "card": str(self.card)}
        if self.was is not None:
            out["was"] = str(self.was)
        return out

    def __str__(self) -> str:
        was = "" if self.was is None else f":{self.was}"
        return f"correct:{self.seat}:{self.card}{was}"


Event = HandStart | Trump | Play | Collect | Swap | Call | Undo | Correct
COLLECT = Collect()
UNDO = Undo()


def _card(obj: dict[str, Any], key: str = "card", seat: int | None = None) -> Card:
    if key not in obj:
        raise _bad(f"'{obj.get('type')}' event needs a '{key}' field")
    try:
        return Card.parse(obj[key])
    except CardError as exc:
        raise IllegalEvent(ViolationKind.NOT_IN_DECK, str(exc), seat=seat) from None


def _int(obj: dict[str, Any], key: str, required: bool = True) -> int | None:
    if key not in obj or obj[key] is None:
        if required:
            raise _bad(f"'{obj.get('type')}' event needs a '{key}' field")
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"'{key}' must be an integer, not {value!r}")
    return value


def event_from_json(obj: Any) -> Event:
    """Build an event from a decoded JSON object; raise IllegalEvent if malformed."""
    if isinstance(obj, str | bytes):
        try:
            obj = json.loads(obj)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _bad(f"malformed JSON: {exc.msg if hasattr(exc, 'msg') else exc}") from None
    if not isinstance(obj, dict):
        raise _bad(f"an event must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "play":
        seat = _int(obj, "seat")
        return Play(seat, _card(obj, seat=seat))
    if kind == "collect":
        return COLLECT
    if kind == "trump":
        return Trump(_card(obj))
    if kind == "swap":
        seat = _int(obj, "seat")
        return Swap(seat, _card(obj, seat=seat))
    if kind == "undo":
        return UNDO
    if kind == "correct":
        seat = _int(obj, "seat")
        was = _card(obj, "was", seat=seat) if obj.get("was") is not None else None
        return Correct(seat, _card(obj, seat=seat), was)
    if kind == "call":
        seat = _int(obj, "seat")
        points = _int(obj, "points", required=False)
        return Call(seat, _card(obj, seat=seat), DEFAULT_BID if points is None else points)
    if kind == "hand":
        variants = obj.get("variants")
        if variants is not None:
            if not isinstance(variants, list):
                raise _bad("'variants' must be a list such as [\"swap7\"]")
            try:
                variants = frozenset(Variant.parse(v) for v in variants)
            except ValueError as exc:
                raise _bad(str(exc)) from None
        removed = obj.get("removed")
        if removed is not None:
            if not isinstance(removed, list):
                raise _bad("'removed' must be a list of card codes such as [\"2d\"]")
            try:
                removed = tuple(Card.parse(c) for c in removed)
            except CardError as exc:
                raise _bad(f"'removed': {exc}") from None
        called = None
        if obj.get("called") is not None:
            called = _card(obj, "called")
        return HandStart(players=_int(obj, "players", required=False),
                         dealer=_int(obj, "dealer", required=False),
                         variants=variants, removed=removed,
                         caller=_int(obj, "caller", required=False), called=called,
                         points=_int(obj, "points", required=False))
    if kind is None:
        raise _bad("event has no 'type' field")
    raise _bad(f"unknown event type {kind!r}: expected hand, trump, play, collect, swap, "
               "call, correct or undo")


def event_to_json(event: Event) -> str:
    return json.dumps(event.to_json(), separators=(",", ":"))


def parse_token(token: str) -> Event:
    """Parse a record token: ``0:9b``, ``trump:5s``, ``swap:0:7s``, ``call:3:1d:61``,
    ``correct:1:6c`` (or ``correct:1:6c:7c``), ``collect`` or ``undo``. Raises
    IllegalEvent naming the bad token."""
    parts = token.split(":")
    try:
        if len(parts) == 2 and parts[0].isdigit():
            return Play(int(parts[0]), Card.parse(parts[1]))
        head = parts[0].lower()
        if head == "collect" and len(parts) == 1:
            return COLLECT
        if head == "undo" and len(parts) == 1:
            return UNDO
        if head == "trump" and len(parts) == 2:
            return Trump(Card.parse(parts[1]))
        if head == "swap" and len(parts) == 3 and parts[1].isdigit():
            return Swap(int(parts[1]), Card.parse(parts[2]))
        if head == "correct" and len(parts) in (3, 4) and parts[1].isdigit():
            was = Card.parse(parts[3]) if len(parts) == 4 else None
            return Correct(int(parts[1]), Card.parse(parts[2]), was)
        if head == "call" and len(parts) in (3, 4) and parts[1].isdigit():
            points = int(parts[3]) if len(parts) == 4 else DEFAULT_BID
            return Call(int(parts[1]), Card.parse(parts[2]), points)
    except (CardError, ValueError) as exc:
        raise _bad(f"bad record token {token!r}: {exc}") from None
    raise _bad(f"bad record token {token!r}")
