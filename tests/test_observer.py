"""The observer on rendered frames of the simulated table (recognition stubbed: it is
tested on its own; here: calibration, card finding, zones, hands, bumps)."""

import math

import numpy as np

from vision.observer import TableObserver, seat_zones_for
from vision.recognize import Identity
from vision.simtable import SimulatedTable
from vision.tracker import UNKNOWN


class StubRecognizer:
    """Names every patch "1d", and remembers how many it was asked about."""

    def __init__(self):
        self.asked = 0

    def embedder(self, patches):
        return np.zeros((len(patches), 8), np.float32)

    def identify_embeddings(self, embeddings):
        self.asked += len(embeddings)
        return [Identity("1d", 0.99, 0.9, 0.5, False) for _ in embeddings]

    def identify(self, patches, half_covered=False, allowed=None):
        return self.identify_embeddings(self.embedder(patches))


def test_cards_zones_and_hands_on_rendered_frames():
    sim = SimulatedTable(players=2, seed=2, pace="fast", hands=1, bumps=False)
    zones = seat_zones_for(2)
    rec = StubRecognizer()
    obs = TableObserver(sim.layout, rec, zones)
    checked = hands_seen = 0
    for spec, img in sim.frames():
        o = obs.observe(img, spec.t)
        assert o is not None
        if spec.index > 400:
            break
        for seat, zone in zones.items():
            card = sim._cards.get(zone)
            z = o.zones[zone]
            if spec.hand is None:
                if card is None:
                    assert z.content is None, (spec.index, zone, z)
                else:
                    assert z.content == "1d", (spec.index, zone, z)
                    assert math.dist(z.center, card.center) < 6
                    checked += 1
            elif spec.hand[1] >= 0.99 and sim.seat_zone(seat) == zone and \
                    sim.place_of(seat) == spec.hand[0] and \
                    sim.layout.zones[zone].contains(spec.hand[2]):
                assert z.hidden, (spec.index, zone)
                assert seat in o.hands_from
                hands_seen += 1
    assert checked > 50 and hands_seen > 5
    # Cards lying still are named once, not at every frame.
    assert rec.asked < 60
    assert obs.stats.unchanged > 0


def test_broken_frames_are_dropped_and_counted():
    sim = SimulatedTable(players=2, seed=2, pace="fast", hands=1)
    obs = TableObserver(sim.layout, StubRecognizer(), seat_zones_for(2))
    assert obs.observe(None, 0.0) is None
    assert obs.observe(np.zeros((10, 10), np.uint8), 0.0) is None
    assert obs.observe(np.zeros((720, 1280, 3), np.uint8), 0.0) is None  # no mat in view
    assert obs.stats.broken == 2 and obs.stats.uncalibrated == 1


def test_a_bumped_camera_recovers_by_itself():
    sim = SimulatedTable(players=2, seed=4, pace="fast", hands=1)
    obs = TableObserver(sim.layout, StubRecognizer(), seat_zones_for(2))
    frames = sim.frames()
    spec, img = next(frames)
    assert obs.observe(img, spec.t) is not None
    before = obs.cal.current.homography.copy()
    # Bump the camera: the same scene, seen from a shifted, turned camera.
    sim._cam = sim._camera(1.5, 2.0, -1.5, (30.0, -20.0))
    spec, img = next(frames)
    o = obs.observe(img, spec.t)
    assert o is not None and obs.stats.calibrations >= 2
    assert not np.allclose(before, obs.cal.current.homography)
    assert all(z.content in (None, UNKNOWN) or z.content == "1d" for z in o.zones.values())


class FirstUnsure(StubRecognizer):
    """Unsure of every card the first ``unsure`` times it is asked (a finger was still
    leaving it), sure afterwards."""

    def __init__(self, unsure):
        super().__init__()
        self.unsure = unsure

    def identify(self, patches, half_covered=False, allowed=None):
        out = []
        for _ in patches:
            self.asked += 1
            sure = self.asked > self.unsure
            out.append(Identity("1d" if sure else None, 0.9, 0.9, 0.5, False,
                                () if sure else ("1d", "2d")))
        return out


def test_a_card_left_unnamed_is_read_again_in_a_still_view():
    """The first look at a card may come too early; in a view where nothing moves, the
    observer looks at an unnamed card again (and never caches its unknown)."""
    sim = SimulatedTable(players=2, seed=2, pace="fast", hands=1, bumps=False)
    zones = seat_zones_for(2)
    frame = None
    for spec, img in sim.frames():  # the first frame with a card lying in a play zone
        if any(z in sim._cards for z in zones.values()) and spec.hand is None:
            frame = img
            break
    assert frame is not None
    rec = FirstUnsure(unsure=1)
    obs = TableObserver(sim.layout, rec, zones)
    seen = [obs.observe(frame, i / 30) for i in range(8)]  # the very same picture
    played = [z for z in zones.values() if z in sim._cards]
    assert seen[0].zones[played[0]].content == UNKNOWN
    assert seen[0].zones[played[0]].candidates == ("1d", "2d")
    assert seen[-1].zones[played[0]].content == "1d"
    assert obs.stats.unchanged > 0  # still frames are otherwise answered from the last
