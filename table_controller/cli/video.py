"""Offline referee mode: ``briscola-table referee --video game.mp4`` referees a recording.

The recording goes through the same pipeline as the live table (observer, tracker,
referee) at the video's own pace, and the report is the same as for an events file.
``--events-out`` writes the events the tracker saw, as JSON Lines, so the recording can
be refereed again (or corrected by hand) without the video.

Briscola chiamata's auction is spoken, so no camera sees it: ``--call SEAT:CARD[:BID]``
gives its result (once per hand, in order; the seat counted from 0 as ``--dealer`` and
the events count it). The first call is made before the first card; each further one
starts the next hand once the finished hand's cards have left the mat (what NEW HAND
does at the table: without a stock no deal is seen).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from table_controller.cli.common import _t, _tn
from table_controller.cli.referee import _die


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group(_t("refereeing a video"))
    g.add_argument("--video", type=Path, help=_t("a recorded game (any file OpenCV reads)"))
    g.add_argument("--deck", type=Path, help=_t("the enrolled deck (default: the built-in deck)"))
    g.add_argument("--config", type=Path, help=_t("the table's TOML file: players, variants, "
                      "mat size, play direction"))
    g.add_argument("--events-out", type=Path, metavar="FILE",
                   help=_t("write the events seen in the video as JSON Lines"))
    g.add_argument("--call", action="append", default=[], dest="calls",
                   metavar="SEAT:CARD[:BID]",
                   help=_t("Briscola chiamata (5 players, needed): the spoken auction's result, "
                           "e.g. 2:1d:70 (seat 2 calls the Asso of denari for 70; SEAT counted "
                           "from 0 as in --dealer, so P1 is 0; BID 61-120, default 61); repeat "
                           "it for each further hand of the video, in order"))
    parser.set_defaults(video_handler=run_video)


def parse_call(text: str, players: int) -> dict[str, Any]:
    """``SEAT:CARD[:BID]`` as a call event; ValueError with one line saying what is wrong."""
    from table_controller.engine.cards import Card
    from table_controller.engine.rules import DEFAULT_BID

    parts = text.strip().split(":")
    if len(parts) not in (2, 3):
        raise ValueError(_t("--call {call}: expected SEAT:CARD[:BID], such as 2:1d:70",
                            call=repr(text)))
    seat, card, bid = parts[0].strip(), parts[1].strip(), (parts[2:] or [str(DEFAULT_BID)])[0]
    if not (seat.isascii() and seat.isdigit()) or not 0 <= int(seat) < players:
        raise ValueError(_t("--call {call}: the seat is 0-{last} (counted from 0, as in "
                            "--dealer: P1 is 0)", call=repr(text), last=players - 1))
    try:
        code = str(Card.parse(card))
    except ValueError:
        raise ValueError(_t("--call {call}: {card} is not a card code such as 1d "
                            "(rank 1-10, suit d, c, s or b)", call=repr(text),
                            card=repr(card))) from None
    bid = bid.strip()
    if not (bid.isascii() and bid.isdigit()) or not DEFAULT_BID <= int(bid) <= 120:
        raise ValueError(_t("--call {call}: the bid is {least}-120 points", call=repr(text),
                            least=DEFAULT_BID))
    return {"type": "call", "seat": int(seat), "card": code, "points": int(bid)}


def run_video(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from table_controller.app import camera_frames
    from table_controller.cli.referee import report
    from table_controller.config import ConfigError, load_config
    from table_controller.controller import Controller
    from table_controller.engine.referee import Referee

    if not args.video.is_file():
        return _die(_t("no such video: {path}", path=args.video))
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _die(exc)
    table = config.table
    if args.config is None:  # the command line's options stand in for a configuration
        table = replace(table, players=args.players)
    variants = tuple(v.value for v in table.variants) or tuple(args.variants)
    dealer = args.dealer if args.dealer is not None else table.first_dealer
    try:
        calls = [parse_call(text, table.players) for text in args.calls]
    except ValueError as exc:
        return _die(exc)
    if calls and table.players != 5:
        return _die(_t("--call is for Briscola chiamata (5 players), not {players}",
                       players=table.players))
    if table.players == 5 and not calls:
        return _die(_t("a 5-player video is Briscola chiamata, whose spoken auction no "
                       "camera sees: give its result with --call SEAT:CARD[:BID], e.g. "
                       "--call 2:1d:70 (SEAT counted from 0, as in --dealer)"))
    referee = Referee(players=table.players, variants=variants, match=args.match,
                      dealer=dealer)

    from vision.deck import DeckFileError
    from vision.enroll import load_deck
    from vision.mat import MatError, mat_layout
    from vision.observer import seat_zones_for, table_eyes
    from vision.recognize import Recognizer

    try:
        deck = load_deck(args.deck)
    except (DeckFileError, FileNotFoundError) as exc:
        return _die(exc)
    zones = seat_zones_for(table.players, table.direction.value)
    # Without a configuration, 5 and 6 players are on their only mat, the A2 one.
    paper = "A2" if args.config is None and table.players >= 5 else config.mat_size
    try:
        layout = mat_layout(paper, table.players, table.direction.value)
    except MatError as exc:
        return _die(exc)
    controller = Controller(referee)
    controller.observer, controller.tracker = table_eyes(
        layout, Recognizer(deck), zones, lambda: controller.referee.hand)
    seen: list[dict] = []
    controller.listeners.append(lambda d: seen.append(d))
    first = {"type": "hand", "players": table.players, "dealer": referee.first_dealer,
             "variants": sorted(variants), "t": 0.0}
    events_out = []

    def spoken(event: dict[str, Any]) -> str | None:
        """Feed an event no camera sees (the hand, the auction's result); why not, or None."""
        decision = controller.submit(event)
        if not decision.accepted:
            return decision.violation.message
        events_out.append(event)
        return None

    spoken(first)
    if calls and (why := spoken(dict(calls.pop(0), t=0.0))):
        return _die(_t("--call {call}: {problem}", call=repr(args.calls[0]), problem=why))
    from vision.sources import SourceError

    try:
        for t, frame in camera_frames(str(args.video)):
            for decision in controller.on_frame(frame, t):
                if decision.event is not None:
                    obj = decision.event.to_json()
                    if decision.t is not None:
                        obj["t"] = round(decision.t, 3)
                    events_out.append(obj)
            hand = controller.referee.hand
            if calls and hand is not None and hand.is_over() and _mat_clear(controller):
                # The next chiamata hand (NEW HAND at the table), then its auction.
                text = args.calls[len(args.calls) - len(calls)]
                # The players said: the events file replays alone, without --players.
                why = spoken({"type": "hand", "players": table.players,
                              "t": round(t, 3)}) or spoken(
                    dict(calls.pop(0), t=round(t, 3)))
                if why:
                    return _die(_t("--call {call}: {problem}", call=repr(text),
                                   problem=why))
    except (OSError, SourceError) as exc:
        return _die(f"{args.video}: {exc}")
    if controller.stats.frames == 0:
        return _die(_t("{path}: no frame could be read", path=args.video))
    if calls:  # said, not refused: a recording may stop before its last hand
        hands = len(controller.referee.hands)
        print("briscola-table referee: " + _tn(
            "note: {n} --call not used (the video shows {hands}): {calls}",
            "note: {n} --call not used (the video shows {hands}): {calls}", len(calls),
            hands=_tn("{n} hand", "{n} hands", hands),
            calls=", ".join(args.calls[-len(calls):])), file=sys.stderr)
    if args.events_out:
        try:
            args.events_out.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n"
                                               for e in events_out), encoding="utf-8")
        except OSError as exc:
            return _die(_t("cannot write {path}: {problem}", path=args.events_out,
                           problem=exc.strerror or exc))
    if not args.names and table.names:
        args.names = ",".join(table.names)
    return report(controller.referee, args)


def _mat_clear(controller: Any) -> bool:
    """No card lies on the mat, as the tracker sees it (the last trick has been taken)."""
    tracker = controller.tracker
    return not tracker.holds and all(z.settled is None and z.candidate is None
                                     for z in tracker.zones.values())
