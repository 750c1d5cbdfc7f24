"""Round-trip latency and throughput of the Pi <-> board link, against the emulator.

Runs the compiled firmware emulator on a pty twice: as fast as the pty goes (a
Pico's USB CDC is not limited by the baud rate), and paced at 115200 baud 8N1
(the emulator sleeps each frame's wire time, both ways: an Arduino behind a
USB-serial chip). Prints medians:

* ping RTT: PING -> PONG, timed around ``BoardLink.ping`` (application to application);
* command RTT: ``set_state`` of a new turn -> the board's ACK (``wait_synced``);
* acked commands/s: stop-and-wait commands back to back (each is 2 frames);
* burst frames/s: 1000 PINGs written at once, PONGs counted back (raw port).

The third row adds a bit flip to 1% of the bytes, both ways: commands then
include their retransmissions (lost PINGs are not counted).

The paced emulator is single-threaded, so it sleeps for received and sent bytes
one after the other: a half-duplex, pessimistic model of a full-duplex UART.

    .venv/bin/python benchmarks/bench_bridge.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.emulator import Emulator, build  # noqa: E402
from firmware_bridge.link import BoardLink, LinkError  # noqa: E402
from firmware_bridge.protocol import FrameDecoder, MsgType, encode_frame  # noqa: E402
from firmware_bridge.table_state import TableState  # noqa: E402


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(pace: int, n: int, flip: float = 0.0) -> dict:
    binary = build()
    out = {}
    with Emulator(binary=binary, pace_baud=pace, flip=flip, seed=5) as emu:
        with BoardLink(emu.port) as link:  # default timing: 60 ms ACK timeout, 6 sends
            assert link.wait_synced(5), "no handshake"
            for _ in range(20):  # warm up
                try_ping(link)
            pings = []
            for _ in range(n):
                t = time.perf_counter()
                if try_ping(link):  # a PING lost to noise is not retried: not counted
                    pings.append(time.perf_counter() - t)
            cmds = []
            state = TableState(players=4, dealer=0, turn=0)
            for i in range(n):
                state = state.replace(turn=i % 4)
                t = time.perf_counter()
                link.set_state(state)
                assert link.wait_synced(5)
                cmds.append(time.perf_counter() - t)
            acks = link.stats.acks
            t = time.perf_counter()
            for i in range(n * 2):
                link.set_state(state.replace(turn=i % 4))
                assert link.wait_synced(5)
            out["cmds_per_s"] = (link.stats.acks - acks) / (time.perf_counter() - t)
            out["retransmits"] = link.stats.retransmits
        out["ping_ms"] = statistics.median(pings) * 1e3
        out["ping_p95_ms"] = pct(pings, 0.95) * 1e3
        out["cmd_ms"] = statistics.median(cmds) * 1e3
        out["cmd_p95_ms"] = pct(cmds, 0.95) * 1e3
        out["burst_fps"] = burst(emu, 1000) if not flip else float("nan")
    return out


def try_ping(link: BoardLink) -> bool:
    try:
        link.ping(b"12345678", timeout=0.5)
        return True
    except LinkError:
        return False


def burst(emu: Emulator, count: int) -> float:
    """Frames per second both ways: `count` PINGs written at once, PONGs read back."""
    import serial
    port = serial.Serial(emu.port, 115200, timeout=0.05)
    dec = FrameDecoder()
    frames = b"".join(encode_frame(MsgType.PING, i % 255 + 1, b"abcd") for i in range(count))
    t = time.perf_counter()
    port.write(frames)
    got = 0
    deadline = t + 30
    while got < count and time.perf_counter() < deadline:
        got += sum(f.type == MsgType.PONG for f in dec.feed(port.read(max(1, port.in_waiting))))
    elapsed = time.perf_counter() - t
    port.close()
    return 2 * got / elapsed  # PINGs in and PONGs out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer round trips")
    args = ap.parse_args()
    n = 100 if args.quick else 500
    print(f"{'link':<22}{'ping RTT':>10}{'p95':>9}{'cmd RTT':>10}{'p95':>9}"
          f"{'acked cmd/s':>13}{'burst frames/s':>16}")
    for name, pace, flip in (("pty (USB CDC speed)", 0, 0.0), ("paced 115200 8N1", 115200, 0.0),
                             ("115200, 1% bits flip", 115200, 0.01)):
        r = run(pace, n, flip)
        burst_fps = "-" if r["burst_fps"] != r["burst_fps"] else f"{r['burst_fps']:.0f}"
        print(f"{name:<22}{r['ping_ms']:>8.3f}ms{r['ping_p95_ms']:>7.2f}ms"
              f"{r['cmd_ms']:>8.3f}ms{r['cmd_p95_ms']:>7.2f}ms{r['cmds_per_s']:>13.0f}"
              f"{burst_fps:>16}")
    print("(medians; a command is one state frame and its ACK: 2 frames on the wire;"
          " target < 5 ms median at 115200)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
