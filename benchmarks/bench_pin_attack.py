"""The table's PIN under attack (issue 12, finding 4).

    python benchmarks/bench_pin_attack.py [--guesses 100] [--legacy-hash]

Starts ``briscola-table dashboard`` on 127.0.0.1 (its own process, a PIN set) and:

1. sends ``--guesses`` concurrent wrong guesses (``POST /api/v1/undo`` with
   ``X-Table-PIN``) from one address, then as many from as many addresses (loopback
   has them all), and counts the ones hashed (403) and refused before hashing (429);
2. sends 40 parallel ``GET /`` with a wrong ``X-Table-PIN``, five times (pages read no
   PIN: no hash at all);
3. prints the server's peak RSS (``VmHWM``; bar: under 200 MB);
4. measures the time to try every 4-digit PIN at the rate the server allows: the
   server's own ``PinGuard`` on a simulated clock, an attacker with a fresh address
   for every guess (so that only the table-wide back-off binds) and one that always
   guesses the moment it may (bar: longer than a week, for half of them, the
   expected time, and for all).

Exit status 1 when a bar is missed. Bounded: at most 500 guesses, 60 s of HTTP.
"""

from __future__ import annotations

import argparse
import http.client
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PIN = "7391"
MAX_GUESSES = 500
WEEK = 7 * 24 * 3600.0


def start_server(db: Path, legacy: bool = False) -> tuple[subprocess.Popen, int]:
    from table_controller.store import Store
    from web_dashboard.security import PinGuard

    store = Store(db)
    PinGuard(store).set(PIN)
    if legacy:  # a hash from before (werkzeug's default scrypt, 32 MiB a check)
        from werkzeug.security import generate_password_hash
        store.set_setting("pin_hash", generate_password_hash(PIN))
    store.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "dashboard", "--host", "127.0.0.1",
         "--port", "0", "--db", str(db), "--no-mdns"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    line = server.stdout.readline()  # "briscola-table dashboard on http://...:PORT/ ..."
    try:
        port = int(line.split(" on ", 1)[1].split()[0].rstrip("/").rsplit(":", 1)[1])
    except (IndexError, ValueError):
        server.kill()
        raise SystemExit(f"the dashboard did not start: {line!r}") from None
    return server, port


def memory_kib(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def concurrent(port: int, sources: list[str], method: str, path: str) -> list[int]:
    """One request per source address, all sent at once; their statuses."""
    barrier = threading.Barrier(len(sources))
    statuses: list[int] = []

    def one(i: int, source: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                          source_address=(source, 0))
        try:
            conn.connect()
            barrier.wait(30)
            guess = f"{(i * 37) % 10_000:04d}"
            conn.request(method, path, headers={"X-Table-PIN": guess if guess != PIN
                                                else "0000"})
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
        except (OSError, threading.BrokenBarrierError):
            statuses.append(0)
        finally:
            conn.close()

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(sources)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return statuses


def time_to_try(pins: int) -> tuple[float, float]:
    """Simulated seconds to try ``pins`` wrong PINs at the fastest rate the server's
    guard allows: (from a fresh address every time, from one address)."""
    import web_dashboard.security as security
    from table_controller.store import Store

    real = security.check_password_hash
    security.check_password_hash = lambda stored, pin: False  # the schedule, not the cost
    try:
        results = []
        for fresh in (True, False):
            clock = [0.0]
            guard = security.PinGuard(Store(":memory:"), clock=lambda c=clock: c[0])
            guard.set(PIN)
            for n in range(pins):
                who = f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}" if fresh else "10.0.0.1"
                clock[0] += guard.retry_after(who)
                attempt = guard.attempt(f"{n % 10_000:04d}", who)
                assert attempt.verdict is security.Verdict.WRONG, (n, attempt)
            results.append(clock[0])
        return results[0], results[1]
    finally:
        security.check_password_hash = real


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guesses", type=int, default=100)
    parser.add_argument("--legacy-hash", action="store_true",
                        help="the PIN stored with werkzeug's default hash (32 MiB a check), "
                             "as tables set up before this change have it")
    args = parser.parse_args(argv)
    n = max(1, min(args.guesses, MAX_GUESSES))
    from web_dashboard.security import HASH_METHOD, MAX_HASHING, PER_CLIENT, TABLE

    _, cost_n, cost_r, cost_p = HASH_METHOD.split(":")
    per_check = 128 * int(cost_n) * int(cost_r) * int(cost_p) / 2**20
    if args.legacy_hash:
        print("hash: werkzeug's default scrypt:32768:8:1: 32 MiB a check (until the first "
              f"right PIN rehashes it), at most {MAX_HASHING} at once")
    else:
        print(f"hash: {HASH_METHOD}: {per_check:.0f} MiB a check, at most {MAX_HASHING} at "
              "once")
    with tempfile.TemporaryDirectory() as tmp:
        server, port = start_server(Path(tmp) / "pin.sqlite3", args.legacy_hash)
        try:
            start = memory_kib(server.pid)
            one = concurrent(port, ["127.0.0.1"] * n, "POST", "/api/v1/undo")
            many = concurrent(port, [f"127.1.{i // 250}.{1 + i % 250}" for i in range(n)],
                              "POST", "/api/v1/undo")
            pages = []
            for _ in range(5):
                pages += concurrent(port, ["127.2.0.1"] * 40, "GET", "/")
            peak = memory_kib(server.pid)
        finally:
            server.terminate()
            server.wait(10)
    for label, statuses in ((f"{n} concurrent wrong guesses, one address", one),
                            (f"{n} concurrent wrong guesses, {n} addresses", many)):
        print(f"{label}: {statuses.count(403)} hashed (403), {statuses.count(429)} refused "
              f"before hashing (429), {len(statuses) - statuses.count(403) - statuses.count(429)}"
              " other")
    print(f"200 GET / with a wrong X-Table-PIN (40 at once): "
          f"{sum(s == 200 for s in pages)} answered 200, no PIN read")
    peak_mb = peak["VmHWM"] * 1024 / 1e6
    print(f"server memory: {start['VmRSS'] / 1024:.1f} MiB at start, peak {peak_mb:.1f} MB "
          f"(bar: under 200 MB)")
    fresh_all, one_all = time_to_try(10_000)
    fresh_half, _ = time_to_try(5_000)
    days = 24 * 3600.0
    print(f"back-off: per address {PER_CLIENT.free} free, then {PER_CLIENT.base:.0f} s doubling "
          f"to {PER_CLIENT.cap:.0f} s; table {TABLE.free} free, then {TABLE.base:.0f} s "
          f"doubling to {TABLE.cap:.0f} s")
    print(f"time to guess a 4-digit PIN at the allowed rate (any number of addresses): "
          f"{fresh_half / days:.1f} days expected (5,000 guesses), {fresh_all / days:.1f} days "
          f"for all 10,000 (bar: longer than a week); from one address "
          f"{one_all / days:.0f} days for all")
    hashed = one.count(403) + many.count(403)
    refused = one.count(429) + many.count(429)
    ok = (peak_mb < 200 and fresh_half > WEEK and refused >= 2 * n - TABLE.free - 2
          and hashed <= TABLE.free + 2 and all(s == 200 for s in pages))
    print("bars met" if ok else "A BAR IS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
