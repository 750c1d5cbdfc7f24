"""The whole table on simulated matches: accuracy against ground truth, latency, speed.

Every frame of the simulated table goes through the real vision pipeline (observer:
markers, rectification, detection, recognition; then the tracker), the referee and the
indicators on gpiozero's MockFactory. Printed per configuration and in total:

- hands exact: every trick's cards, winners and points equal the simulator's truth;
- violations: staged faults must be reported as the right violation; any other
  violation is "not staged" and counted by kind;
- holds: cards the tracker held for confirmation (count against the figure), or, while
  the tracker has no holds, the faces that lay still and unnamed (what a hold would be);
  a simulated player answers each hold on the phone with the true card
  (``--answer-after FRAMES``, default 5; ``--no-answer``: nobody does). The bots do not
  wait for a held card: an answer slower than the next play comes too late;
- placement-to-LED latency: from the frame where a card comes to rest to the moment the
  turn LED changed for it (frame delay at 30 fps plus processing time), median and p95;
- frames per second processed by the controller (rendering excluded), one thread;
- peak resident memory of the process (the simulator's renderer included).

    python benchmarks/bench_table_e2e.py [--hands 50] [--oracle] [--quick]
    python benchmarks/bench_table_e2e.py --deck ../shared/decks/toscane --hands 6
    python benchmarks/bench_table_e2e.py --deck all --hands 6 --players 2 3 4 5 6
    python benchmarks/bench_table_e2e.py --players 5 6   # only those configurations

The procedural configurations cover 2 to 6 players: 5 is Briscola chiamata (8 cards
each, no stock; the auction's result is entered on the phone, as is each new hand),
6 plays in teams of three with the 36-card deck; both on the A2 mat.

``--deck DIR`` (repeatable; ``all`` = every deck under ``../shared/decks``) draws the
table with that deck's scans and enrolls the recognizer from the same scans; for each
failure it names the cards misread (true -> read), the faces left unnamed and the first
violations, which is what tells a recognition problem from a detection one.
``--oracle`` replaces vision with the simulator's perfect observer (checks the rest).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHARED_DECKS = Path(__file__).resolve().parents[1].parent / "shared" / "decks"
PROCEDURAL = [(2, (), ()), (2, ("swap7",), ("out_of_turn", "cover")), (3, (), ()),
              (4, (), ("wrong_zone", "taken_back")), (4, ("swap7",), ()),
              (5, (), ("out_of_turn", "cover")), (6, (), ("taken_back", "cover"))]
SETTLE = 3  # frames a reading must last to count (the tracker's appear_frames)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q / 100 * (len(values) - 1))))
    return values[k]


@dataclass
class Episode:
    """A zone reading that lasted: a card not found, a face left unnamed, or named as
    another card."""

    hand: int
    zone: str
    truth: str | None
    read: str
    frame: int
    frames: int = 1


@dataclass
class Watch:
    """Compares what the observer reports per zone with what lies there (the simulator's
    perfect observer), frame by frame, and keeps the readings that lasted long enough
    for the tracker to act on them."""

    unnamed: list[Episode] = field(default_factory=list)
    misread: list[Episode] = field(default_factory=list)
    unseen: list[Episode] = field(default_factory=list)
    _runs: dict[str, Episode] = field(default_factory=dict)

    def frame(self, hand: int, index: int, obs, truth) -> None:
        if obs is None:
            return
        for name, o in obs.zones.items():
            t = truth.zones.get(name)
            true = t.content if t is not None else None
            kind = None
            if o.hidden or t is None or t.hidden:
                pass
            elif o.content is None:
                kind = "unseen" if true not in (None, "back") else None
            elif o.content == "?":
                kind = "unnamed" if true not in (None, "back") else None
            elif o.content != true:
                kind = "misread"
            run = self._runs.get(name)
            read = "nothing" if o.content is None else o.content
            if kind is None:
                self._runs.pop(name, None)
                continue
            if run is not None and (run.read, run.truth) == (read, true):
                run.frames += 1
                if run.frames == SETTLE:
                    getattr(self, kind).append(run)
            else:
                self._runs[name] = Episode(hand, name, true, read, index)


class _Seen:
    """The observer, keeping its last observation for the :class:`Watch`."""

    def __init__(self, observer) -> None:
        self.inner = observer
        self.last = None

    def observe(self, frame, t):
        self.last = self.inner.observe(frame, t)
        return self.last

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _hold_count(tracker) -> int | None:
    """Holds the tracker raised so far (cards it asked about instead of naming them);
    None while it has no holds."""
    raised = getattr(getattr(tracker, "stats", None), "holds", None)
    if isinstance(raised, int):
        return raised  # counted as raised: a hold released later still counts
    holds = getattr(tracker, "holds", None)
    if holds is None:
        return None
    return holds if isinstance(holds, int) else len(holds)


def _new_holds(tracker, seen: dict, hand: int, truth, out: list[str]) -> None:
    """Note each hold as it is raised: the zone, why, what really lies there and the
    cards the table would offer first."""
    holds = getattr(tracker, "holds", None)
    if not isinstance(holds, dict):
        return
    for zone in [z for z in seen if z not in holds]:
        del seen[zone]
    for zone, h in holds.items():
        key = (getattr(h, "reason", "?"), getattr(h, "card", None))
        if seen.get(zone) != key:
            seen[zone] = key
            t = truth.zones.get(zone)
            likely = ",".join((getattr(h, "likely", ()) or getattr(h, "candidates", ()))[:3])
            out.append(f"hand {hand} {zone} {key[0]} (lies {t.content if t else None}"
                       f"{', seen ' + key[1] if key[1] else ''}; offered first {likely})")


def _tricks_of(sim_hand) -> list[list[str]]:
    plays = [str(e.card) for e in sim_hand.events if e.type == "play"]
    n = sim_hand.rules.players
    return [plays[i:i + n] for i in range(0, len(plays), n)]


def _trump_of(sim_hand) -> str | None:
    return next((str(e.card) for e in sim_hand.events if e.type == "trump"), None)


class _Player:
    """A player answering the table's holds on the phone: ``delay`` frames after a card
    is held, they pick the card that really lies there (once per hold)."""

    def __init__(self, controller, delay: int) -> None:
        self.controller = controller
        self.delay = delay
        self.since: dict[str, int] = {}
        self.answered: list[str] = []

    def frame(self, index: int, hand: int, truth) -> None:
        holds = getattr(self.controller.tracker, "holds", None)
        if not isinstance(holds, dict):
            return
        for zone in [z for z in self.since if z not in holds]:
            del self.since[zone]
        for zone in list(holds):
            first = self.since.setdefault(zone, index)
            t = truth.zones.get(zone)
            if index - first != self.delay or t is None or t.content in (None, "back"):
                continue
            r = self.controller.execute("pick", {"zone": zone, "card": t.content})
            self.answered.append(f"hand {hand} {zone} {t.content}: "
                                 + ("ok" if r["accepted"] else r["message"]))


def run_config(players: int, variants: tuple[str, ...], hands: int, seed: int, oracle: bool,
               faults: tuple[str, ...], recognizer, mock_factory, faces=None,
               answer_after: int | None = 5) -> dict:
    from firmware_bridge.config import IndicatorsConfig
    from firmware_bridge.indicators import Indicators
    from table_controller.controller import Controller, IndicatorsOutput
    from table_controller.engine.referee import Referee
    from vision.observer import seat_zones_for, table_eyes
    from vision.simtable import SimulatedTable
    from vision.tracker import Tracker

    sim = SimulatedTable(players=players, variants=variants, seed=seed, pace="real",
                         hands=hands, first_dealer=0, faults=faults, faces=faces)
    referee = Referee(players=players, variants=variants, dealer=0)
    leds = tuple(range(17, 17 + players))
    indicators = Indicators.from_config(IndicatorsConfig(seat_leds=leds, pin_factory="mock"),
                                        pin_factory=mock_factory)
    controller = Controller(referee, outputs=[IndicatorsOutput(indicators)])
    zones = seat_zones_for(players)
    observer = None
    if oracle:
        tracker = Tracker(zones, lambda: controller.referee.hand)
    else:
        observer, tracker = table_eyes(sim.layout, recognizer, zones,
                                       lambda: controller.referee.hand)
        controller.observer = seen = _Seen(observer)
    controller.tracker = tracker
    controller.submit({"type": "hand", "players": players, "dealer": 0,
                       "variants": list(variants)})
    watch = Watch()
    player = _Player(controller, answer_after) if answer_after is not None else None
    truth_frames: dict[tuple[int, str], int] = {}  # (hand, card) -> frame it came to rest
    latencies: list[float] = []
    holds_at_hand: list[int] = []  # the tracker's hold count when each hand began
    hold_notes: list[str] = []
    hold_seen: dict = {}
    proc_time = 0.0
    frames = 0
    hand_no = 0
    for spec, img in (((s, None) for s in sim.script()) if oracle else sim.frames()):
        for event in spec.spoken:  # chiamata: NEW HAND and the auction, on the phone
            if event["type"] == "hand":
                controller.execute("new_hand", {})
            else:
                controller.execute("call", {k: event[k] for k in ("seat", "card", "points")})
        for te in spec.truth:
            if te.event["type"] == "hand":
                hand_no += 1 if spec.index > 0 else 0
                holds_at_hand.append(_hold_count(tracker) or 0)
            if te.event["type"] == "play":
                truth_frames[(hand_no, te.event["card"])] = spec.index
        t0 = time.perf_counter()
        if oracle:
            decisions = [controller.submit(e) for e in tracker.update(
                sim.truth_observation(spec))]
        else:
            decisions = controller.on_frame(img, spec.t)
        dt = time.perf_counter() - t0
        proc_time += dt
        frames += 1
        truth_obs = sim.truth_observation(spec)
        _new_holds(tracker, hold_seen, hand_no, truth_obs, hold_notes)
        if player is not None:
            player.frame(spec.index, hand_no, truth_obs)
        if not oracle:
            watch.frame(hand_no, spec.index, seen.last, truth_obs)
        for d in decisions:
            if d.accepted and d.event is not None and d.event.type == "play":
                key = (len(controller.referee.hands) - 1, str(d.event.card))
                if key in truth_frames:
                    latencies.append((spec.index - truth_frames.pop(key)) / 30.0 + dt)
    ref = controller.referee
    holds_total = _hold_count(tracker)
    holds_per_hand = [0] * len(sim.hands)
    if holds_total is not None:
        marks = [*holds_at_hand, holds_total]
        holds_per_hand = [marks[i + 1] - marks[i] for i in range(len(sim.hands))]
    exact = 0
    hand_notes: list[str] = []
    for i, truth in enumerate(sim.hands):
        got = ref.hands[i] if i < len(ref.hands) else None
        tricks = [[str(p.card) for p in t.plays] for t in got.tricks] if got else []
        ok = got is not None and got.is_over() and got.points == truth.points and \
            [t.winner for t in got.tricks] == truth.winners and tricks == _tricks_of(truth)
        ok = ok and holds_per_hand[i] == 0  # a card held for confirmation counts against
        exact += ok
        if not ok:
            trump = str(got.briscola) if got is not None and got.briscola else None
            right = sum(a == b for a, b in zip(tricks, _tricks_of(truth), strict=False))
            hand_notes.append(
                f"hand {i}: {'not refereed' if got is None else f'{len(tricks)} tricks'} "
                f"({right} equal to the truth's first ones, of {len(truth.winners)}); "
                f"briscola {_trump_of(truth)} named {trump or 'never'}"
                + (f"; {holds_per_hand[i]} held" if holds_per_hand[i] else ""))
    expected = [f.expect for f in sim.faults_staged if f.expect]
    got_kinds = [v.kind.value for v in ref.violations]
    unstaged = Counter(got_kinds) - Counter(expected)
    first_unstaged = []
    left = Counter(expected)
    for v in ref.violations:
        if left[v.kind.value] > 0:
            left[v.kind.value] -= 1
        elif len(first_unstaged) < 3:
            first_unstaged.append(f"hand {v.hand} {v.kind.value}: {v.message}")
    indicators.close()
    return {"hands": len(sim.hands), "exact": exact, "refereed": len(ref.hands),
            "faults_expected": expected, "violations": got_kinds, "unstaged": unstaged,
            "missed": Counter(expected) - Counter(got_kinds), "latencies": latencies,
            "frames": frames, "proc_time": proc_time, "holds": holds_total,
            "watch": watch, "hand_notes": hand_notes, "hold_notes": hold_notes,
            "first_unstaged": first_unstaged,
            "answered": player.answered if player is not None else [],
            "observer": getattr(observer, "stats", None),
            "tracker": getattr(tracker, "stats", None), "card_mm": sim.card_mm}


def _kinds(c: Counter) -> str:
    return ", ".join(f"{k} x{n}" for k, n in sorted(c.items())) or "none"


def _episodes(eps: list[Episode], limit: int = 8) -> str:
    by: dict[tuple, list[Episode]] = {}
    for e in eps:
        by.setdefault((e.truth, e.read, e.zone), []).append(e)
    parts = [f"{t} as {r} in {z} (x{len(v)}, {max(e.frames for e in v)} frames, "
             f"hand {v[0].hand})" for (t, r, z), v in sorted(by.items(), key=lambda kv:
                                                             -len(kv[1]))]
    more = f", ... {len(parts) - limit} more" if len(parts) > limit else ""
    return "; ".join(parts[:limit]) + more


def _latency(ms: list[float]) -> str:
    if not ms:
        return "no card accepted"
    # A card accepted seconds after it was laid was missed at first: name that apart,
    # it is a derailed hand rather than a slow pipeline.
    late = sum(x > 1000 for x in ms)
    return (f"median {statistics.median(ms):.0f} ms, p95 {percentile(ms, 95):.0f} ms "
            f"({len(ms)} cards" + (f", {late} accepted over 1 s late)" if late else ")"))


def report(r: dict, label: str) -> bool:
    """Print one configuration's figures and diagnosis; True when it meets the bar."""
    watch: Watch = r["watch"]
    holds = r["holds"]
    hold_txt = (f"{holds} raised ({len(r['hold_notes'])} distinct zone/card holds)"
                if holds is not None else
                f"n/a (tracker has no holds yet; {len(watch.unnamed)} faces lay still "
                f"unnamed, tracker ignored_unknown "
                f"{getattr(r['tracker'], 'ignored_unknown', '?')} zone-frames)")
    print(f"{label}: {r['exact']}/{r['hands']} hands exact; violations not staged "
          f"{sum(r['unstaged'].values())} ({_kinds(r['unstaged'])}); staged and not "
          f"reported {sum(r['missed'].values())} ({_kinds(r['missed'])}); holds {hold_txt}; "
          f"{r['frames']} frames, {r['frames'] / r['proc_time']:.0f} fps")
    if watch.misread:
        print(f"    misread (true as read, settled >= {SETTLE} frames): "
              f"{_episodes(watch.misread)}")
    if watch.unnamed:
        print(f"    left unnamed while lying still: {_episodes(watch.unnamed)}")
    if watch.unseen:
        print(f"    not found while lying uncovered: {_episodes(watch.unseen)}")
    if r["hold_notes"]:
        more = len(r["hold_notes"]) - 6
        print(f"    held: {'; '.join(r['hold_notes'][:6])}"
              + (f"; ... {more} more" if more > 0 else ""))
    if r["answered"]:
        ok = sum(a.endswith(": ok") for a in r["answered"])
        bad = [a for a in r["answered"] if not a.endswith(": ok")][:3]
        print(f"    holds answered on the phone: {ok} of {len(r['answered'])} accepted"
              + (f"; refused: {'; '.join(bad)}" if bad else ""))
    for note in r["hand_notes"]:
        print(f"    {note}")
    for note in r["first_unstaged"]:
        print(f"    first violations: {note}")
    if r["observer"] is not None:
        print(f"    observer: {r['observer']}")
    return r["exact"] == r["hands"] and not r["unstaged"] and not r["missed"]


