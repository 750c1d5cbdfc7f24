"""A table's side of the club: publish to the club's broker, never waiting on it.

:class:`ClubOutput` is one of the controller's outputs: after each event it builds
the public table state with the dashboard's own gate (``web_dashboard.state``:
``table_state`` through ``phone_view``, so during a hand no points and no secret
partner) and hands it to :class:`ClubPublisher`, which only keeps the newest one and
wakes its thread. That thread publishes it retained (QoS 1), then whatever the store's
outbox holds unsent: each finished hand and match result, written into the outbox in
the same transaction as the hand's result. An entry is marked sent when the broker
acknowledges it (PUBACK), so after a broker restart, a lost network or the table's own
restart, what was missed goes out then; an acknowledgement lost on the way makes the
entry go out again, and the club keeps one copy per key (at least once on the wire,
exactly once at the club). The MQTT session is persistent (clean_session off, a fixed
client id) and paho reconnects on its own, backing off up to ``retry_max`` s.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt

from table_controller.config import ClubConfig

log = logging.getLogger(__name__)

QOS = 1
BATCH = 50  # outbox entries published per wake-up
MAX_INFLIGHT = 100  # outbox entries awaiting their PUBACK


def client_id_of(config: ClubConfig) -> str:
    return f"briscola-{config.club}-{config.table}"


class ClubPublisher:
    """Publishes one table's state and outbox to the club's broker (see the module doc)."""

    def __init__(self, config: ClubConfig, store: Any, *, keepalive: int = 10,
                 retry_max: float = 5.0, client_id: str | None = None) -> None:
        self.config = config
        self.store = store
        self.prefix = config.prefix
        self._cond = threading.Condition()
        self._state: dict[str, Any] | None = None
        self._state_n = 0  # offers so far
        self._state_done = 0  # the offer last handed to the broker
        self._dirty = False
        self._stop = threading.Event()
        # Only this publisher's thread touches these: paho's callbacks merely queue what
        # happened (they run under paho's own locks, which publish() takes too).
        self._inflight: dict[int, tuple[int, int]] = {}  # mid -> (outbox id, revision)
        self._pending: set[int] = set()  # outbox ids in flight
        self._acks: queue.SimpleQueue[int] = queue.SimpleQueue()  # PUBACKed mids
        self._session_lost = False
        self.connected = threading.Event()
        self.stats = {"states": 0, "entries_acked": 0, "connects": 0, "errors": 0}
        self._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                   client_id=client_id or client_id_of(config),
                                   clean_session=False)
        if config.username:
            self._client.username_pw_set(config.username, config.password)
        self._client.will_set(f"{self.prefix}/status", "offline", qos=QOS, retain=True)
        self._client.reconnect_delay_set(min_delay=0.2, max_delay=max(retry_max, 0.2))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._keepalive = keepalive
        self._thread = threading.Thread(target=self._run, name=f"club-{config.table}",
                                        daemon=True)

    # -- the table's side: never blocks -------------------------------------------------

    def start(self) -> ClubPublisher:
        # connect_async: the first attempt happens in paho's thread, so a broker that is
        # down (or a name that does not resolve) never delays the table's start.
        self._client.connect_async(self.config.host, self.config.port,
                                   keepalive=self._keepalive)
        self._client.loop_start()
        self._thread.start()
        return self

    def offer_state(self, state: dict[str, Any]) -> None:
        """The newest public state (already through ``phone_view``); older ones not yet
        sent are dropped: only the current state matters, and it is retained."""
        with self._cond:
            self._state = {"club": self.config.club, "table": self.config.table,
                           "sent": time.time(), "state": state}
            self._state_n += 1
            self._dirty = True
            self._cond.notify()

    def wake(self) -> None:
        """The outbox may hold something new (a hand ended)."""
        with self._cond:
            self._dirty = True
            self._cond.notify()

    def close(self, timeout: float = 2.0) -> None:
        """Say offline, stop the threads (whatever is unsent stays in the outbox)."""
        self._stop.set()
        self.wake()
        self._thread.join(timeout)
        try:
            if self._client.is_connected():
                self._client.publish(f"{self.prefix}/status", "offline", qos=QOS,
                                     retain=True).wait_for_publish(timeout)
        except (RuntimeError, ValueError, OSError):
            pass
        self._client.disconnect()
        self._client.loop_stop()

    # -- paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("club broker %s:%s refused the table: %s", self.config.host,
                        self.config.port, reason_code)
            return
        self.stats["connects"] += 1
        client.publish(f"{self.prefix}/status", "online", qos=QOS, retain=True)
        with self._cond:
            if not flags.session_present:  # what was in flight is gone with the session
                self._session_lost = True
            self._state_done = 0  # the broker may have lost the retained state: again
            self._dirty = True
            self._cond.notify()
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.connected.clear()

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        self._acks.put(mid)
        self.wake()

    # -- the publisher's thread -------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._cond:
                self._cond.wait_for(lambda: self._dirty or self._stop.is_set(), timeout=1.0)
                self._dirty = False
                state = self._state if self._state_n != self._state_done else None
                state_n = self._state_n
                lost, self._session_lost = self._session_lost, False
            try:
                if lost:  # sent again from the outbox (the club keeps one copy)
                    self._inflight.clear()
                    self._pending.clear()
                self._settle_acks()
            except Exception:
                self.stats["errors"] += 1
                log.exception("club outbox")
            if self._stop.is_set() or not self.connected.is_set():
                continue
            try:
                if state is not None:
                    info = self._client.publish(f"{self.prefix}/state",
                                                json.dumps(state, separators=(",", ":")),
                                                qos=QOS, retain=True)
                    if info.rc == mqtt.MQTT_ERR_SUCCESS:
                        self.stats["states"] += 1
                        with self._cond:
                            self._state_done = state_n
                self._send_outbox()
            except Exception:  # never let the thread die: try again at the next wake-up
                self.stats["errors"] += 1
                log.exception("club publisher")
                time.sleep(0.5)

    def _settle_acks(self) -> None:
        """Mark sent what the broker acknowledged (PUBACKs of states are ignored)."""
        while True:
            try:
                mid = self._acks.get_nowait()
            except queue.Empty:
                return
            entry = self._inflight.pop(mid, None)
            if entry is None:
                continue
            self._pending.discard(entry[0])
            self.store.outbox_sent(*entry)
            self.stats["entries_acked"] += 1

    def _send_outbox(self) -> None:
        room = MAX_INFLIGHT - len(self._inflight)
        if room <= 0:
            return
        for entry in self.store.outbox_pending(limit=BATCH + len(self._pending)):
            if entry["id"] in self._pending:
                continue
            if room <= 0 or not self.connected.is_set():
                return
            doc = json.loads(entry["payload"])
            doc["revision"] = entry["revision"]
            m, _, h = entry["key"].partition("/")[2].partition("/")
            topic = (f"{self.prefix}/hands/{m}-{h}" if entry["kind"] == "hand"
                     else f"{self.prefix}/matches/{m}")
            # Its PUBACK is only read from the queue by this thread, after the mid is
            # recorded here: no race with a fast broker.
            info = self._client.publish(topic, json.dumps(doc, separators=(",", ":")), qos=QOS)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                return
            self._inflight[info.mid] = (entry["id"], entry["revision"])
            self._pending.add(entry["id"])
            room -= 1


class ClubOutput:
    """The controller's output for the club: the public state after every event."""

    def __init__(self, publisher: ClubPublisher, controller: Any) -> None:
        self.publisher = publisher
        self.controller = controller
        self._match: tuple[int | None, dict[str, Any] | None] = (None, None)

    def _match_json(self, referee: Any) -> dict[str, Any] | None:
        from web_dashboard.state import match_json

        store, match_id = self.controller.store, self.controller.match_id
        if store is None or match_id is None:
            return match_json({"players": referee.defaults.players}, referee)
        # Names can change during a match (the phones' "names"): read them each time.
        return match_json(store.match(match_id), referee)

    def publish(self, referee: Any, decision: Any) -> None:
        from web_dashboard.state import phone_view, table_state, violation_json, what_happened

        violation = None
        if decision is not None and decision.violation is not None:
            violation = dict(violation_json(decision.violation), hand=decision.violation.hand)
        state = table_state(referee, self._match_json(referee), violation,
                            what_happened(decision))
        self.publisher.offer_state(phone_view(state))
        self.publisher.wake()


__all__ = ["ClubPublisher", "ClubOutput", "client_id_of"]
