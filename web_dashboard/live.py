"""The seam between whatever feeds the referee and the phones: ``LiveTable``.

The controller (or the standalone session, a test, the benchmark) calls
:meth:`LiveTable.publish` after each event it fed the referee. The hub keeps
the current public snapshot and fans it out as Server-Sent Events with
increasing ids. Every snapshot goes through :func:`web_dashboard.state.phone_view`
(the one gate of what a phone may see: points only once the hand is over, no
card but the ones face up on the table) before it is kept, so the live page,
``/api/v1/table`` and the stream all read the same filtered document.

The hub keeps no backlog: a past snapshot shows a trick as it lay and who took
it, and a run of them rebuilds every captured card and the running score. A
phone that (re)connects, whatever its ``Last-Event-ID``, gets the current
snapshot only (after the hand it carries the reveal); a phone that falls behind
skips to the newest one.

Write actions from the phones travel the other way as :class:`Command` objects:
to ``hub.executor`` when one is set (a callable, e.g. the standalone session),
else onto the ``hub.commands`` queue for the controller's loop, which answers
with ``command.reply(result)``. The Flask app never touches the referee.
"""

from __future__ import annotations

import json
import math
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from table_controller.engine.referee import Decision, Referee
from web_dashboard.state import (
    match_json,
    phone_reply,
    phone_view,
    table_state,
    violation_json,
    what_happened,
)

COMMAND_KINDS = ("setup", "new_hand", "event", "undo", "names", "correct", "pick", "call")


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

    def __init__(self, executor: Callable[[Command], dict[str, Any]] | None = None,
                 command_timeout: float = 5.0) -> None:
        self.boot = secrets.token_hex(4)  # ids from an earlier run never match
        self.executor = executor
        self.commands: queue.Queue[Command] = queue.Queue()
        self.command_timeout = command_timeout
        self._cond = threading.Condition()
        self._current: Message | None = None  # the only message kept: no backlog
        self._n = 0
        self._match: dict[str, Any] | None = None
        self._violation: dict[str, Any] | None = None
        self._holds: list[dict[str, Any]] = []  # cards the table asks a person to name
        self._next_hand_in: int | None = None  # the demo's pause between hands, counting down
        self.closed = False
        # Told the table's language when the setup page changes it (the display and the
        # terminal of the table's process follow it); nothing else to tell without one.
        self.language_listeners: list[Callable[[str], None]] = []
        self.streams = 0  # open SSE connections
        self._streams_of: dict[str, int] = {}  # open SSE connections per client address
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
            if decision is not None and decision.new_hand:
                self._next_hand_in = None  # the next hand is here: no more countdown
            state = table_state(referee, self._match, self._violation, what_happened(decision))
            return self._emit(dict(state, holds=self._holds, next_hand_in=self._next_hand_in))

    def set_pause(self, seconds: float | None) -> Message:
        """The seconds left before the next hand (the demo's pause, whole seconds, sent
        each second so that a phone that joins late reads the same), or None: the
        phones show a countdown over the reveal."""
        with self._cond:
            self._next_hand_in = None if seconds is None else max(0, math.ceil(seconds))
            return self._emit(dict(self.last.data, note=None, next_hand_in=self._next_hand_in))

    def set_holds(self, holds: list[dict[str, Any]]) -> Message:
        """The cards the table holds (``vision.tracker.Hold.to_json``): the seat, why, the
        most likely cards and the rest of the possible ones. Sent with every snapshot."""
        with self._cond:
            self._holds = [dict(h) for h in holds]
            last = dict(self.last.data, holds=self._holds, note=None,
                        next_hand_in=self._next_hand_in)
            return self._emit(last)

    def _emit(self, state: dict[str, Any], event: str = "state") -> Message:
        with self._cond:
            self._n += 1
            n = self._n
            state = dict(phone_view(state), seq=n, at=time.time())
            mid = f"{self.boot}-{n}"
            data = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
            wire = f"id: {mid}\nevent: {event}\ndata: {data}\n\n".encode()
            msg = Message(n, mid, event, state, wire)
            self._current = msg
            self._cond.notify_all()
            return msg

    def close(self) -> None:
        """End every open stream (server shutdown, tests)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def set_language(self, code: str) -> None:
        """The table's language was chosen (the setup page): tell those who follow it."""
        for listener in list(self.language_listeners):
            listener(code)

    # -- reading (phone side) -----------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The current snapshot as a phone may see it (already through ``phone_view``)."""
        return self.last.data

    @property
    def last(self) -> Message:
        with self._cond:
            assert self._current is not None  # set by __init__
            return self._current

    def since(self, last_event_id: str | None) -> list[Message]:
        """What a phone that last saw ``last_event_id`` is sent on connecting: nothing
        when that is the current message, else the current message only. Any other
        id (none, an earlier run's, an older one, one from the future, garbage, a
        5,000-digit number) is only compared as text: never parsed, never an error."""
        with self._cond:
            current = self.last
            if isinstance(last_event_id, str) and last_event_id.strip() == current.id:
                return []
            return [current]

    def catch_up(self, last_event_id: str | None) -> tuple[list[Message], int]:
        """:meth:`since` and the message number the stream has then reached, taken
        together so that nothing published in between is skipped."""
        with self._cond:
            return self.since(last_event_id), self.last.n

    def wait(self, after: int, timeout: float) -> list[Message]:
        """The current message if it is newer than number ``after`` (a phone that fell
        behind skips to now), waiting up to ``timeout`` s for one."""
        with self._cond:
            self._cond.wait_for(lambda: self._n > after or self.closed, timeout)
            if self._n <= after:
                return []
            return [self.last]

    def open_stream(self, limit: int) -> bool:
        """Count a new SSE connection; False (and not counted) when ``limit`` are open."""
        return self.admit_stream("", limit) is None

    def admit_stream(self, who: str, limit: int, per_client: int | None = None) -> str | None:
        """Count a new SSE connection from address ``who``: None when it is counted,
        else why not: ``"full"`` when ``limit`` streams are open, ``"client"`` when
        ``who`` already has ``per_client`` open (so that one client cannot hold every
        stream the table has). Close it with ``close_stream(who)``."""
        with self._cond:
            if self.streams >= limit:
                return "full"
            mine = self._streams_of.get(who, 0)
            if per_client is not None and mine >= per_client:
                return "client"
            self.streams += 1
            self._streams_of[who] = mine + 1
            return None

    def close_stream(self, who: str = "") -> None:
        with self._cond:
            self.streams = max(0, self.streams - 1)
            mine = self._streams_of.get(who, 0) - 1
            if mine > 0:
                self._streams_of[who] = mine
            else:
                self._streams_of.pop(who, None)

    # -- commands (phone -> controller) -------------------------------------------

    def submit(self, kind: str, **args: Any) -> dict[str, Any]:
        """Run a write action and return its result as the phone may see it (no card
        off the table named during a hand); never raises for a refusal."""
        if kind not in COMMAND_KINDS:
            return {"accepted": False, "message": f"unknown command {kind!r}: expected one "
                    f"of {', '.join(COMMAND_KINDS)}"}
        command = Command(kind, args)
        if self.executor is not None:
            return phone_reply(self.executor(command), self.snapshot())
        self.commands.put(command)
        try:
            result = command.future.result(timeout=self.command_timeout)
        except FutureTimeout:
            return {"accepted": False,
                    "message": "the table controller did not answer in time"}
        return phone_reply(result, self.snapshot())


__all__ = ["LiveTable", "Command", "Message", "COMMAND_KINDS"]
