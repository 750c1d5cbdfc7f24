"""The public state of the table as the phones see it, and the end-of-hand reveal.

The live part is built from :meth:`Hand.view` (a ``TableView``), which carries
no points until the hand is over; the reveal (points, trick-by-trick account)
is added only once ``view.over``. Cards of tricks already taken are not listed
during the hand either: at a real table they lie face down in the winner's pile.
"""

from __future__ import annotations

import re
from typing import Any

from table_controller.engine.hand import TableView
from table_controller.engine.referee import Decision, Referee, Violation
from table_controller.engine.report import hand_report


def match_json(info: Any | None, referee: Referee | None = None) -> dict[str, Any] | None:
    """The match settings a phone may show (``info`` is a store MatchInfo or a dict)."""
    if info is None:
        return None
    d = info.to_json() if hasattr(info, "to_json") else dict(info)
    players = d.get("players") or (referee.defaults.players if referee else 2)
    names = list(d.get("names") or [])
    names += [""] * (players - len(names))
    return {"id": d.get("id"), "players": players,
            "names": [n or _default_name(s) for s, n in enumerate(names[:players])],
            "variants": list(d.get("variants") or []), "length": d.get("length"),
            "deck": d.get("deck") or "builtin"}


def _default_name(seat: int) -> str:
    return f"P{seat + 1}"  # as the display and the terminal number players


def _teams(view: TableView, referee: Referee) -> list[list[int]] | None:
    fixed = referee.hand.rules.fixed_teams if referee.hand else None
    if fixed:
        return [list(t) for t in fixed]
    if view.caller is not None and view.partner is not None:  # chiamata, partner revealed
        side = sorted({view.caller, view.partner})
        return [side, [s for s in range(view.players) if s not in side]]
    return None


def hand_json(referee: Referee) -> dict[str, Any] | None:
    """The hand in progress (or just finished) from its TableView: no points."""
    hand = referee.hand
    if hand is None:
        return None
    view = hand.view()
    won = [0] * view.players
    for w in view.trick_winners:
        won[w] += 1
    return {
        "index": len(referee.hands) - 1,
        "number": len(referee.hands),
        "players": view.players,
        "dealer": view.dealer,
        "variants": list(view.variants),
        "trump": view.trump.value if view.trump else None,
        "briscola": str(view.briscola) if view.briscola else None,
        "stock": view.stock,
        "turn": view.turn,
        "trick": [{"seat": p.seat, "card": str(p.card)} for p in view.trick],
        "trick_complete": len(view.trick) == view.players,
        "tricks_played": view.tricks_played,
        "tricks_left": view.tricks_left,
        "tricks_total": view.tricks_played + view.tricks_left,
        "trick_winners": list(view.trick_winners),
        "tricks_won": won,
        "last_winner": view.last_winner,
        "draw_order": list(view.draw_order),
        "briscola_taker": view.briscola_taker,
        "caller": view.caller,
        "called": str(view.called) if view.called else None,
        "bid": view.bid,
        "partner": view.partner,
        "teams": _teams(view, referee),
        "over": view.over,
        "dealer_note": _dealer_note(referee),
    }


def _dealer_note(referee: Referee) -> dict[str, int] | None:
    """The hand's dealer, when it broke the rotation: who dealt and whose deal it was
    (the referee's note; said on the page for the whole hand, not only as it happens)."""
    index = len(referee.hands) - 1
    for note in referee.notes:
        if note.hand == index and note.seat is not None and note.expected is not None:
            return {"seat": note.seat, "expected": note.expected}
    return None


def reveal_json(referee: Referee, index: int | None = None) -> dict[str, Any] | None:
    """The end-of-hand account of hand ``index`` (default: the last); None if not over."""
    if not referee.hands:
        return None
    index = len(referee.hands) - 1 if index is None else index
    hand = referee.hands[index]
    if hand.view().score is None:  # the one gate: nothing below runs during a hand
        return None
    violations = [v for v in referee.violations if v.hand == index]
    return reveal_from_report(hand_report(hand, violations))


