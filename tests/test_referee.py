"""The referee on hand-written games: worked examples, every violation, undo, matches."""

import pytest

from table_controller.engine.cards import Card
from table_controller.engine.events import (
    COLLECT,
    UNDO,
    Call,
    HandStart,
    IllegalEvent,
    Play,
    Swap,
    Trump,
    ViolationKind,
)
from table_controller.engine.hand import Hand, Reason
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules

C = Card.parse
F = Card.from_french


def feed(ref, *events):
    out = []
    for e in events:
        out.append(ref.feed_json(e) if isinstance(e, dict | str) else ref.feed(e))
    return out


def accepted(ref, *events):
    for d in feed(ref, *events):
        assert d.accepted, d.violation
    return d


def test_worked_example_french_deck_26_to_4():
    # Spades trump (face-up 5 of spades); You are seat 0 (non-dealer, lead), Ada seat 1.
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(F("5S")))
    d = accepted(ref, Play(0, F("QC")), Play(1, F("7C")))
    assert d.trick_winner == 0 and d.trick.points == 3 and d.draw_order == (0, 1)
    d = accepted(ref, Play(0, F("4S")), Play(1, F("JH")))
    assert d.trick_winner == 0 and ref.hand.points == [5, 0]
    d = accepted(ref, Play(0, F("6D")), Play(1, F("KD")))
    assert d.trick_winner == 1 and d.draw_order == (1, 0) and d.turn == 1
    d = accepted(ref, Play(1, F("3H")), Play(0, F("AH")))
    assert d.trick_winner == 0
    assert ref.hand.points == [26, 4]


def test_turn_and_draw_order_follow_the_winner():
    ref = Referee()
    d = accepted(ref, {"type": "hand", "players": 2, "dealer": 0}, {"type": "trump", "card": "5s"})
    assert d.turn == 1  # the seat after the dealer leads
    d = accepted(ref, {"type": "play", "seat": 1, "card": "9b"})
    assert d.turn == 0 and d.trick_winner is None
    d = accepted(ref, {"type": "play", "seat": 0, "card": "2s"})  # trumped
    assert d.trick_winner == 0 and d.turn == 0 and d.draw_order == (0, 1)


def test_json_events_carry_frame_time():
    ref = Referee()
    d = ref.feed_json('{"type":"hand","players":2,"dealer":1,"t":12.5}')
    assert d.accepted and d.t == 12.5


@pytest.fixture
def two_player():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("5s")))
    return ref


def snapshot(ref):
    return [h._key() for h in ref.hands], len(ref._history)


def rejected(ref, event, kind):
    before = snapshot(ref)
    d = ref.feed_json(event) if isinstance(event, dict | str) else ref.feed(event)
    assert not d.accepted
    assert d.violation.kind == kind, d.violation
    assert d.violation.message
    assert snapshot(ref) == before, "a rejected event must leave the state as it was"
    return d.violation


def test_out_of_turn(two_player):
    v = rejected(two_player, Play(1, C("3c")), ViolationKind.OUT_OF_TURN)
    assert v.seat == 1 and str(v.card) == "3c" and "seat 0's turn" in v.message


def test_duplicate_card_played_before(two_player):
    accepted(two_player, Play(0, C("3c")), Play(1, C("4c")))
    v = rejected(two_player, Play(0, C("3c")), ViolationKind.DUPLICATE_CARD)
    assert "already played" in v.message


def test_duplicate_card_is_the_face_up_briscola(two_player):
    v = rejected(two_player, Play(0, C("5s")), ViolationKind.DUPLICATE_CARD)
    assert "face-up" in v.message


def test_not_in_deck_removed_card_and_malformed_code():
    ref = Referee()
    accepted(ref, HandStart(3, dealer=2), Trump(C("5s")))
    rejected(ref, Play(0, C("2d")), ViolationKind.NOT_IN_DECK)
    rejected(ref, {"type": "play", "seat": 0, "card": "11d"}, ViolationKind.NOT_IN_DECK)
    rejected(ref, {"type": "play", "seat": 0, "card": "x"}, ViolationKind.NOT_IN_DECK)


def test_no_trump_before_the_briscola():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1))
    rejected(ref, Play(0, C("3c")), ViolationKind.NO_TRUMP)