def resolve_decks(specs: list[str]) -> list[Path]:
    """``--deck`` values as folders (``all``: every deck folder under ../shared/decks)."""
    out: list[Path] = []
    for spec in specs:
        if spec == "all":
            if not SHARED_DECKS.is_dir():
                print(f"no real decks: {SHARED_DECKS} is absent (skipped)")
                continue
            out += sorted(p for p in SHARED_DECKS.iterdir() if p.is_dir())
        else:
            p = Path(spec)
            if not p.is_dir():
                raise SystemExit(f"--deck {spec}: no such folder")
            out.append(p)
    return out


def enroll_deck(folder: Path, embedder):
    """The deck's faces (BGRA, for the table) and a recognizer enrolled from its scans
    by the project's enrollment code."""
    from vision.deck_folder import face_ratio, load_deck_faces
    from vision.enroll import card_patch, enroll_patches
    from vision.recognize import Recognizer

    faces = load_deck_faces(folder, alpha=True)
    t0 = time.perf_counter()
    patches = {code: card_patch(img) for code, img in faces.items()}
    deck = enroll_patches(patches, embedder, folder.name, face_ratio(faces))
    return faces, Recognizer(deck, embedder), time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=50)
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--quick", action="store_true", help="a few hands, for a smoke run")
    ap.add_argument("--deck", action="append", default=[], metavar="DIR",
                    help="a deck folder (40 faces by code + back); 'all' = ../shared/decks/*")
    ap.add_argument("--players", type=int, nargs="+", default=None,
                    help="player counts to play, 2-6 (5 is chiamata): with --deck, plain "
                         "Briscola (default 2); without, only the procedural "
                         "configurations of these counts")
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--no-answer", action="store_true",
                    help="nobody answers a held card (by default a player picks the true "
                         "card on the phone; the hold still counts against the hand)")
    ap.add_argument("--answer-after", type=int, default=5, metavar="FRAMES",
                    help="frames from a hold to the player's pick (default 5)")
    args = ap.parse_args()
    import cv2

    cv2.setNumThreads(1)
    from vision.allocator import keep_freed_memory

    keep_freed_memory()  # as briscola-table runs
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    embedder = None
    if not args.oracle or args.deck:
        from vision.embed import Embedder

        embedder = Embedder(threads=1)
    runs: list[tuple[str, dict | Path | None, object | None]] = []  # label, faces (or
    # the deck folder to enroll them from), recognizer
    if args.deck:
        decks = resolve_decks(args.deck)
        if not decks:
            return 0
        # Each deck enrolled when its turn comes, the last one let go: a table holds one
        # deck, and the peak memory printed is a table's.
        runs += [(folder.name, folder, None) for folder in decks]
        configs = [(n, (), ()) for n in args.players or [2]]
    else:
        recognizer = None
        if not args.oracle:
            from vision.enroll import builtin_deck
            from vision.recognize import Recognizer

            recognizer = Recognizer(builtin_deck(embedder), embedder)
        runs.append(("procedural", None, recognizer))
        configs = PROCEDURAL[:3] if args.quick else PROCEDURAL
        if args.players:
            configs = [c for c in PROCEDURAL if c[0] in args.players]
            if not configs:
                ap.error("--players: no procedural configuration has "
                         + " or ".join(map(str, args.players)) + " players")
    per = max(1, (3 if args.quick else args.hands) // (1 if args.deck else len(PROCEDURAL)))
    summary = []
    totals = {"hands": 0, "exact": 0, "frames": 0, "proc": 0.0, "lat": [], "ok": 0,
              "configs": 0}
    for name, faces, recognizer in runs:
        if isinstance(faces, Path):
            folder = faces  # (the previous deck's faces and recognizer are let go by now)
            faces, recognizer, secs = enroll_deck(folder, embedder)
            print(f"deck {folder.name} ({folder}): enrolled {len(faces)} scans in "
                  f"{secs:.2f} s")
        lat_deck: list[float] = []
        exact = hands = unstaged = 0
        for i, (players, variants, faults) in enumerate(configs):
            r = run_config(players, variants, per, args.seed + i, args.oracle, faults,
                           recognizer, MockFactory(pin_class=MockPWMPin), faces,
                           None if args.no_answer else args.answer_after)
            label = (f"{name:10s} {players} players {'+'.join(variants) or 'plain':10s} "
                     f"faults {'+'.join(faults) or '-':22s}")
            if i == 0 and faces is not None:
                print(f"  cards drawn {r['card_mm'][0]:.1f} x {r['card_mm'][1]:.1f} mm")
            totals["ok"] += report(r, label)
            totals["configs"] += 1
            for k, v in (("hands", r["hands"]), ("exact", r["exact"]),
                         ("frames", r["frames"]), ("proc", r["proc_time"])):
                totals[k] += v
            totals["lat"] += r["latencies"]
            lat_deck += r["latencies"]
            exact += r["exact"]
            hands += r["hands"]
            unstaged += sum(r["unstaged"].values())
            sys.stdout.flush()
        ms = [x * 1000 for x in lat_deck]
        summary.append((name, exact, hands, unstaged,
                        statistics.median(ms) if ms else float("nan"), percentile(ms, 95)))
        if faces is not None:
            print(f"  {name}: {exact}/{hands} hands exact, {unstaged} violations not staged, "
                  f"latency {_latency(ms)}")
    lat = [x * 1000 for x in totals["lat"]]
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if len(summary) > 1:
        print("per deck: " + "; ".join(
            f"{n} {e}/{h} exact, {u} not staged, latency median/p95 {m:.0f}/{p:.0f} ms"
            for n, e, h, u, m, p in summary))
    print(f"TOTAL: {totals['exact']}/{totals['hands']} hands equal to the ground truth; "
          f"configurations meeting the bar {totals['ok']}/{totals['configs']}")
    if lat:
        print(f"placement-to-LED latency: {_latency(lat)}, max {max(lat):.0f} ms "
              f"(target <= 150 ms at 30 fps)")
    print(f"controller throughput: {totals['frames'] / totals['proc']:.0f} frames/s on one "
          f"thread (target >= 60)")
    print(f"peak memory (process, simulator included): {rss_mb:.0f} MB (target < 400 MB)")
    return 0 if totals["ok"] == totals["configs"] else 1


if __name__ == "__main__":
    sys.exit(main())
