"""Every player count at the table: the mats for 2-6 players, and 5 and 6 players through
the simulator, the observer, the tracker, the controller and the demo."""

import dataclasses
import itertools

import cv2
import numpy as np
import pytest

from table_controller.config import ConfigError, config_from_dict
from table_controller.controller import Controller
from table_controller.engine.referee import Referee
from vision.calibration import Calibrator
from vision.mat import MAT_BGR, MatError, draw_mat, mat_layout, seats_for
from vision.observer import TableObserver, seat_zones_for
from vision.simtable import SimulatedTable
from vision.tracker import Tracker

CONFIGS = [("A3", 2), ("A3", 3), ("A3", 4), ("A2", 2), ("A2", 4), ("A2", 5), ("A2", 6)]


@pytest.mark.parametrize(("paper", "players"), CONFIGS)
def test_every_mat_fits_its_sheet_without_overlaps(paper, players):
    layout = mat_layout(paper, players)
    boxes = {n: z.corners() for n, z in layout.zones.items()}
    boxes.update({f"marker{i}": c for i, c in layout.markers.items()})
    for c in boxes.values():
        assert c.min() > 0 and c[:, 0].max() < layout.width and c[:, 1].max() < layout.height
    for (a, ca), (b, cb) in itertools.combinations(boxes.items(), 2):
        if {a, b} == {"stock", "briscola"}:
            continue  # the briscola lies half under the stock on purpose
        inter, _ = cv2.intersectConvexConvex(ca.astype(np.float32), cb.astype(np.float32))
        assert inter < 1.0, f"{a} overlaps {b}"
    plays = sorted(n for n in layout.zones if n.startswith("play"))
    assert len(plays) == players == len(layout.places)  # one zone per place, none spare
    assert sorted(layout.labels[n] for n in plays) == [f"P{i}" for i in range(1, players + 1)]


@pytest.mark.parametrize(("players", "piles"), [
    (2, [[0], [2]]), (3, [[0], [1], [3]]), (4, [[0, 2], [1, 3]]),
    (5, [[0], [1], [2], [3], [4]]), (6, [[0, 2, 4], [1, 3, 5]])])
def test_piles_are_one_per_player_or_one_per_team(players, piles):
    layout = mat_layout("A2", players)
    got: dict[str, list[int]] = {}
    for place, pile in layout.piles.items():
        got.setdefault(pile, []).append(place)
    assert sorted(sorted(v) for v in got.values()) == piles
    assert sorted(got) == sorted(n for n in layout.zones if n.startswith("tricks"))
    for pile, places in got.items():
        # Counter-clockwise, P(i+1) sits at the i-th place used.
        names = "+".join(f"P{seats_for(players).index(p) + 1}" for p in sorted(places))
        assert layout.labels[pile] == f"PRESE {names}"


def test_chiamata_has_no_stock_and_six_players_have_one():
    five, six = mat_layout("A2", 5), mat_layout("A2", 6)
    assert not five.has_stock and "stock" not in five.zones and "MAZZO" not in \
        five.labels.values()
    assert six.has_stock and six.labels["briscola"] == "BRISCOLA"
    inter, _ = cv2.intersectConvexConvex(six.zones["stock"].corners().astype(np.float32),
                                         six.zones["briscola"].corners().astype(np.float32))
    area = six.zones["briscola"].size[0] * six.zones["briscola"].size[1]
    assert 0.3 * area < inter < 0.7 * area


@pytest.mark.parametrize("players", [5, 6])
def test_five_and_six_players_need_the_a2_mat(players):
    with pytest.raises(MatError, match=f"{players} players need the A2 mat"):
        mat_layout("A3", players)
    with pytest.raises(MatError, match="2 to 6 players"):
        mat_layout("A2", 7)


def test_labels_follow_the_play_direction():
    ccw, cw = mat_layout("A3", 4, "ccw"), mat_layout("A3", 4, "cw")
    assert [ccw.labels[f"play{p}"] for p in range(4)] == ["P1", "P2", "P3", "P4"]
    assert [cw.labels[f"play{p}"] for p in range(4)] == ["P1", "P4", "P3", "P2"]
    # The seat the observer puts at each place agrees with the printed label.
    for direction, layout in (("ccw", ccw), ("cw", cw)):
        for seat, zone in seat_zones_for(4, direction).items():
            assert layout.labels[zone] == f"P{seat + 1}"


