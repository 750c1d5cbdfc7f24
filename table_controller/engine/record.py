"""Game records: a self-describing text format for hands and matches, like PGN.

A record is a block of ``[Key "value"]`` headers, a blank line, then the
hand's accepted events as tokens, one trick a line, and the result::

    [Game "Briscola"]
    [Date "2026.11.29"]
    [Players "2"]
    [Seat0 "Tu"]
    [Seat1 "Ada"]
    [Dealer "1"]
    [Variants "-"]
    [Removed "-"]
    [Result "26-4"]

    trump:5s
    1. 0:9c 1:7c
    2. 0:4s 1:8c collect
    26-4

Tokens: ``S:card`` a play by seat S, ``trump:card``, ``swap:S:card``,
``call:S:card:points``, ``correct:S:card[:was]`` (a card named wrongly, on a line of
its own), ``collect``; ``N.`` trick numbers, ``{comments}`` and
``; comments`` are ignored. A match is several records one after the other
(``[Match "3"]`` and ``[Hand "2"]`` headers). Loading a record and replaying it
gives the identical state; a ``Result`` header that disagrees with the replay
is an error.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from table_controller.engine.cards import Card, CardError
from table_controller.engine.events import Event, HandStart, IllegalEvent, parse_token
from table_controller.engine.hand import Hand
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules, parse_variants
from table_controller.engine.words import Say


class RecordError(ValueError):
    """A record that cannot be read or does not replay; names the line. Its message is a
    ``Say`` (the English str, said in the reader's language where it reaches one)."""


# A header line, matched before ";" comments are cut (a ";" inside the quotes is the
# value's, as in PGN); an optional "; comment" may follow the closing bracket.
_HEADER = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*(?:;.*)?$')
MAX_HEADER_VALUE = 256  # characters of one header value, once unescaped (names: 24 on a phone)
MAX_HEADERS = 64  # headers in one record
MAX_LINE = 4096  # characters of one line of a record
MAX_RECORDS = 1000  # hands in one file (a match is at most 5; an open series can run long)
_SMALL_HEADERS = {"Players": (2, 6, Say("players")), "Dealer": (0, 5, Say("a seat")),
                  "Hand": (1, 100_000, Say("a hand number")), "Match": (1, 5, Say("hands"))}
_TRICK_NO = re.compile(r"^\d+\.$")
_RESULT = re.compile(r"^(\d+(?:-\d+)+|\*)$")


@dataclass
class Record:
    headers: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # source line of each event
    result: str | None = None

    # -- building ---------------------------------------------------------------

    @classmethod
    def from_hand(cls, hand: Hand, names: list[str] | None = None,
                  date: _dt.date | None = None, **extra: str) -> Record:
        headers = {"Game": "Briscola",
                   "Date": (date or _dt.date.today()).strftime("%Y.%m.%d"),
                   "Players": str(hand.players)}
        for seat in range(hand.players):
            headers[f"Seat{seat}"] = names[seat] if names and seat < len(names) else "?"
        headers["Dealer"] = str(hand.dealer)
        headers["Variants"] = " ".join(sorted(v.value for v in hand.rules.variants)) or "-"
        headers["Removed"] = " ".join(map(str, hand.rules.removed)) or "-"
        headers.update({k: str(v) for k, v in extra.items()})
        result = "-".join(map(str, hand.points)) if hand.is_over() else "*"
        headers["Result"] = result
        return cls(headers, list(hand.move_stack), [], result)

    @property
    def players(self) -> int:
        return int(self.headers.get("Players", "2"))

    @property
    def names(self) -> list[str]:
        return [self.headers.get(f"Seat{s}", "?") for s in range(self.players)]

    def hand_event(self) -> HandStart:
        try:
            removed_text = self.headers.get("Removed", "-")
            removed = None if removed_text in ("", "-") else tuple(
                Card.parse(c) for c in removed_text.split())
            return HandStart(players=self.players, dealer=int(self.headers["Dealer"]),
                             variants=parse_variants(
                                 self.headers.get("Variants", "-").replace("-", "")),
                             removed=removed)
        except KeyError as exc:
            raise RecordError(Say("bad record headers: no {key} header", key=exc.args[0])) from None
        except (ValueError, CardError) as exc:
            said = str(exc)  # names the bad value, which may be 256 characters long
            raise RecordError(Say("bad record headers: {problem}", problem=(
                exc if len(said) <= 120 else said[:117] + "..."))) from None

    # -- replay -----------------------------------------------------------------

    def replay(self) -> Hand:
        """The hand this record describes, replayed event by event."""
        start = self.hand_event()
        try:
            hand = Hand(HandRules(start.players, start.variants, start.removed), start.dealer)
        except ValueError as exc:
            raise RecordError(Say("bad record headers: {problem}", problem=exc)) from None
        for event, line in zip(self.events, self.lines or [None] * len(self.events),
                               strict=True):
            try:
                hand.push(event)
            except IllegalEvent as exc:
                raise RecordError(_does_not_replay(line, event, exc)) from None
        claimed = self.headers.get("Result")
        if claimed and claimed != "*" and hand.is_over():
            got = "-".join(map(str, hand.points))
            if got != claimed:
                raise RecordError(Say("the record says {claimed} but its events give {got}",
                                      claimed=claimed, got=got))
        return hand

    # -- text -------------------------------------------------------------------

    def __str__(self) -> str:
        out = [f'[{k} "{_escape(v)}"]' for k, v in self.headers.items()]
        out.append("")
        line: list[str] = []
        trick = 1
        in_trick = 0
        players = self.players
        for event in self.events:
            if event.type == "play":
                if in_trick == 0:
                    if line:
                        out.append(" ".join(line))
                    line = [f"{trick}."]
                line.append(str(event))
                in_trick += 1
                if in_trick == players:
                    in_trick = 0
                    trick += 1
            else:
                if event.type != "collect" and line:
                    out.append(" ".join(line))
                    line = []
                line.append(str(event))
                if event.type != "collect":
                    out.append(" ".join(line))
                    line = []
        if line:
            out.append(" ".join(line))
        out.append(self.result or self.headers.get("Result", "*"))
        return "\n".join(out) + "\n"


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_UNESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    # Anything that could end the line (str.splitlines breaks on \x1c, \u2028...) or
    # is not printable is written as a \u escape, so a header stays one line.
    if ch.isprintable() and len(("x" + ch + "x").splitlines()) == 1:
        return ch
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape(value: str) -> str:
    """A header value for ``[Key "value"]``: quotes and backslashes escaped as in PGN,
    line breaks and other invisible characters as ``\\n``, ``\\t``, ``\\uXXXX``."""
    if value.isprintable() and '"' not in value and "\\" not in value:
        return value
    return "".join(_escape_char(ch) for ch in value)


def _unescape_match(m: re.Match) -> str:
    esc = m.group(1)
    if len(esc) > 1:  # \uXXXX, \UXXXXXXXX
        code = int(esc[1:], 16)
        # A lone surrogate could not be written out as UTF-8 again.
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return _UNESCAPES.get(esc, esc)


def _unescape(value: str) -> str:
    return _UNESCAPE.sub(_unescape_match, value)


def _check_header(key: str, value: str, lineno: int) -> None:
    """Every header value is bounded; the numeric ones are small integers."""
    if len(value) > MAX_HEADER_VALUE:
        raise RecordError(Say("line {line}: the {key} header is {n} characters long: at "
                              "most {most}", line=lineno, key=key, n=len(value),
                              most=MAX_HEADER_VALUE))
    bounds = _SMALL_HEADERS.get(key)
    if bounds is None:
        return
    low, high, what = bounds
    text = value.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 6
            and low <= int(text) <= high):
        raise RecordError(Say("line {line}: the {key} header must be {low}..{high} ({what}), "
                              "not {value}", line=lineno, key=key, low=low, high=high,
                              what=what,
                              value=f"{value[:20]!r}{'...' if len(value) > 20 else ''}"))


