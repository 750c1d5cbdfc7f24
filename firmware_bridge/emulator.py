"""Build and run the firmware emulator: the board's C core on a pseudo-terminal.

``build()`` compiles ``hardware/firmware`` (core + ``host/emulator.c``) with gcc
into ``hardware/firmware/build/py-<hash>/``, once per source version. An
``Emulator`` runs it: ``port`` is a stable symlink to its pty, like udev's
``/dev/serial/by-id`` link to ``/dev/ttyACM0``, so the link reopens the same
path after ``power_cycle()`` (cable pulled: the board reboots, state lost) or
``unplug()`` (serial link dropped, board keeps power and state).
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np

FIRMWARE_DIR = Path(__file__).resolve().parents[1] / "hardware" / "firmware"
CFLAGS = ("-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wshadow",
          "-Werror")
SANITIZE = ("-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")


class BuildError(RuntimeError):
    """gcc is missing or the firmware does not compile."""


def compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")


def _sources(main: str) -> list[Path]:
    core = sorted((FIRMWARE_DIR / "core").glob("*.[ch]"))
    return [FIRMWARE_DIR / "host" / main, *core]


def build(program: str = "emulator", *, sanitize: bool = False) -> Path:
    """Compile ``host/<program>.c`` with the core; returns the cached binary's path."""
    cc = compiler()
    if cc is None:
        raise BuildError("no C compiler found (install gcc or set CC)")
    sources = _sources(f"{program}.c")
    flags = CFLAGS + (SANITIZE if sanitize else ())
    h = hashlib.sha256(" ".join((cc, *flags)).encode())
    for src in sources:
        h.update(src.name.encode() + src.read_bytes())
    out_dir = FIRMWARE_DIR / "build" / f"py-{h.hexdigest()[:16]}"
    binary = out_dir / (program + ("-asan" if sanitize else ""))
    if binary.exists():
        return binary
    out_dir.mkdir(parents=True, exist_ok=True)
    _prune(out_dir.parent, keep=out_dir)
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=binary.name + ".")
    os.close(fd)
    cmd = [cc, *flags, "-o", tmp, *(str(s) for s in sources if s.suffix == ".c")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        os.unlink(tmp)
        raise BuildError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    os.replace(tmp, binary)  # atomic: a parallel build never sees half a binary
    return binary


def _prune(build_dir: Path, keep: Path, max_age_days: float = 2.0) -> None:
    """Drop builds of older sources (not ones a parallel test run may still be using)."""
    import time
    for old in build_dir.glob("py-*"):
        try:
            if old != keep and time.time() - old.stat().st_mtime > max_age_days * 86400:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


class EmulatorError(RuntimeError):
    """The emulator did not answer or exited."""


class Emulator:
    """A running board emulator; use as a context manager."""

    def __init__(self, link: str | os.PathLike | None = None, *, binary: Path | None = None,
                 seed: int = 1, flip: float = 0.0, drop: float = 0.0, pace_baud: int = 0,
                 seats: int = 6, leds_per_seat: int = 4, boot_id: int | None = None) -> None:
        self._tmpdir = None
        if link is None:
            self._tmpdir = tempfile.mkdtemp(prefix="briscola-emu-")
            link = os.path.join(self._tmpdir, "ttyBOARD")
        self.port = str(link)
        self.binary = binary or build()
        self.options = {"--seed": seed, "--flip": flip, "--drop": drop, "--pace": pace_baud,
                        "--seats": seats, "--leds-per-seat": leds_per_seat}
        if boot_id is not None:
            self.options["--boot-id"] = boot_id
        self.seats, self.leds_per_seat = seats, leds_per_seat
        self.proc: subprocess.Popen[str] | None = None
        self.pty: str | None = None
        self.exit_codes: list[int] = []  # of every run; a sanitizer error makes one non-zero

    # --- process ---------------------------------------------------------------

    def start(self) -> Emulator:
        args = [str(self.binary), "--link", self.port]
        for k, v in self.options.items():
            args += [k, str(v)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self._replies: queue.Queue[dict] = queue.Queue()
        self._events: queue.Queue[dict] = queue.Queue()
        self._lock = threading.Lock()
        threading.Thread(target=self._read_stdout, args=(self.proc,), daemon=True).start()
        self.pty = self.wait_ready()["pty"]
        return self

    def _read_stdout(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            msg = json.loads(line)
            (self._events if "event" in msg else self._replies).put(msg)
        self._replies.put({"error": "emulator exited"})

    def wait_ready(self, timeout: float = 5.0) -> dict:
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            raise EmulatorError("the emulator did not open its pty") from None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: it removes its link, like a vanishing ttyACM0
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.exit_codes.append(self.proc.returncode)
            if self.proc.stdin:
                self.proc.stdin.close()
        self.proc = None

    def power_cycle(self, off_seconds: float = 0.0) -> None:
        """Cable pulled and plugged back: a bus-powered board reboots blank."""
        import time
        self.stop()
        time.sleep(off_seconds)
        self.options.pop("--boot-id", None)
        self.start()

    def unplug(self, ms: int) -> None:
        """Drop the serial link for ``ms``; the board stays powered and keeps its state."""
        self.command(f"unplug {int(ms)}")

    def close(self) -> None:
        self.stop()
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- control channel -------------------------------------------------------

    def command(self, line: str, timeout: float = 5.0) -> dict:
        if not self.proc or self.proc.poll() is not None:
            raise EmulatorError("the emulator is not running")
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            try:
                reply = self._replies.get(timeout=timeout)
            except queue.Empty:
                raise EmulatorError(f"no reply to {line!r}") from None
        if "error" in reply:
            raise EmulatorError(f"{line!r}: {reply['error']}")
        return reply

    def state(self) -> dict:
        """The board's table state, with text fields decoded."""
        s = self.command("state")
        s["error_text"] = bytes.fromhex(s["error_text"]).decode("ascii")
        s["text"] = [bytes.fromhex(t).decode("ascii") for t in s["text"]]
        return s

    def table(self):
        """The board's table as a ``TableState``, to compare with the host's."""
        from .protocol import SEAT_NONE
        from .table_state import TableState

        s = self.state()

        def seat(v: int) -> int | None:
            return None if v == SEAT_NONE else v

        return TableState(
            players=s["players"], dealer=s["dealer"], turn=seat(s["turn"]),
            trick_seat=seat(s["trick_seat"]), trick_no=s["trick_no"],
            draw_order=tuple(s["draw"]),
            trump_suit=chr(s["trump_suit"]) if s["trump_suit"] else "",
            trump_rank=s["trump_rank"], error_kind=s["error_kind"],
            error_seat=seat(s["error_seat"]), error_text=s["error_text"], text=tuple(s["text"]),
            outcome=s["outcome"], winners=tuple(i for i in range(6) if s["winners"] >> i & 1),
            points=tuple(s["points"]), team_points=tuple(s["team_points"]),
            brightness=s["brightness"], language=s["language"])

    def stats(self) -> dict:
        return self.command("stats")

    def framebuffer(self) -> np.ndarray:
        """What the OLED shows, as a (64, 128) array of 0/1."""
        from .screen import from_pages
        return from_pages(bytes.fromhex(self.command("fb")["fb"]))

    def ring(self) -> np.ndarray:
        """The ring's colours, shape (n_leds, 3)."""
        return np.frombuffer(bytes.fromhex(self.command("ring")["ring"]),
                             dtype=np.uint8).reshape(-1, 3)

    def press(self, button: int) -> None:
        self.command(f"press {int(button)}")

    def noise(self, flip: float, drop: float) -> None:
        self.command(f"noise {flip} {drop}")