def reveal_from_report(report: dict[str, Any]) -> dict[str, Any] | None:
    """The reveal from a stored hand report (the store's ``hands.result``)."""
    if not report.get("complete"):
        return None
    running = [0] * report["players"]
    tricks = []
    for n, t in enumerate(report["tricks"], 1):
        running[t["winner"]] += t["points"]
        tricks.append({"n": n, "leader": t["leader"], "plays": t["plays"],
                       "winner": t["winner"], "points": t["points"], "running": list(running)})
    return {"points": report["points"], "team_points": report["team_points"],
            "teams": report["teams"], "winners": report["winners"],
            "outcome": report["outcome"], "reason": report["reason"],
            "trump": report["trump"], "tricks": tricks, "caller": report.get("caller"),
            "called": report.get("called"), "bid": report.get("bid"),
            "partner": report.get("partner"), "swaps": report.get("swaps", [])}


def violation_json(violation: Violation | None) -> dict[str, Any] | None:
    if violation is None:
        return None
    return {"kind": violation.kind.value, "message": violation.message,
            "seat": violation.seat, "card": None if violation.card is None else str(violation.card)}


def what_happened(decision: Decision | None) -> dict[str, Any] | None:
    """A short note on this event, for the page to flash (no points in it)."""
    if decision is None:
        return None
    event = decision.event
    note: dict[str, Any] = {"type": getattr(event, "type", None), "accepted": decision.accepted}
    if decision.accepted and event is not None and hasattr(event, "to_json"):
        note["event"] = {k: v for k, v in event.to_json().items() if k != "points"}
    if decision.undone is not None:
        note["undone"] = decision.undone.type
    if decision.replaced is not None:
        note["replaced"] = {"seat": decision.replaced.seat, "card": str(decision.replaced.card)}
    if decision.trick_winner is not None:
        note["trick_winner"] = decision.trick_winner
    if decision.briscola_taker is not None:
        note["briscola_taker"] = decision.briscola_taker
    if decision.partner is not None:
        note["partner"] = decision.partner
    note["new_hand"] = decision.new_hand
    note["hand_over"] = decision.hand_over
    return note


