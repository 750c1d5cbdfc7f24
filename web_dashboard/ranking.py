"""The general ranking: a rating per player from every finished hand, with openskill.

A player is a name (renames and merges resolved through the store's aliases). Each
finished hand is one game for openskill's Plackett-Luce model: two players or three
alone are one-player teams ranked by their points (equal points: equal rank, so a
60-60 hand is a tie); four and six players are their fixed teams, chiamata is the
caller's side against the others, ranked by who won (a tied hand: equal ranks).
Nothing is kept: the ranking is recomputed from the hands it is given, so it can
never drift from the history. Hands with a seat left unnamed, or one name in two
seats, are not rated (nobody knows who played them) and are counted as such.

It lives in ``web_dashboard`` because both the table's dashboard and the club view
show it; it reads nothing but the hand summaries it is given
(``Store.finished_hands()`` or the club's received hands).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

MAX_PLOT = 200  # the newest hands a player's plot draws


@dataclass
class PlayerStats:
    name: str
    r: Any  # openskill's rating
    hands: int = 0
    won: int = 0
    tied: int = 0
    points: int = 0
    matches: set[tuple[str, int]] = field(default_factory=set)  # (table, match id)
    history: list[dict[str, Any]] = field(default_factory=list)  # one entry per hand

    @property
    def mu(self) -> float:
        return self.r.mu

    @property
    def sigma(self) -> float:
        return self.r.sigma

    @property
    def rating(self) -> float:
        """What the ranking sorts by: openskill's ordinal (mu - 3 sigma), a cautious
        estimate that rises as a player's hands accumulate."""
        return self.mu - 3 * self.sigma

    @property
    def average_points(self) -> float:
        return self.points / self.hands if self.hands else 0.0

    def to_json(self, rank: int | None = None, history: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name, "rating": round(self.rating, 2), "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3), "hands": self.hands, "won": self.won,
            "tied": self.tied, "lost": self.hands - self.won - self.tied,
            "average_points": round(self.average_points, 1), "matches": len(self.matches)}
        if rank is not None:
            doc = {"rank": rank, **doc}
        if history:
            doc["history"] = self.history
        return doc


@dataclass
class Ranking:
    players: dict[str, PlayerStats]
    rated: int = 0
    unrated: int = 0

    def ordered(self) -> list[PlayerStats]:
        return sorted(self.players.values(), key=lambda p: (-p.rating, -p.hands, p.name))

    def to_json(self) -> dict[str, Any]:
        return {"players": [p.to_json(rank) for rank, p in enumerate(self.ordered(), 1)],
                "hands_rated": self.rated, "hands_unrated": self.unrated}

    def player(self, name: str) -> PlayerStats | None:
        return self.players.get(name)


def _sides(hand: Mapping[str, Any]) -> tuple[list[list[int]], list[int]] | None:
    """The openskill teams (lists of seats) and their ranks (0 best), or None when the
    hand cannot be rated from what it says."""
    points = hand.get("points")
    if not isinstance(points, list) or len(points) < 2:
        return None
    n = len(points)
    winners = set(hand.get("winners") or [])
    tie = hand.get("outcome") == "tie"
    teams = hand.get("teams")
    if teams:
        sides = [list(t) for t in teams]
        if sorted(s for t in sides for s in t) != list(range(n)):
            return None
        # Chiamata is won by reaching the bid, not by more points: rank by who won.
        ranks = [0 if tie or winners & set(t) else 1 for t in sides]
        return sides, ranks
    # Alone: by points, so that three players' second and third places count too.
    order = sorted(set(points), reverse=True)
    return [[s] for s in range(n)], [order.index(p) for p in points]


def compute(hands: Iterable[Mapping[str, Any]],
            aliases: Mapping[str, str] | None = None) -> Ranking:
    """The ranking from finished-hand summaries, oldest first: each has ``names`` (per
    seat, as typed), ``points``, ``teams``, ``winners``, ``outcome``, and for the
    players' pages ``finished``, ``match_id``, ``idx`` and optionally ``table``."""
    aliases = aliases or {}
    model = PlackettLuce()
    ranking = Ranking({})
    for hand in hands:
        sides = _sides(hand)
        names = list(hand.get("names") or [])
        points = hand.get("points") or []
        if sides is None or len(names) < len(points):
            ranking.unrated += 1
            continue
        players = [aliases.get(n, n).strip() if isinstance(n, str) else "" for n in
                   names[:len(points)]]
        if not all(players) or len(set(players)) != len(players):
            ranking.unrated += 1
            continue
        teams, ranks = sides
        stats = []
        for name in players:
            p = ranking.players.get(name)
            if p is None:
                p = ranking.players[name] = PlayerStats(name, model.rating())
            stats.append(p)
        after = model.rate([[stats[s].r for s in t] for t in teams], ranks=ranks)
        for t, new in zip(teams, after, strict=True):
            for seat, r in zip(t, new, strict=True):
                stats[seat].r = r
        tie = hand.get("outcome") == "tie"
        winners = set(hand.get("winners") or [])
        table = str(hand.get("table") or "")
        for seat, p in enumerate(stats):
            won = not tie and seat in winners
            p.hands += 1
            p.won += won
            p.tied += tie
            p.points += int(points[seat])
            p.matches.add((table, int(hand.get("match_id") or 0)))
            p.history.append({"finished": hand.get("finished"), "table": table or None,
                              "match": hand.get("match_id"), "hand": hand.get("idx"),
                              "seat": seat, "points": int(points[seat]),
                              "result": "tie" if tie else "won" if won else "lost",
                              "rating": round(p.rating, 2)})
        ranking.rated += 1
    return ranking


def from_store(store: Any) -> Ranking:
    """The table's ranking, recomputed from its store."""
    return compute(store.finished_hands(), store.aliases())


def points_plot(history: list[dict[str, Any]], width: int = 320, height: int = 120,
                most: int = MAX_PLOT) -> dict[str, Any]:
    """A small plot of a player's points per hand over time, as numbers for an inline
    SVG (no script, no style attribute: the dashboard's CSP allows neither inline):
    the polyline's points, the 60-point line, the axis labels."""
    recent = history[-most:]
    pad = 4
    if not recent:
        return {"width": width, "height": height, "points": "", "dots": [], "mid": 0,
                "first": None, "last": None}
    top = 120  # the points in a deck
    step = (width - 2 * pad) / max(len(recent) - 1, 1)

    def y(points: int) -> float:
        return round(height - pad - (height - 2 * pad) * min(points, top) / top, 1)

    dots = [{"x": round(pad + i * step, 1), "y": y(h["points"]), "result": h["result"]}
            for i, h in enumerate(recent)]
    return {"width": width, "height": height,
            "points": " ".join(f"{d['x']},{d['y']}" for d in dots), "dots": dots,
            "mid": y(60), "first": recent[0].get("finished"),
            "last": recent[-1].get("finished")}


__all__ = ["Ranking", "PlayerStats", "compute", "from_store", "points_plot"]
