"""Issue 12, findings 2 and 5: no silent data loss, and a damaged store is refused in one
line, kept as it was, and set aside only when asked (``--reset-store``)."""

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.controller import Controller
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import Store, StoreDamaged, StoreError, open_store, set_aside

ROOT = Path(__file__).resolve().parent.parent


def hand_events(seed, dealer=1, players=2):
    sim = play_hand(HandRules(players), dealer, random.Random(seed), style="sensible")
    return [e.to_json() for e in sim.events]


def feed(store, info, referee, obj):
    decision = referee.feed_json(obj)
    store.append_event(info.id, obj, decision, referee)
    return decision


def a_table(path, hands=2, extra=0):
    """A store with a PIN hash, a secret key, ``hands`` finished hands and ``extra`` events
    of the next one; left open (as a running table leaves it)."""
    store = Store(path)
    store.set_setting("pin_hash", "scrypt:...")
    store.set_setting("secret_key", "k" * 64)
    info = store.new_match(2, ["Tu", "Ada"])
    referee = info.referee()
    for h in range(hands):
        for obj in hand_events(h, referee.next_dealer()):
            feed(store, info, referee, obj)
    for obj in hand_events(99, referee.next_dealer())[:extra]:
        feed(store, info, referee, obj)
    return store, info, referee


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def wal(path):
    return Path(f"{path}-wal")


def event_count(path):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


# -- finding 2: an empty file is not a new table; the WAL does not hold the history ------


