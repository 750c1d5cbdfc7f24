"""Property tests over many random legal games, for every player count and variant."""

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import ALL_CARDS
from table_controller.engine.events import (
    COLLECT,
    UNDO,
    Call,
    HandStart,
    Play,
    Swap,
    Trump,
)
from table_controller.engine.record import Record, match_records, parse_records, replay_match
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import expected_winners, play_hand

CONFIGS = [(2, ()), (2, ("swap7",)), (2, ("swap2",)), (2, ("swap7", "swap2")),
           (3, ()), (3, ("swap7", "swap2")), (4, ()), (4, ("swap7",)), (5, ()),
           (6, ()), (6, ("swap2", "swap7"))]

games = st.tuples(st.sampled_from(CONFIGS), st.integers(0, 2**32 - 1),
                  st.sampled_from(["random", "sensible"]), st.floats(0, 1))


def simulate(config, seed, style, collect_prob):
    (players, variants) = config
    rng = random.Random(seed)
    return play_hand(HandRules(players, frozenset(variants)), rng.randrange(players), rng,
                     style=style, collect_prob=collect_prob)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_legal_games(game):
    sim = simulate(*game)
    rules = sim.rules
    ref = Referee(players=rules.players)
    for event in sim.events:
        d = ref.feed(event)
        assert d.accepted, (event, d.violation)
        if d.trick_winner is not None:
            # the trick winner leads the next trick and draws first
            if not d.hand_over:
                assert d.turn == d.trick_winner
            if d.draw_order:
                assert d.draw_order[0] == d.trick_winner
                assert sorted(d.draw_order) == list(range(rules.players))
    hand = ref.hand
    assert hand.is_over() and len(hand.tricks) == rules.tricks
    # all the points are distributed, and they match the independent ground truth
    assert sum(hand.points) == rules.total_points == 120
    assert hand.points == sim.points
    assert [t.winner for t in hand.tricks] == sim.winners
    assert list(hand.outcome().winners) == expected_winners(sim)
    # every card of the deck is seen exactly once
    played = Counter(p.card for t in hand.tricks for p in t.plays)
    assert set(played) == set(rules.deck) and max(played.values()) == 1
    # the face-up briscola is the last card drawn, by the seat the referee named
    if not rules.chiamata:
        assert hand.briscola_taker == sim.briscola_taker
        assert hand.stock == 0 and not hand.briscola_on_table
        draws = [t for t in hand.tricks][: (len(rules.deck) - rules.players * 3)
                                          // rules.players]
        last_winner = draws[-1].winner
        assert hand.briscola_taker == (last_winner - 1) % rules.players
        assert Play(hand.briscola_taker, hand.briscola) in [p for t in hand.tricks
                                                            for p in t.plays]
    # the record replays to the same state, through text
    text = str(Record.from_hand(hand, ["x"] * rules.players))
    (record,) = parse_records(text)
    assert record.replay() == hand
    assert replay_match(match_records(ref)).hand == hand


def random_event(rng: random.Random, players: int):
    card = rng.choice(ALL_CARDS)
    seat = rng.randrange(-1, players + 1)
    return rng.choice([
        Play(seat, card), Play(rng.randrange(players), card), Trump(card), COLLECT,
        Swap(seat, card), Call(seat, card, rng.choice([61, 70, 130])),
        HandStart(players, rng.randrange(players)), '{"type":"play"}', "garbage",
    ])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.integers(0, 2**32 - 1))
def test_rejected_events_change_nothing_and_undo_restores(game, noise_seed):
    sim = simulate(*game)
    rng = random.Random(noise_seed)
    ref = Referee(players=sim.rules.players)

    def key():
        return [h._key() for h in ref.hands], list(ref._history), ref.standing()

    for event in sim.events:
        for _ in range(2):
            junk = random_event(rng, sim.rules.players)
            before = key()
            d = ref.feed_json(junk) if isinstance(junk, str) else ref.feed(junk)
            if d.accepted:
                assert ref.feed(UNDO).accepted
            else:
                assert d.violation.kind and d.violation.message
            assert key() == before, (junk, d.violation)
        assert ref.feed(event).accepted
    assert ref.hand.points == sim.points
