"""Bot players and whole simulated hands, with the ground truth of what happened.

Used by the property tests, the benchmarks and the simulated table: it deals a
real shuffled deck into hidden hands, lets bots play, draws from the stock
(face-up briscola last) and emits the physical events a camera would report.
The trick winner and the points are computed here independently of the
referee so that each checks the other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from table_controller.engine.cards import Card, Suit
from table_controller.engine.events import (
    COLLECT,
    Call,
    Event,
    HandStart,
    Play,
    Swap,
    Trump,
)
from table_controller.engine.rules import DEFAULT_BID, HandRules, Variant


def trick_winner(plays: list[tuple[int, Card]], trump: Suit) -> int:
    """The seat that takes a trick: highest trump, else highest of the led suit."""
    led = plays[0][1].suit

    def rank(item: tuple[int, Card]) -> tuple[int, int]:
        card = item[1]
        return (2 if card.suit is trump else 1 if card.suit is led else 0, card.strength)

    return max(plays, key=rank)[0]


@dataclass
class SimulatedHand:
    rules: HandRules
    dealer: int
    events: list[Event] = field(default_factory=list)
    dealt: list[list[Card]] = field(default_factory=list)  # first cards of each seat
    briscola: Card | None = None
    winners: list[int] = field(default_factory=list)  # per trick
    trick_points: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    briscola_taker: int | None = None
    caller: int | None = None
    called: Card | None = None
    partner: int | None = None
    swaps: list[tuple[int, Card]] = field(default_factory=list)

    @property
    def hand_event(self) -> HandStart:
        return self.events[0]


def choose_card(hand: list[Card], trick: list[tuple[int, Card]], trump: Suit,
                rng: random.Random, style: str = "sensible") -> Card:
    """A bot's choice: ``random``, or ``sensible`` (take points cheaply, else discard low)."""
    if style == "random" or not hand:
        return rng.choice(hand)

    def cost(card: Card) -> tuple[int, int, int]:
        # Cheapest to give away: no points, not trump, weak.
        return (card.points, int(card.suit is trump), card.strength)

    if not trick:
        return min(hand, key=cost)
    on_table = sum(c.points for _, c in trick)
    winners = [c for c in hand if trick_winner(trick + [(-1, c)], trump) == -1]
    if winners and (on_table >= 2 or any(c.suit is not trump for c in winners)):
        # Win with the cheapest card that takes it.
        return min(winners, key=lambda c: (c.suit is trump, c.points, c.strength))
    return min(hand, key=cost)


def play_hand(rules: HandRules, dealer: int, rng: random.Random, *, style: str = "random",
              collect_prob: float = 0.5, swap_prob: float = 0.7,
              bid: int | None = None) -> SimulatedHand:
    """Deal and play one whole hand; return its events and ground truth."""
    n = rules.players
    deck = list(rules.deck)
    rng.shuffle(deck)
    sim = SimulatedHand(rules, dealer)
    sim.points = [0] * n
    hands: list[list[Card]] = [[] for _ in range(n)]
    first = (dealer + 1) % n
    for i in range(n * rules.hand_size):
        hands[(first + i) % n].append(deck.pop())
    sim.dealt = [list(h) for h in hands]
    start = HandStart(players=n, dealer=dealer, variants=rules.variants,
                      removed=rules.removed)
    sim.events.append(start)
    if rules.chiamata:
        caller = rng.randrange(n)
        called = rng.choice(rules.deck)
        points = bid if bid is not None else rng.choice([DEFAULT_BID, DEFAULT_BID, 70, 80])
        sim.caller, sim.called = caller, called
        sim.events.append(Call(caller, called, points))
        trump = called.suit
        stock: list[Card] = []
    else:
        briscola = deck.pop()
        sim.briscola = briscola
        stock = [briscola] + deck  # drawn from the end: the briscola comes last
        trump = briscola.suit
        sim.events.append(Trump(briscola))
        if Variant.SWAP2 in rules.variants:
            two = Card.parse(f"2{trump.value}")
            for seat in range(n):
                if two in hands[seat] and rng.random() < swap_prob:
                    _swap(sim, hands[seat], stock, seat, two)
    leader = first
    for _ in range(rules.tricks):
        trick: list[tuple[int, Card]] = []
        for i in range(n):
            seat = (leader + i) % n
            card = choose_card(hands[seat], trick, trump, rng, style)
            hands[seat].remove(card)
            trick.append((seat, card))
            sim.events.append(Play(seat, card))
            if card is sim.called:
                sim.partner = seat
        winner = trick_winner(trick, trump)
        pts = sum(c.points for _, c in trick)
        sim.winners.append(winner)
        sim.trick_points.append(pts)
        sim.points[winner] += pts
        if stock:
            for i in range(n):
                seat = (winner + i) % n
                if len(stock) == 1 and sim.briscola is not None:
                    sim.briscola_taker = seat
                hands[seat].append(stock.pop())
        if rng.random() < collect_prob:
            sim.events.append(COLLECT)
        if Variant.SWAP7 in rules.variants and len(stock) > 0:
            seven = Card.parse(f"7{trump.value}")
            if seven in hands[winner] and stock[0].strength >= Card.parse("8d").strength \
                    and rng.random() < swap_prob:
                _swap(sim, hands[winner], stock, winner, seven)
        leader = winner
    assert not any(hands) and not stock, "every card is played"
    return sim


def _swap(sim: SimulatedHand, hand: list[Card], stock: list[Card], seat: int,
          card: Card) -> None:
    """``seat`` puts ``card`` face up under the stock and takes the card lying there."""
    hand.remove(card)
    hand.append(stock[0])  # stock[0] is the face-up card, drawn last
    stock[0] = card
    sim.swaps.append((seat, card))
    sim.events.append(Swap(seat, card))


def play_match(players: int, length: int, rng: random.Random, *, variants=(),
               style: str = "sensible", first_dealer: int | None = None,
               max_hands: int = 50) -> list[SimulatedHand]:
    """Play hands until someone wins a best-of-``length`` match (ties replayed)."""
    rules = HandRules(players, frozenset(variants))
    dealer = rng.randrange(players) if first_dealer is None else first_dealer
    need = length // 2 + 1
    won = [0] * players
    out = []
    for _ in range(max_hands):
        sim = play_hand(rules, dealer, rng, style=style)
        out.append(sim)
        for seat in _winners(sim):
            won[seat] += 1
        if max(won) >= need:
            break
        dealer = (dealer + 1) % players
    return out


def _winners(sim: SimulatedHand) -> list[int]:
    """Ground-truth winners of a simulated hand (empty for a tie)."""
    n = sim.rules.players
    pts = sim.points
    if sim.rules.chiamata:
        side = {sim.caller, sim.partner}
        side_pts = sum(pts[s] for s in side)
        bid = next(e.points for e in sim.events if isinstance(e, Call))
        return sorted(side) if side_pts >= bid else [s for s in range(n) if s not in side]
    teams = sim.rules.fixed_teams
    if teams:
        tp = [sum(pts[s] for s in t) for t in teams]
        if tp[0] == tp[1]:
            return []
        return list(teams[0] if tp[0] > tp[1] else teams[1])
    top = max(pts)
    if pts.count(top) > 1:
        return []
    return [pts.index(top)]


expected_winners = _winners
