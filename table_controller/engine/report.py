"""The referee's report: the ``--json`` document and the readable account."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table_controller.engine.events import Swap
from table_controller.engine.hand import Hand
from table_controller.engine.referee import Note, Referee, Violation
from table_controller.engine.seats import player_labels
from table_controller.engine.words import Say, say_n


def hand_report(hand: Hand, violations: list[Violation],
                notes: list[Note] | tuple[Note, ...] = ()) -> dict[str, Any]:
    """One hand as in the ``--json`` report (contract fields first, extensions after)."""
    outcome = hand.outcome()
    teams = hand.teams()
    points = list(hand.points)
    team_points = [sum(points[s] for s in t) for t in teams] if teams else None
    swaps = []
    tricks_done = 0
    for event in hand.line:
        if event.type == "play" and tricks_done < len(hand.tricks) and \
                event is hand.tricks[tricks_done].plays[-1]:
            tricks_done += 1
        elif isinstance(event, Swap):
            swaps.append({"seat": event.seat, "card": str(event.card),
                          "after_trick": tricks_done})
    first_briscola = next((e.card for e in hand.line if e.type == "trump"), None)
    return {
        "dealer": hand.dealer,
        "trump": str(first_briscola or hand.called) if (first_briscola or hand.called) else None,
        "tricks": [{"leader": t.leader,
                    "plays": [{"seat": p.seat, "card": str(p.card)} for p in t.plays],
                    "winner": t.winner, "points": t.points} for t in hand.tricks],
        "points": points,
        "team_points": team_points,
        "outcome": outcome.result if outcome else None,
        "winners": list(outcome.winners) if outcome else [],
        "complete": hand.is_over(),
        "violations": [v.to_json() for v in violations],
        # Extensions.
        "players": hand.players,
        "variants": sorted(v.value for v in hand.rules.variants),
        "removed": [str(c) for c in hand.rules.removed],
        "teams": [list(t) for t in teams] if teams else None,
        "reason": outcome.reason.value if outcome else None,
        "current_trick": [{"seat": p.seat, "card": str(p.card)} for p in hand.current],
        "briscola_taker": hand.briscola_taker,
        "swaps": swaps,
        "caller": hand.caller,
        "called": str(hand.called) if hand.called else None,
        "bid": hand.bid,
        "partner": hand.partner,
        "notes": [n.to_json() for n in notes],
    }


def match_report(referee: Referee) -> dict[str, Any]:
    """The whole ``--json`` document: ``{"hands": [...], "match": {...}}``."""
    by_hand: dict[int | None, list[Violation]] = {}
    for v in referee.violations:
        by_hand.setdefault(v.hand, []).append(v)
    # Violations before any hand existed belong to the first hand.
    early = by_hand.pop(None, [])
    notes: dict[int | None, list[Note]] = {}
    for n in referee.notes:
        notes.setdefault(n.hand, []).append(n)
    hands = []
    for i, hand in enumerate(referee.hands):
        vs = by_hand.get(i, [])
        if i == 0:
            vs = early + vs
        hands.append(hand_report(hand, vs, notes.get(i, ())))
    doc: dict[str, Any] = {"hands": hands, "match": referee.standing().to_json()}
    if not referee.hands and early:
        doc["violations"] = [v.to_json() for v in early]
    return doc


def _seat(seat: int, names: list[str] | None, label: bool = True) -> str:
    if names and seat < len(names) and names[seat]:
        name = names[seat]
        if not name.isprintable():  # a record's name with a newline or an escape code:
            name = name.encode("unicode_escape").decode("ascii")  # one line, no ANSI
        return f"{name} (P{seat + 1})" if label else name
    return f"P{seat + 1}"  # people count seats from 1, as the table's labels do


def _said(message: str) -> str:
    """A referee message with its seats as people read them: "P2 played 7c but it is
    P1's turn" (the JSON keeps the referee's own 0-based wording and fields). A ``Say``
    stays one, to be said in the reader's language."""
    return message.for_people() if isinstance(message, Say) else player_labels(message)


def _joined(items: list[Say | str], link: str) -> Say | str:
    """"P1 and P3", "A  vs  B": each link a Say, so that it is said in the reader's
    language."""
    if not items:
        return ""
    joined: Say | str = items[0]
    for item in items[1:]:
        joined = Say("{first} and {second}", first=joined, second=item) if link == "and" \
            else Say("{first}  vs  {second}", first=joined, second=item)
    return joined