def table_state(referee: Referee | None, match: dict[str, Any] | None,
                violation: dict[str, Any] | None = None,
                note: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole public snapshot the live page and ``/api/v1/table`` show."""
    if referee is None:
        return {"match": match, "hand": None, "standing": None, "next_dealer": None,
                "violation": violation, "note": note, "reveal": None, "match_over": False,
                "holds": []}
    standing = referee.standing()
    hand = referee.hand
    return {
        "match": match,
        "hand": hand_json(referee),
        "standing": standing.to_json(),
        "match_over": standing.over,
        "next_dealer": None if standing.over or (hand is not None and not hand.is_over())
        else referee.next_dealer(),
        "violation": violation,
        "note": note,
        "reveal": reveal_json(referee),
        "holds": [],  # the hub fills in the cards the table is asking about
        # The last finished hand before this one: its points are public, one tap away.
        "last_finished": next((i for i in range(len(referee.hands) - 2, -1, -1)
                               if referee.hands[i].is_over()), None),
    }


# -- the one gate: what a phone may see --------------------------------------------------

# Every key a phone's snapshot may carry; anything else a caller adds is dropped.
SNAPSHOT_KEYS = ("match", "hand", "standing", "match_over", "next_dealer", "violation",
                 "note", "reveal", "holds", "next_hand_in", "last_finished")
HAND_KEYS = ("index", "number", "players", "dealer", "variants", "trump", "briscola", "stock",
             "turn", "trick", "trick_complete", "tricks_played", "tricks_left",
             "tricks_total", "trick_winners", "tricks_won", "last_winner", "draw_order",
             "briscola_taker", "caller", "called", "bid", "partner", "teams", "over",
             "dealer_note")
NOTE_KEYS = ("type", "accepted", "event", "undone", "replaced", "trick_winner",
             "briscola_taker", "partner", "new_hand", "hand_over")
VIOLATION_KEYS = ("kind", "message", "seat", "card", "hand")
MATCH_KEYS = ("id", "players", "names", "variants", "length", "deck")
STANDING_KEYS = ("hands_won", "winner", "winners", "length", "hands_played")
HOLD_KEYS = ("zone", "seat", "reason", "likely", "card")
MAX_LIKELY = 4  # a hold shows the camera's few likeliest cards, never the possible ones
_POINTS = ("point", "score", "running")


# A card code standing alone in a message ("5s was already played this hand").
_CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])(?:10|[1-9])[dcsb](?![0-9A-Za-z])")
MAX_MESSAGE = 300  # a violation's or a reply's message, as a phone is shown it


def face_up(hand: dict[str, Any] | None) -> set[str]:
    """The cards lying face up in a (phone's) hand document: the trick, the face-up
    briscola, the called card."""
    if hand is None:
        return set()
    cards = {p.get("card") for p in hand.get("trick") or []}
    cards |= {hand.get("briscola"), hand.get("called")}
    cards.discard(None)
    return cards


def hide_cards(text: str, visible: set[str]) -> str:
    """``text`` with every card code not in ``visible`` said as "a card": the referee's
    words name cards ("5s was already played this hand") that may lie in taken tricks."""
    text = text[:MAX_MESSAGE]
    return _CARD_IN_TEXT.sub(lambda m: m.group(0) if m.group(0) in visible else "a card",
                             text)


def phone_reply(result: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A write's answer as the phone that sent it may see it, with ``state`` the phone
    snapshot after it: during a hand its message names no card off the table."""
    hand = state.get("hand")
    message = result.get("message")
    if hand is None or hand.get("over") or not isinstance(message, str):
        return result
    return dict(result, message=hide_cards(message, face_up(hand)))


def _no_points(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if not any(p in k for p in _POINTS)}


def phone_view(state: dict[str, Any]) -> dict[str, Any]:
    """What a phone may see of a snapshot, now: the one function every channel (the
    live page, ``/api/v1/table``, the stream) goes through (see ``LiveTable``).

    Only known keys pass. While a hand is being played there is no reveal, no key about
    points, and every card named is one lying face up on the table (the trick, the
    briscola, the called card): a card of a taken trick (e.g. in a correction's note,
    or a violation's card and message: "5s was already played this hand") is replaced
    by None, or "a card" in words. Once the hand is over the reveal is shown whole.
    Idempotent.
    """
    out: dict[str, Any] = {k: state.get(k) for k in SNAPSHOT_KEYS}
    for key, keys in (("match", MATCH_KEYS), ("standing", STANDING_KEYS)):
        if out[key] is not None:
            out[key] = {k: out[key].get(k) for k in keys}
    hand = state.get("hand")
    if hand is not None:
        hand = {k: hand.get(k) for k in HAND_KEYS}
        hand["trick"] = [{"seat": p.get("seat"), "card": p.get("card")}
                         for p in hand.get("trick") or []]
    out["hand"] = hand
    during = hand is not None and not hand.get("over")
    violation = state.get("violation")
    if violation is not None:
        violation = {k: violation.get(k) for k in VIOLATION_KEYS}
    out["violation"] = violation
    out["holds"] = [dict({k: h.get(k) for k in HOLD_KEYS},
                         likely=list(h.get("likely") or [])[:MAX_LIKELY])
                    for h in state.get("holds") or []]
    note = state.get("note")
    if note is not None:
        note = {k: note[k] for k in NOTE_KEYS if k in note}
        for key in ("event", "replaced"):
            if isinstance(note.get(key), dict):
                note[key] = _no_points(dict(note[key]))
    if during:
        out["reveal"] = None
        visible = face_up(hand)
        if violation is not None:
            if violation["card"] not in visible:
                violation["card"] = None
            if isinstance(violation["message"], str):
                violation["message"] = hide_cards(violation["message"], visible)
        visible |= {h["card"] for h in out["holds"]}
        visible.discard(None)
        if note is not None:
            for key in ("event", "replaced"):
                part = note.get(key)
                if isinstance(part, dict):
                    for field in ("card", "was"):
                        if part.get(field) is not None and part[field] not in visible:
                            part[field] = None
    out["note"] = note
    return out


__all__ = ["phone_view", "phone_reply", "hide_cards", "face_up", "table_state", "hand_json",
           "reveal_json", "reveal_from_report", "match_json", "violation_json", "what_happened"]