def test_an_empty_file_is_refused_not_taken_for_a_new_table(tmp_path):
    path = tmp_path / "table.db"
    store, _, _ = a_table(path, hands=1)
    store.close()
    os.truncate(path, 0)  # what finding 2 did: before the fix the next phone claimed it
    with pytest.raises(StoreDamaged, match="is empty \\(0 bytes\\)") as caught:
        Store(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert path.stat().st_size == 0  # not turned into a new store
    assert not wal(path).exists()


def test_a_new_store_is_built_aside_and_renamed_whole(tmp_path):
    path = tmp_path / "fresh.db"
    Store(path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.db"]  # no -wal, no .new
    conn = sqlite3.connect(path)  # the schema is in the main file itself
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1
    conn.close()


def test_the_wal_is_checkpointed_at_the_end_of_every_hand(tmp_path):
    path = tmp_path / "table.db"
    store, info, referee = a_table(path, hands=3)
    # Finding 2: 3 hands left the main file at 4 KiB and everything in a 2.3 MB -wal.
    assert wal(path).stat().st_size == 0
    stored = len(store.events(info.id))
    copy = tmp_path / "copied-alone.db"  # a backup of the .db alone, the table running
    copy.write_bytes(path.read_bytes())
    assert event_count(copy) == stored == sum(len(hand_events(h)) for h in range(3))
    conn = sqlite3.connect(copy)
    assert conn.execute("SELECT value FROM settings WHERE key='pin_hash'").fetchone() == \
        ("scrypt:...",)
    conn.close()
    # Mid-hand the events are in the WAL (durable, fsynced) until the hand ends.
    for obj in hand_events(7, referee.next_dealer())[:10]:
        feed(store, info, referee, obj)
    assert wal(path).stat().st_size > 0
    store.close()


def test_a_clean_close_leaves_everything_in_the_main_file(tmp_path):
    path = tmp_path / "table.db"
    store, info, _ = a_table(path, hands=1, extra=15)
    n = len(store.events(info.id))
    store.close()
    assert not wal(path).exists() or wal(path).stat().st_size == 0
    copy = tmp_path / "alone.db"
    copy.write_bytes(path.read_bytes())
    assert event_count(copy) == n == len(hand_events(0)) + 15


def test_the_controller_checkpoints_after_its_outputs_have_shown_the_hand(tmp_path):
    path = tmp_path / "table.db"
    store = Store(path)
    info = store.new_match(2, first_dealer=1)
    seen = []

    class Output:
        def publish(self, referee, decision):
            if decision is not None and decision.hand_over:
                seen.append(wal(path).stat().st_size)  # shown before the checkpoint

    controller = Controller(info.referee(), store=store, match_id=info.id, outputs=[Output()])
    for obj in hand_events(5):
        controller.submit(obj)
    assert seen and seen[0] > 0  # the checkpoint did not delay the LEDs
    assert wal(path).stat().st_size == 0
    store.close()


def test_backup_copies_a_store_in_use_as_one_self_contained_file(tmp_path, capsys):
    path = tmp_path / "table.db"
    store, info, _ = a_table(path, hands=1, extra=12)  # 12 events only in the WAL
    assert wal(path).stat().st_size > 0
    out = tmp_path / "copy.db"
    assert main(["backup", "--db", str(path), str(out)]) == 0
    said = capsys.readouterr().out
    n = len(store.events(info.id))
    assert f"1 match, 2 hands, {n} events" in said and "integrity ok" in said
    assert not wal(out).exists()
    conn = sqlite3.connect(out)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == n
    conn.close()
    assert len(Store(out).events(info.id)) == n
    # The table keeps writing meanwhile; an existing OUT is never overwritten.
    feed(store, info, store.match(info.id).referee(), {"type": "undo"})
    before = digest(out)
    assert main(["backup", "--db", str(path), str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert digest(out) == before
    store.close()


def test_backup_refuses_a_damaged_or_missing_store(tmp_path, capsys):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"")
    assert main(["backup", "--db", str(bad), str(tmp_path / "o.db")]) == 2
    err = capsys.readouterr().err
    assert "is empty" in err and err.count("\n") == 1
    assert main(["backup", "--db", str(tmp_path / "none.db"), str(tmp_path / "o.db")]) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "o.db").exists() and not (tmp_path / "none.db").exists()


# -- finding 5: every kind of damage is refused in one line; the file is kept ----------


def _truncate_to_zero(path):
    os.truncate(path, 0)


def _cut_the_end(path):
    os.truncate(path, path.stat().st_size // 2)


def _cut_a_few_pages(path):
    os.truncate(path, path.stat().st_size - 3 * 4096)


def _garbage_in_a_page(path):
    with path.open("r+b") as f:
        f.seek(4096 * 2)
        f.write(random.Random(1).randbytes(4096))


def _garbage_in_the_header(path):
    with path.open("r+b") as f:
        f.write(b"not a database!!" * 8)


def _another_program_s_database(path):
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()


def _schema_less(path):
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")  # a valid SQLite file with no tables
    conn.close()


DAMAGE = {
    "truncated to 0": (_truncate_to_zero, "is empty"),
    "end cut off": (_cut_the_end, "cannot be read|integrity check"),
    "last pages cut off": (_cut_a_few_pages, "cannot be read|integrity check"),
    "garbage in a page": (_garbage_in_a_page, "cannot be read|integrity check"),
    "garbage in the header": (_garbage_in_the_header, "not an SQLite database"),
    "another program's database": (_another_program_s_database, "lacks the table"),
    "schema-less": (_schema_less, "no tables"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_store_is_refused_in_one_line_and_kept_as_it_was(tmp_path, damage):
    path = tmp_path / "table.db"
    store, _, _ = a_table(path, hands=2)
    store.close()
    spoil, said = DAMAGE[damage]
    spoil(path)
    before = digest(path)
    with pytest.raises(StoreDamaged, match=said) as caught:
        Store(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message and "--reset-store" in message
    assert digest(path) == before  # refused without a write

    # --reset-store: the damaged file (and its -wal/-shm) go to a dated name, never deleted.
    store = open_store(path, reset_damaged=True)
    (note,) = store.notes
    (kept,) = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and "-wal" not in
               p.name and "-shm" not in p.name]
    assert digest(kept) == before and str(kept) in note
    assert store.matches() == [] and store.get_setting("pin_hash") is None  # a new store
    store.close()


def test_reset_store_never_moves_a_sound_store(tmp_path):
    path = tmp_path / "table.db"
    store, info, _ = a_table(path, hands=1)
    store.close()
    store = open_store(path, reset_damaged=True)
    assert store.notes == [] and store.match(info.id).names == ("Tu", "Ada")
    store.close()
    assert [p.name for p in tmp_path.iterdir() if "damaged" in p.name] == []


def test_set_aside_keeps_the_wal_next_to_its_file_and_never_overwrites(tmp_path):
    path = tmp_path / "table.db"
    store, info, _ = a_table(path, hands=0, extra=9)  # the 9 events live in the WAL only
    moved = set_aside(path)  # (the WAL moves with it while still open: then it is read)
    store._db.close()
    store._db = None
    assert [p.name.split(".damaged-")[1][15:] for p in moved] == ["", "-wal", "-shm"]
    assert len(Store(moved[0]).events(info.id)) == 9  # SQLite still finds its WAL
    path.write_bytes(b"")
    again = set_aside(path)
    assert again[0] != moved[0] and moved[0].exists()


def test_text_that_is_not_utf8_in_a_row_is_refused_in_one_line_on_resume(tmp_path):
    # Finding 5: "Could not decode to UTF-8" came out of the resume as a traceback.
    path = tmp_path / "table.db"
    store, info, _ = a_table(path, hands=0, extra=6)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE events SET event=CAST(x'7b22ff22' AS TEXT) WHERE seq=3")
    conn.commit()
    conn.close()
    store = Store(path)
    with pytest.raises(StoreDamaged, match="cannot be read") as caught:
        store.resume()
    assert "\n" not in str(caught.value)
    store.close()


@pytest.mark.parametrize("command", ["dashboard", "run", "demo"])
def test_every_command_refuses_a_damaged_store_in_one_line_without_a_traceback(
        tmp_path, capsys, command):
    path = tmp_path / "table.db"
    path.write_bytes(b"")
    if command == "dashboard":
        argv = ["dashboard", "--db", str(path), "--port", "0", "--no-mdns"]
    elif command == "run":
        config = tmp_path / "table.toml"
        config.write_text(f'[storage]\ndatabase = "{path}"\n[camera]\nsource = "simulator"\n')
        argv = ["run", "--config", str(config), "--offline"]
    else:
        argv = ["demo", "--db", str(path), "--headless", "--fast", "--no-emulator"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"briscola-table {command}: {path} is empty (0 bytes)" in err
    assert path.stat().st_size == 0 and not wal(path).exists()


def test_dashboard_reset_store_sets_the_damaged_file_aside(tmp_path, capsys, monkeypatch):
    path = tmp_path / "table.db"
    path.write_bytes(b"junk" * 300)
    import table_controller.cli.dashboard as dash

    monkeypatch.setattr(dash, "_set_pin", lambda store: 0)  # stop before serving
    assert main(["dashboard", "--db", str(path), "--set-pin", "--reset-store"]) == 0
    assert [p.name for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert Store(path).schema_version >= 1


# -- deleting the WAL mid-run: nothing lost -------------------------------------------

CHILD = r"""
import sys
from table_controller.store import Store
from tests.test_store_durability import hand_events
store = Store(sys.argv[1])
info = store.new_match(2, first_dealer=1)
referee = info.referee()
events = hand_events(11)
for i, obj in enumerate(events):
    if i == 12:
        print("delete", flush=True)
        sys.stdin.readline()
    store.append_event(info.id, obj, referee.feed_json(obj), referee)
    print(i, flush=True)
    if i == 20:
        break
import time; time.sleep(60)
"""


def test_deleting_the_wal_mid_run_then_a_kill_loses_no_event(tmp_path):
    path = tmp_path / "table.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        lines = [child.stdout.readline().strip() for _ in range(13)]
        assert lines[-1] == "delete"
        assert wal(path).stat().st_size > 0  # 12 acknowledged events live in the WAL only
        wal(path).unlink()
        child.stdin.write("go\n")
        child.stdin.flush()
        acknowledged = [int(child.stdout.readline()) for _ in range(9)]
        assert acknowledged[-1] == 20
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    store = Store(path)
    (info,) = store.matches()
    assert [r.seq for r in store.events(info.id)] == list(range(1, 22))
    referee, _ = store.resume()
    assert len(referee.hand.move_stack) == 20
    store.close()


def test_deleting_the_wal_then_closing_cleanly_loses_no_event(tmp_path):
    path = tmp_path / "table.db"
    store, info, referee = a_table(path, hands=0, extra=10)
    wal(path).unlink()
    store.close()
    assert event_count(path) == 10


def test_a_file_sqlite_cannot_open_for_want_of_rights_is_not_damage_and_never_moved(
        tmp_path, monkeypatch):
    path = tmp_path / "table.db"
    store, _, _ = a_table(path, hands=0, extra=3)
    store.close()
    before = digest(path)

    def cannot_open(self, file):
        exc = sqlite3.OperationalError("unable to open database file")
        exc.sqlite_errorname = "SQLITE_CANTOPEN"
        raise exc

    monkeypatch.setattr(Store, "_check_sound", cannot_open)
    with pytest.raises(StoreError) as caught:
        open_store(path, reset_damaged=True)
    assert not isinstance(caught.value, StoreDamaged)
    assert "unable to open database file" in str(caught.value)
    assert digest(path) == before
    assert [p.name for p in tmp_path.iterdir() if "damaged" in p.name] == []


def test_a_table_built_over_a_damaged_store_refuses_before_anything_starts(tmp_path):
    from table_controller.app import build_table
    from table_controller.config import Config, TableConfig

    path = tmp_path / "t.db"
    path.write_bytes(b"")
    config = Config(table=TableConfig(players=2, first_dealer=1))
    with pytest.raises(StoreDamaged):
        build_table(config, db_path=path, dashboard=False, vision=False)
    table = build_table(config, db_path=path, dashboard=False, vision=False, reset_store=True)
    try:
        assert any("moved aside to" in n for n in table.notes)
        assert table.controller.submit({"type": "hand", "players": 2, "dealer": 1}).accepted
    finally:
        table.close()
    # A match in progress for another number of players is not resumed, and that is said.
    three = Config(table=TableConfig(players=3, first_dealer=1))
    table = build_table(three, db_path=path, dashboard=False, vision=False)
    try:
        assert any("is for 2 players, the configuration for 3" in n for n in table.notes)
    finally:
        table.close()


def test_a_deleted_wal_is_noticed_by_the_running_table_within_a_second_without_events(
        tmp_path):
    path = tmp_path / "table.db"
    store = Store(path)
    info = store.new_match(2, first_dealer=1)
    ticks = iter(range(0, 1000, 2))
    controller = Controller(info.referee(), store=store, match_id=info.id,
                            clock=lambda: float(next(ticks)))
    for obj in hand_events(6)[:10]:
        controller.submit(obj)
    wal(path).unlink()  # the 10 events now live only in a file with no name
    copy = tmp_path / "what-a-kill-would-leave.db"
    copy.write_bytes(path.read_bytes())
    assert event_count(copy) == 0
    controller.run([(0.0, None), (0.1, None)])  # frames go by, two seconds apart
    copy.unlink()
    copy.write_bytes(path.read_bytes())
    assert event_count(copy) == 10
    store.close()
