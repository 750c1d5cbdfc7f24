"""The referee's report: the ``--json`` document and the readable account."""

from __future__ import annotations

from typing import Any

from table_controller.engine.events import Swap
from table_controller.engine.hand import Hand
from table_controller.engine.referee import Note, Referee, Violation
from table_controller.engine.seats import player_labels


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
    P1's turn" (the JSON keeps the referee's own 0-based wording and fields)."""
    return player_labels(message)


def text_report(doc: dict[str, Any], names: list[str] | None = None) -> str:
    """A readable account of a ``match_report`` document."""
    out: list[str] = []
    for i, h in enumerate(doc["hands"], 1):
        head = f"Hand {i}: {h['players']} players, dealer {_seat(h['dealer'], names)}"
        if h.get("called"):
            head += (f", {_seat(h['caller'], names)} called {h['called']} "
                     f"for {h['bid']} points")
        elif h["trump"]:
            head += f", briscola {h['trump']}"
        if h["variants"]:
            head += f", variants {' '.join(h['variants'])}"
        out.append(head)
        for n, t in enumerate(h["tricks"], 1):
            plays = ", ".join(f"{_seat(p['seat'], names, label=False)} {p['card']}"
                              for p in t["plays"])
            out.append(f"  trick {n:2d}: {plays}  -> {_seat(t['winner'], names)} "
                       f"+{t['points']}")
        for s in h["swaps"]:
            out.append(f"  swap after trick {s['after_trick']}: {_seat(s['seat'], names)} "
                       f"put {s['card']} face up")
        if h["briscola_taker"] is not None:
            out.append(f"  the face-up briscola went to {_seat(h['briscola_taker'], names)}")
        pts = ", ".join(f"{_seat(s, names)} {p}" for s, p in enumerate(h["points"]))
        out.append(f"  points: {pts}")
        if h["team_points"] is not None:
            teams = "  vs  ".join("+".join(f"P{s + 1}" for s in t) + f" {p}"
                                  for t, p in zip(h["teams"], h["team_points"], strict=True))
            out.append(f"  teams: {teams}")
        if not h["complete"]:
            n = len(h["tricks"])
            out.append(f"  unfinished: {n} trick{'' if n == 1 else 's'} played")
        elif h["outcome"] == "tie":
            out.append("  result: a tie, the hand counts for nobody")
        else:
            who = " and ".join(_seat(s, names) for s in h["winners"])
            out.append(f"  result: {who} win{'s' if len(h['winners']) == 1 else ''}")
        for n in h.get("notes", ()):
            where = f"line {n['line']}: " if n["line"] is not None else ""
            out.append(f"  note {where}{n['kind']}: {_said(n['message'])}")
        for v in h["violations"]:
            where = f"line {v['line']}: " if v["line"] is not None else ""
            out.append(f"  violation {where}{v['kind']}: {_said(v['message'])}")
    m = doc["match"]
    standing = "-".join(map(str, m["hands_won"]))
    line = f"Match: hands won {standing}"
    if m["winner"] is not None:
        line += f"; the match goes to {' and '.join(_seat(s, names) for s in m['winners'])}"
    out.append(line)
    for v in doc.get("violations", []):
        out.append(f"violation line {v['line']}: {v['kind']}: {_said(v['message'])}")
    return "\n".join(out)
