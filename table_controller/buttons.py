"""Naming a card from the table's three buttons: a held card, or a misread one.

With only CONFIRM, UNDO and NEW_HAND, naming must be hard to do by accident:

- **A held card** (the camera could not name it) with likely cards: the display
  asks ``P2: 6c?`` (P1 is seat 0). UNDO steps to the next likely card (there are at
  most four: the camera's, only those the rules allow); a *long* CONFIRM names the
  one shown. A short CONFIRM does nothing. A hold without likely cards is named on
  the phone, and the buttons keep their usual meaning (UNDO takes back).
- **A misread card**: a *long* UNDO, outside a hold, opens ``Fix P2: 7c->6c?`` for
  the last card played. UNDO steps through the cards it is most often mistaken for
  (the same suit, the nearest ranks: a 6 for a 7); a long CONFIRM corrects it; a long
  UNDO, NEW_HAND, an event from the camera or ``idle_s`` without a press leaves it.
  The cards offered do not depend on what has been played (a list filtered by the
  rules would tell which cards are gone); one that cannot be there is refused with
  the one line the phone gives, and nothing is sent to the referee.
- **Briscola chiamata's auction** is spoken; its result is entered before the first
  card: while a chiamata hand has no call the display asks, step by step, the caller
  (``Caller: P2?``), the called card's rank and suit (``Calls: 3 coins?``) and the
  bid (``Bid: 61?``). UNDO steps to the next choice, a long CONFIRM takes it and
  goes on, a long UNDO goes back a step; the long CONFIRM on the bid sends the call
  (refereed, stored, shown like the phone's). The choices never depend on the
  cards dealt: the partner stays secret.
- **Who sits where**, before a match: a *long* CONFIRM while no hand is in play asks,
  seat by seat, ``P1: Ada?`` from the names already seen at the table (the setup
  page's suggestions, most recently seated first, then ``P1: no name?``). UNDO steps
  to the next name, a long CONFIRM takes it and goes to the next seat, a long UNDO
  goes back a seat (on P1 it leaves); NEW HAND, an event or ``idle_s`` without a press
  leaves too, changing nothing. The long CONFIRM on the last seat sets the names as the
  phone's setup does: on the match about to start (no hand yet: its ``names``), or on
  a new match with the finished one's settings (``setup``, not started). A match
  under way keeps its names.

A long press is a press held for 2 s on the Pi's buttons, a double press on the
board's (``firmware_bridge.buttons``). Every naming goes through the controller, as
the phone's pick and correct do (refereed, stored, then shown); this object runs on
the controller's thread, as its ``button`` command.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.words import words
from table_controller.engine.cards import Card

ALTERNATIVES = 4  # cards offered for a misread one
IDLE_S = 30.0  # a correction left this long without a press is abandoned
# Chiamata's auction on the buttons: ranks from the strongest, as players call them.
AUCTION_RANKS = (1, 3, 10, 9, 8, 7, 6, 5, 4, 2)
AUCTION_SUITS = ("d", "c", "s", "b")
BIDS = (61, *range(65, 121, 5))  # 61 is the least a caller may bid
AUCTION_STEPS = ("caller", "rank", "suit", "bid")
KNOWN_NAMES = 30  # names offered per seat, as on the setup page
NAME_CHARS = 15  # a name on the display: "P6: " + 15 + "?" fits a 21-character line


def lookalikes(code: str, n: int = ALTERNATIVES) -> tuple[str, ...]:
    """The cards ``code`` is most often read for: the same suit, a number card's nearest
    numbers first (the lower one first: a 7 offers 6, 5, 4, 3), a figure's figures."""
    card = Card.parse(code)
    figure = card.rank >= 8  # a number card is mistaken for one with a pip more or less
    ranks = sorted((r for r in range(1, 11) if r != card.rank),
                   key=lambda r: ((r >= 8) != figure, abs(r - card.rank), r))
    return tuple(f"{r}{card.suit.value}" for r in ranks[:n])


