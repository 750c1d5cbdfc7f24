"""End to end through the real vision pipeline: the simulated table's frames, the observer
(markers, rectification, detection, recognition with the committed model and the
built-in deck), the tracker, the referee. The referee's tricks, winners and points must
equal the simulator's ground truth; a staged fault must be reported right."""

import pytest

from table_controller.controller import Controller
from table_controller.engine.referee import Referee
from vision.embed import Embedder
from vision.enroll import builtin_deck
from vision.observer import seat_zones_for, table_eyes
from vision.recognize import Recognizer
from vision.simtable import Fault, SimulatedTable


@pytest.fixture(scope="module")
def recognizer():
    embedder = Embedder(threads=1)
    return Recognizer(builtin_deck(embedder), embedder)


@pytest.mark.parametrize("players,variants,faults,seed", [
    (2, ("swap7",), ("out_of_turn",), 21),
    (3, (), ("cover",), 22),
    # A played card knocked into the next zone, then put back: named there as the card
    # it is (not an unknown face), so its own zone emptying is no take back.
    (4, (), ("wrong_zone", "taken_back"), 5),
    (5, (), ("out_of_turn", "cover"), 23),  # chiamata, on the A2 mat
    (6, (), ("out_of_turn",), 24),  # teams of three, the 36-card deck
])
def test_hand_through_vision_equals_ground_truth(recognizer, players, variants, faults, seed):
    sim = SimulatedTable(players=players, variants=variants, seed=seed, pace="fast", hands=1,
                         first_dealer=0, faults=faults)
    referee = Referee(players=players, variants=variants, dealer=0)
    controller = Controller(referee)
    zones = seat_zones_for(players)
    controller.observer, controller.tracker = table_eyes(sim.layout, recognizer, zones,
                                                         lambda: controller.referee.hand)
    controller.submit({"type": "hand", "players": players, "dealer": 0,
                       "variants": list(variants)})
    for spec, img in sim.frames():
        for event in spec.spoken:  # chiamata: the auction's result, entered on the phone
            assert controller.submit(event).accepted
        controller.on_frame(img, spec.t)
    (hand,) = referee.hands
    (truth,) = sim.hands
    assert [t.winner for t in hand.tricks] == truth.winners
    assert [[str(p.card) for p in t.plays] for t in hand.tricks] == \
        [[str(c) for c in cards] for cards in _truth_tricks(truth)]
    assert hand.points == truth.points and hand.is_over()
    assert (hand.caller, hand.called, hand.partner) == (truth.caller, truth.called,
                                                        truth.partner)
    # A card knocked into another seat's zone is one the rules rule out there: the
    # tracker never reports it (no duplicate_card reaches the referee).
    expected = [f.expect for f in sim.faults_staged
                if f.expect and f.fault is not Fault.WRONG_ZONE]
    assert [v.kind.value for v in referee.violations] == expected
    assert controller.stats.dropped_frames == 0


def _truth_tricks(truth):
    plays = [e.card for e in truth.events if e.type == "play"]
    n = truth.rules.players
    return [plays[i:i + n] for i in range(0, len(plays), n)]
