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

Unknown extra fields (such as the tracker's frame time ``"t"``) are ignored by the
rules, but every event is checked whole before the referee sees it
(:func:`decode_event`): an object of at most 32 fields, nested at most 4 deep,
strings of at most 256 characters, integers within 2**53, finite numbers only,
``t`` a finite number of seconds, seats and the like small integers. Whatever
passes can be stored as JSON and read back unchanged.
Each event also has a short token for game records (``0:9b``, ``trump:5s``...)
whose text form round-trips through :func:`parse_token`.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from typing import Any

from table_controller.engine.cards import Card, CardError
from table_controller.engine.rules import DEFAULT_BID, Variant
from table_controller.engine.words import Say


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
    """An event the referee rejects; ``kind`` says which rule it breaks. A malformed
    event's or record token's ``message`` is a ``Say``: the English str, said in the
    reader's language where it reaches one."""

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


# -- validation: an event is checked whole before any rule looks at it --------------------

MAX_EVENT_CHARS = 4096  # one JSON line; the tracker's events are under 200
MAX_DEPTH = 4  # the event object, then lists such as "variants" (2 would do)
MAX_FIELDS = 32  # fields of an object, items of a list
MAX_STRING = 256  # characters in any string (keys included)
MAX_INT = 2**53  # JSON's exact integers; beyond that numbers are not what they seem
MAX_SMALL = 1000  # seats, players, dealer, caller, bid points
MAX_T = 1e12  # frame time in seconds (the tracker's clock starts near 0)
_SMALL_FIELDS = ("seat", "players", "dealer", "caller", "points")


class EventError(IllegalEvent):
    """An event that is not well formed (``bad_event``): too big, too deep, a wrong type."""

    def __init__(self, message: str) -> None:
        super().__init__(ViolationKind.BAD_EVENT, message)


def shown(value: Any, limit: int = 40) -> str:
    """A short, safe rendering of any value for a message (huge integers included)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**limit:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # deep lists, oversized ints inside containers
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise EventError(Say("integer of {n} digits: at most {most} is allowed",
                             n=len(text), most=MAX_INT))
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise EventError(Say("number {value} is not finite", value=shown(text)))
    return value


def _json_constant(text: str) -> Any:
    raise EventError(Say("{value} is not a number an event may carry", value=text))


def _nesting(text: str) -> int:
    """How deep ``[`` and ``{`` nest outside strings (json.loads would recurse that deep)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _parse_text(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        if len(text) > 4 * MAX_EVENT_CHARS:
            raise EventError(Say("an event is at most {most} characters, not {n} bytes",
                                 most=MAX_EVENT_CHARS, n=len(text)))
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise EventError(Say("an event must be UTF-8 text")) from None
    if len(text) > MAX_EVENT_CHARS:
        raise EventError(Say("an event is at most {most} characters, not {n}",
                             most=MAX_EVENT_CHARS, n=len(text)))
    # json.loads recurses once per level: refuse deep nesting before it is parsed.
    if text.count("[") + text.count("{") > MAX_DEPTH and _nesting(text) > MAX_DEPTH:
        raise EventError(Say("an event nests lists and objects at most {most} deep",
                             most=MAX_DEPTH))
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float,
                          parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise EventError(Say("malformed JSON: {problem} (column {column})",
                             problem=exc.msg, column=exc.colno)) from None
    except (ValueError, RecursionError) as exc:  # a hook's EventError is a ValueError
        if isinstance(exc, EventError):
            raise
        raise EventError(Say("malformed JSON: {problem}", problem=shown(str(exc), 80))) from None


def _check_value(root: Any) -> None:
    """Every value in an event: JSON types only, bounded sizes, depth and numbers.
    Iterative, so that a deeply nested Python object cannot exhaust the stack."""
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        value, depth = stack.pop()
        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, int):
            if not -MAX_INT <= value <= MAX_INT:
                raise EventError(Say("{value} is too large: integers are at most {most}",
                                     value=shown(value), most=MAX_INT))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise EventError(Say("number {value} is not finite", value=repr(value)))
        elif isinstance(value, str):
            if len(value) > MAX_STRING:
                raise EventError(Say("a string of {n} characters: at most {most}",
                                     n=len(value), most=MAX_STRING))
        elif isinstance(value, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise EventError(Say("an event nests lists and objects at most {most} deep",
                                     most=MAX_DEPTH))
            if len(value) > MAX_FIELDS:
                raise EventError(Say("{n} items in one object or list: at most {most}",
                                     n=len(value), most=MAX_FIELDS))
            if isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise EventError(Say("field names must be strings, not {value}",
                                             value=shown(key)))
                    if len(key) > MAX_STRING:
                        raise EventError(Say("a field name of {n} characters: at most "
                                             "{most}", n=len(key), most=MAX_STRING))
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
        else:
            raise EventError(Say("{name} is not a JSON value", name=type(value).__name__))


def decode_event(obj: Any) -> dict[str, Any]:
    """The event as a checked JSON object (from text, bytes or a decoded object).

    Raises :class:`EventError` (``bad_event``) naming what is wrong; whatever it returns
    can be stored with ``json.dumps`` and read back identical.
    """
    if isinstance(obj, str | bytes):
        obj = _parse_text(obj)
    if not isinstance(obj, dict):
        raise EventError(Say("an event must be a JSON object, not {kind}",
                             kind=_json_type(obj)))
    _check_value(obj)
    kind = obj.get("type")
    if kind is not None and not isinstance(kind, str):
        raise EventError(Say("'type' must be a string such as \"play\", not {value}",
                             value=shown(kind)))
    for key in _SMALL_FIELDS:
        value = obj.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            continue  # a wrong type is named by the event's own parsing
        if not -MAX_SMALL <= value <= MAX_SMALL:
            raise EventError(Say("'{key}' must be a small integer, not {value}", key=key,
                                 value=shown(value)))
    t = obj.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)
                          or not -MAX_T <= t <= MAX_T):
        raise EventError(Say("'t' must be a finite number of seconds, not {value}",
                             value=shown(t)))
    # The bound holds for the form it is stored in, not only for the text it came as
    # (a decoded object has no text; "1E5" is stored as "100000.0").
    if (size := len(event_text(obj))) > MAX_EVENT_CHARS:
        raise EventError(Say("an event is at most {most} characters, not {n}",
                             most=MAX_EVENT_CHARS, n=size))
    return obj


def event_text(obj: dict[str, Any]) -> str:
    """A checked event as the one line it is stored as (compact, UTF-8 kept)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _json_type(obj: Any) -> str:
    names = {list: Say("an array"), tuple: Say("an array"), str: Say("a string"),
             int: Say("a number"), float: Say("a number"), bool: Say("a boolean"),
             type(None): "null"}
    return names.get(type(obj), type(obj).__name__)


def _card(obj: dict[str, Any], key: str = "card", seat: int | None = None) -> Card:
    if key not in obj:
        raise _bad(Say("'{kind}' event needs a '{key}' field", kind=obj.get("type"), key=key))
    try:
        return Card.parse(obj[key])
    except CardError as exc:
        raise IllegalEvent(ViolationKind.NOT_IN_DECK, exc.args[0], seat=seat) from None


def _int(obj: dict[str, Any], key: str, required: bool = True) -> int | None:
    if key not in obj or obj[key] is None:
        if required:
            raise _bad(Say("'{kind}' event needs a '{key}' field", kind=obj.get("type"),
                           key=key))
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(Say("'{key}' must be an integer, not {value}", key=key, value=shown(value)))
    return value


def event_from_json(obj: Any) -> Event:
    """Build an event from JSON text or a decoded object, checked whole first
    (:func:`decode_event`); raise IllegalEvent if it is malformed."""
    return event_from_checked(decode_event(obj))


def event_from_checked(obj: dict[str, Any]) -> Event:
    """Build an event from an object :func:`decode_event` returned."""
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
                raise _bad(Say("'variants' must be a list such as [\"swap7\"]"))
            try:
                variants = frozenset(Variant.parse(v) for v in variants)
            except ValueError as exc:
                raise _bad(exc.args[0] if exc.args else str(exc)) from None  # a Say
        removed = obj.get("removed")
        if removed is not None:
            if not isinstance(removed, list):
                raise _bad(Say("'removed' must be a list of card codes such as [\"2d\"]"))
            try:
                removed = tuple(Card.parse(c) for c in removed)
            except CardError as exc:
                raise _bad(Say("'removed': {problem}", problem=exc)) from None
        called = None
        if obj.get("called") is not None:
            called = _card(obj, "called")
        return HandStart(players=_int(obj, "players", required=False),
                         dealer=_int(obj, "dealer", required=False),
                         variants=variants, removed=removed,
                         caller=_int(obj, "caller", required=False), called=called,
                         points=_int(obj, "points", required=False))
    if kind is None:
        raise _bad(Say("event has no 'type' field"))
    raise _bad(Say("unknown event type {value}: expected hand, trump, play, collect, swap, "
                   "call, correct or undo", value=shown(kind)))


def event_to_json(event: Event) -> str:
    return json.dumps(event.to_json(), separators=(",", ":"))


MAX_TOKEN_CHARS = 32  # the longest token, "correct:5:10d:10c", is 17


def _small(text: str) -> bool:
    """An ASCII number of at most 4 digits (``str.isdigit`` also takes "²" and "٣")."""
    return text.isascii() and text.isdigit() and len(text) <= 4


def parse_token(token: str) -> Event:
    """Parse a record token: ``0:9b``, ``trump:5s``, ``swap:0:7s``, ``call:3:1d:61``,
    ``correct:1:6c`` (or ``correct:1:6c:7c``), ``collect`` or ``undo``. Raises
    IllegalEvent naming the bad token."""
    if len(token) > MAX_TOKEN_CHARS:
        raise _bad(Say("bad record token {token}: a token is at most {most} characters",
                       token=shown(token), most=MAX_TOKEN_CHARS))
    parts = token.split(":")
    try:
        if len(parts) == 2 and _small(parts[0]):
            return Play(int(parts[0]), Card.parse(parts[1]))
        head = parts[0].lower()
        if head == "collect" and len(parts) == 1:
            return COLLECT
        if head == "undo" and len(parts) == 1:
            return UNDO
        if head == "trump" and len(parts) == 2:
            return Trump(Card.parse(parts[1]))
        if head == "swap" and len(parts) == 3 and _small(parts[1]):
            return Swap(int(parts[1]), Card.parse(parts[2]))
        if head == "correct" and len(parts) in (3, 4) and _small(parts[1]):
            was = Card.parse(parts[3]) if len(parts) == 4 else None
            return Correct(int(parts[1]), Card.parse(parts[2]), was)
        if head == "call" and len(parts) in (3, 4) and _small(parts[1]):
            if len(parts) == 4 and not _small(parts[3]):
                raise ValueError(Say("points must be a number, not {value}",
                                     value=shown(parts[3])))
            points = int(parts[3]) if len(parts) == 4 else DEFAULT_BID
            return Call(int(parts[1]), Card.parse(parts[2]), points)
    except (CardError, ValueError) as exc:
        raise _bad(Say("bad record token {token}: {problem}", token=repr(token),
                       problem=exc)) from None
    raise _bad(Say("bad record token {token}", token=repr(token)))
