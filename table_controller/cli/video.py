"""Offline referee mode: ``briscola-table referee --video game.mp4`` referees a recording.

The recording goes through the same pipeline as the live table (observer, tracker,
referee) at the video's own pace, and the report is the same as for an events file.
``--events-out`` writes the events the tracker saw, as JSON Lines, so the recording can
be refereed again (or corrected by hand) without the video.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("refereeing a video")
    g.add_argument("--video", type=Path, help="a recorded game (any file OpenCV reads)")
    g.add_argument("--deck", type=Path, help="the enrolled deck (default: the built-in deck)")
    g.add_argument("--config", type=Path, help="the table's TOML file: players, variants, "
                   "mat size, play direction")
    g.add_argument("--events-out", type=Path, metavar="FILE",
                   help="write the events seen in the video as JSON Lines")
    parser.set_defaults(video_handler=run_video)


def _die(message: str) -> int:
    print(f"briscola-table referee: {message}", file=sys.stderr)
    return 2


def run_video(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from table_controller.app import camera_frames
    from table_controller.cli.referee import report
    from table_controller.config import ConfigError, load_config
    from table_controller.controller import Controller
    from table_controller.engine.referee import Referee

    if not args.video.is_file():
        return _die(f"no such video: {args.video}")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _die(str(exc))
    table = config.table
    if args.config is None:  # the command line's options stand in for a configuration
        table = replace(table, players=args.players)
    variants = tuple(v.value for v in table.variants) or tuple(args.variants)
    dealer = args.dealer if args.dealer is not None else table.first_dealer
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
        return _die(str(exc))
    zones = seat_zones_for(table.players, table.direction.value)
    # Without a configuration, 5 and 6 players are on their only mat, the A2 one.
    paper = "A2" if args.config is None and table.players >= 5 else config.mat_size
    try:
        layout = mat_layout(paper, table.players, table.direction.value)
    except MatError as exc:
        return _die(str(exc))
    controller = Controller(referee)
    controller.observer, controller.tracker = table_eyes(
        layout, Recognizer(deck), zones, lambda: controller.referee.hand)
    seen: list[dict] = []
    controller.listeners.append(lambda d: seen.append(d))
    first = {"type": "hand", "players": table.players, "dealer": referee.first_dealer,
             "variants": sorted(variants), "t": 0.0}
    events_out = []
    events_out.append(first)
    controller.submit(first)
    from vision.sources import SourceError

    try:
        for t, frame in camera_frames(str(args.video)):
            for decision in controller.on_frame(frame, t):
                if decision.event is not None:
                    obj = decision.event.to_json()
                    if decision.t is not None:
                        obj["t"] = round(decision.t, 3)
                    events_out.append(obj)
    except (OSError, SourceError) as exc:
        return _die(f"{args.video}: {exc}")
    if controller.stats.frames == 0:
        return _die(f"{args.video}: no frame could be read")
    if args.events_out:
        try:
            args.events_out.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n"
                                               for e in events_out), encoding="utf-8")
        except OSError as exc:
            return _die(f"cannot write {args.events_out}: {exc}")
    if not args.names and table.names:
        args.names = ",".join(table.names)
    return report(controller.referee, args)