@pytest.mark.parametrize("line", [
    "not json", "[1,2]", '{"seat":0}', '{"type":"dance"}', '{"type":"play","card":"3c"}',
    '{"type":"play","seat":"zero","card":"3c"}', '{"type":"play","seat":5,"card":"3c"}',
    '{"type":"play","seat":true,"card":"3c"}', '{"type":"hand","players":7}',
    '{"type":"hand","players":2,"variants":["swap9"]}', '{"type":"collect"}',
    '{"type":"call","seat":0,"card":"1d"}', '{"type":"hand","players":2,"dealer":4}',
])
def test_bad_events(two_player, line):
    rejected(two_player, line, ViolationKind.BAD_EVENT)


def test_collect_mid_trick_is_bad_and_after_trick_ok(two_player):
    accepted(two_player, Play(0, C("3c")))
    v = rejected(two_player, COLLECT, ViolationKind.BAD_EVENT)
    assert "incomplete" in v.message
    accepted(two_player, Play(1, C("4c")), COLLECT)
    assert two_player.hand.table == ()


def test_next_play_implies_collect(two_player):
    accepted(two_player, Play(0, C("3c")), Play(1, C("4c")))
    assert two_player.hand.view().trick == (Play(0, C("3c")), Play(1, C("4c")))
    accepted(two_player, Play(0, C("5c")))
    assert two_player.hand.view().trick == (Play(0, C("5c")),)


def full_hand_events(players=2, dealer=1, seed=3, variants=()):
    import random

    from table_controller.engine.simulation import play_hand
    return play_hand(HandRules(players, frozenset(variants)), dealer, random.Random(seed))


def test_hand_over_after_the_last_trick():
    sim = full_hand_events()
    ref = Referee()
    for e in sim.events:
        assert ref.feed(e).accepted
    assert ref.hand.is_over()
    rejected(ref, Play(ref.hand.tricks[-1].winner, C("1d")), ViolationKind.HAND_OVER)
    rejected(ref, Swap(0, C("7d")), ViolationKind.HAND_OVER)


def test_face_up_briscola_taken_by_the_last_drawer_and_only_they_can_play_it():
    sim = full_hand_events(seed=11)
    ref = Referee()
    taker = None
    for e in sim.events:
        d = ref.feed(e)
        assert d.accepted
        if d.briscola_taker is not None:
            taker = d.briscola_taker
            hand = ref.hand
            # the last draw round: the winner drew first, the taker last
            assert d.draw_order[-1] == taker and hand.stock == 0
            briscola = hand.briscola
            if hand.turn != taker:
                other = hand.turn
                rejected(ref, Play(other, briscola), ViolationKind.NOT_HELD)
    assert taker == sim.briscola_taker
    plays = [p for t in ref.hand.tricks for p in t.plays]
    assert Play(taker, ref.hand.briscola) in plays


def swap7_game():
    """Seat 0 wins trick 1 with trump; the face-up briscola is the Re of spades."""
    ref = Referee(variants=("swap7",))
    accepted(ref, HandStart(2, dealer=1), Trump(C("10s")), Play(0, C("2s")), Play(1, C("4c")))
    return ref


def test_swap7_legal_and_the_old_briscola_goes_to_the_swapper():
    ref = swap7_game()
    d = accepted(ref, Swap(0, C("7s")))
    assert d.turn == 0  # no turn is lost
    assert ref.hand.view().briscola is C("7s")
    assert ref.hand.held[C("10s")] == 0
    rejected(ref, Play(0, C("7s")), ViolationKind.DUPLICATE_CARD)  # now face up
    accepted(ref, Play(0, C("10s")))  # the swapper may play the old briscola


@pytest.mark.parametrize("swap,why", [
    (Swap(1, C("7s")), "winner of the last trick"),
    (Swap(0, C("6s")), "7 or the 2"),
    (Swap(0, C("7c")), "7 or the 2"),
])
def test_swap7_illegal(swap, why):
    ref = swap7_game()
    assert why in rejected(ref, swap, ViolationKind.ILLEGAL_SWAP).message