def _who(seat: int | None, w: dict[str, str] | None = None) -> str:
    """A seat on the display (P1 is seat 0); None: the face-up card's place."""
    if seat is None:
        return (w or words())["briscola"]
    return f"P{seat + 1}"


GESTURES = ("hold", "both", "twice")  # how a long CONFIRM is made: held, held or pressed
# twice (Pi and board buttons), pressed twice (the board's only)


class ButtonNaming:
    """See the module docstring. ``hold_lines`` draws a hold without likely cards;
    ``show`` puts lines on the display (``Indicators.text``);
    ``language`` is the display's language (its index or code), read at each drawing so
    that a language chosen on the setup page shows at once; ``gesture`` (GESTURES) is
    how the hint says a long CONFIRM is made."""

    def __init__(self, controller: Any, show: Callable[..., None],
                 hold_lines: Callable[[list[Any]], tuple[str, ...]], *,
                 gesture: str = "hold", language: Callable[[], int | str] = lambda: 0,
                 idle_s: float = IDLE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.controller = controller
        self.show = show
        self.hold_lines = hold_lines
        self.gesture = gesture
        self.language = language
        self.idle_s = idle_s
        self.clock = clock
        self._hold_key: tuple | None = None  # the hold being answered, and its position
        self._index = 0
        self.fixing: dict[str, Any] | None = None  # seat, was, options, index
        self._last_press = 0.0
        self.notice: str | None = None  # one line after a refusal, until the next press
        self.auction: dict[str, Any] | None = None  # step, caller, rank, suit, bid indices
        self._auction_hand: tuple | None = None  # the hand the auction is for
        self.seating: dict[str, Any] | None = None  # players, names seen, chosen, index

    # -- what the display shows -----------------------------------------------------

    @property
    def w(self) -> dict[str, str]:
        """The display's words in its language now."""
        return words(self.language())

    def _hint(self, action: str) -> str:
        """"hold OK: set": the gesture that takes the choice, and what it does."""
        w = self.w
        return w["hint"].format(gesture=w[f"gesture_{self.gesture}"], action=w[f"action_{action}"])

    def _holds(self) -> list[Any]:
        holds = getattr(self.controller.tracker, "holds", None)
        return list(holds.values()) if holds else []

    def _asking(self, holds: list[Any]) -> Any | None:
        """The hold the buttons answer: the first one with likely cards."""
        return next((h for h in holds if h.likely), None)

    def _auction_open(self) -> Any | None:
        """The chiamata hand waiting for its auction's result, or None."""
        referee = self.controller.referee
        hand = referee.hand if referee is not None else None
        if hand is None or not hand.rules.chiamata or hand.called is not None \
                or hand.is_over():
            self.auction = self._auction_hand = None
            return None
        key = (id(referee), len(referee.hands))
        if self._auction_hand != key:  # a new hand: start from the seat to lead
            self._auction_hand = key
            self.auction = {"step": 0, "caller": hand.turn, "rank": 0, "suit": 0, "bid": 0}
        return hand

    def _auction_lines(self, hand: Any) -> list[str]:
        a = self.auction
        assert a is not None
        w = self.w
        step = AUCTION_STEPS[a["step"]]
        rank = AUCTION_RANKS[a["rank"]]
        if step == "caller":
            ask = w["ask_caller"].format(player=_who(a["caller"]))
        elif step == "rank":
            ask = w["ask_rank"].format(player=_who(a["caller"]), rank=rank)
        elif step == "suit":
            ask = w["ask_card"].format(rank=rank, suit=w[f"suit_{AUCTION_SUITS[a['suit']]}"])
        else:
            ask = w["ask_bid"].format(n=BIDS[a["bid"]])
        return [ask, w["undo_next"], self._hint("send" if step == "bid" else "set"),
                w["undo_back"] if a["step"] else w["auction"]]

    def lines(self, holds: list[Any] | None = None) -> tuple[str, ...]:
        holds = self._holds() if holds is None else holds
        if self.clock() - self._last_press > self.idle_s:
            self.fixing = self.seating = None
        out: list[str] = [self.notice] if self.notice else []
        if self.seating is not None:
            return tuple((out + self._seating_lines())[:4])
        hand = self._auction_open()
        if self.fixing is None and hand is not None and not holds:
            return tuple((out + self._auction_lines(hand))[:4])
        w = self.w
        if self.fixing is not None:
            f = self.fixing
            out += [w["fix"].format(player=_who(f["seat"]), was=f["was"],
                                    card=f["options"][f["index"]]),
                    w["undo_next_of"].format(n=f["index"] + 1, total=len(f["options"])),
                    self._hint("name"), w["undo_cancel"]]
            return tuple(out[:4])
        hold = self._asking(holds)
        if hold is None:
            self._hold_key = None
            return tuple(out + list(self.hold_lines(holds)))[:4]
        key = (hold.zone, hold.t)
        if key != self._hold_key:
            self._hold_key, self._index = key, 0
        self._index %= len(hold.likely)
        more = len(holds) - 1
        out += [f"{_who(hold.seat, w)}: {hold.likely[self._index]}?",
                w["undo_next_of"].format(n=self._index + 1, total=len(hold.likely)),
                self._hint("name")]
        if more:
            out.append(w["hold_more"].format(n=more))
        return tuple(out[:4])

    def refresh(self, holds: list[Any] | None = None) -> None:
        self.show(*self.lines(holds))

    def on_decision(self, decision: Any) -> bool:
        """An accepted event changes the last card played: a correction under way is
        left (it would name the wrong card). True when the display must be redrawn."""
        if decision is not None and decision.accepted and (
                self.fixing is not None or self.seating is not None):
            self.fixing = self.seating = None  # a hand began meanwhile: names are left
            return True
        # A chiamata hand begins (the auction is asked) or its call was made (it ends).
        was = self._auction_hand
        self._auction_open()
        return self._auction_hand != was

    # -- the buttons ----------------------------------------------------------------

    def press(self, name: str) -> dict[str, Any]:
        """One gesture: confirm, confirm_long, undo, undo_long, new_hand; ``idle`` is
        the timer's check that a correction has waited too long."""
        now = self.clock()
        if name == "idle":
            if (self.fixing is not None or self.seating is not None) \
                    and now - self._last_press >= self.idle_s:
                self.fixing = self.seating = None
                self.refresh()
            return {"accepted": True, "message": "ok"}
        if now - self._last_press > self.idle_s:
            self.fixing = self.seating = None
        self._last_press = now
        self.notice = None
        try:
            if self.fixing is not None:
                return self._fixing(name)
            if self.seating is not None:
                return self._seat(name)
            holds = self._holds()
            hand = self._auction_open()
            if hand is not None and not holds and name != "new_hand":
                return self._bidding(hand, name)
            hold = self._asking(holds)
            if hold is not None and name in ("undo", "confirm", "confirm_long"):
                return self._answer(hold, name)
            if name == "undo_long":
                return self._open_fix()
            if name == "confirm_long" and self._between_hands():
                return self._open_seating()
            if name in ("confirm", "undo", "new_hand"):
                return self.controller.execute(name, {})
            return {"accepted": False, "message": f"{name}: nothing to do now"}
        finally:
            self.refresh()

    def _answer(self, hold: Any, name: str) -> dict[str, Any]:
        self.lines()  # the position belongs to the hold shown
        if name == "undo":
            self._index = (self._index + 1) % len(hold.likely)
            return {"accepted": True, "message": "next card"}
        if name == "confirm":
            return {"accepted": False, "message": "hold CONFIRM to name the card"}
        card = hold.likely[self._index]
        args: dict[str, Any] = {"card": card}
        if hold.seat is None:
            args["zone"] = hold.zone
        else:
            args["seat"] = hold.seat
        result = self.controller.execute("pick", args)
        if not result.get("accepted"):
            self.notice = self.w["pick_refused"].format(player=_who(hold.seat, self.w),
                                                        card=card)
        return result

    def _bidding(self, hand: Any, name: str) -> dict[str, Any]:
        a = self.auction
        assert a is not None
        step = AUCTION_STEPS[a["step"]]
        if name == "undo":
            sizes = {"caller": hand.players, "rank": len(AUCTION_RANKS),
                     "suit": len(AUCTION_SUITS), "bid": len(BIDS)}
            a[step] = (a[step] + 1) % sizes[step]
            return {"accepted": True, "message": "next"}
        if name == "undo_long":
            a["step"] = max(0, a["step"] - 1)
            return {"accepted": True, "message": "back"}
        if name == "confirm":
            return {"accepted": False, "message": "hold CONFIRM to take it"}
        if a["step"] < len(AUCTION_STEPS) - 1:
            a["step"] += 1
            return {"accepted": True, "message": f"{step} set"}
        card = f"{AUCTION_RANKS[a['rank']]}{AUCTION_SUITS[a['suit']]}"
        result = self.controller.execute("call", {"seat": a["caller"], "card": card,
                                                  "points": BIDS[a["bid"]]})
        if not result.get("accepted"):
            self.notice = self.w["call_refused"]
        return result

    # -- who sits where -------------------------------------------------------------

    def _between_hands(self) -> bool:
        hand = self.controller.referee.hand
        return hand is None or hand.is_over()

    def _seat_options(self) -> list[str]:
        """The names the seat being asked may take: those seen not yet seated, then ""
        (no name: the seat stays P1..Pn)."""
        s = self.seating
        assert s is not None
        return [n for n in s["seen"] if n not in s["chosen"]] + [""]

    def _seating_lines(self) -> list[str]:
        s = self.seating
        assert s is not None
        w = self.w
        options = self._seat_options()
        s["index"] %= len(options)
        name = options[s["index"]][:NAME_CHARS] or w["no_name"]
        seat = len(s["chosen"])
        return [f"P{seat + 1}: {name}?",
                w["undo_next_of"].format(n=s["index"] + 1, total=len(options)),
                self._hint("send" if seat == s["players"] - 1 else "set"),
                w["undo_back"] if seat else w["new_hand_leave"]]

    def _open_seating(self) -> dict[str, Any]:
        referee, store = self.controller.referee, self.controller.store
        if store is None or self.controller.match_id is None:
            self.notice = self.w["names_no_store"]
            return {"accepted": False, "message": "this table keeps no store"}
        if referee.hands and not referee.standing().over:
            self.notice = self.w["names_at_end"]
            return {"accepted": False, "message": "a match under way keeps its names"}
        seen = store.player_names(limit=KNOWN_NAMES)
        if not seen:
            self.notice = self.w["names_none_seen"]
            return {"accepted": False, "message": "no names seen yet: name the players "
                    "on the phone's setup page"}
        players = store.match(self.controller.match_id).players
        self.seating = {"players": players, "seen": seen, "chosen": [], "index": 0}
        self._idle_timer()
        return {"accepted": True, "message": "choosing the names"}

    def _seat(self, name: str) -> dict[str, Any]:
        s = self.seating
        assert s is not None
        self._idle_timer()  # idle_s after this press, not after the first
        if name == "undo":
            s["index"] += 1  # wrapped round when drawn
            return {"accepted": True, "message": "next name"}
        if name == "new_hand" or (name == "undo_long" and not s["chosen"]):
            self.seating = None
            return {"accepted": True, "message": "names left unchanged"}
        if name == "undo_long":
            s["chosen"].pop()
            s["index"] = 0
            return {"accepted": True, "message": "back a seat"}
        if name == "confirm":
            return {"accepted": False, "message": "hold CONFIRM to take it"}
        options = self._seat_options()
        s["chosen"].append(options[s["index"] % len(options)])
        s["index"] = 0
        if len(s["chosen"]) < s["players"]:
            return {"accepted": True, "message": f"P{len(s['chosen'])} set"}
        self.seating = None
        return self._set_names(s["chosen"])

    def _set_names(self, names: list[str]) -> dict[str, Any]:
        """The names go where the phone's setup puts them: the match about to start, or
        a new one like the finished match (not started: NEW HAND starts it)."""
        c = self.controller
        if not self._between_hands() or (c.referee.hands and not c.referee.standing().over):
            self.notice = self.w["names_at_end"]
            return {"accepted": False, "message": "a match under way keeps its names"}
        if not c.referee.hands:
            result = c.execute("names", {"names": names})
        else:
            info = c.store.match(c.match_id)
            result = c.execute("setup", {"players": info.players, "names": names,
                                         "variants": list(info.variants),
                                         "length": info.length, "deck": info.deck,
                                         "start": False})
        self.notice = self.w["names_set" if result.get("accepted") else "names_refused"]
        return result

    def _idle_timer(self) -> None:
        """Left alone, a correction or the names are abandoned: the check runs on the
        controller's thread like every button."""
        timer = threading.Timer(self.idle_s + 0.05, self.controller.command, ("button",),
                                {"args": {"name": "idle"}})
        timer.daemon = True
        timer.start()

    def _open_fix(self) -> dict[str, Any]:
        referee = self.controller.referee
        hand = referee.hand if referee is not None else None
        last = None
        if hand is not None and not hand.is_over():
            plays = [*hand.table, *hand.current] or (
                list(hand.tricks[-1].plays) if hand.tricks else [])
            last = plays[-1] if plays else None
        if last is None:
            self.notice = self.w["nothing_to_fix"]
            return {"accepted": False, "message": "no card has been played this hand"}
        was = str(last.card)
        self.fixing = {"seat": last.seat, "was": was, "options": lookalikes(was), "index": 0}
        self._idle_timer()
        return {"accepted": True, "message": f"correcting P{last.seat + 1}'s {was}"}

    def _fixing(self, name: str) -> dict[str, Any]:
        f = self.fixing
        assert f is not None
        if name == "undo":
            f["index"] = (f["index"] + 1) % len(f["options"])
            return {"accepted": True, "message": "next card"}
        if name in ("undo_long", "new_hand"):
            self.fixing = None
            return {"accepted": True, "message": "correction left"}
        if name == "confirm":
            return {"accepted": False, "message": "hold CONFIRM to correct the card"}
        card = f["options"][f["index"]]
        tracker = self.controller.tracker
        zone = getattr(tracker, "seat_zones", {}).get(f["seat"])
        possible = tracker.possible(zone) if zone is not None else None
        if possible is not None and card not in possible:
            # The rules rule it out: one line that says nothing of where the card is,
            # and nothing reaches the referee (its refusal would say "already played").
            self.notice = self.w["not_possible"].format(card=card)
            return {"accepted": False, "kind": "not_possible",
                    "message": "that card cannot be there now"}
        self.fixing = None
        result = self.controller.execute("correct", {"seat": f["seat"], "card": card,
                                                     "was": f["was"]})
        if not result.get("accepted"):
            self.notice = self.w["fix_refused"].format(card=card)
        return result


def attach(controller: Any, indicators: Any, config: Any, **kwargs: Any) -> ButtonNaming:
    """Wire the table's buttons (``firmware_bridge.Indicators``, configured by ``config``,
    an ``IndicatorsConfig``) to the controller through a :class:`ButtonNaming`, which
    also draws the display's questions. Returns it; the caller adds the output
    ``IndicatorsOutput(indicators, naming=...)``."""
    from table_controller.controller import hold_lines

    gesture = "hold"
    if config.serial_port:  # the board tells a long press by a double press
        gesture = "both" if config.buttons else "twice"
    def language() -> int:
        return indicators.state.language

    naming = ButtonNaming(controller, indicators.text,
                          lambda holds: hold_lines(holds, words(language())), gesture=gesture,
                          language=language, **kwargs)
    controller.handlers["button"] = naming.press
    indicators.on_button(lambda name: controller.command("button", {"name": name}))
    return naming
