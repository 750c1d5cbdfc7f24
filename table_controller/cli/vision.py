"""Subcommands of the vision package: ``mat``, ``enroll`` and ``recognize``.

OpenCV and the TFLite runtime are imported inside the handlers so that
``briscola-table --help`` stays quick on a Pi.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from table_controller.cli.common import N_, _t, _tn, fail, said

MAT_SIZES = ("A3", "A2")
DPI_RANGE = (10, 600)  # 0 and below draw nothing; above 600 dpi a Pi runs out of memory


def _dpi(text: str) -> float:
    try:
        dpi = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _t("{value} is not a number", value=repr(text[:20]))) from None
    lo, hi = DPI_RANGE
    if not lo <= dpi <= hi:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(_t("{value} is not {lo}-{hi} dots per inch",
                                            value=text[:20], lo=lo, hi=hi))
    return dpi


def _paper(text: str) -> str:
    if text.upper() not in MAT_SIZES:
        raise argparse.ArgumentTypeError(
            _t("unknown mat size {value}: use A3 or A2", value=repr(text[:20])))
    return text.upper()


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "mat", help=_t("write the printable play mat (PDF or PNG)"),
        description=_t("Write the play mat with its ArUco markers, to print at 100% scale."))
    p.add_argument("--out", required=True, metavar="FILE",
                   help=_t("output file: .pdf, .png or .jpg"))
    p.add_argument("--size", default=None, type=_paper,
                   help=_t("paper size: A3 or A2 (default A3; A2, the only one, for 5 and 6)"))
    p.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N",
                   help=_t("the mat for N players, 2-6 (default 4): its play zones, piles and "
                           "labels P1..PN"))
    p.add_argument("--direction", default="ccw", choices=("ccw", "cw"),
                   help=_t("play direction, for the labels (default ccw)"))
    p.add_argument("--dpi", type=_dpi, default=200.0,
                   help=_t("resolution, {low}-{high} dots per inch (default 200)",
                           low=DPI_RANGE[0], high=DPI_RANGE[1]))
    p.set_defaults(handler=cmd_mat)

    p = subparsers.add_parser(
        "enroll", help=_t("teach the recognizer a deck from 40 images or live from a camera"),
        description=_t("Enroll your own deck: from one picture per card (scans, crops or "
                       "phone photos) or card by card at the table's camera. Nothing is "
                       "written unless every card was found."))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", metavar="DIR",
                     help=_t("folder with 1d.png ... 10b.png (rank 1-10, suit d/c/s/b), "
                             "optionally back.png"))
    src.add_argument("--camera", metavar="SOURCE",
                     help=_t("guided live enrollment from a camera (index, file or URL)"))
    p.add_argument("--out", required=True, metavar="DECK.npz", help=_t("deck file to write (.npz)"))
    p.add_argument("--config", metavar="TOML",
                   help=_t("with --camera: the table's configuration (its display shows each "
                           "request; its dashboard serves the phones' /enroll page)"))
    p.add_argument("--no-dashboard", action="store_true",
                   help=_t("with --camera: no /enroll page for the phones"))
    p.set_defaults(handler=cmd_enroll)

    p = subparsers.add_parser(
        "recognize", help=_t("find and name the cards in photos"),
        description=_t("Find every card of which at least half is in view in each photo and "
                       "name it against an enrolled deck. A card that cannot be named for sure "
                       "is reported unknown ('?', or \"card\": null), never guessed."),
        epilog=_t('JSON: [{"image", "ms", "cards": [{"card": code or null, "confidence", '
                  '"corners": four [x, y] from the top left of the face as printed, '
                  '"visible": fraction of the card in view}]}]; backs are not listed.'))
    p.add_argument("images", nargs="+", metavar="IMAGE", help=_t("photos (JPEG, PNG, ...)"))
    p.add_argument("--deck", metavar="DECK.npz",
                   help=_t("enrolled deck (.npz); default: the built-in deck"))
    p.add_argument("--json", action="store_true", help=_t("print JSON (one list for all images)"))
    p.set_defaults(handler=cmd_recognize)


def _output_problem(path: str | Path, suffixes: tuple[str, ...]) -> str | None:
    """Why ``path`` cannot be written, checked before any work is done; None if it can."""
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        ends = suffixes[0] if len(suffixes) == 1 else _t(
            "{names} or {last}", names=", ".join(suffixes[:-1]), last=suffixes[-1])
        return _t("cannot write {path}: the name must end in {ends}", path=path, ends=ends)
    if path.is_dir():
        return _t("cannot write {path}: it is a folder", path=path)
    folder = path.parent
    if not folder.is_dir():
        return _t("cannot write {path}: no folder {folder}", path=path, folder=folder)
    if not os.access(folder, os.W_OK):
        return _t("cannot write {path}: the folder {folder} is not writable", path=path,
                  folder=folder)
    return None


def _write_failed(path: str | Path, exc: OSError) -> str:
    # exc's own text names the temporary file written first: say the file the user gave.
    return _t("cannot write {path}: {problem}", path=path, problem=exc.strerror or exc)


def cmd_mat(args: argparse.Namespace) -> int:
    from vision.mat import MatError, write_mat

    problem = _output_problem(args.out, (".pdf", ".png", ".jpg", ".jpeg"))
    if problem:
        return fail("mat", problem)
    size = args.size or ("A2" if args.players >= 5 else "A3")
    try:
        path = write_mat(args.out, size, px_per_mm=args.dpi / 25.4, players=args.players,
                         direction=args.direction)
    except MatError as exc:
        return fail("mat", exc)
    except OSError as exc:
        return fail("mat", _write_failed(args.out, exc))
    print(_tn("wrote {path} ({size}, {n} player, {dpi} dpi)",
              "wrote {path} ({size}, {n} players, {dpi} dpi)", args.players, path=path,
              size=size, dpi=f"{args.dpi:g}"))
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    from vision.enroll import EnrollmentError, enroll_directory
    from vision.guided import guided_enroll

    problem = _output_problem(args.out, (".npz",))
    if problem:
        return fail("enroll", problem)
    if args.images:
        folder = Path(args.images)
        if not folder.exists():
            return fail("enroll", _t("--images {path}: folder not found", path=args.images))
        if not folder.is_dir():
            return fail("enroll", _t("--images {path} is a file: give the folder that holds "
                                     "one picture per card (1d.png ... 10b.png)",
                                     path=args.images))
    try:
        if args.images:
            deck = enroll_directory(args.images)
        else:
            from vision.sources import open_source

            with open_source(args.camera) as source, _table_outputs(args) as (show, session):
                print(_t("type a card's code and Enter to take it again"), flush=True)
                deck = guided_enroll(source.frames(), lambda text: print(said(text), flush=True),
                                     show=show, session=session, retakes=_typed_codes())
    except (EnrollmentError, OSError, ValueError) as exc:
        return fail("enroll", said(exc))
    try:
        deck.save(args.out)
    except OSError as exc:
        return fail("enroll", _write_failed(args.out, exc))
    if deck.has_back:
        print(_tn("wrote {path}: {n} card and the back", "wrote {path}: {n} cards and the back",
                  len(deck.codes), path=args.out))
    else:
        print(_tn("wrote {path}: {n} card", "wrote {path}: {n} cards", len(deck.codes),
                  path=args.out))
    if args.images:  # the guided enrollment shows its own check at the end
        from vision.deck_check import check_deck

        for line in check_deck(deck).lines():
            print(said(line))
    return 0


def _typed_codes():
    """Codes typed at the terminal (a card to take again), read on their own thread."""
    import queue
    import sys
    import threading

    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            if line.strip():
                lines.put(line.strip())

    threading.Thread(target=read, name="enroll-stdin", daemon=True).start()

    def next_code() -> str | None:
        try:
            return lines.get_nowait()
        except queue.Empty:
            return None
    return next_code


class _table_outputs:
    """The table's display and the phones' /enroll page for a guided enrollment, as the
    configuration has them; whatever cannot start is said and left out."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.closers: list = []

    def __enter__(self):
        from vision.guided import EnrollSession

        session = EnrollSession([])  # guided_enroll fills in the cards it asks for
        show = None
        if self.args.config:
            from table_controller.config import load_config

            config = load_config(self.args.config)
            try:
                from firmware_bridge.indicators import Indicators

                indicators = Indicators.from_config(config.indicators)
                self.closers.append(indicators.close)
                indicators.language(config.table.language)
                show = _display_lines(indicators, config.table.language)
            except Exception as exc:  # no display: the terminal still asks
                print(_t("display not available: {problem}", problem=said(exc)), flush=True)
            if not self.args.no_dashboard and config.dashboard.enabled:
                self._serve(config, session)
        return show, session

    def _serve(self, config, session) -> None:
        import threading

        from werkzeug.serving import make_server

        from web_dashboard import create_app
        from web_dashboard.enroll import set_enrollment

        try:
            app = create_app({"DATABASE": ":memory:"})
            set_enrollment(app, session)
            server = make_server(config.dashboard.host, config.dashboard.port, app,
                                 threaded=True)
        except Exception as exc:
            print(_t("dashboard not started: {problem}", problem=said(exc)), flush=True)
            return
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.closers.append(server.shutdown)
        from web_dashboard.qr import phone_url

        # The address a phone can open (not 0.0.0.0, which is where it listens).
        url = phone_url(config.dashboard.host, server.server_port)
        print(_t("phones: {url}", url=f"{url}enroll"), flush=True)

    def __exit__(self, *exc) -> None:
        for close in reversed(self.closers):
            close()


