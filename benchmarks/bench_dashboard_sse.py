"""Load benchmark: phones on the SSE stream while a hand is played.

    python benchmarks/bench_dashboard_sse.py [--clients 50] [--hands 1] [--pace 0.05]

Serves the dashboard on 127.0.0.1 only (the threaded server the table runs),
connects ``--clients`` SSE clients from a separate process (so that they do
not share the server's interpreter lock), plays simulated hands through the
standalone session (referee -> store with fsync -> hub) and prints the latency
from each event reaching the referee to its delivery on every connection
(target: p95 under 100 ms) and the server's memory. Bounded: at most 200
clients, 10 hands, 120 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MAX_CLIENTS, MAX_HANDS, MAX_SECONDS = 200, 10, 120.0


# -- the phones (a separate process) ------------------------------------------------------

async def _phone(port: int, received: list, ready: asyncio.Event, counter: list) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    # HTTP/1.0: the stream comes unchunked and ends when the server closes it.
    writer.write(b"GET /stream HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    first = True
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.startswith(b"data: {"):
            now = time.time()
            seq = json.loads(line[6:])["seq"]
            received.append((seq, now))
            if first:
                first = False
                counter[0] += 1
                if counter[0] == counter[1]:
                    ready.set()
    writer.close()


async def _phones(port: int, n: int) -> list[list[tuple[int, float]]]:
    ready = asyncio.Event()
    counter = [0, n]
    results: list[list] = [[] for _ in range(n)]
    tasks = [asyncio.create_task(_phone(port, results[i], ready, counter)) for i in range(n)]
    await asyncio.wait_for(ready.wait(), 30)
    print("ready", flush=True)
    await asyncio.wait_for(asyncio.gather(*tasks), MAX_SECONDS)
    return results


def run_phones(port: int, n: int) -> None:
    results = asyncio.run(_phones(port, n))
    print(json.dumps(results), flush=True)


# -- the server and the table ----------------------------------------------------------------

def rss_kib() -> dict[str, int]:
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.05,
                        help="seconds between events (a real table: about 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phones-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phones_port:
        run_phones(args.phones_port, min(args.clients, MAX_CLIENTS))
        return 0
    clients = min(max(1, args.clients), MAX_CLIENTS)
    hands = min(max(1, args.hands), MAX_HANDS)

    from werkzeug.serving import make_server

    from web_dashboard import create_app, hub_of
    from web_dashboard.demo import hand_events, simulated_hand

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    tmp = tempfile.TemporaryDirectory()
    app = create_app({"DATABASE": str(Path(tmp.name) / "bench.sqlite3"),
                      "SSE_MAX_SECONDS": MAX_SECONDS, "SSE_MAX_CLIENTS": MAX_CLIENTS})
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    session.start_match(2, ["Giulia", "Marco"], (), None)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = rss_kib()

    phones = subprocess.Popen(
        [sys.executable, __file__, "--phones-port", str(server.server_port),
         "--clients", str(clients)], stdout=subprocess.PIPE, text=True)
    if phones.stdout.readline().strip() != "ready":
        print("the phones could not connect", file=sys.stderr)
        phones.kill()
        return 1
    connected = rss_kib()

    sent: dict[int, float] = {}  # message number -> when its event reached the referee
    rng = random.Random(args.seed)
    deadline = time.monotonic() + MAX_SECONDS / 2
    for _ in range(hands):
        sim = simulated_hand(session.referee, rng)
        for obj in hand_events(sim):
            t0 = time.time()
            session.feed(obj)
            sent[hub.last.n] = t0
            time.sleep(args.pace)
            if time.monotonic() > deadline:
                break
    time.sleep(0.5)
    after = rss_kib()
    hub.close()
    out, _ = phones.communicate(timeout=MAX_SECONDS)
    server.shutdown()
    results = json.loads(out.strip().splitlines()[-1])

    latencies = [(t - sent[seq]) * 1000 for got in results for seq, t in got if seq in sent]
    expected = len(sent) * clients
    print(f"{clients} SSE clients on 127.0.0.1, {hands} hand(s), {len(sent)} events "
          f"every {args.pace * 1000:.0f} ms")
    print(f"delivered {len(latencies)}/{expected} messages")
    if latencies:
        print(f"latency referee event -> phone: p50 {percentile(latencies, 50):.1f} ms, "
              f"p95 {percentile(latencies, 95):.1f} ms, max {max(latencies):.1f} ms "
              f"(target p95 < 100 ms)")
    print(f"server RSS: {before['VmRSS'] / 1024:.1f} MiB idle, "
          f"{connected['VmRSS'] / 1024:.1f} MiB with {clients} phones, "
          f"{after['VmRSS'] / 1024:.1f} MiB after the hand (peak {after['VmHWM'] / 1024:.1f} MiB)")
    tmp.cleanup()
    return 0 if latencies and len(latencies) == expected else 1


if __name__ == "__main__":
    sys.exit(main())
