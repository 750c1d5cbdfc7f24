"""``briscola-table referee``: referee a file of table events or a game record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from table_controller.cli.common import _t, _tn, fail, said
from table_controller.engine.events import Event
from table_controller.engine.record import (
    MAX_HEADER_VALUE,
    RecordError,
    dumps,
    looks_like_record,
    match_records,
    parse_records,
    record_events,
)
from table_controller.engine.referee import MATCH_LENGTHS, Referee
from table_controller.engine.report import match_report, text_report
from table_controller.engine.rules import Variant


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "referee", help=_t("referee a file of table events (JSON Lines) or a game record"),
        description=_t("Referee a recorded game: JSON Lines events, one per line, or a "
                       "game record (.bgn). Prints a readable account, or with --json one "
                       "JSON document."))
    p.add_argument("--events", metavar="FILE", type=Path,
                   help=_t("JSON Lines events or a game record; '-' reads standard input"))
    p.add_argument("--players", type=int, default=2, choices=range(2, 7), metavar="N",
                   help=_t("players, when the events do not start with a hand event (default 2)"))
    p.add_argument("--variant", action="append", default=[], dest="variants",
                   choices=[v.value for v in Variant],
                   help=_t("switch on a variant for hands that do not name theirs"))
    p.add_argument("--match", type=int, choices=MATCH_LENGTHS,
                   help=_t("best of 1, 3 or 5 hands (default: an open series)"))
    p.add_argument("--dealer", type=int, metavar="SEAT",
                   help=_t("the first dealer when the events start without a hand event "
                           "(counted from 0, as in the events: P1 is 0)"))
    p.add_argument("--json", action="store_true", help=_t("print one JSON document"))
    p.add_argument("--record-out", metavar="FILE", type=Path,
                   help=_t("also write the refereed match as a game record"))
    p.add_argument("--names", help=_t("players' names, comma-separated, for the account"))
    p.set_defaults(handler=run)


MAX_INPUT_CHARS = 64 * 2**20  # a whole evening of events is well under a megabyte


def _die(message: object) -> int:
    # One line, of a readable length, whatever a file's content put in the message.
    message = " ".join(said(message).split())
    if len(message) > 300:
        message = message[:297] + "..."
    return fail("referee", message)


def read_events(text: str) -> tuple[list[tuple[object, int | None]], list[str] | None]:
    """(event or raw JSON line, line number) pairs from either input format, and the
    players' names when a game record gives them."""
    if looks_like_record(text):
        records = parse_records(text)
        names = records[0].names if any(n != "?" for n in records[0].names) else None
        return list(record_events(records)), names
    return [(line, n) for n, line in enumerate(text.splitlines(), 1) if line.strip()], None


def referee_items(referee: Referee, items) -> None:
    for item, line in items:
        if isinstance(item, str):
            referee.feed_json(item, line)
        else:
            referee.feed(item, line)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    video = getattr(args, "video", None)
    if video is not None:
        return args.video_handler(args)
    if args.events is None:
        return _die(_t("give --events FILE (JSON Lines events or a game record)"))
    try:
        if str(args.events) == "-":
            text = sys.stdin.read(MAX_INPUT_CHARS + 1)
        else:
            with args.events.open(encoding="utf-8") as f:
                text = f.read(MAX_INPUT_CHARS + 1)
    except FileNotFoundError:
        return _die(_t("no such file: {path}", path=args.events))
    except IsADirectoryError:
        return _die(_t("{path} is a directory, not an events file", path=args.events))
    except (OSError, UnicodeDecodeError) as exc:
        return _die(_t("cannot read {path}: {problem}", path=args.events, problem=exc))
    if len(text) > MAX_INPUT_CHARS:
        return _die(_t("{path} is over {n} MiB: not an events file or a game record",
                       path=args.events, n=MAX_INPUT_CHARS // 2**20))
    if "\x00" in text:
        return _die(_t("{path} holds NUL bytes: not an events file or a game record",
                       path=args.events))
    try:
        referee = Referee(players=args.players, variants=tuple(args.variants),
                          match=args.match, dealer=args.dealer)
    except ValueError as exc:
        return _die(exc)
    try:
        items, names = read_events(text)
    except RecordError as exc:
        return _die(_t("{path}: {problem}", path=args.events, problem=exc))
    if not items:
        return _die(_t("{path} holds no events: an empty file", path=args.events))
    referee_items(referee, items)
    if not referee.hands:  # every line refused: nothing was refereed, nothing to write
        first = referee.violations[0] if referee.violations else None
        why = _t(" (line {line}: {problem})", line=first.line, problem=first.message) \
            if first is not None else ""
        return _die(_tn("{path}: no hand could be started from its {n} event",
                        "{path}: no hand could be started from its {n} events", len(items),
                        path=args.events) + why)
    given = len(args.names.split(",")) if args.names else 0
    players = referee.hands[0].players if referee.hands else args.players
    if given and given != players:  # said before any account is printed or written
        return _die(_tn("--names gives {n} name for the file's {players} players",
                        "--names gives {n} names for the file's {players} players", given,
                        players=players))
    if names and not args.names:
        args.name_list = names  # as the record gives them: commas and all
    return report(referee, args)


def report(referee: Referee, args: argparse.Namespace) -> int:
    names = getattr(args, "name_list", None)
    if names is None and getattr(args, "names", None):
        names = [n.strip() for n in args.names.split(",")]
        try:  # bytes that were not UTF-8 on the command line arrive as lone surrogates
            args.names.encode("utf-8")
        except UnicodeEncodeError:
            return _die(_t("--names must be UTF-8 text"))
        if any(len(n) > MAX_HEADER_VALUE for n in names):
            return _die(_t("a name in --names is at most {n} characters", n=MAX_HEADER_VALUE))
    doc = match_report(referee)
    if args.json:
        json.dump(doc, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(text_report(doc, names, said))
    if getattr(args, "record_out", None):
        try:
            args.record_out.write_text(dumps(match_records(referee, names)), encoding="utf-8")
        except OSError as exc:
            return _die(_t("cannot write {path}: {problem}", path=args.record_out,
                           problem=exc.strerror or exc))
    return 0


__all__ = ["register", "run", "read_events", "referee_items", "Event"]