def parse_records(text: str) -> list[Record]:
    """Read every record in ``text``; raise RecordError naming the bad line."""
    records: list[Record] = []
    current: Record | None = None
    in_moves = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        if len(raw) > MAX_LINE:
            raise RecordError(Say("line {line}: {n} characters: a record's lines are at "
                                  "most {most}", line=lineno, n=len(raw), most=MAX_LINE))
        stripped = raw.strip()
        m = _HEADER.match(stripped) if stripped.startswith("[") else None
        if m:
            if current is None or in_moves:
                if len(records) >= MAX_RECORDS:
                    raise RecordError(Say("line {line}: more than {most} records in one "
                                          "file", line=lineno, most=MAX_RECORDS))
                current = Record()
                records.append(current)
                in_moves = False
            key, value = m.group(1), _unescape(m.group(2))
            if len(key) > 32:
                raise RecordError(Say("line {line}: a header name is at most 32 characters",
                                      line=lineno))
            _check_header(key, value, lineno)
            if key not in current.headers and len(current.headers) >= MAX_HEADERS:
                raise RecordError(Say("line {line}: more than {most} headers in one record",
                                      line=lineno, most=MAX_HEADERS))
            current.headers[key] = value
            continue
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        if current is None:
            raise RecordError(Say("line {line}: a record starts with [Key \"value\"] headers",
                                  line=lineno))
        in_moves = True
        line = re.sub(r"\{[^}]*\}", " ", line)
        for token in line.split():
            if _TRICK_NO.match(token):
                continue
            if _RESULT.match(token):
                current.result = token
                continue
            try:
                current.events.append(parse_token(token))
            except IllegalEvent as exc:
                raise RecordError(Say("line {line}: {problem}", line=lineno,
                                      problem=exc)) from None
            current.lines.append(lineno)
    if not records:
        raise RecordError(Say("no record found: expected [Key \"value\"] headers"))
    return records


def looks_like_record(text: str) -> bool:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first.startswith("[")


def record_events(records: list[Record]) -> Iterator[tuple[Event, int | None]]:
    """The physical events of a list of records, as a referee would have seen them."""
    for record in records:
        yield record.hand_event(), None
        yield from zip(record.events, record.lines or [None] * len(record.events), strict=True)


def match_records(referee: Referee, names: list[str] | None = None,
                  date: _dt.date | None = None) -> list[Record]:
    """One record per hand of the referee's match, with match headers."""
    out = []
    for i, hand in enumerate(referee.hands, 1):
        extra = {"Hand": str(i)}
        if referee.match_length:
            extra["Match"] = str(referee.match_length)
        out.append(Record.from_hand(hand, names, date, **extra))
    return out


def dumps(records: list[Record]) -> str:
    return "\n".join(str(r) for r in records)


def replay_match(records: list[Record]) -> Referee:
    """Replay a match record into a referee; raise RecordError if any event is refused."""
    first = records[0]
    match = first.headers.get("Match")
    referee = Referee(players=first.players, match=int(match) if match else None)
    for event, line in record_events(records):
        decision = referee.feed(event, line)
        if not decision.accepted:
            raise RecordError(_does_not_replay(line, event, decision.violation.message))
    return referee


def _does_not_replay(line: int | None, event: Event, problem: object) -> Say:
    if line:
        return Say("line {line}: {event} does not replay: {problem}", line=line,
                   event=str(event), problem=problem)
    return Say("{event} does not replay: {problem}", event=str(event), problem=problem)
