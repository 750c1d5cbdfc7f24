"""The whole table on simulated matches: accuracy against ground truth, latency, speed.

Every frame of the simulated table goes through the real vision pipeline (observer:
markers, rectification, detection, recognition; then the tracker), the referee and the
indicators on gpiozero's MockFactory. Printed per configuration and in total:

- hands whose tricks, trick winners and points equal the simulator's truth;
- staged faults reported as the right violation (and no violation otherwise);
- placement-to-LED latency: from the frame where a card comes to rest to the moment the
  turn LED changed for it (frame delay at 30 fps plus processing time), median and p95;
- frames per second processed by the controller (rendering excluded), one thread;
- peak resident memory of the process (the simulator's renderer included).

    python benchmarks/bench_table_e2e.py [--hands 50] [--oracle] [--quick]

``--oracle`` replaces vision with the simulator's perfect observer (checks the rest).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q / 100 * (len(values) - 1))))
    return values[k]


def run_config(players: int, variants: tuple[str, ...], hands: int, seed: int, oracle: bool,
               faults: tuple[str, ...], recognizer, mock_factory) -> dict:
    from firmware_bridge.config import IndicatorsConfig
    from firmware_bridge.indicators import Indicators
    from table_controller.controller import Controller, IndicatorsOutput
    from table_controller.referee import Referee
    from vision.observer import seat_zones_for, table_eyes
    from vision.simtable import SimulatedTable
    from vision.tracker import Tracker

    sim = SimulatedTable(players=players, variants=variants, seed=seed, pace="real",
                         hands=hands, first_dealer=0, faults=faults)
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
        controller.observer = observer
    controller.tracker = tracker
    controller.submit({"type": "hand", "players": players, "dealer": 0,
                       "variants": list(variants)})
    truth_frames: dict[tuple[int, str], int] = {}  # (hand, card) -> frame it came to rest
    latencies: list[float] = []
    proc_time = 0.0
    frames = 0
    hand_no = 0
    for spec, img in (((s, None) for s in sim.script()) if oracle else sim.frames()):
        for te in spec.truth:
            if te.event["type"] == "hand" and spec.index > 0:
                hand_no += 1
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
        for d in decisions:
            if d.accepted and d.event is not None and d.event.type == "play":
                key = (len(controller.referee.hands) - 1, str(d.event.card))
                if key in truth_frames:
                    latencies.append((spec.index - truth_frames.pop(key)) / 30.0 + dt)
    ref = controller.referee
    exact = sum(h.points == b.points and [t.winner for t in h.tricks] == b.winners
                for h, b in zip(ref.hands, sim.hands, strict=False))
    expected = [f.expect for f in sim.faults_staged if f.expect]
    got = [v.kind.value for v in ref.violations]
    indicators.close()
    return {"hands": len(sim.hands), "exact": exact, "refereed": len(ref.hands),
            "faults_expected": expected, "violations": got, "latencies": latencies,
            "frames": frames, "proc_time": proc_time,
            "observer": getattr(observer, "stats", None)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=50)
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--quick", action="store_true", help="a few hands, for a smoke run")
    args = ap.parse_args()
    import cv2

    cv2.setNumThreads(1)
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    recognizer = None
    if not args.oracle:
        from vision.embed import Embedder
        from vision.enroll import builtin_deck
        from vision.recognize import Recognizer

        embedder = Embedder(threads=1)
        recognizer = Recognizer(builtin_deck(embedder), embedder)
    configs = [(2, (), ()), (2, ("swap7",), ("out_of_turn", "cover")), (3, (), ()),
               (4, (), ("wrong_zone", "taken_back")), (4, ("swap7",), ())]
    per = max(1, (3 if args.quick else args.hands) // len(configs))
    totals = {"hands": 0, "exact": 0, "frames": 0, "proc": 0.0, "lat": [], "faults_ok": 0,
              "faults": 0}
    for i, (players, variants, faults) in enumerate(configs):
        if args.quick and i >= 3:
            break
        r = run_config(players, variants, per, 100 + i, args.oracle, faults, recognizer,
                       MockFactory(pin_class=MockPWMPin))
        ok_faults = r["violations"] == r["faults_expected"]
        print(f"{players} players {'+'.join(variants) or 'plain':12s} faults "
              f"{'+'.join(faults) or '-':22s}: {r['exact']}/{r['hands']} hands exact, "
              f"violations {'as expected' if ok_faults else r['violations']} "
              f"(expected {len(r['faults_expected'])}), {r['frames']} frames, "
              f"{r['frames'] / r['proc_time']:.0f} fps")
        if r["observer"] is not None:
            print(f"    observer: {r['observer']}")
        totals["hands"] += r["hands"]
        totals["exact"] += r["exact"]
        totals["frames"] += r["frames"]
        totals["proc"] += r["proc_time"]
        totals["lat"] += r["latencies"]
        totals["faults"] += 1
        totals["faults_ok"] += ok_faults
    lat = [x * 1000 for x in totals["lat"]]
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"TOTAL: {totals['exact']}/{totals['hands']} hands equal to the ground truth; "
          f"fault checks {totals['faults_ok']}/{totals['faults']}")
    if lat:
        print(f"placement-to-LED latency: median {statistics.median(lat):.0f} ms, "
              f"p95 {percentile(lat, 95):.0f} ms, max {max(lat):.0f} ms "
              f"(target <= 150 ms at 30 fps; {len(lat)} cards)")
    print(f"controller throughput: {totals['frames'] / totals['proc']:.0f} frames/s on one "
          f"thread (target >= 60)")
    print(f"peak memory (process, simulator included): {rss_mb:.0f} MB (target < 400 MB)")
    return 0 if totals["exact"] == totals["hands"] else 1


if __name__ == "__main__":
    sys.exit(main())
