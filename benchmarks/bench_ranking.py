"""The general ranking recomputed from a store of 10,000 finished hands (target < 2 s).

Builds a store of matches at 2 to 6 players (names from a pool of 60, a few hands with
an unnamed seat), each hand a real refereed hand's report; the rows are written with
one SQLite transaction (feeding 10,000 hands event by event, each fsynced, would take
the benchmark an hour, and is not what is measured). Then times
``web_dashboard.ranking.from_store`` (read the hands with SQLite's JSON functions,
rate them with openskill), cold, several times, and prints the median and the worst.

    python benchmarks/bench_ranking.py [--hands 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from table_controller.engine.referee import Referee
from table_controller.engine.report import hand_report
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import Store
from web_dashboard.ranking import from_store

POOL = [f"Player {i:02d}" for i in range(60)]


def reports(players: int, n: int, rng: random.Random) -> list[dict]:
    out = []
    for _ in range(n):
        sim = play_hand(HandRules(players), rng.randrange(players), rng, style="sensible")
        ref = Referee(players=players)
        for event in sim.events:
            ref.feed(event)
        out.append(hand_report(ref.hands[-1], [], []))
    return out


def build(path: Path, hands: int, rng: random.Random) -> None:
    Store(path).close()  # the schema
    by_players = {p: reports(p, 100, rng) for p in range(2, 7)}
    conn = sqlite3.connect(path)
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    made = 0
    with conn:
        while made < hands:
            players = rng.randrange(2, 7)
            names = rng.sample(POOL, players)
            if rng.random() < 0.02:
                names[0] = ""
            cur = conn.execute(
                "INSERT INTO matches(created, players, names, variants) VALUES (?,?,?,?)",
                (t0.isoformat(), players, json.dumps(names), "[]"))
            for idx in range(min(rng.randrange(1, 30), hands - made)):
                when = (t0 + dt.timedelta(minutes=made)).isoformat(timespec="seconds")
                conn.execute("INSERT INTO hands(match_id, idx, dealer, rules, started, "
                             "finished, result) VALUES (?,?,?,?,?,?,?)",
                             (cur.lastrowid, idx, 0, "{}", when, when,
                              json.dumps(rng.choice(by_players[players]))))
                made += 1
    conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ranking.db"
        t = time.perf_counter()
        build(path, args.hands, random.Random(1))
        print(f"store of {args.hands:,} finished hands built in {time.perf_counter() - t:.1f} s "
              f"({path.stat().st_size / 2**20:.1f} MiB)")
        times = []
        for _ in range(args.runs):
            store = Store(path)  # a fresh store each run: nothing cached
            t = time.perf_counter()
            ranking = from_store(store)
            times.append(time.perf_counter() - t)
            store.close()
        print(f"ranking recomputed from the store: median {statistics.median(times):.2f} s, "
              f"worst {max(times):.2f} s over {args.runs} runs (target: under 2 s); "
              f"{ranking.rated:,} hands rated, {ranking.unrated:,} unrated, "
              f"{len(ranking.players)} players")
        best = ranking.ordered()[0]
        print(f"first: {best.name}, rating {best.rating:.1f} over {best.hands} hands")


if __name__ == "__main__":
    main()