def _said_at(what: str, kind: str, message: str, line: int | None) -> Say:
    if what == "note":
        return Say("note line {line}: {kind}: {message}", line=line, kind=kind,
                   message=_said(message)) if line is not None else \
            Say("note {kind}: {message}", kind=kind, message=_said(message))
    return Say("violation line {line}: {kind}: {message}", line=line, kind=kind,
               message=_said(message)) if line is not None else \
        Say("violation {kind}: {message}", kind=kind, message=_said(message))


def report_lines(doc: dict[str, Any], names: list[str] | None = None) -> list[tuple[int, Say]]:
    """The readable account of a ``match_report`` document, line by line: (indent, text),
    each text a ``Say`` (English as it is; the command says it in its reader's language)."""
    out: list[tuple[int, Say]] = []
    for i, h in enumerate(doc["hands"], 1):
        head = say_n("Hand {hand}: {n} player, dealer {dealer}",
                     "Hand {hand}: {n} players, dealer {dealer}", h["players"], hand=i,
                     dealer=_seat(h["dealer"], names))
        if h.get("called"):
            head = Say("{head}, {caller} called {card} for {points} points", head=head,
                       caller=_seat(h["caller"], names), card=h["called"], points=h["bid"])
        elif h["trump"]:
            head = Say("{head}, briscola {card}", head=head, card=h["trump"])
        if h["variants"]:
            head = Say("{head}, variants {variants}", head=head,
                       variants=" ".join(h["variants"]))
        out.append((0, head))
        for n, t in enumerate(h["tricks"], 1):
            plays = ", ".join(f"{_seat(p['seat'], names, label=False)} {p['card']}"
                              for p in t["plays"])
            out.append((1, Say("trick {number}: {plays}  -> {winner} +{points}",
                               number=f"{n:2d}", plays=plays,
                               winner=_seat(t["winner"], names), points=t["points"])))
        for s in h["swaps"]:
            out.append((1, Say("swap after trick {trick}: {player} put {card} face up",
                               trick=s["after_trick"], player=_seat(s["seat"], names),
                               card=s["card"])))
        if h["briscola_taker"] is not None:
            out.append((1, Say("the face-up briscola went to {player}",
                               player=_seat(h["briscola_taker"], names))))
        pts = ", ".join(f"{_seat(s, names)} {p}" for s, p in enumerate(h["points"]))
        out.append((1, Say("points: {points}", points=pts)))
        if h["team_points"] is not None:
            teams = _joined(["+".join(f"P{s + 1}" for s in t) + f" {p}"
                             for t, p in zip(h["teams"], h["team_points"], strict=True)], "vs")
            out.append((1, Say("teams: {teams}", teams=teams)))
        if not h["complete"]:
            out.append((1, say_n("unfinished: {n} trick played", "unfinished: {n} tricks played",
                                 len(h["tricks"]))))
        elif h["outcome"] == "tie":
            out.append((1, Say("result: a tie, the hand counts for nobody")))
        else:
            out.append((1, say_n("result: {players} wins", "result: {players} win",
                                 len(h["winners"]),
                                 players=_joined([_seat(s, names) for s in h["winners"]],
                                                 "and"))))
        for n in h.get("notes", ()):
            out.append((1, _said_at("note", n["kind"], n["message"], n["line"])))
        for v in h["violations"]:
            out.append((1, _said_at("violation", v["kind"], v["message"], v["line"])))
    m = doc["match"]
    line = Say("Match: hands won {standing}", standing="-".join(map(str, m["hands_won"])))
    if m["winner"] is not None:
        line = Say("{match}; the match goes to {players}", match=line,
                   players=_joined([_seat(s, names) for s in m["winners"]], "and"))
    out.append((0, line))
    for v in doc.get("violations", []):
        out.append((0, Say("violation line {line}: {kind}: {message}", line=v["line"],
                           kind=v["kind"], message=_said(v["message"]))))
    return out


def text_report(doc: dict[str, Any], names: list[str] | None = None,
                say: Callable[[Say], str] = str) -> str:
    """A readable account of a ``match_report`` document: in English, or each line as
    ``say`` says it (the command's :func:`~table_controller.cli.common.said`)."""
    return "\n".join("  " * indent + say(text) for indent, text in report_lines(doc, names))