def test_swap7_needs_variant_first_trick_and_strong_face_up():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("10s")), Play(0, C("2s")), Play(1, C("4c")))
    assert "variant is off" in rejected(ref, Swap(0, C("7s")), ViolationKind.ILLEGAL_SWAP).message
    ref = Referee(variants=("swap7",))
    accepted(ref, HandStart(2, dealer=1), Trump(C("10s")))
    assert "first trick" in rejected(ref, Swap(1, C("7s")), ViolationKind.ILLEGAL_SWAP).message
    ref = Referee(variants=("swap7",))
    accepted(ref, HandStart(2, dealer=1), Trump(C("6s")), Play(0, C("2s")), Play(1, C("4c")))
    assert "weaker" in rejected(ref, Swap(0, C("7s")), ViolationKind.ILLEGAL_SWAP).message
    ref = swap7_game()
    accepted(ref, Play(0, C("3c")))
    assert "between tricks" in rejected(ref, Swap(0, C("7s")),
                                        ViolationKind.ILLEGAL_SWAP).message


def test_swap2_before_first_trick_completes_only():
    ref = Referee(variants=("swap2",))
    accepted(ref, HandStart(2, dealer=1), Trump(C("6s")), Play(0, C("3c")))
    accepted(ref, Swap(1, C("2s")))  # any holder, mid-trick is fine
    assert ref.hand.view().briscola is C("2s")
    ref = Referee(variants=("swap2",))
    accepted(ref, HandStart(2, dealer=1), Trump(C("6s")), Play(0, C("3c")), Play(1, C("4c")))
    assert "before the first trick" in rejected(ref, Swap(1, C("2s")),
                                                ViolationKind.ILLEGAL_SWAP).message
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("6s")))
    rejected(ref, Swap(1, C("2s")), ViolationKind.ILLEGAL_SWAP)


def test_undo_retracts_the_last_accepted_event_only():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("5s")), Play(0, C("3c")))
    rejected(ref, Play(0, C("4c")), ViolationKind.OUT_OF_TURN)
    before = snapshot(ref)
    accepted(ref, Play(1, C("1c")))
    d = accepted(ref, UNDO)
    assert d.undone == Play(1, C("1c")) and d.turn == 1
    assert snapshot(ref) == before
    accepted(ref, UNDO, UNDO, UNDO)  # the play, the trump, the hand
    assert ref.hands == []
    rejected(ref, UNDO, ViolationKind.BAD_EVENT)


def test_undo_of_a_trick_completion_restores_points_and_draws():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("5s")), Play(0, C("3c")))
    stock = ref.hand.stock
    accepted(ref, Play(1, C("1c")))
    assert ref.hand.points == [0, 21] and ref.hand.stock == stock - 2
    accepted(ref, UNDO)
    assert ref.hand.points == [0, 0] and ref.hand.stock == stock and ref.hand.turn == 1


def test_score_hidden_until_the_end():
    sim = full_hand_events()
    ref = Referee()
    last = max(i for i, e in enumerate(sim.events) if isinstance(e, Play))
    for e in sim.events[:last]:
        ref.feed(e)
        view = ref.hand.view()
        assert view.score is None
        assert not hasattr(view, "points")
    d = ref.feed(sim.events[last])
    assert d.hand_over and d.result.points == tuple(sim.points)
    assert ref.hand.view().score == d.result


def test_three_players_most_points_and_tie():
    h = Hand(HandRules(3), dealer=0)
    h.points = [40, 40, 40]
    h.tricks = [None] * 13
    assert h.outcome().reason is Reason.TIE and h.outcome().winners == ()
    h.points = [50, 40, 30]
    assert h.outcome().winners == (0,) and h.outcome().result == "win"


def test_sixty_sixty_is_a_tie_and_teams_in_four():
    h = Hand(HandRules(2), dealer=0)
    h.tricks = [None] * 20
    h.points = [60, 60]
    assert h.outcome().result == "tie"
    h4 = Hand(HandRules(4), dealer=0)
    h4.tricks = [None] * 10
    h4.points = [30, 20, 31, 39]
    out = h4.outcome()
    assert out.team_points == (61, 59) and out.winners == (0, 2)


