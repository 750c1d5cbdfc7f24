"""The seam between whatever feeds the referee and the phones: ``LiveTable``.

The controller (or the standalone session, a test, the benchmark) calls
:meth:`LiveTable.publish` after each event it fed the referee. The hub keeps
the current public snapshot (see :mod:`web_dashboard.state`: points only once
the hand is over) and fans it out as Server-Sent Events with increasing ids,
keeping a bounded backlog so that a phone reconnecting with ``Last-Event-ID``
gets what it missed.

Write actions from the phones travel the other way as :class:`Command` objects:
to ``hub.executor`` when one is set (a callable, e.g. the standalone session),
else onto the ``hub.commands`` queue for the controller's loop, which answers
with ``command.reply(result)``. The Flask app never touches the referee.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from table_controller.referee import Decision, Referee
from web_dashboard.state import match_json, table_state, violation_json, what_happened

COMMAND_KINDS = ("setup", "new_hand", "event", "undo", "names", "correct", "pick")


@dataclass
class Command:
    """A write action from a phone: ``kind`` in COMMAND_KINDS and its arguments."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    future: Future = field(default_factory=Future, repr=False)

    def reply(self, result: dict[str, Any]) -> None:
        """Answer the phone: ``{"accepted": bool, "message": str, ...}``."""
        if not self.future.done():
            self.future.set_result(result)


@dataclass(frozen=True)
class Message:
    n: int
    id: str
    event: str
    data: dict[str, Any]
    wire: bytes  # the SSE frame, encoded once for every subscriber


class LiveTable:
    """The current public snapshot and its SSE fan-out."""

    def __init__(self, backlog: int = 256,
                 executor: Callable[[Command], dict[str, Any]] | None = None,
                 command_timeout: float = 5.0) -> None:
        self.boot = secrets.token_hex(4)  # ids from an earlier run never match
        self.executor = executor
        self.commands: queue.Queue[Command] = queue.Queue()
        self.command_timeout = command_timeout
        self._cond = threading.Condition()
        self._backlog: deque[Message] = deque(maxlen=backlog)
        self._n = 0
        self._match: dict[str, Any] | None = None
        self._violation: dict[str, Any] | None = None
        self._holds: list[dict[str, Any]] = []  # cards the table asks a person to name
        self.closed = False
        self.streams = 0  # open SSE connections
        self._emit(table_state(None, None))

    # -- publishing (controller side) ---------------------------------------------

    def set_match(self, info: Any | None, referee: Referee | None = None) -> Message:
        """A new (or resumed) match: its settings, and the referee's state if any."""
        with self._cond:
            self._match = match_json(info, referee)
            self._violation = None
            return self._emit(table_state(referee, self._match))

    def publish(self, referee: Referee, decision: Decision | None = None,
                match: Any | None = None) -> Message:
        """After each event fed to ``referee``: build the snapshot and send it to every phone."""
        with self._cond:
            if match is not None:
                self._match = match_json(match, referee)
            elif self._match is None:
                self._match = match_json({"players": referee.defaults.players}, referee)
            if decision is not None and decision.violation is not None:
                self._violation = violation_json(decision.violation)
                self._violation["hand"] = decision.violation.hand
            state = table_state(referee, self._match, self._violation, what_happened(decision))
            return self._emit(dict(state, holds=self._holds))

    def set_holds(self, holds: list[dict[str, Any]]) -> Message:
        """The cards the table holds (``vision.tracker.Hold.to_json``): the seat, why, the
        most likely cards and the rest of the possible ones. Sent with every snapshot."""
        with self._cond:
            self._holds = [dict(h) for h in holds]
            last = dict(self._backlog[-1].data, holds=self._holds, note=None)
            return self._emit(last)

    def _emit(self, state: dict[str, Any], event: str = "state") -> Message:
        with self._cond:
            self._n += 1
            n = self._n
            state = dict(state, seq=n, at=time.time())
            mid = f"{self.boot}-{n}"
            data = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
            wire = f"id: {mid}\nevent: {event}\ndata: {data}\n\n".encode()
            msg = Message(n, mid, event, state, wire)
            self._backlog.append(msg)
            self._cond.notify_all()
            return msg

    def close(self) -> None:
        """End every open stream (server shutdown, tests)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    # -- reading (phone side) -----------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            return self._backlog[-1].data

    @property
    def last(self) -> Message:
        with self._cond:
            return self._backlog[-1]

    def since(self, last_event_id: str | None) -> list[Message]:
        """What a phone that last saw ``last_event_id`` missed.

        The backlog's messages after it when it is still there; otherwise (first
        connection, an id from before a restart or older than the backlog) just
        the current snapshot, which is all a page needs to be up to date.
        """
        with self._cond:
            n = self._parse_id(last_event_id)
            if n is not None and self._backlog and n >= self._backlog[0].n - 1:
                return [m for m in self._backlog if m.n > n]
            return [self._backlog[-1]]

    def catch_up(self, last_event_id: str | None) -> tuple[list[Message], int]:
        """:meth:`since` and the message number the stream has then reached, taken
        together so that nothing published in between is skipped."""
        with self._cond:
            missed = self.since(last_event_id)
            return missed, (missed[-1].n if missed else self._parse_id(last_event_id))

    def _parse_id(self, last_event_id: str | None) -> int | None:
        if not last_event_id:
            return None
        boot, _, num = str(last_event_id).strip().partition("-")
        if boot != self.boot or not num.isdigit() or int(num) > self._n:
            return None
        return int(num)

    def wait(self, after: int, timeout: float) -> list[Message]:
        """Messages newer than number ``after``, waiting up to ``timeout`` s for one."""
        with self._cond:
            self._cond.wait_for(lambda: self._n > after or self.closed, timeout)
            if self._n <= after:
                return []
            if self._backlog[0].n > after + 1:  # fell behind the backlog: skip to now
                return [self._backlog[-1]]
            return [m for m in self._backlog if m.n > after]

    def open_stream(self, limit: int) -> bool:
        """Count a new SSE connection; False (and not counted) when ``limit`` are open."""
        with self._cond:
            if self.streams >= limit:
                return False
            self.streams += 1
            return True

    def close_stream(self) -> None:
        with self._cond:
            self.streams = max(0, self.streams - 1)

    # -- commands (phone -> controller) -------------------------------------------

    def submit(self, kind: str, **args: Any) -> dict[str, Any]:
        """Run a write action and return its result; never raises for a refusal."""
        if kind not in COMMAND_KINDS:
            return {"accepted": False, "message": f"unknown command {kind!r}: expected one "
                    f"of {', '.join(COMMAND_KINDS)}"}
        command = Command(kind, args)
        if self.executor is not None:
            return self.executor(command)
        self.commands.put(command)
        try:
            return command.future.result(timeout=self.command_timeout)
        except FutureTimeout:
            return {"accepted": False,
                    "message": "the table controller did not answer in time"}


__all__ = ["LiveTable", "Command", "Message", "COMMAND_KINDS"]
