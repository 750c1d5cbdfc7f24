"""Referee throughput: random legal 2-player hands per second on one core.

Hands are generated first (not timed); then each is fed event by event to a
fresh Referee. Prints the median of several runs; the target is >= 5,000
two-player hands per second.

    python benchmarks/bench_referee.py [--hands 2000] [--runs 7] [--players 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--variant", action="append", default=[])
    args = ap.parse_args()
    rng = random.Random(1)
    rules = HandRules(args.players, frozenset(args.variant))
    games = [play_hand(rules, rng.randrange(args.players), rng).events
             for _ in range(args.hands)]
    events = sum(len(g) for g in games)
    rates = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        for game in games:
            ref = Referee(players=args.players)
            feed = ref.feed
            for event in game:
                feed(event)
        dt = time.perf_counter() - t0
        rates.append(args.hands / dt)
        assert ref.hand.is_over()
    med = statistics.median(rates)
    print(f"players={args.players} variants={','.join(args.variant) or '-'} "
          f"hands={args.hands} events/hand={events / args.hands:.1f}")
    print(f"hands/s median {med:,.0f} (min {min(rates):,.0f}, max {max(rates):,.0f}); "
          f"events/s {med * events / args.hands:,.0f}; "
          f"us/event {1e6 / (med * events / args.hands):.2f}")
    print(f"target >= 5,000 two-player hands/s: {'met' if med >= 5000 else 'NOT met'}")


if __name__ == "__main__":
    main()
