"""The table's SQLite store: matches, hands, every event fed, settings.

One schema for the controller and the dashboard (this module is its only
owner). Every event the referee is fed - accepted or rejected - is appended
with its decision before the table's outputs act on it, so a crash loses
nothing: :meth:`Store.resume` replays the stored events into a fresh referee,
which is deterministic, and gets the identical state back.

Durability: WAL journal with ``synchronous=FULL``. In WAL mode ``NORMAL`` only
fsyncs at checkpoints, so a power cut (someone pulls the Pi's plug) could lose
the last few committed events; ``FULL`` fsyncs the WAL on every commit. That
costs about a millisecond per event on an SD card, and events arrive at human
pace (a card every second or two), so the safer choice is free. The WAL is
checkpointed into the main file (and emptied) at the end of every hand, after a
new match, a setting or names are written, and on close: a copy of the ``.db``
file alone then holds everything but the hand in progress, and
:meth:`Store.backup` (``briscola-table backup``) copies it whole while it is in use.

A damaged file is never taken for a new table: opening one that is empty, is not
SQLite, has no schema where the tables were expected, or fails
``PRAGMA integrity_check`` raises :class:`StoreDamaged` (one line naming the file
and the problem) and changes nothing; :func:`set_aside` (``--reset-store``)
renames it, with its ``-wal`` and ``-shm``, to a dated name, never deleting it.
A new store is built under a temporary name and renamed into place, so an empty
or half-made file at the store's path is always damage, never a fresh start.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.engine.cards import Card
from table_controller.engine.events import (
    EventError,
    ViolationKind,
    decode_event,
    event_from_checked,
    event_text,
    shown,
)
from table_controller.engine.referee import MATCH_LENGTHS, Decision, Referee
from table_controller.engine.report import hand_report
from table_controller.engine.words import Say

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
TABLES = ("settings", "matches", "hands", "events")  # what every version has
MAX_NAME = 64  # characters in a player's name (the phones' setup page keeps 24)
_SQLITE_MAGIC = b"SQLite format 3\x00"

# Migrations by target version: each brings the schema from version n-1 to n.
_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE matches (
        id           INTEGER PRIMARY KEY,
        created      TEXT NOT NULL,            -- ISO 8601, UTC
        players      INTEGER NOT NULL,
        names        TEXT NOT NULL,            -- JSON list, one name per seat
        variants     TEXT NOT NULL,            -- JSON list of variant names
        removed      TEXT,                     -- JSON list of card codes (NULL: the default)
        length       INTEGER,                  -- best of 1, 3, 5 (NULL: an open series)
        first_dealer INTEGER,
        deck         TEXT NOT NULL DEFAULT 'builtin',
        finished     TEXT,                     -- when the match was decided
        standing     TEXT                      -- JSON MatchStanding, kept current
    );
    CREATE TABLE hands (
        id       INTEGER PRIMARY KEY,
        match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
        idx      INTEGER NOT NULL,             -- 0-based, as in referee.hands
        dealer   INTEGER NOT NULL,
        rules    TEXT NOT NULL,                -- JSON: players, variants, removed
        started  TEXT NOT NULL,
        finished TEXT,
        result   TEXT,                         -- JSON hand report, once the hand is over
        UNIQUE (match_id, idx)
    );
    CREATE TABLE events (
        id        INTEGER PRIMARY KEY,
        match_id  INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
        seq       INTEGER NOT NULL,            -- 1-based within the match, in feeding order
        hand_idx  INTEGER,                     -- the referee's hand after this event
        event     TEXT NOT NULL,               -- the JSON line as fed
        line      INTEGER,                     -- the input line, when read from a file
        accepted  INTEGER NOT NULL,
        violation_kind    TEXT,
        violation_message TEXT,
        t         REAL,                        -- the tracker's frame time
        wall      REAL NOT NULL,               -- time.time() when stored
        UNIQUE (match_id, seq)
    );
    CREATE INDEX events_by_hand ON events (match_id, hand_idx, seq);
    """,
    # Players without accounts: a player is a name. A rename or a merge of two
    # spellings maps the old name to the player it now means; matches keep the names
    # as they were typed, so the history never changes.
    2: """
    CREATE TABLE player_aliases (
        name   TEXT PRIMARY KEY,               -- a name as typed at setup
        player TEXT NOT NULL                   -- the player it means now
    );
    CREATE INDEX hands_finished ON hands (finished) WHERE result IS NOT NULL;
    """,
    # The club's outbox (table_controller.club): each finished hand and match result,
    # written in the same transaction as the hand's result, so a table that was offline
    # publishes what it missed. ``key`` is idempotent (the club keeps one copy of each);
    # a correction that rewrites a published hand raises its revision and sends it again.
    3: """
    CREATE TABLE outbox (
        id       INTEGER PRIMARY KEY,
        key      TEXT NOT NULL UNIQUE,         -- <store id>/<match id>[/<hand idx>]
        kind     TEXT NOT NULL,                -- 'hand' or 'match'
        payload  TEXT NOT NULL,                -- JSON
        revision INTEGER NOT NULL DEFAULT 1,
        created  REAL NOT NULL,
        sent     REAL                          -- when the broker acknowledged it
    );
    CREATE INDEX outbox_unsent ON outbox (id) WHERE sent IS NULL;
    """,
}


