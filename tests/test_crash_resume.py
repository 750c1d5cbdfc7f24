"""SIGKILL the controller at 20 random moments of a hand; the restarted one finishes it with
the same result as a run without crashes."""

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

CHILD = Path(__file__).with_name("crash_child.py")


def run_child(db, seed, start, progress, delay=0.0, kill_after=None):
    proc = subprocess.Popen([sys.executable, str(CHILD), str(db), str(seed), str(start),
                             str(progress), str(delay)], stdout=subprocess.PIPE, text=True)
    if kill_after is None:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        return json.loads(out)
    # Kill at a random moment once it has resumed work (start-up time varies with load).
    deadline = time.monotonic() + 60
    while last_frame(progress) < start and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return None


def last_frame(progress: Path) -> int:
    try:
        text = progress.read_text().strip()
    except FileNotFoundError:
        return -1
    return int(text) if text else -1


def test_sigkill_at_random_moments_changes_nothing(tmp_path):
    seed = 11
    clean = run_child(tmp_path / "clean.db", seed, 0, tmp_path / "clean.progress")
    assert clean["over"]
    rng = random.Random(3)
    db, progress = tmp_path / "crash.db", tmp_path / "crash.progress"
    total = last_frame(tmp_path / "clean.progress")
    start, killed_at = 0, []
    for _ in range(20):  # the twenty moments
        run_child(db, seed, start, progress, delay=0.004, kill_after=rng.uniform(0.02, 0.2))
        done = last_frame(progress)
        if done >= 0:
            start = done + 1
        killed_at.append(start)
    result = run_child(db, seed, start, progress)
    # The kills landed in the middle of the hand, each later than the one before.
    assert sum(0 < k < total for k in killed_at) >= 12, (killed_at, total)
    assert result == clean
    # The store holds exactly one accepted copy of every play (nothing doubled, nothing lost).
    from table_controller.store import Store

    store = Store(db)
    (info,) = store.matches()
    events = [r.event for r in store.events(info.id) if r.accepted]
    plays = [e["card"] for e in events if e["type"] == "play"]
    undos = sum(e["type"] == "undo" for e in events)
    assert len(plays) - undos == 40
