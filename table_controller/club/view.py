"""The club's view of its tables: an MQTT subscriber that keeps every table's live
state and one copy of each finished hand and match result.

It subscribes to ``briscola/<club>/#`` with a persistent session (a fixed client id,
clean_session off), so what the tables publish while the view is down waits for it at
the broker. The hands are kept in a small SQLite file keyed by (table, key): a hand
received twice (an acknowledgement lost, a table that reconnected) is kept once; a
higher revision (a correction) replaces it, a withdrawn one (an undo) removes it. A
table's state is shown only through the dashboard's gate (``phone_view``) again, so a
table with an older program still cannot show the club points during a hand.
"""

from __future__ import annotations

import collections
import json
import logging
import sqlite3
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt

log = logging.getLogger(__name__)

LATENCIES = 10_000  # the newest delivery latencies kept (the benchmark reads them)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS received (
    tbl      TEXT NOT NULL,
    key      TEXT NOT NULL,
    kind     TEXT NOT NULL,                -- hand | match
    revision INTEGER NOT NULL,
    payload  TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (tbl, key)
);
"""


class ClubFeed:
    """See the module doc. ``tables()``, ``hands()``, ``matches()``, ``summaries()`` are
    what the club's web view (``web_dashboard.club``) reads."""

    def __init__(self, host: str, port: int, club: str, *, username: str | None = None,
                 password: str | None = None, db: str = ":memory:",
                 client_id: str | None = None, keepalive: int = 10) -> None:
        self.host, self.port, self.club = host, port, club
        self._lock = threading.RLock()
        self._db = sqlite3.connect(db, check_same_thread=False, isolation_level=None)
        self._db.executescript(_SCHEMA)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._tables: dict[str, dict[str, Any]] = {}
        # Bumped on every change the grid shows; ``wait`` is the club page's stream's.
        self.version = 0
        self._changed = threading.Condition(self._lock)
        self.latencies: collections.deque[float] = collections.deque(maxlen=LATENCIES)
        self.stats = {"messages": 0, "states": 0, "duplicates": 0, "refused": 0}
        self.connected = threading.Event()
        self.refused: str | None = None  # why the broker refused the view, if it did
        self._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                   client_id=client_id or f"briscola-club-{club}",
                                   clean_session=False)
        if username:
            self._client.username_pw_set(username, password)
        self._client.reconnect_delay_set(min_delay=0.2, max_delay=5)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *a: self.connected.clear()
        self._client.on_message = self._on_message
        self._keepalive = keepalive

    def start(self) -> ClubFeed:
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive)
        self._client.loop_start()
        return self

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        with self._lock:
            self._db.close()

    # -- paho's thread -------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.refused = str(reason_code)
            log.warning("club broker %s:%s refused the club view: %s", self.host, self.port,
                        reason_code)
            return
        self.refused = None
        client.subscribe(f"briscola/{self.club}/#", qos=1)
        self.connected.set()

    def _on_message(self, client, userdata, message) -> None:
        now = time.time()
        parts = message.topic.split("/")
        self.stats["messages"] += 1
        if len(parts) < 4 or parts[0] != "briscola" or parts[1] != self.club:
            self.stats["refused"] += 1
            return
        table, kind = parts[2], parts[3]
        try:
            if kind == "status":
                self._table(table)["status"] = message.payload.decode("utf-8", "replace")[:16]
                self._bump()
                return
            doc = json.loads(message.payload)
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
            if kind == "state" and len(parts) == 4:
                self._on_state(table, doc, now)
                self._bump()
            elif kind in ("hands", "matches") and len(parts) == 5:
                self._on_entry(table, "hand" if kind == "hands" else "match", doc, now)
                self._bump()
            else:
                self.stats["refused"] += 1
        except (ValueError, TypeError, KeyError) as exc:
            self.stats["refused"] += 1
            log.warning("club: a message on %s that cannot be read: %s", message.topic, exc)

    def _bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """The version after ``seen``, waiting up to ``timeout`` s for one; ``seen``
        again when nothing changed."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen, timeout)
            return self.version

    def _table(self, table: str) -> dict[str, Any]:
        with self._lock:
            return self._tables.setdefault(table, {"table": table, "status": None,
                                                   "state": None, "sent": None,
                                                   "received": None})

    def _on_state(self, table: str, doc: dict[str, Any], now: float) -> None:
        from web_dashboard.state import phone_view

        state = phone_view(doc.get("state") or {})
        sent = doc.get("sent")
        self.stats["states"] += 1
        with self._lock:
            entry = self._table(table)
            entry.update(state=state, received=now,
                         sent=sent if isinstance(sent, int | float) else None)
        if isinstance(sent, int | float):
            self.latencies.append(now - sent)

    def _on_entry(self, table: str, kind: str, doc: dict[str, Any], now: float) -> None:
        key = doc["key"]
        revision = doc.get("revision", 1)
        if not isinstance(key, str) or not isinstance(revision, int):
            raise ValueError("no key or revision")
        with self._lock:
            row = self._db.execute("SELECT revision FROM received WHERE tbl=? AND key=?",
                                   (table, key)).fetchone()
            if row is not None and row[0] >= revision:
                self.stats["duplicates"] += 1
                return
            if doc.get("withdrawn"):
                self._db.execute("DELETE FROM received WHERE tbl=? AND key=?", (table, key))
                return
            self._db.execute(
                "INSERT INTO received(tbl, key, kind, revision, payload, received) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(tbl, key) DO UPDATE SET "
                "revision=excluded.revision, payload=excluded.payload, "
                "received=excluded.received",
                (table, key, kind, revision, json.dumps(doc), now))

    # -- what the web view reads --------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        """Every table seen, by name: status, its public state, when it was sent."""
        with self._lock:
            return [dict(self._tables[t]) for t in sorted(self._tables)]

    def _entries(self, kind: str, newest_first: bool) -> list[dict[str, Any]]:
        order = "DESC" if newest_first else "ASC"
        with self._lock:
            rows = self._db.execute(
                f"SELECT tbl, payload, received FROM received WHERE kind=? "
                f"ORDER BY received {order}, tbl, key", (kind,)).fetchall()
        out = []
        for table, payload, received in rows:
            doc = json.loads(payload)
            doc.update(table=table, received=received)
            out.append(doc)
        return out

    def hands(self) -> list[dict[str, Any]]:
        """Every finished hand received, newest first (one per table and key)."""
        return self._entries("hand", newest_first=True)

    def matches(self) -> list[dict[str, Any]]:
        return self._entries("match", newest_first=True)

    def summaries(self) -> list[dict[str, Any]]:
        """The finished hands oldest first, as ``web_dashboard.ranking.compute`` takes
        them: the players are the names each table resolved (renames included)."""
        out = []
        for doc in self._entries("hand", newest_first=False):
            result = doc.get("result") or {}
            if not result.get("complete"):
                continue
            out.append({"table": doc["table"], "match_id": doc.get("match"),
                        "idx": doc.get("hand"), "finished": doc.get("finished"),
                        "names": doc.get("players") or doc.get("names") or [],
                        "points": result.get("points"), "teams": result.get("teams"),
                        "winners": result.get("winners"), "outcome": result.get("outcome")})
        # In the order they were played, not received (a table that was offline sends
        # its hands late): the same ranking whenever it is recomputed.
        out.sort(key=lambda h: (str(h["finished"] or ""), h["table"], h["match_id"] or 0,
                                h["idx"] or 0))
        return out


__all__ = ["ClubFeed"]