@dataclass(frozen=True)
class MatchInfo:
    id: int
    created: str
    players: int
    names: tuple[str, ...]
    variants: tuple[str, ...]
    removed: tuple[str, ...] | None
    length: int | None
    first_dealer: int | None
    deck: str
    finished: str | None
    standing: dict[str, Any] | None

    def referee(self) -> Referee:
        """A fresh referee with this match's settings."""
        return Referee(players=self.players, variants=self.variants, match=self.length,
                       removed=None if self.removed is None else _cards(self.removed),
                       dealer=self.first_dealer)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created": self.created, "players": self.players,
                "names": list(self.names), "variants": list(self.variants),
                "removed": None if self.removed is None else list(self.removed),
                "length": self.length, "first_dealer": self.first_dealer, "deck": self.deck,
                "finished": self.finished, "standing": self.standing}


@dataclass(frozen=True)
class HandRow:
    match_id: int
    idx: int
    dealer: int
    rules: dict[str, Any]
    started: str
    finished: str | None
    result: dict[str, Any] | None  # the hand report; None while the hand goes on


@dataclass(frozen=True)
class EventRow:
    seq: int
    hand_idx: int | None
    event: dict[str, Any]
    line: int | None
    accepted: bool
    violation_kind: str | None
    violation_message: str | None
    t: float | None
    wall: float


def hand_is_over(decision: Decision, referee: Referee) -> bool:
    """When the WAL is checkpointed: this event ended the hand, or came after its end
    (the last trick's collect): between hands, every event is in the main file."""
    return decision.hand_over or (referee.hand is not None and referee.hand.is_over())


def _check_names(names: Any) -> list[str]:
    names = list(names or [])
    for name in names:
        if not isinstance(name, str):
            raise StoreError(Say("a player's name must be text, not {value}",
                                 value=shown(name)))
        if len(name) > MAX_NAME:
            raise StoreError(Say("a player's name is at most {most} characters, not {n}",
                                 most=MAX_NAME, n=len(name)))
    return names


def _cards(codes) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in codes)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


class StoreError(ValueError):
    """Bad input to the store (an unknown match, invalid match settings); its message a
    ``Say`` where a person reads it (the commands say it in the terminal's language)."""


class StoreDamaged(StoreError):
    """The file is not a sound table database; nothing in it was changed."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(Say("{path} {problem}; nothing in it was changed (--reset-store "
                             "moves it aside to a dated name and starts a new store)",
                             path=path, problem=problem))


def set_aside(path: str | Path, now: _dt.datetime | None = None) -> list[Path]:
    """Rename a damaged store and its ``-wal``/``-shm`` to ``NAME.damaged-DATE[-N]``
    (the WAL keeps its suffix, so SQLite still finds it next to the file). Never
    deletes anything; returns the new names, the database file's first."""
    path = Path(path)
    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while any(Path(f"{base}{sfx}").exists() for sfx in ("", "-wal", "-shm")):
        n += 1
        base = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    moved = []
    for sfx in ("", "-wal", "-shm"):
        src = Path(f"{path}{sfx}")
        if src.exists():
            dst = Path(f"{base}{sfx}")
            os.rename(src, dst)
            moved.append(dst)
    _fsync_dir(path.parent)
    return moved


def open_store(path: str | Path, reset_damaged: bool = False) -> Store:
    """A :class:`Store` on ``path``. A damaged file raises :class:`StoreDamaged`, or with
    ``reset_damaged`` is set aside (:func:`set_aside`) and a new store begins; the
    store's ``notes`` then say where the old file went. A sound file is never moved."""
    try:
        return Store(path)
    except StoreDamaged as exc:
        if not reset_damaged:
            raise
        moved = set_aside(path)
        store = Store(path)
        store.notes.append(Say("{path} {problem}: moved aside to {moved}; a new store begins",
                               path=exc.path, problem=exc.problem, moved=moved[0]))
        return store


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file itself is bad (corrupt, not a database, text
    that is not UTF-8), as opposed to the file being busy, locked, unreadable for want
    of permission or space: only damage is ever set aside."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return True
    text = str(exc)
    return "malformed" in text or "Could not decode to UTF-8" in text or \
        "file is not a database" in text


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _is_file_path(path: str) -> bool:
    return path != ":memory:" and not path.startswith("file:")