def _display_lines(indicators, language: str):
    """The enrollment's display lines, said in the table's language, in the display's
    letters."""
    from firmware_bridge.words import fold
    from web_dashboard.i18n import said as said_in

    return lambda *lines: indicators.text(*(fold(said_in(language, line)) for line in lines))


def _unreadable(name: str) -> str | None:
    import cv2

    path = Path(name)
    if not path.exists():
        return N_("no such file")
    if not path.is_file():
        return N_("not a file")
    if not cv2.haveImageReader(name):
        return N_("not a picture (JPEG, PNG, ...)")
    return None


def cmd_recognize(args: argparse.Namespace) -> int:
    import cv2

    from vision.deck import DeckFileError
    from vision.enroll import load_deck
    from vision.recognize import Recognizer, find_and_identify

    try:
        recognizer = Recognizer(load_deck(args.deck))
    except (DeckFileError, FileNotFoundError) as exc:
        return fail("recognize", _t("--deck: {problem}", problem=exc))
    # Every photo is checked before any is looked at (its header only: a folder of
    # photos need not fit in memory), so that one that cannot be read is said at once.
    for name in args.images:
        problem = _unreadable(name)
        if problem:
            return fail("recognize", _t("cannot read image {path}: {problem}", path=name,
                                        problem=_t(problem)))
    from vision.detect import learned_detectors

    learned_detectors()  # load the detectors now: "ms" is each picture's own time
    results = []
    for name in args.images:
        image = cv2.imread(name, cv2.IMREAD_COLOR)
        if image is None:  # a damaged picture behind a good header: no half JSON
            return fail("recognize", _t("cannot read image {path}: {problem}", path=name,
                                        problem=_t("the picture is damaged")))
        t0 = time.perf_counter()
        seen = find_and_identify(image, recognizer)
        ms = (time.perf_counter() - t0) * 1000
        cards = [{"card": s.identity.card, "confidence": s.identity.confidence,
                  "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in s.corners],
                  "visible": s.visible}
                 for s in seen if s.identity.card != "back"]
        results.append({"image": name, "cards": cards, "ms": round(ms, 1)})
        if not args.json:
            names = ", ".join(c["card"] or "?" for c in cards) or _t("no cards")
            print(_t("{path}: {cards} ({ms} ms)", path=name, cards=names, ms=f"{ms:.1f}"))
    if args.json:
        print(json.dumps(results))
    return 0