def test_chiamata_partner_revealed_and_bid():
    ref = Referee(players=5)
    accepted(ref, HandStart(5, dealer=4))
    rejected(ref, Play(0, C("3c")), ViolationKind.NO_TRUMP)
    rejected(ref, Trump(C("3c")), ViolationKind.BAD_EVENT)
    rejected(ref, Call(3, C("1d"), 50), ViolationKind.BAD_EVENT)
    accepted(ref, Call(3, C("1d"), 70))
    assert ref.hand.trump.value == "d"
    d = accepted(ref, Play(0, C("3c")), Play(1, C("1d")))
    assert d.partner == 1 and ref.hand.teams() == ((1, 3), (0, 2, 4))


def test_chiamata_whole_hands_against_ground_truth():
    import random

    from table_controller.engine.simulation import expected_winners, play_hand
    rng = random.Random(5)
    for _ in range(30):
        sim = play_hand(HandRules(5), rng.randrange(5), rng)
        ref = Referee(players=5)
        for e in sim.events:
            assert ref.feed(e).accepted
        out = ref.hand.outcome()
        assert list(out.winners) == expected_winners(sim)
        assert ref.hand.partner == sim.partner
        assert sum(out.team_points) == 120


def test_chiamata_caller_in_the_hand_event():
    ref = Referee()
    d = ref.feed_json({"type": "hand", "players": 5, "dealer": 0, "caller": 2, "called": "3b",
                       "points": 75})
    assert d.accepted and ref.hand.caller == 2 and ref.hand.bid == 75
    accepted(ref, UNDO)
    assert ref.hands == []


def test_match_best_of_three_dealer_rotates_and_ties_count_for_nobody():
    import random

    from table_controller.engine.simulation import expected_winners, play_hand
    rng = random.Random(8)
    ref = Referee(players=2, match=3)
    dealer = 1
    won = [0, 0]
    while True:
        sim = play_hand(HandRules(2), dealer, rng)
        for e in sim.events:
            assert ref.feed(e).accepted
        for s in expected_winners(sim):
            won[s] += 1
        standing = ref.standing()
        assert list(standing.hands_won) == won
        if max(won) == 2:
            break
        dealer = 1 - dealer
        assert ref.next_dealer() == dealer
    assert standing.winner == won.index(2)
    rejected(ref, HandStart(2), ViolationKind.HAND_OVER)


def test_abandoned_hand_is_redealt():
    ref = Referee()
    accepted(ref, HandStart(2, dealer=1), Trump(C("5s")), Play(0, C("3c")))
    d = accepted(ref, HandStart(2))
    assert ref.hand.dealer == 1 and d.new_hand and len(ref.hands) == 2
    assert ref.standing().hands_played == 0


def test_events_without_a_hand_event_use_defaults():
    ref = Referee(players=3)
    d = accepted(ref, Trump(C("5s")))
    assert ref.hand.players == 3 and d.turn == 0
    accepted(ref, UNDO)
    assert ref.hands == []


def test_hand_push_raises_value_error_subclass():
    h = Hand(HandRules(2), dealer=1)
    with pytest.raises(IllegalEvent) as info:
        h.push(Play(0, C("3c")))
    assert isinstance(info.value, ValueError) and info.value.kind == ViolationKind.NO_TRUMP
    with pytest.raises(ValueError, match="dealer"):
        Hand(HandRules(2), dealer=2)
    with pytest.raises(ValueError, match="players"):
        HandRules(7)


def test_direction_maps_seats_to_places_and_back():
    from table_controller.engine.rules import Direction
    for direction in Direction:
        for n in range(2, 7):
            places = [direction.place_of(s, n) for s in range(n)]
            assert sorted(places) == list(range(n))
            assert [direction.seat_at(p, n) for p in places] == list(range(n))
    assert Direction.parse("clockwise").place_of(1, 4) == 3
    assert Direction.parse("ccw").place_of(1, 4) == 1
    with pytest.raises(ValueError, match="direction"):
        Direction.parse("sideways")


def test_first_dealer_drawn_by_lot():
    import random

    from table_controller.engine.rules import draw_first_dealer
    rng = random.Random(1)
    seen = {draw_first_dealer(4, rng) for _ in range(200)}
    assert seen == {0, 1, 2, 3}
