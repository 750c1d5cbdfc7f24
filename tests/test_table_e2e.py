"""The table after the camera: tracker, referee, store and outputs on simulated matches.

The simulator's perfect observer stands in for vision here (vision has its own end-to-end
test); faults are staged and must be reported as the right violation, after which the
hand goes on to the right result.
"""

import pytest

from table_controller.controller import Controller
from table_controller.store import Store
from vision.observer import seat_zones_for
from vision.simtable import Fault, SimulatedTable
from vision.tracker import Tracker


class Recorder:
    def __init__(self):
        self.decisions = []

    def publish(self, referee, decision):
        if decision is not None:
            self.decisions.append(decision)


def play(sim: SimulatedTable, store: Store | None = None):
    opt = sim.opt
    length = None if opt.hands else opt.match  # a number of hands, or a match
    info = store.new_match(players=opt.players, variants=opt.variants, length=length,
                           first_dealer=opt.first_dealer) if store else None
    from table_controller.engine.referee import Referee

    referee = info.referee() if info else Referee(players=opt.players, variants=opt.variants,
                                                  match=length, dealer=opt.first_dealer)
    rec = Recorder()
    controller = Controller(referee, store=store, match_id=info.id if info else None,
                            outputs=[rec])
    controller.tracker = Tracker(seat_zones_for(opt.players), lambda: controller.referee.hand)
    controller.submit({"type": "hand", "players": opt.players, "dealer": opt.first_dealer,
                       "variants": list(opt.variants)})
    for spec in sim.script():
        for event in controller.tracker.update(sim.truth_observation(spec)):
            controller.submit(event)
    return controller, rec, info


@pytest.mark.parametrize("players,variants", [(2, ("swap7",)), (3, ()), (4, ("swap7", "swap2"))])
def test_faults_are_reported_right_and_the_hands_end_right(tmp_path, players, variants):
    sim = SimulatedTable(players=players, variants=variants, seed=players * 7, pace="fast",
                         match=3, faults=tuple(Fault), first_dealer=0)
    store = Store(tmp_path / "t.db")
    controller, rec, info = play(sim, store)
    ref = controller.referee
    assert [h.points for h in ref.hands] == [b.points for b in sim.hands]
    assert [[t.winner for t in h.tricks] for h in ref.hands] == [b.winners for b in sim.hands]
    assert ref.standing().over
    # A card knocked into another seat's zone is one the rules rule out there: the
    # tracker never reports it (no duplicate_card reaches the referee).
    expected = [f.expect for f in sim.faults_staged
                if f.expect and f.fault is not Fault.WRONG_ZONE]
    got = [d.violation.kind.value for d in rec.decisions if d.violation is not None]
    assert got == expected
    staged_kinds = {f.fault for f in sim.faults_staged}
    assert staged_kinds == set(Fault)
    # Everything was stored: replaying the store gives the same match.
    again = store.replay(info.id)
    assert [h._key() for h in again.hands] == [h._key() for h in ref.hands]


@pytest.mark.parametrize("seed", [1, 4, 17])  # hands with a 7 swap, a 2 swap, a 2 swap
def test_swaps_and_the_last_draw_are_followed(seed):
    sim = SimulatedTable(players=2, variants=("swap7", "swap2"), seed=seed, pace="fast",
                         hands=2, first_dealer=1)
    controller, rec, _ = play(sim)
    assert [h.points for h in controller.referee.hands] == [b.points for b in sim.hands]
    swaps = sum(len(b.swaps) for b in sim.hands)
    seen = sum(1 for d in rec.decisions if d.accepted and d.event is not None
               and d.event.type == "swap")
    assert swaps >= 1 and seen == swaps
    takers = [d.briscola_taker for d in rec.decisions if d.briscola_taker is not None]
    assert takers == [b.briscola_taker for b in sim.hands]
