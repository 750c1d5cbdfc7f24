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
pace (a card every second or two), so the safer choice is free.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.cards import Card
from table_controller.referee import MATCH_LENGTHS, Decision, Referee
from table_controller.report import hand_report

SCHEMA_VERSION = 1

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


def _cards(codes) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in codes)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


class StoreError(ValueError):
    """Bad input to the store (an unknown match, invalid match settings)."""


class Store:
    """The table's database. Thread-safe: one connection, every statement under a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # One connection shared under a lock: the web server runs a thread per request,
        # so per-thread connections would be opened (and leaked) per request. SQLite
        # serializes writers anyway, and every statement here is short.
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        try:
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(f"cannot use {self.path} as the table's database: {exc}") from None
        except StoreError:
            self.close()
            raise

    # -- connection ---------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._db

    def _row(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        with self._lock:
            return self._conn().execute(sql, params).fetchone()

    def _rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn().execute(sql, params).fetchall()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; committed (and fsynced) when the block ends."""
        with self._lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _migrate(self) -> None:
        with self._lock:
            version = self._conn().execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} has schema version {version}, newer than this "
                                 f"program's {SCHEMA_VERSION}: upgrade briscola-table")
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

    # -- matches ------------------------------------------------------------------

    def new_match(self, players: int = 2, names: list[str] | tuple[str, ...] | None = None,
                  variants: tuple[str, ...] | list[str] = (), length: int | None = None,
                  removed: list[str] | None = None, first_dealer: int | None = None,
                  deck: str = "builtin") -> MatchInfo:
        """Create a match; the settings are checked by building its referee."""
        names = list(names or [])
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
        return self.match(match_id)

    def match(self, match_id: int) -> MatchInfo:
        row = self._row("SELECT * FROM matches WHERE id=?", (match_id,))
        if row is None:
            raise StoreError(f"no match with id {match_id}")
        return _match_info(row)

    def matches(self, limit: int | None = None) -> list[MatchInfo]:
        """All matches, newest first."""
        sql = "SELECT * FROM matches ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_match_info(r) for r in self._rows(sql)]

    def current_match(self) -> MatchInfo | None:
        """The newest match, if it is not finished."""
        row = self._row("SELECT * FROM matches ORDER BY id DESC LIMIT 1")
        if row is None or row["finished"] is not None:
            return None
        return _match_info(row)

    def set_names(self, match_id: int, names: list[str]) -> None:
        info = self.match(match_id)
        if len(names) != info.players:
            raise StoreError(f"{len(names)} names for {info.players} players")
        with self._tx() as conn:
            conn.execute("UPDATE matches SET names=? WHERE id=?", (json.dumps(names), match_id))

    # -- events -------------------------------------------------------------------

    def append_event(self, match_id: int, event: dict[str, Any] | str, decision: Decision,
                     referee: Referee, wall: float | None = None) -> int:
        """Store one fed event with its decision and the hands it changed; durable on return.

        Call it right after ``referee.feed``/``feed_json`` and before the outputs act.
        Returns the event's sequence number within the match.
        """
        obj = json.loads(event) if isinstance(event, str | bytes) else dict(event)
        violation = decision.violation
        hand_idx = len(referee.hands) - 1 if referee.hands else None
        t = decision.t if decision.t is not None else obj.get("t")
        with self._tx() as conn:
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE match_id=?",
                               (match_id,)).fetchone()[0]
            conn.execute(
                "INSERT INTO events(match_id, seq, hand_idx, event, line, accepted, "
                "violation_kind, violation_message, t, wall) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (match_id, seq, hand_idx, json.dumps(obj, separators=(",", ":")),
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
                result = hand_report(hand, by_hand.get(idx, []))
                conn.execute("UPDATE hands SET result=?, finished=? WHERE match_id=? AND idx=?",
                             (json.dumps(result), now, match_id, idx))
            elif not over and row is not None and row["result"] is not None:  # undone
                conn.execute("UPDATE hands SET result=NULL, finished=NULL "
                             "WHERE match_id=? AND idx=?", (match_id, idx))
        conn.execute("DELETE FROM hands WHERE match_id=? AND idx>=?",
                     (match_id, len(referee.hands)))
        standing = referee.standing()
        conn.execute("UPDATE matches SET standing=?, finished=? WHERE id=?",
                     (json.dumps(standing.to_json()), now if standing.over else None, match_id))

    def events(self, match_id: int) -> list[EventRow]:
        return [_event_row(r) for r in self._rows(
            "SELECT * FROM events WHERE match_id=? ORDER BY seq", (match_id,))]

    def hand_events(self, match_id: int, idx: int) -> list[EventRow]:
        """The events fed while hand ``idx`` was the referee's current hand."""
        return [_event_row(r) for r in self._rows(
            "SELECT * FROM events WHERE match_id=? AND hand_idx=? ORDER BY seq",
            (match_id, idx))]

    def hands(self, match_id: int) -> list[HandRow]:
        return [_hand_row(r) for r in self._rows(
            "SELECT * FROM hands WHERE match_id=? ORDER BY idx", (match_id,))]

    def hand(self, match_id: int, idx: int) -> HandRow | None:
        row = self._row("SELECT * FROM hands WHERE match_id=? AND idx=?", (match_id, idx))
        return None if row is None else _hand_row(row)

    # -- recovery -----------------------------------------------------------------

    def replay(self, match_id: int) -> Referee:
        """The match's referee rebuilt by feeding every stored event again, in order."""
        info = self.match(match_id)
        referee = info.referee()
        for row in self.events(match_id):
            referee.feed_json(row.event, row.line)
        return referee

    def resume(self) -> tuple[Referee, MatchInfo] | None:
        """The match in progress after a restart, as (referee, info); None if there is none."""
        info = self.current_match()
        if info is None:
            return None
        return self.replay(info.id), info


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


__all__ = ["Store", "StoreError", "MatchInfo", "HandRow", "EventRow", "SCHEMA_VERSION"]
