"""A table without a camera: the referee, the store and the hub in one object.

``briscola-table dashboard`` runs this when no controller is attached, so the
dashboard works alone (manual entry, demos, tests). The controller follows the
same order for every event: feed the referee, store the event durably, then
let the outputs (here the hub) act on the decision.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from table_controller.engine.events import IllegalEvent, event_from_json
from table_controller.engine.referee import Decision, Referee
from table_controller.engine.rules import Variant
from table_controller.store import MatchInfo, Store, StoreError
from web_dashboard.live import Command, LiveTable

DECKS = ("builtin", "french", "printed")  # and "enrolled:<name>"


class TableSession:
    """Owns a referee for the current match; the hub's executor in standalone mode."""

    def __init__(self, store: Store, hub: LiveTable) -> None:
        self.store = store
        self.hub = hub
        self._lock = threading.RLock()
        self.referee: Referee | None = None
        self.info: MatchInfo | None = None
        resumed = store.resume()
        if resumed is not None:
            self.referee, self.info = resumed
        hub.set_match(self.info, self.referee)

    # -- the controller's loop, in miniature ----------------------------------------

    def feed(self, obj: dict[str, Any] | str) -> Decision:
        """Feed one JSON event; store it; publish it. Raises StoreError without a match."""
        with self._lock:
            if self.referee is None or self.info is None:
                raise StoreError("no match is set up: set one up first")
            if isinstance(obj, str):
                obj = json.loads(obj)
            decision = self.referee.feed_json(obj)  # checks the event whole first
            try:
                self.store.append_event(self.info.id, obj, decision, self.referee)
            except BaseException:  # not stored: the referee must not run ahead of the store
                self.referee = self.store.replay(self.info.id)
                self.hub.set_match(self.info, self.referee)
                raise
            self.hub.publish(self.referee, decision)
            return decision

    def start_match(self, players: int = 2, names: list[str] | None = None,
                    variants: tuple[str, ...] = (), length: int | None = None,
                    deck: str = "builtin", dealer: int | None = None) -> MatchInfo:
        with self._lock:
            info = self.store.new_match(players, names, variants, length,
                                        first_dealer=dealer, deck=deck)
            self.info, self.referee = info, info.referee()
            self.hub.set_match(info, self.referee)
            return info

    # -- commands from the phones -----------------------------------------------------

    def __call__(self, command: Command) -> dict[str, Any]:
        try:
            handler = getattr(self, f"_cmd_{command.kind}")
            return handler(**command.args)
        except (StoreError, ValueError, TypeError) as exc:
            return {"accepted": False, "message": str(exc)}

    def _cmd_setup(self, players: int = 2, names: list[str] | None = None,
                   variants: list[str] | tuple[str, ...] = (), length: int | None = None,
                   deck: str = "builtin", dealer: int | None = None,
                   start: bool = True) -> dict[str, Any]:
        variants = tuple(Variant.parse(v).value for v in variants)
        if deck not in DECKS and not str(deck).startswith("enrolled:"):
            raise StoreError(f"unknown deck {deck!r}: expected builtin, french, printed or "
                             "enrolled:NAME")
        info = self.start_match(players, names, variants, length, deck, dealer)
        result: dict[str, Any] = {"accepted": True, "message": "match set up",
                                  "match": info.id}
        if start:
            decision = self.feed({"type": "hand", "players": players, "dealer": dealer}
                                 if dealer is not None else {"type": "hand", "players": players})
            result["accepted"] = decision.accepted
            if not decision.accepted:
                result["message"] = decision.violation.message
        return result

    def _cmd_new_hand(self, dealer: int | None = None) -> dict[str, Any]:
        obj: dict[str, Any] = {"type": "hand"}
        if dealer is not None:
            obj["dealer"] = dealer
        return self._result(self.feed(obj), "new hand")

    def _cmd_event(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        if not isinstance(event, dict):
            raise StoreError("'event' must be a JSON object such as "
                             "{\"type\": \"play\", \"seat\": 0, \"card\": \"3c\"}")
        try:
            event_from_json(event)
        except IllegalEvent as exc:  # malformed: refuse before it reaches the record
            return {"accepted": False, "message": exc.message, "kind": exc.kind.value}
        return self._result(self.feed(event), "event accepted")

    def _cmd_correct(self, seat: Any = None, card: Any = None,
                     was: Any = None) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "correct", "seat": seat, "card": card}
        if was is not None:
            event["was"] = was
        return self._cmd_event(event)

    def _cmd_call(self, seat: Any = None, card: Any = None,
                  points: Any = None) -> dict[str, Any]:
        """Chiamata's spoken auction: its result, as the controller's ``call`` takes it."""
        event: dict[str, Any] = {"type": "call", "seat": seat, "card": card}
        if points is not None:
            event["points"] = points
        return self._cmd_event(event)

    def _cmd_pick(self, **_: Any) -> dict[str, Any]:
        return {"accepted": False, "message": "this dashboard runs without the table's "
                "camera: no card is held (send the play itself)"}

    def _cmd_undo(self) -> dict[str, Any]:
        return self._result(self.feed({"type": "undo"}), "undone")

    def _cmd_names(self, names: list[str] | None = None) -> dict[str, Any]:
        with self._lock:
            if self.info is None:
                raise StoreError("no match is set up")
            self.store.set_names(self.info.id, list(names or []))
            self.info = self.store.match(self.info.id)
            self.hub.set_match(self.info, self.referee)
        return {"accepted": True, "message": "names saved"}

    @staticmethod
    def _result(decision: Decision, ok: str) -> dict[str, Any]:
        if decision.accepted:
            return {"accepted": True, "message": ok}
        v = decision.violation
        return {"accepted": False, "message": v.message, "kind": v.kind.value}


__all__ = ["TableSession", "DECKS"]