def _check_header(path: Path) -> None:
    """The file's first bytes, before SQLite sees it (it would take an empty file as new)."""
    size = path.stat().st_size
    if size == 0:
        raise StoreDamaged(str(path), Say("is empty (0 bytes), not the table's database"))
    with path.open("rb") as f:
        head = f.read(100)
    if not head.startswith(_SQLITE_MAGIC) and not _SQLITE_MAGIC.startswith(head):
        raise StoreDamaged(str(path), Say("is not an SQLite database (its first bytes are "
                                          "not SQLite's header)"))
    if not head.startswith(_SQLITE_MAGIC) or size < 512:
        raise StoreDamaged(str(path), Say("is cut short ({n} bytes)", n=size))


class Store:
    """The table's database. Thread-safe: one connection, every statement under a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # One connection shared under a lock: the web server runs a thread per request,
        # so per-thread connections would be opened (and leaked) per request. SQLite
        # serializes writers anyway, and every statement here is short.
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._wal_id: tuple[int, int] | None = None
        self.notes: list[str] = []  # one line each: a file set aside, replayed verdicts
        self._outbox_id: str | None = None  # set by enable_outbox (a club is configured)
        file = Path(self.path) if _is_file_path(self.path) else None
        if file is not None and not file.exists():
            self._create(file)
        elif file is not None:
            if not file.is_file():
                raise StoreError(Say("{path} is not a file (a directory?): give the table's "
                                     "database file", path=self.path))
            try:
                _check_header(file)
            except OSError as exc:
                raise StoreError(Say("cannot read {path}: {problem}", path=self.path,
                                     problem=exc.strerror or exc)) from None
        try:
            if file is not None:
                self._check_sound(file)  # read-only, before anything could write to it
            self._connect()
            self._migrate()
        except sqlite3.Error as exc:
            self._drop()
            if file is not None and is_damage(exc):
                raise StoreDamaged(self.path, Say("cannot be read ({problem})",
                                                  problem=exc)) from None
            raise StoreError(Say("cannot use {path} as the table's database: {problem}",
                                 path=self.path, problem=exc)) from None
        except StoreError:
            self._drop()
            raise
        self._wal_id = self._wal_identity()

    def _drop(self) -> None:
        """Close without a checkpoint: a file that failed to open is left as it was."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _connect(self) -> None:
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                   check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")

    def _create(self, file: Path) -> None:
        """A new store, built aside and renamed into place whole (see the module doc)."""
        tmp = file.with_name(f".{file.name}.new-{os.getpid()}")
        for sfx in ("", "-wal", "-shm", "-journal"):
            Path(f"{tmp}{sfx}").unlink(missing_ok=True)
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("BEGIN IMMEDIATE")
                for target in range(1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[target].split(";"):
                        if statement.strip():
                            conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                conn.execute("COMMIT")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()  # the last connection: SQLite checkpoints and drops the WAL
            os.replace(tmp, file)
            _fsync_dir(file.parent)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(Say("cannot create the table's database {path}: {problem}",
                                 path=file, problem=exc)) from None
        finally:
            for sfx in ("", "-wal", "-shm"):
                Path(f"{tmp}{sfx}").unlink(missing_ok=True)

    def _check_sound(self, file: Path) -> None:
        """An existing file, read only: SQLite's integrity check, then this program's
        schema (with the WAL next to it, as SQLite would read it)."""
        conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check(3)")]
            if problems != ["ok"]:
                said = " ".join(" ".join(problems).split())  # its report spans lines
                raise StoreDamaged(self.path, Say("fails SQLite's integrity check ({problem})",
                                                  problem=said if len(said) <= 160
                                                  else said[:157] + "..."))
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
        missing = [t for t in TABLES if t not in tables]
        if not tables:
            raise StoreDamaged(self.path, Say("has no tables where the table's schema was "
                                              "expected"))
        if version == 0 or (version <= SCHEMA_VERSION and missing):
            what = Say("lacks the table(s) {tables}", tables=", ".join(missing)) if missing \
                else Say("has no schema version")
            raise StoreDamaged(self.path, Say("{what}: it is not the table's database",
                                              what=what))

    def _wal_identity(self) -> tuple[int, int] | None:
        if not _is_file_path(self.path):
            return None
        try:
            st = os.stat(f"{self.path}-wal")
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _watch_wal(self) -> None:
        """If the ``-wal`` was deleted (or replaced) under us, SQLite goes on writing into
        the unlinked file and a crash would lose it all: checkpoint what it holds into
        the main file through the open handle, then reopen on a new WAL."""
        if self._wal_id is None or self._wal_identity() == self._wal_id:
            return
        log.warning("%s-wal was removed while the table ran: checkpointing and reopening",
                    self.path)
        self.notes.append(Say("{path}-wal was removed while the table ran: its events were "
                              "checkpointed into the main file", path=self.path))
        db = self._conn()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        self._db = None
        self._connect()
        self._wal_id = self._wal_identity()

    # -- connection ---------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._db

    def _row(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        with self._lock:
            try:
                return self._conn().execute(sql, params).fetchone()
            except sqlite3.DatabaseError as exc:
                if is_damage(exc):  # "malformed", "Could not decode to UTF-8"
                    raise StoreDamaged(self.path, f"cannot be read ({exc})") from None
                raise StoreError(f"{self.path}: {exc}") from None

    def _rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._conn().execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                if is_damage(exc):
                    raise StoreDamaged(self.path, f"cannot be read ({exc})") from None
                raise StoreError(f"{self.path}: {exc}") from None

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; committed (and fsynced) when the block ends."""
        with self._lock:
            self._watch_wal()
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def watch(self) -> None:
        """Notice a ``-wal`` removed under the running table (see ``_watch_wal``); the
        controller calls it about once a second, so even without a new event the WAL's
        contents are safe in the main file within a second."""
        with self._lock:
            if self._db is not None:
                try:
                    self._watch_wal()
                except sqlite3.Error as exc:
                    log.warning("%s: %s", self.path, exc)

    def checkpoint(self) -> None:
        """Copy the WAL into the main file and empty it, without waiting for readers
        (a backup or another process reading makes it copy what it can, like PASSIVE)."""
        with self._lock:
            if self._db is None or not _is_file_path(self.path):
                return
            try:
                self._watch_wal()
                self._db.execute("PRAGMA busy_timeout=0")
                try:
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                finally:
                    self._db.execute("PRAGMA busy_timeout=30000")
            except sqlite3.Error as exc:  # the data is safe in the WAL: say so, go on
                log.warning("checkpoint of %s failed: %s", self.path, exc)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self.checkpoint()
                self._db.close()
                self._db = None

    def _migrate(self) -> None:
        with self._lock:
            version = self._conn().execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(Say("{path} has schema version {version}, newer than this "
                                     "program's {ours}: upgrade briscola-table",
                                     path=self.path, version=version, ours=SCHEMA_VERSION))
            for target in range(version + 1, SCHEMA_VERSION + 1):
                # Statement by statement: executescript() would commit on its own.
                with self._tx() as tx:
                    for statement in _MIGRATIONS[target].split(";"):
                        if statement.strip():
                            tx.execute(statement)
                    tx.execute(f"PRAGMA user_version={target}")

    @property
    def schema_version(self) -> int:
        return self._row("PRAGMA user_version")[0]

    # -- settings -----------------------------------------------------------------

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self._row("SELECT value FROM settings WHERE key=?", (key,))
        return default if row is None else row[0]

    def set_setting(self, key: str, value: str) -> None:
        with self._tx() as conn:
            conn.execute("INSERT INTO settings(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))
        self.checkpoint()  # the PIN hash and the secret key: into the main file now

    # -- matches ------------------------------------------------------------------

    def new_match(self, players: int = 2, names: list[str] | tuple[str, ...] | None = None,
                  variants: tuple[str, ...] | list[str] = (), length: int | None = None,
                  removed: list[str] | None = None, first_dealer: int | None = None,
                  deck: str = "builtin") -> MatchInfo:
        """Create a match; the settings are checked by building its referee."""
        names = _check_names(names)
        if len(names) > players:
            raise StoreError(f"{len(names)} names for {players} players")
        names += [""] * (players - len(names))
        if length is not None and length not in MATCH_LENGTHS:
            raise StoreError(f"match length must be 1, 3 or 5 hands, not {length!r}")
        try:
            Referee(players=players, variants=tuple(variants), match=length,
                    removed=None if removed is None else _cards(removed), dealer=first_dealer)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO matches(created, players, names, variants, removed, length, "
                "first_dealer, deck) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (_now(), players, json.dumps(names), json.dumps(sorted(variants)),
                 None if removed is None else json.dumps(list(removed)), length,
                 first_dealer, deck))
            match_id = cur.lastrowid
        self.checkpoint()
        return self.match(match_id)

    def match(self, match_id: int) -> MatchInfo:
        row = self._row("SELECT * FROM matches WHERE id=?", (match_id,))
        if row is None:
            raise StoreError(f"no match with id {match_id}")
        return self._decoded(_match_info, row)

    def matches(self, limit: int | None = None) -> list[MatchInfo]:
        """All matches, newest first."""
        sql = "SELECT * FROM matches ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [self._decoded(_match_info, r) for r in self._rows(sql)]

    def current_match(self) -> MatchInfo | None:
        """The newest match, if it is not finished."""
        row = self._row("SELECT * FROM matches ORDER BY id DESC LIMIT 1")
        if row is None or row["finished"] is not None:
            return None
        return self._decoded(_match_info, row)

    def set_names(self, match_id: int, names: list[str]) -> None:
        info = self.match(match_id)
        names = _check_names(names)
        if len(names) != info.players:
            raise StoreError(f"{len(names)} names for {info.players} players")
        with self._tx() as conn:
            conn.execute("UPDATE matches SET names=? WHERE id=?", (json.dumps(names), match_id))
        self.checkpoint()

    # -- players ------------------------------------------------------------------

    def aliases(self) -> dict[str, str]:
        """Every renamed or merged name -> the player it now means."""
        return {r[0]: r[1] for r in self._rows("SELECT name, player FROM player_aliases")}

    def player_of(self, name: str) -> str:
        """The player a name typed at setup means now (itself unless renamed)."""
        row = self._row("SELECT player FROM player_aliases WHERE name=?", (name,))
        return name if row is None else row[0]

    def player_names(self, limit: int = 200) -> list[str]:
        """The players seen at this table, most recently seated first (for the setup
        page's suggestions); renamed names appear as the player they mean."""
        aliases = self.aliases()
        seen: dict[str, None] = {}
        for row in self._rows("SELECT names FROM matches ORDER BY id DESC"):
            try:
                names = json.loads(row[0])
            except ValueError:
                continue
            for name in names if isinstance(names, list) else ():
                if isinstance(name, str) and name.strip():
                    seen.setdefault(aliases.get(name, name), None)
            if len(seen) >= limit:
                break
        return list(seen)[:limit]

    def _typed_names(self) -> set[str]:
        typed: set[str] = set()
        for row in self._rows("SELECT DISTINCT names FROM matches"):
            try:
                names = json.loads(row[0])
            except ValueError:
                continue
            typed.update(n for n in names if isinstance(n, str)) if isinstance(
                names, list) else None
        return typed

    def rename_player(self, old: str, new: str) -> str:
        """Every name that means ``old`` now means ``new``; when ``new`` is a player
        already seen this merges the two (their hands count for one player). The
        matches keep the names as typed. Returns the player the names now mean."""
        old, new = old.strip(), new.strip()
        _check_names([old, new])
        if not old or not new:
            raise StoreError("a rename needs the old name and the new one")
        aliases = self.aliases()
        source = aliases.get(old, old)
        # A spelling of this same player (a rename back): the player takes that name.
        target = new if aliases.get(new) == source else aliases.get(new, new)
        if source == target:
            raise StoreError(f"{shown(old, 40)} and {shown(new, 40)} are already one player")
        typed = self._typed_names()
        if source not in typed and source not in aliases.values():
            raise StoreError(f"no player named {shown(old, 40)} at this table")
        with self._tx() as conn:
            names = [n for n, p in aliases.items() if p == source] + [source]
            for name in names:
                # A name that means itself, or one never typed at setup (a player's name
                # given only by a rename), needs no alias.
                if name == target or name not in typed:
                    conn.execute("DELETE FROM player_aliases WHERE name=?", (name,))
                else:
                    conn.execute("INSERT INTO player_aliases(name, player) VALUES (?, ?) "
                                 "ON CONFLICT(name) DO UPDATE SET player=excluded.player",
                                 (name, target))
        self.checkpoint()
        return target

    def ranking_fingerprint(self) -> str:
        """A digest of everything a ranking reads (each finished hand's points, teams,
        winners and outcome, every match's names, the renames): a ranking cached under
        it is the one recomputing would give, and events inside a hand leave it alone."""
        digest = hashlib.blake2b(digest_size=16)
        for sql in ("SELECT group_concat(match_id || ':' || idx || '=' || "
                    "ifnull(json_extract(result, '$.points'), '') || "
                    "ifnull(json_extract(result, '$.teams'), '') || "
                    "ifnull(json_extract(result, '$.winners'), '') || "
                    "ifnull(json_extract(result, '$.outcome'), '') || "
                    "ifnull(json_extract(result, '$.complete'), ''), ';') "
                    "FROM hands WHERE result IS NOT NULL",
                    "SELECT group_concat(id || '=' || names, ';') FROM matches",
                    "SELECT group_concat(name || '=' || player, char(0)) FROM player_aliases"):
            digest.update(str(self._row(sql)[0]).encode("utf-8", "surrogatepass") + b"\x00")
        return digest.hexdigest()

    def finished_hands(self) -> list[dict[str, Any]]:
        """Every finished hand, in the order they finished, with what a ranking needs
        (the seats' names as typed, points, teams, winners, outcome), read with SQLite's
        JSON functions so that the tricks in each report are never decoded."""
        rows = self._rows(
            "SELECT h.match_id, h.idx, h.finished, m.names, "
            "json_extract(h.result, '$.points'), json_extract(h.result, '$.teams'), "
            "json_extract(h.result, '$.winners'), json_extract(h.result, '$.outcome'), "
            "json_extract(h.result, '$.complete') "
            "FROM hands h JOIN matches m ON m.id = h.match_id "
            "WHERE h.result IS NOT NULL ORDER BY h.finished, h.match_id, h.idx")
        out = []
        for r in rows:
            if not r[8]:  # an incomplete report is no finished hand
                continue
            try:
                out.append({"match_id": r[0], "idx": r[1], "finished": r[2],
                            "names": json.loads(r[3]), "points": json.loads(r[4]),
                            "teams": None if r[5] is None else json.loads(r[5]),
                            "winners": json.loads(r[6]), "outcome": r[7]})
            except (TypeError, ValueError) as exc:
                raise StoreDamaged(self.path, f"holds a hand that cannot be read "
                                   f"({shown(exc, 80)})") from None
        return out

    # -- the club's outbox --------------------------------------------------------

    def enable_outbox(self) -> str:
        """From now on every finished hand and match result is also queued in the
        outbox (a club is configured). Returns the store's id, the first part of every
        outbox key: a new store (``--reset-store``) starts new keys, never a club's
        duplicate of an old one."""
        store_id = self.get_setting("store_id")
        if store_id is None:
            store_id = secrets.token_hex(6)
            self.set_setting("store_id", store_id)
        self._outbox_id = store_id
        return store_id

    def outbox_pending(self, limit: int = 50, after: int = 0) -> list[dict[str, Any]]:
        """Unsent outbox entries, oldest first: id, key, kind, revision, payload (JSON)."""
        return [{"id": r[0], "key": r[1], "kind": r[2], "revision": r[3], "payload": r[4]}
                for r in self._rows(
                    "SELECT id, key, kind, revision, payload FROM outbox "
                    "WHERE sent IS NULL AND id > ? ORDER BY id LIMIT ?", (after, int(limit)))]

    def outbox_sent(self, entry_id: int, revision: int) -> None:
        """The broker acknowledged this revision of the entry (a newer one stays unsent)."""
        with self._tx() as conn:
            conn.execute("UPDATE outbox SET sent=? WHERE id=? AND revision=?",
                         (time.time(), entry_id, revision))

    def outbox_counts(self) -> dict[str, int]:
        row = self._row("SELECT COUNT(*), COUNT(sent) FROM outbox")
        return {"entries": row[0], "sent": row[1], "pending": row[0] - row[1]}

    def _queue(self, conn: sqlite3.Connection, kind: str, key: str,
               payload: dict[str, Any]) -> None:
        """An outbox entry in the caller's transaction; an unchanged payload is not
        queued again, a changed one is the entry's next revision."""
        key = f"{self._outbox_id}/{key}"
        text = json.dumps(dict(payload, key=key, kind=kind), separators=(",", ":"))
        conn.execute("INSERT INTO outbox(key, kind, payload, created) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET payload=excluded.payload, "
                     "revision=revision + 1, sent=NULL WHERE payload != excluded.payload",
                     (key, kind, text, time.time()))

    def _players_in(self, conn: sqlite3.Connection, match_id: int) -> tuple[list, list]:
        """The match's names as typed and the players they mean now."""
        names = json.loads(conn.execute("SELECT names FROM matches WHERE id=?",
                                        (match_id,)).fetchone()[0])
        aliases = dict(conn.execute("SELECT name, player FROM player_aliases").fetchall())
        return names, [aliases.get(n, n) for n in names]

    # -- events -------------------------------------------------------------------

    def append_event(self, match_id: int, event: dict[str, Any] | str, decision: Decision,
                     referee: Referee, wall: float | None = None,
                     checkpoint: bool = True) -> int:
        """Store one fed event with its decision and the hands it changed; durable on return.

        Call it right after ``referee.feed``/``feed_json`` and before the outputs act.
        An event the referee accepted was checked whole (``decode_event``), so it is
        always storable; a malformed one (refused) is stored as a short description.
        When the event ends a hand the WAL is checkpointed, unless ``checkpoint`` is
        False (the controller does it after its outputs have shown the result).
        Returns the event's sequence number within the match.
        """
        try:
            obj = decode_event(event)
        except EventError as exc:
            if decision.accepted:  # cannot happen through feed_json: never store a lie
                raise StoreError(f"an accepted event must be storable: {exc.message}") from None
            obj = {"unreadable": shown(event, 200)}
        violation = decision.violation
        hand_idx = len(referee.hands) - 1 if referee.hands else None
        t = decision.t if decision.t is not None else obj.get("t")
        with self._tx() as conn:
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE match_id=?",
                               (match_id,)).fetchone()[0]
            conn.execute(
                "INSERT INTO events(match_id, seq, hand_idx, event, line, accepted, "
                "violation_kind, violation_message, t, wall) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (match_id, seq, hand_idx, event_text(obj),
                 decision.line, int(decision.accepted),
                 violation.kind.value if violation else None,
                 violation.message if violation else None,
                 float(t) if isinstance(t, int | float) else None,
                 time.time() if wall is None else wall))
            if decision.accepted:
                # A correction may change a finished hand's result: write it again.
                self._sync_hands(conn, match_id, referee,
                                 rewrite_last=decision.replaced is not None or getattr(
                                     decision.undone, "type", None) == "correct")
        if checkpoint and hand_is_over(decision, referee):
            self.checkpoint()
        return seq

    def _sync_hands(self, conn: sqlite3.Connection, match_id: int, referee: Referee,
                    rewrite_last: bool = False) -> None:
        """Make the hands rows match the referee's hands (new hand, end, undo)."""
        rows = {r["idx"]: r for r in conn.execute(
            "SELECT idx, result FROM hands WHERE match_id=?", (match_id,))}
        by_hand: dict[int | None, list] = {}
        for v in referee.violations:
            by_hand.setdefault(v.hand, []).append(v)
        now = _now()
        for idx, hand in enumerate(referee.hands):
            over = hand.is_over()
            row = rows.get(idx)
            if row is None:
                rules = {"players": hand.players,
                         "variants": sorted(v.value for v in hand.rules.variants),
                         "removed": [str(c) for c in hand.rules.removed]}
                conn.execute("INSERT INTO hands(match_id, idx, dealer, rules, started) "
                             "VALUES (?,?,?,?,?)", (match_id, idx, hand.dealer,
                                                    json.dumps(rules), now))
            rewrite = rewrite_last and idx == len(referee.hands) - 1
            if over and (row is None or row["result"] is None or rewrite):
                result = hand_report(hand, by_hand.get(idx, []),
                                     [n for n in referee.notes if n.hand == idx])
                conn.execute("UPDATE hands SET result=?, finished=? WHERE match_id=? AND idx=?",
                             (json.dumps(result), now, match_id, idx))
                if self._outbox_id is not None:
                    names, players = self._players_in(conn, match_id)
                    self._queue(conn, "hand", f"{match_id}/{idx}", {
                        "match": match_id, "hand": idx, "finished": now, "names": names,
                        "players": players, "result": result})
            elif not over and row is not None and row["result"] is not None:  # undone
                conn.execute("UPDATE hands SET result=NULL, finished=NULL "
                             "WHERE match_id=? AND idx=?", (match_id, idx))
                if self._outbox_id is not None:  # the club takes it back too
                    self._queue(conn, "hand", f"{match_id}/{idx}",
                                {"match": match_id, "hand": idx, "withdrawn": True})
        conn.execute("DELETE FROM hands WHERE match_id=? AND idx>=?",
                     (match_id, len(referee.hands)))
        standing = referee.standing()
        conn.execute("UPDATE matches SET standing=?, finished=? WHERE id=?",
                     (json.dumps(standing.to_json()), now if standing.over else None, match_id))
        if standing.over and self._outbox_id is not None:
            names, players = self._players_in(conn, match_id)
            self._queue(conn, "match", str(match_id), {
                "match": match_id, "names": names, "players": players,
                "standing": standing.to_json()})

    def events(self, match_id: int) -> list[EventRow]:
        return [self._decoded(_event_row, r) for r in self._rows(
            "SELECT * FROM events WHERE match_id=? ORDER BY seq", (match_id,))]

    def hand_events(self, match_id: int, idx: int) -> list[EventRow]:
        """The events fed while hand ``idx`` was the referee's current hand."""
        return [self._decoded(_event_row, r) for r in self._rows(
            "SELECT * FROM events WHERE match_id=? AND hand_idx=? ORDER BY seq",
            (match_id, idx))]

    def hands(self, match_id: int) -> list[HandRow]:
        return [self._decoded(_hand_row, r) for r in self._rows(
            "SELECT * FROM hands WHERE match_id=? ORDER BY idx", (match_id,))]

    def hand(self, match_id: int, idx: int) -> HandRow | None:
        row = self._row("SELECT * FROM hands WHERE match_id=? AND idx=?", (match_id, idx))
        return None if row is None else self._decoded(_hand_row, row)

    # -- recovery -----------------------------------------------------------------

    def replay(self, match_id: int, changes: list[str] | None = None) -> Referee:
        """The match's referee rebuilt by feeding every stored event again, in order.

        The stored verdicts stand: an event stored as refused stays refused, with its
        stored violation, even if the rules would take it now. An event stored as
        accepted that the referee now refuses cannot be forced in; each event whose
        verdict changed adds one line to ``changes``.
        """
        info = self.match(match_id)
        rows = self.events(match_id)
        forced: set[int] = set()  # stored refusals the rules would now take
        noted: dict[int, str] = {}  # seq -> its one line (a rebuild meets it again)
        referee = info.referee()
        i = 0
        while i < len(rows):
            row = rows[i]
            i += 1
            if row.seq in forced or (not row.accepted and "unreadable" in row.event):
                self._stored_refusal(referee, row)  # the stored violation, word for word
                continue
            decision = referee.feed_json(row.event, row.line)
            if decision.accepted == row.accepted:
                continue
            where = f"match {match_id}, event {row.seq}" + (
                f" (line {row.line})" if row.line is not None else "")
            if row.accepted:
                msg = (f"{where}: stored as accepted, refused on replay: "
                       f"{decision.violation.message}")
            else:
                # Taking it back with an undo would not do for an undo itself: feed
                # everything again with this event held refused (rare; deterministic).
                forced.add(row.seq)
                referee, i = info.referee(), 0
                msg = (f"{where}: stored as refused ({row.violation_kind}), the rules would "
                       "take it now: kept refused")
            noted[row.seq] = msg
        for seq in sorted(noted):
            log.warning("%s", noted[seq])
            if changes is not None:
                changes.append(noted[seq])
        return referee

    @staticmethod
    def _stored_refusal(referee: Referee, row: EventRow) -> None:
        try:
            kind = ViolationKind(row.violation_kind)
        except ValueError:
            kind = ViolationKind.BAD_EVENT
        seat = row.event.get("seat")
        card = None
        try:
            event = event_from_checked(row.event)
            card = getattr(event, "card", None)
        except ValueError:
            event = None
        referee.refuse(event, kind, row.violation_message or "refused", row.line,
                       seat if isinstance(seat, int) and not isinstance(seat, bool) else None,
                       card if isinstance(card, Card) else None)

    def resume(self) -> tuple[Referee, MatchInfo] | None:
        """The match in progress after a restart, as (referee, info); None if there is none.
        Events whose verdict changed on replay are added to ``notes``, one line each."""
        info = self.current_match()
        if info is None:
            return None
        return self.replay(info.id, self.notes), info

    # -- backup ---------------------------------------------------------------------

    def backup(self, out: str | Path) -> dict[str, int]:
        """Copy the whole store to ``out`` with SQLite's online backup API (safe while the
        table plays), as one self-contained file (rollback journal, no ``-wal``), checked
        and renamed into place when complete. Refuses to overwrite an existing file.
        Returns what the copy holds: matches, hands, events, bytes."""
        out = Path(out)
        if out.exists():
            raise StoreError(Say("{path} already exists: give a new file name", path=out))
        if str(out.resolve()) == str(Path(self.path).resolve()):
            raise StoreError(Say("the backup must go to another file than the store itself"))
        tmp = out.with_name(f".{out.name}.part-{os.getpid()}")
        try:
            dst = sqlite3.connect(tmp, isolation_level=None)
            try:
                with self._lock:
                    self._conn().backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")
                check = dst.execute("PRAGMA integrity_check").fetchone()[0]
                if check != "ok":
                    raise StoreError(f"the copy fails SQLite's integrity check: {check}")
                counts = {t: dst.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                          for t in ("matches", "hands", "events")}
            finally:
                dst.close()
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, out)
            _fsync_dir(out.parent)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot back up {self.path} to {out}: {exc}") from None
        finally:
            for sfx in ("", "-journal", "-wal", "-shm"):
                Path(f"{tmp}{sfx}").unlink(missing_ok=True)
        counts["bytes"] = out.stat().st_size
        return counts

    def _decoded(self, make, row: sqlite3.Row):
        """A row made into its dataclass; undecodable contents are damage, said in a line."""
        try:
            return make(row)
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreDamaged(self.path, f"holds a row that cannot be read ({shown(exc, 80)})"
                               ) from None


def _match_info(row: sqlite3.Row) -> MatchInfo:
    return MatchInfo(
        id=row["id"], created=row["created"], players=row["players"],
        names=tuple(json.loads(row["names"])), variants=tuple(json.loads(row["variants"])),
        removed=None if row["removed"] is None else tuple(json.loads(row["removed"])),
        length=row["length"], first_dealer=row["first_dealer"], deck=row["deck"],
        finished=row["finished"],
        standing=None if row["standing"] is None else json.loads(row["standing"]))


def _hand_row(row: sqlite3.Row) -> HandRow:
    return HandRow(row["match_id"], row["idx"], row["dealer"], json.loads(row["rules"]),
                   row["started"], row["finished"],
                   None if row["result"] is None else json.loads(row["result"]))


def _event_row(row: sqlite3.Row) -> EventRow:
    return EventRow(row["seq"], row["hand_idx"], json.loads(row["event"]), row["line"],
                    bool(row["accepted"]), row["violation_kind"], row["violation_message"],
                    row["t"], row["wall"])


__all__ = ["Store", "StoreError", "StoreDamaged", "MatchInfo", "HandRow", "EventRow",
           "SCHEMA_VERSION", "open_store", "set_aside", "hand_is_over"]