@pytest.mark.parametrize(("paper", "players"), [("A3", 4), ("A2", 5), ("A2", 6)])
def test_player_labels_are_large_outside_the_zones_and_face_their_player(paper, players):
    layout = mat_layout(paper, players)
    s = 4.0
    with_labels = draw_mat(layout, s)
    without = draw_mat(dataclasses.replace(layout, labels={}), s)
    ink = np.any(with_labels != without, axis=2)
    ys, xs = np.nonzero(ink)
    pts = np.stack([xs, ys], 1) / s  # mm
    zones = list(layout.zones.values())
    for place, where in layout.places.items():
        zone = layout.play_zone(place)
        # The label's ink: on the player's side of the zone, within 30 mm of it.
        normal = {"bottom": (0, 1), "right": (1, 0), "top": (0, -1), "left": (-1, 0)}[
            where.edge]
        rel = pts - np.array(zone.center)
        along = rel @ np.array(normal, float)
        across = rel @ np.array((-normal[1], normal[0]), float)
        mine = (along > max(zone.size) / 2) & (along < max(zone.size) / 2 + 30) & \
            (np.abs(across) < min(zone.size) / 2)
        assert mine.any(), place
        extent = along[mine].max() - along[mine].min()  # the text's height, mm
        assert extent >= (14 if paper == "A3" else 18), (place, extent)
        # Never under a card: no label ink inside any play zone.
        for z in zones:
            if z.name.startswith("play"):
                assert not any(z.contains(tuple(p)) for p in pts[mine][::7])


