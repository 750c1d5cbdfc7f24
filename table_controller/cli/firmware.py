"""Subcommands of the firmware bridge: ``emulator``, ``display-test``, ``indicators-demo``."""

from __future__ import annotations

import argparse
from pathlib import Path

from table_controller.cli.common import _t, fail, terminal_language


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _t("{value} is not a number", value=repr(text[:20]))) from None
    if not 0 <= value <= 1:  # also refuses nan
        raise argparse.ArgumentTypeError(
            _t("{value} is not a probability 0-1", value=text[:20]))
    return value


def _scale(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _t("{value} is not a whole number", value=repr(text[:20]))) from None
    if not 1 <= value <= 16:
        raise argparse.ArgumentTypeError(_t("{value} is not 1-16", value=value))
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "emulator", help=_t("run the table board's firmware on a pseudo-terminal"),
        description=_t("Build (with gcc) and run the board firmware's host emulator; prints "
                       "the serial port to give to serial.port. Ctrl-C stops it."))
    p.add_argument("--link", metavar="PATH", help=_t("stable symlink to the pty "
                      "(default: a temporary one)"))
    p.add_argument("--pace", type=int, default=0, metavar="BAUD",
                   help=_t("simulate the wire time of this baud rate (default: none)"))
    p.add_argument("--flip", type=_probability, default=0.0,
                   help=_t("bit-flip probability per byte, 0-1"))
    p.add_argument("--drop", type=_probability, default=0.0,
                   help=_t("drop probability per byte, 0-1"))
    p.set_defaults(handler=run_emulator)

    p = sub.add_parser(
        "display-test", help=_t("draw the table screen's layouts to PNG files"),
        description=_t("Renders sample table states as the 128x64 OLED shows them, to PNGs "
                       "(and to the board, with --port)."))
    p.add_argument("--out", type=Path, default=Path("out/display"), metavar="DIR",
                   help=_t("folder for the PNGs (default out/display)"))
    p.add_argument("--scale", type=_scale, default=4,
                   help=_t("pixel size in the PNGs, 1-16 (default 4)"))
    p.add_argument("--port", help=_t("also show each one on the board at this serial port"))
    p.add_argument("--language", choices=("it", "en", "fr"),
                   help=_t("the display's words (default: the terminal's language)"))
    p.set_defaults(handler=run_display_test)

    p = sub.add_parser(
        "indicators-demo", help=_t("play a scripted hand on mock LEDs and the emulated board"),
        description=_t("Feeds a scripted hand to the referee and shows every decision on mock "
                       "GPIO LEDs (printed), the firmware emulator and a PNG."))
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 6),
                   help=_t("players in the scripted hand (default 2)"))
    p.add_argument("--delay", type=float, default=0.2, help=_t("seconds between events"))
    p.add_argument("--image", type=Path, default=Path("out/table.png"),
                   help=_t("PNG of the screen, rewritten on every change"))
    p.add_argument("--no-emulator", action="store_true", help=_t("GPIO mocks and PNG only"))
    p.set_defaults(handler=run_indicators_demo)


def run_emulator(args: argparse.Namespace) -> int:
    import signal
    import time

    from firmware_bridge.emulator import BuildError, Emulator

    try:
        emu = Emulator(args.link, flip=args.flip, drop=args.drop, pace_baud=args.pace).start()
    except BuildError as exc:
        fail("emulator", exc)
        return 1  # not the input: the machine cannot build the firmware
    print(f"board emulator on {emu.port} -> {emu.pty}", flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        while emu.proc is not None and emu.proc.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        emu.close()
    return 0


def run_display_test(args: argparse.Namespace) -> int:
    import time

    from firmware_bridge.display import png_bytes
    from firmware_bridge.screen import render
    from firmware_bridge.table_state import TableState
    from firmware_bridge.words import language_index, words

    lang = args.language or terminal_language()
    w = words(lang)
    base = TableState(language=language_index(lang))  # the board's own words, in it
    scenes = {
        "idle": base,
        "turn": base.replace(players=4, dealer=1, turn=2, trick_seat=1, trick_no=3,
                             draw_order=(1, 2, 3, 0), trump_suit="s", trump_rank=9),
        "violation": base.replace(players=2, trump_suit="d", trump_rank=1, error_kind=1,
                                  error_seat=1, error_text=w["msg_out_of_turn"].format(
                                      player="P2", card="7c", turn="P1")),
        "result": base.replace(players=4, outcome=1, winners=(0, 2), points=(40, 20, 30, 30),
                               team_points=(70, 50), trump_suit="b", trump_rank=10),
        "text": base.replace(text=(w["title"], "", w["sample_press"], w["sample_start"])),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    link = None
    if args.port:
        from firmware_bridge.link import BoardLink
        link = BoardLink(args.port).start()
    try:
        for name, state in scenes.items():
            path = args.out / f"{name}.png"
            path.write_bytes(png_bytes(render(state), args.scale))
            print(path)
            if link is not None:
                link.set_state(state)
                print("  " + (_t("on the board") if link.wait_synced(3)
                              else _t("board not answering")))
                time.sleep(2)
    finally:
        if link is not None:
            link.close()
    return 0


def run_indicators_demo(args: argparse.Namespace) -> int:
    from firmware_bridge.demo import run_demo

    return run_demo(args.players, args.delay, args.image, emulator=not args.no_emulator)
