"""The club: 50 simulated tables publishing to one Mosquitto, the club view's delivery
latency (p95, target under 200 ms) and memory.

Starts Mosquitto on a free port (the shipped deploy/mosquitto config: a user per table
and the ACL, in a temporary folder), then a child process with the tables: each a whole
table (``build_table``: controller, SQLite store, club publisher) fed simulated hands at
``--pace`` seconds an event (a card every second or two at a real table; 0.25 s makes it
four times as busy). This process is the club view alone (``ClubFeed`` and its Flask
app): the latency is from the moment a table's controller hands its state to the
publisher to the moment the view has it (one clock, one machine); the memory is this
process's.

    python benchmarks/bench_club.py [--tables 50] [--seconds 30] [--pace 0.25]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' broker, and the project itself
CLUB = "circolo"


def rss_mib(pid: int | str = "self") -> tuple[float, float]:
    """(VmRSS, VmHWM) in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def start_broker(folder: Path, users: list[str]):
    """The tests' broker (the shipped deploy config on a free port): one way to run it."""
    from tests.mqtt_broker import Broker

    try:
        return Broker(folder, users).start()
    except BaseException as exc:  # pytest.skip when mosquitto is missing, or no start
        sys.exit(f"bench_club: {getattr(exc, 'msg', None) or exc}")


def password(user: str) -> str:
    from tests.mqtt_broker import PASSWORD

    return PASSWORD.format(user=user)


def run_tables(port: int, tables: int, seconds: float, pace: float, folder: Path) -> None:
    """The child: ``tables`` tables playing for ``seconds``, then closing."""
    from table_controller.app import build_table
    from table_controller.config import ClubConfig, Config, TableConfig
    from table_controller.engine.rules import HandRules
    from table_controller.engine.simulation import play_hand

    built = []
    for i in range(tables):
        players = (2, 3, 4, 5, 6)[i % 5]
        name = f"t{i:02d}"
        config = replace(Config(), table=TableConfig(
            players=players, names=tuple(f"P{(i * 7 + s) % 120}" for s in range(players)),
            match=3, first_dealer=0),
            club=ClubConfig("127.0.0.1", port, CLUB, name, name, password(name)))
        built.append(build_table(config, db_path=folder / f"{name}.db", dashboard=False,
                                 vision=False))
    stop = time.monotonic() + seconds

    def play(i: int, table) -> None:
        rng = random.Random(i)
        time.sleep(rng.random() * pace)  # not all in step
        c = table.controller
        while time.monotonic() < stop:
            ref = c.referee
            dealer = 0 if ref.standing().over or not ref.hands else ref.next_dealer()
            sim = play_hand(HandRules(ref.defaults.players), dealer, rng, style="sensible")
            for event in sim.events:
                if time.monotonic() >= stop:
                    return
                c.submit(event.to_json())
                time.sleep(pace)

    threads = [threading.Thread(target=play, args=(i, t)) for i, t in enumerate(built)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    time.sleep(1.0)  # the last outbox entries
    pending = sum(t.store.outbox_counts()["pending"] for t in built)
    events = sum(t.controller.stats.events for t in built)
    for t in built:
        t.close()
    print(f"tables: {events:,} events fed, {pending} outbox entries left unsent at the end",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--pace", type=float, default=0.25, help="seconds between a table's events")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)  # the tables' process
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run_tables(args.child, args.tables, args.seconds, args.pace, args.folder)
        return

    from table_controller.club.view import ClubFeed
    from web_dashboard.club import create_club_app

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = [f"t{i:02d}" for i in range(args.tables)]
        broker = start_broker(folder, [*names, "club-view"])
        port = broker.port
        try:
            base = rss_mib()
            feed = ClubFeed("127.0.0.1", port, CLUB, username="club-view",
                            password=password("club-view"), db=str(folder / "club.db")).start()
            app = create_club_app(feed, {"CLUB_NAME": CLUB})
            client = app.test_client()
            if not feed.connected.wait(10):
                sys.exit("bench_club: the club view could not connect")
            child = subprocess.Popen(
                [sys.executable, __file__, "--child", str(port), "--tables", str(args.tables),
                 "--seconds", str(args.seconds), "--pace", str(args.pace),
                 "--folder", str(folder)], env=dict(os.environ, PYTHONPATH=str(ROOT)))
            pages = []
            while child.poll() is None:  # the view is read meanwhile, as a screen would
                t = time.perf_counter()
                client.get("/")
                client.get("/api/v1/club/ranking")
                pages.append(time.perf_counter() - t)
                time.sleep(2.0)
            lat = sorted(feed.latencies)
            tables_seen = len(feed.tables())
            hands = len(feed.hands())
            rss, peak = rss_mib()
            broker_rss = rss_mib(broker.proc.pid)[0]
            feed.close()
        finally:
            broker.stop()
    if not lat:
        sys.exit("bench_club: no state reached the club view")
    p95 = lat[int(0.95 * (len(lat) - 1))]
    states = feed.stats["states"]
    print(f"club view: {tables_seen} tables seen, {states:,} states received "
          f"({states / args.seconds:.0f}/s; latency over the last {len(lat):,}), "
          f"{hands} finished hands, "
          f"{feed.stats['duplicates']} duplicates kept once")
    print(f"delivery latency: median {statistics.median(lat) * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms (target p95 < 200 ms)")
    print(f"club view memory: {rss:.1f} MiB now, peak {peak:.1f} MiB ({base[0]:.1f} MiB "
          f"before the feed); broker {broker_rss:.1f} MiB")
    if pages:
        print(f"grid + ranking page: median {statistics.median(pages) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