def test_six_player_mat_markers_are_found():
    layout = mat_layout("A2", 6)
    img = draw_mat(layout, 2.0)
    assert sorted(Calibrator(layout).detect_markers(img)) == [0, 1, 2, 3]
    assert tuple(int(v) for v in img[5, img.shape[1] // 2]) == MAT_BGR


class StubRecognizer:
    """Names every card 1d: this test is about hands, not names."""

    def identify(self, patches, half_covered=False, allowed=None):
        from vision.recognize import Identity

        return [Identity("1d", 0.99, 0.9, 0.5, False) for _ in patches]


def test_hands_are_told_apart_on_a_shared_edge():
    # Places 0 and 1 share the bottom edge with 6 players: a hand reaching zone 1 comes
    # from seat 1 only.
    sim = SimulatedTable(players=6, seed=3, pace="fast", hands=1, bumps=False)
    zones = seat_zones_for(6)
    obs = TableObserver(sim.layout, StubRecognizer(), zones)
    # (Places 0, 1, 3 and 4 share the long edges; the sleeve of the right end's player
    # is as green as the felt, so only the hand's tip shows there.)
    shared = {sim.seat_at_place(p) for p in (0, 1, 3, 4)}
    seen = {s: 0 for s in shared}
    for spec, img in sim.frames():
        o = obs.observe(img, spec.t)
        if spec.index > 500:
            break
        if spec.hand is None or spec.hand[1] < 0.99:
            continue
        place, _, target = spec.hand
        seat = sim.seat_at_place(place)
        if seat in shared and sim.layout.zones[zones[seat]].contains(target):
            assert o.hands_from == (seat,), (spec.index, seat, o.hands_from)
            assert o.zones[zones[seat]].hidden
            seen[seat] += 1
    assert all(n > 0 for n in seen.values()), seen


@pytest.mark.parametrize(("players", "piles"), [(5, 5), (6, 2)])
def test_the_simulator_collects_as_the_mat_says(players, piles):
    sim = SimulatedTable(players=players, seed=11, pace="fast", hands=2)
    used: set[str] = set()
    for _ in sim.script():
        used |= {k for k in sim._cards if k.startswith("pile-")}
    assert sim.layout.paper == "A2"
    winners = {sim.place_of(w) for h in sim.hands for w in h.winners}
    assert used == {f"pile-{sim.layout.piles[p]}" for p in winners}
    assert len({sim.layout.piles[p] for p in range(players)}) == piles


def _play(sim: SimulatedTable, controller: Controller) -> None:
    controller.tracker = Tracker(seat_zones_for(sim.opt.players), lambda: controller.referee.hand)
    controller.submit({"type": "hand", "players": sim.opt.players,
                       "dealer": sim.opt.first_dealer})
    for spec in sim.script():
        for event in spec.spoken:  # what people enter: NEW HAND, the auction's result
            if event["type"] == "hand":
                assert controller.execute("new_hand", {})["accepted"]
            else:
                assert controller.execute("call", {k: event[k] for k in
                                                   ("seat", "card", "points")})["accepted"]
        for event in controller.tracker.update(sim.truth_observation(spec)):
            controller.submit(event)


@pytest.mark.parametrize("players", [5, 6])
def test_a_match_of_five_or_six_with_every_fault_ends_right(players):
    from vision.simtable import Fault

    sim = SimulatedTable(players=players, seed=players * 5, pace="fast", match=3,
                         faults=tuple(Fault), first_dealer=2)
    controller = Controller(Referee(players=players, match=3, dealer=2))
    _play(sim, controller)
    ref = controller.referee
    assert len(ref.hands) == len(sim.hands) >= 2
    assert [h.points for h in ref.hands] == [b.points for b in sim.hands]
    assert [[t.winner for t in h.tricks] for h in ref.hands] == [b.winners for b in sim.hands]
    assert [h.dealer for h in ref.hands] == [b.dealer for b in sim.hands]
    assert ref.standing().over and ref.notes == []
    expected = [f.expect for f in sim.faults_staged
                if f.expect and f.fault is not Fault.WRONG_ZONE]
    assert [v.kind.value for v in ref.violations] == expected
    if players == 5:
        assert [h.caller for h in ref.hands] == [b.caller for b in sim.hands]
        assert [h.partner for h in ref.hands] == [b.partner for b in sim.hands]
    else:
        assert len(ref.hands[0].rules.deck) == 36 and ref.hands[0].n_tricks == 6
        assert ref.hands[0].teams() == ((0, 2, 4), (1, 3, 5))


def test_the_auction_is_entered_with_the_call_command():
    controller = Controller(Referee(players=5))
    assert controller.execute("new_hand", {"dealer": 4})["accepted"]
    r = controller.execute("call", {"seat": 0, "card": "3z"})
    assert not r["accepted"] and r["kind"] == "not_in_deck"
    assert controller.execute("call", {"seat": 2, "card": "1d", "points": 70})["accepted"]
    hand = controller.referee.hand
    assert (hand.caller, str(hand.called), hand.bid) == (2, "1d", 70)
    r = controller.execute("call", {"seat": 3, "card": "3c"})
    assert not r["accepted"] and "already called" in r["message"]


def test_config_puts_five_and_six_players_on_the_a2_mat():
    assert config_from_dict({"table": {"players": 6}}).mat_size == "A2"
    assert config_from_dict({"table": {"players": 4}}).mat_size == "A3"
    with pytest.raises(ConfigError, match=r"\[mat\] size: 5 players need the A2 mat"):
        config_from_dict({"table": {"players": 5}, "mat": {"size": "A3"}})


def test_cli_writes_the_mat_for_six(tmp_path, capsys):
    from table_controller.cli import main

    out = tmp_path / "six.png"
    assert main(["mat", "--out", str(out), "--players", "6", "--dpi", "40"]) == 0
    assert "A2, 6 players" in capsys.readouterr().out
    img = cv2.imread(str(out))
    assert abs(img.shape[1] - 594 * 40 / 25.4) <= 1
    assert main(["mat", "--out", str(tmp_path / "x.png"), "--players", "5",
                 "--size", "A3"]) == 2
    assert "5 players need the A2 mat" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("players", [5, 6])
def test_demo_with_five_or_six_players_agrees_with_the_truth(capsys, players):
    from table_controller.cli import main

    code = main(["demo", "--fast", "--headless", "--players", str(players), "--match", "1",
                 "--seed", "2", "--no-emulator", "--quit"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "agrees with the simulator's ground truth (1 of 1 hand)" in out
    last = {5: "trick  8:", 6: "trick  6:"}[players]
    assert last in out and "The match goes to" in out
    if players == 5:
        assert "the auction, entered on the phone" in out and "calls" in out


def test_the_display_shows_chiamata_s_called_card_to_everyone():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from firmware_bridge.config import IndicatorsConfig
    from firmware_bridge.indicators import Indicators
    from firmware_bridge.screen import trump_label
    from table_controller.controller import IndicatorsOutput

    indicators = Indicators.from_config(
        IndicatorsConfig(seat_leds=tuple(range(17, 22)), pin_factory="mock"),
        pin_factory=MockFactory(pin_class=MockPWMPin))
    try:
        controller = Controller(Referee(players=5), outputs=[IndicatorsOutput(indicators)])
        controller.execute("new_hand", {"dealer": 4})
        assert controller.execute("call", {"seat": 1, "card": "9c", "points": 75})["accepted"]
        state = indicators.state
        assert (state.trump_suit, state.trump_rank) == ("c", 9)
        controller.submit({"type": "play", "seat": 0, "card": "1d"})
        controller.submit({"type": "undo"})
        assert (indicators.state.trump_suit, indicators.state.trump_rank) == ("c", 9)
        assert trump_label(indicators.state).startswith("Trump: ") and \
            trump_label(indicators.state) != trump_label(state.replace(trump_rank=0))
    finally:
        indicators.close()


def test_the_auction_is_entered_with_the_buttons_step_by_step():
    from table_controller.buttons import ButtonNaming

    shown: list[tuple[str, ...]] = []
    controller = Controller(Referee(players=5))
    naming = ButtonNaming(controller, lambda *lines: shown.append(lines), lambda holds: ())
    assert naming.lines() == ()  # no hand yet: nothing to ask
    assert controller.execute("new_hand", {"dealer": 4})["accepted"]
    assert naming.on_decision(None)  # the auction opens: redraw
    assert naming.lines()[0] == "Caller: P1?"  # the seat after the dealer opens
    naming.press("undo")
    assert shown[-1][0] == "Caller: P2?"
    assert not naming.press("confirm")["accepted"]  # a short press takes nothing
    naming.press("confirm_long")
    assert shown[-1][0] == "P2 calls: 1 ..?"
    naming.press("undo")
    naming.press("confirm_long")
    assert shown[-1][0] == "Calls: 3 coins?"
    naming.press("undo")
    naming.press("confirm_long")
    assert shown[-1][0] == "Bid: 61?"
    naming.press("undo")
    naming.press("undo")
    assert shown[-1][0] == "Bid: 70?"
    naming.press("undo_long")  # back to the suit, the choices kept
    assert shown[-1][0] == "Calls: 3 cups?"
    naming.press("confirm_long")
    assert controller.referee.hand.called is None  # nothing sent before the last step
    r = naming.press("confirm_long")
    assert r["accepted"], r
    hand = controller.referee.hand
    assert (hand.caller, str(hand.called), hand.bid) == (1, "3c", 70)
    assert naming.lines() == () and not naming.on_decision(None)
    # The next chiamata hand asks again, from its own first seat.
    for event in [{"type": "play", "seat": s, "card": c} for s, c in
                  enumerate(["1d", "2d", "4d", "5d", "6d"])]:
        assert controller.submit(event).accepted
    assert controller.execute("new_hand", {})["accepted"]  # the hand is abandoned
    assert naming.lines()[0] == "Caller: P1?"


def test_the_buttons_ask_no_auction_outside_chiamata():
    from table_controller.buttons import ButtonNaming

    controller = Controller(Referee(players=4))
    naming = ButtonNaming(controller, lambda *lines: None, lambda holds: ())
    controller.execute("new_hand", {})
    assert naming.lines() == () and naming.auction is None


def test_the_eyes_may_name_a_played_card_elsewhere_but_the_rules_never_take_it_there():
    from table_controller.engine.cards import Card
    from table_controller.engine.events import HandStart, Play, Trump

    referee = Referee(players=4)
    for event in (HandStart(4, dealer=3), Trump(Card.parse("5s")), Play(0, Card.parse("4b"))):
        assert referee.feed(event).accepted
    tracker = Tracker(seat_zones_for(4), lambda: referee.hand)
    assert "4b" not in tracker.possible("play1")  # never a play of seat 1
    assert "4b" in tracker.readable("play1")  # but named if knocked there
    assert tracker.readable("play1") - tracker.possible("play1") == {"4b"}
    assert tracker.readable("briscola") == tracker.possible("briscola")
