"""The simulated table: its ground truth is a legal match, and its frames look like one."""

import numpy as np
import pytest

from table_controller.engine.referee import Referee
from vision.simtable import Fault, SimulatedTable


@pytest.mark.parametrize("players,variants", [(2, ()), (3, ()), (4, ("swap7",)),
                                              (2, ("swap7", "swap2"))])
def test_truth_events_referee_to_the_bots_result(players, variants):
    sim = SimulatedTable(players=players, variants=variants, seed=players, pace="fast",
                         match=3, faults=tuple(Fault))
    specs = list(sim.script())
    assert [s.index for s in specs] == list(range(len(specs)))
    ref = Referee(players=players, match=3)
    for te in sim.truth:
        d = ref.feed_json(te.event)
        assert d.accepted, (te, d.violation)
    assert len(ref.hands) == len(sim.hands)
    for hand, bot in zip(ref.hands, sim.hands, strict=True):
        assert hand.is_over() and hand.points == bot.points
        assert [t.winner for t in hand.tricks] == bot.winners
    assert ref.standing().over
    staged = {f.fault for f in sim.faults_staged}
    assert staged == set(Fault)
    # truth comes in frame order, stamped with the frame time
    frames = [te.frame for te in sim.truth]
    assert frames == sorted(frames)
    assert all(abs(te.t - te.frame / 30.0) < 1e-9 for te in sim.truth)


def test_frames_render_the_mat_and_cards():
    from vision.calibration import Calibrator

    sim = SimulatedTable(players=2, seed=3, pace="fast", hands=1, size=(960, 540))
    cal = Calibrator(sim.layout)
    seen_markers = 0
    previous = None
    changed = 0
    for spec, img in sim.frames():
        assert img.shape == (540, 960, 3) and img.dtype == np.uint8
        if spec.index % 25 == 0:
            seen_markers = max(seen_markers, len(cal.detect_markers(img)))
        if previous is not None and spec.version != previous:
            changed += 1
        previous = spec.version
        if spec.index > 150:
            break
    assert seen_markers == 4
    assert changed >= 4  # the deal and some plays changed the scene
