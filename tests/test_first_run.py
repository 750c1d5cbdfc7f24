"""What a new user meets first: one clear line for bad input, a quiet terminal, Ctrl-C,
the dashboard's address and port, where the store lives, words on the terminal."""

from __future__ import annotations

import argparse
import errno
import io
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from table_controller.cli import build_parser, main
from table_controller.cli.table import TerminalReport, routed_logs, store_path
from table_controller.config import Config, default_database

ROOT = Path(__file__).resolve().parent.parent


def _cli(args: list[str], cwd: Path, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(cwd / "xdg"))
    return subprocess.run([sys.executable, "-m", "table_controller", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env, **kw)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


# -- bad input: one line, exit 2, nothing written -----------------------------------------

BAD_INPUTS = [
    (["mat", "--out", "m.pdf", "--dpi", "-5"], "mat", "--dpi"),
    (["mat", "--out", "m.pdf", "--dpi", "0"], "mat", "--dpi"),
    (["mat", "--out", "m.pdf", "--dpi", "20000"], "mat", "--dpi"),
    (["mat", "--out", "m.pdf", "--size", "B4"], "mat", "B4"),
    (["mat", "--out", "/nonexistent/m6.pdf"], "mat", "/nonexistent"),
    (["mat", "--out", "m.txt"], "mat", ".pdf"),
    (["enroll", "--images", "garbage.txt", "--out", "x.npz"], "enroll", "is a file"),
    (["enroll", "--images", "nowhere", "--out", "x.npz"], "enroll", "folder not found"),
    (["enroll", "--images", ".", "--out", "x"], "enroll", ".npz"),
    (["enroll", "--images", ".", "--out", "/nonexistent/x.npz"], "enroll", "/nonexistent"),
    (["recognize", "--deck", "garbage.txt", "garbage.txt"], "recognize", "not a deck file"),
    (["recognize", "garbage.txt", "--json"], "recognize", "garbage.txt"),
    (["recognize", "missing.jpg", "--json"], "recognize", "no such file"),
    (["referee", "--events", str(ROOT / "examples" / "hand-2p.bgn"), "--names", "A,B,C",
      "--record-out", "r.bgn"], "referee", "3 names"),
    (["demo", "--port", "99999"], "demo", "99999"),
    (["demo", "--names", "A,B,C", "--headless"], "demo", "3 names"),
    (["dashboard", "--port", "70000"], "dashboard", "70000"),
    (["run", "--port", "-1"], "run", "-1"),
    (["demo", "--fault", "nope"], "demo", "nope"),
    (["demo", "--pause", "-3"], "demo", "-3"),
    (["emulator", "--flip", "2"], "emulator", "0-1"),
    (["display-test", "--scale", "-1", "--out", "dt"], "display-test", "1-16"),
]


@pytest.mark.parametrize(("args", "command", "named"), BAD_INPUTS,
                         ids=[" ".join(a[:3]) for a, _, _ in BAD_INPUTS])
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, command, named):
    (tmp_path / "garbage.txt").write_text("garbage\n")
    before = _files(tmp_path)
    got = _cli(args, tmp_path)
    lines = got.stderr.splitlines()
    assert got.returncode == 2, got.stderr
    assert len(lines) == 1, got.stderr
    assert lines[0].startswith(f"briscola-table {command}: "), lines[0]
    assert named in lines[0]
    assert ".part" not in lines[0] and "[" not in lines[0] and "Traceback" not in got.stderr
    assert got.stdout == ""  # no half output: --json prints nothing at all
    assert _files(tmp_path) == before  # no file written, not even an empty one


def test_a_failed_deck_write_names_the_file_given_and_leaves_nothing(tmp_path, monkeypatch,
                                                                     capsys):
    import numpy as np

    from vision.enroll import builtin_deck

    deck = builtin_deck()
    monkeypatch.setattr("vision.enroll.enroll_directory", lambda folder: deck)

    def full(file, **arrays):
        Path(file).write_bytes(b"half")  # what a full disk leaves
        raise OSError(errno.ENOSPC, "No space left on device", str(file))
    monkeypatch.setattr(np, "savez_compressed", full)
    out = tmp_path / "x.npz"
    assert main(["enroll", "--images", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"briscola-table enroll: cannot write {out}: No space left on device"
    assert list(tmp_path.iterdir()) == []


def _all_parsers(parser: argparse.ArgumentParser, path: str = ""):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                assert helps.get(name), f"command {name} has no help"
                yield from _all_parsers(sub, f"{path} {name}".strip())


def test_every_command_and_option_has_help():
    missing = [f"{path} {'/'.join(a.option_strings) or a.dest}"
               for path, parser in _all_parsers(build_parser())
               for a in parser._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
               and not a.help]
    assert missing == []


def test_the_demo_describes_its_faults(capsys):
    assert main(["demo", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for fault in ("out_of_turn", "wrong_zone", "taken_back", "cover"):
        assert re.search(rf"{fault}: \w+", text), fault


# -- a quiet terminal, Ctrl-C ----------------------------------------------------------------

def test_demo_terminal_has_no_request_tflite_or_opencv_lines(tmp_path):
    """A whole fast match with the dashboard up and a phone loading the page meanwhile:
    no werkzeug request line, no TFLite INFO, no OpenCV WARN, no terminal QR code's
    colour codes (the output is a pipe, not a terminal); the page shows the address
    the terminal printed; the temporary folder is gone at the end."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "demo", "--fast", "--match", "1",
         "--seed", "5", "--no-emulator", "--quit", "--host", "127.0.0.1", "--port", "0"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    url = None
    for line in proc.stdout:
        out.append(line)
        if "dashboard: " in line:
            url = line.split("dashboard: ", 1)[1].split()[0]
            break
    assert url and url.startswith("http://127.0.0.1:"), "".join(out)
    pages = [urllib.request.urlopen(url, timeout=30).read().decode() for _ in range(3)]
    rest, err = proc.communicate(timeout=300)
    text = "".join(out) + rest + err
    assert proc.returncode == 0, text
    assert "agrees with the simulator's ground truth" in text
    assert "GET /" not in text and "HTTP/1.1" not in text
    assert "INFO:" not in text and "XNNPACK" not in text and "[ WARN" not in text
    assert "\x1b[" not in text and "\u2580" not in text  # no QR's colour codes in a pipe
    assert all(url in page for page in pages)  # the page's address is the terminal's
    drawn = re.search(r"drawn to (\S+)display\.png", text)
    assert drawn and not Path(drawn[1]).exists()


def _stopped_demo(tmp_path, sig: int) -> tuple[int, str, str]:
    """A demo sent ``sig`` once its first trick is played: its exit status, all it
    printed, and what it printed after the signal."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "demo", "--headless", "--no-emulator",
         "--seed", "5", "--match", "1"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if "trick  1:" in line:
            break
    proc.send_signal(sig)
    rest, err = proc.communicate(timeout=60)
    return proc.returncode, "".join(seen) + rest + err, rest + err


def test_ctrl_c_stops_the_demo_and_says_so(tmp_path):
    code, text, _ = _stopped_demo(tmp_path, signal.SIGINT)
    assert code == 130, text
    assert "The match was stopped (Ctrl-C) in hand 1" in text
    assert "DISAGREES" not in text and "Traceback" not in text
    drawn = re.search(r"drawn to (\S+)display\.png", text)
    assert drawn and not Path(drawn[1]).exists()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _Referee():
    from table_controller.engine.referee import Referee

    ref = Referee(players=2, dealer=1)
    ref.feed_json('{"type": "hand", "players": 2, "dealer": 1}')
    return ref


def test_log_lines_never_land_on_the_progress_bar(monkeypatch):
    out, err = _Tty(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    report = TerminalReport(argparse.Namespace(referee=_Referee()), ["Ada", "Bruno"], out)
    report.progress()
    assert out.getvalue().endswith("trick 0/20, hands won 0-0")
    with routed_logs(report, verbose=False):
        logging.getLogger("werkzeug").info('127.0.0.1 - - "GET / HTTP/1.1" 200 -')
        assert err.getvalue() == ""  # the request log is off without --verbose
    with routed_logs(report, verbose=True):
        logging.getLogger("werkzeug").info('127.0.0.1 - - "GET / HTTP/1.1" 200 -')
    assert err.getvalue() == '127.0.0.1 - - "GET / HTTP/1.1" 200 -\n'
    # The bar was wiped before the line and drawn again after it.
    assert out.getvalue().count("[---") == 2 and out.getvalue().endswith("hands won 0-0")
    assert "\r\x1b[K" in out.getvalue().split("hands won 0-0")[1]


def test_a_camera_that_gives_no_picture_is_said_once(monkeypatch, caplog):
    from table_controller import app

    class Gone:
        state = "lost"
        opened = 0

        def read(self, timeout):
            return None

        def reopen(self):
            Gone.opened += 1
            if Gone.opened >= 5:
                stop.set()

        def close(self):
            pass

    stop = threading.Event()
    monkeypatch.setattr("vision.sources.open_source", lambda spec, fps: Gone())
    with caplog.at_level(logging.DEBUG):
        assert list(app.camera_frames(0, stop=stop, retry_s=0.001, hint="plug it in")) == []
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert Gone.opened == 5
    assert said == ["camera 0 gives no picture (not found?): waiting for it; plug it in"]


# -- the dashboard's address and port -------------------------------------------------------

def test_the_address_shown_is_one_the_server_answers_on(monkeypatch):
    from web_dashboard import qr

    monkeypatch.setattr(qr, "lan_address", lambda: "192.0.2.7")
    assert qr.phone_url("0.0.0.0", 8000) == "http://192.0.2.7:8000/"
    assert qr.phone_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert qr.phone_url("::1", 8443, "https") == "https://[::1]:8443/"
    monkeypatch.setattr(qr, "lan_address", lambda: None)  # no network: this machine
    assert qr.phone_url("0.0.0.0", 80) == "http://127.0.0.1/"


def test_a_port_in_use_is_said_or_the_next_free_one_taken():
    from web_dashboard.listen import ListenError, listen

    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    try:
        with pytest.raises(ListenError, match=f"port {port} is in use"):
            listen("127.0.0.1", port)
        sock, note = listen("127.0.0.1", port, tries=5)
        with sock:
            assert sock.getsockname()[1] > port
            assert note == f"port {port} is in use: the dashboard is on port " \
                           f"{sock.getsockname()[1]}"
    finally:
        taken.close()


def test_the_demo_table_moves_to_the_next_port_and_the_page_agrees(tmp_path):
    from table_controller.app import build_table
    from table_controller.config import DashboardConfig, TableConfig

    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    config = Config(table=TableConfig(players=2, names=("Ada", "Bruno"), first_dealer=1),
                    dashboard=DashboardConfig(host="127.0.0.1", port=port))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=True, vision=False,
                        next_free_port=True)
    try:
        assert table.url.startswith("http://127.0.0.1:") and f":{port}/" not in table.url
        assert any(n.startswith(f"port {port} is in use") for n in table.notes)
        page = urllib.request.urlopen(table.url, timeout=30).read().decode()
        assert table.url in page
    finally:
        table.close()
        taken.close()


def test_dashboard_refuses_a_taken_port_before_making_its_store(tmp_path):
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        got = _cli(["dashboard", "--host", "127.0.0.1", "--port",
                    str(taken.getsockname()[1]), "--no-mdns", "--db", "new.db"], tmp_path)
    finally:
        taken.close()
    assert got.returncode == 2 and len(got.stderr.splitlines()) == 1, got.stderr
    assert "is in use" in got.stderr and "Traceback" not in got.stderr
    assert not (tmp_path / "new.db").exists()


# -- where the store lives -------------------------------------------------------------------

def test_the_store_lives_in_the_users_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_database() == tmp_path / "data" / "briscola-table" / "briscola-table.db"
    path = store_path(Config())
    assert path == default_database() and path.parent.is_dir()
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")  # as the XDG spec says
    assert default_database() == Path.home() / ".local/share/briscola-table/briscola-table.db"
    assert Config(database="here.db").database_path == Path("here.db")


def test_backup_without_a_store_names_the_default_place(tmp_path):
    got = _cli(["backup", "out.db"], tmp_path)
    assert got.returncode == 2
    assert got.stderr.strip() == ("briscola-table backup: no store at "
                                  f"{tmp_path / 'xdg' / 'briscola-table' / 'briscola-table.db'}"
                                  " (give --db FILE or --config)")


# -- words --------------------------------------------------------------------------------------

def _decision(**fields):
    from table_controller.engine.referee import Decision

    d = Decision(None)
    for k, v in fields.items():
        setattr(d, k, v)
    return d


def test_the_terminal_names_players_never_0_based_seats():
    from table_controller.engine.cards import Card
    from table_controller.engine.events import Play, ViolationKind
    from table_controller.engine.referee import Violation

    out = io.StringIO()
    controller = argparse.Namespace(referee=_Referee())
    report = TerminalReport(controller, ["Ada", "Bruno"], out)
    report(_decision(violation=Violation(ViolationKind.OUT_OF_TURN,
                                         "seat 1 played 7c but it is seat 0's turn", 1)))
    report(_decision(undone=Play(1, Card.parse("6b"))))
    anonymous = TerminalReport(controller, [], out)
    anonymous(_decision(undone=Play(0, Card.parse("3c"))))
    assert out.getvalue().splitlines() == [
        "  ! out_of_turn: Bruno played 7c but it is Ada's turn",
        "  undone: Bruno's 6b",
        "  undone: P1's 3c",
    ]


@pytest.mark.parametrize("locale, expected", [
    ("C.UTF-8", ["--names gives 0 names for 2 players", "--names gives 1 name for 2 players",
                 "--names gives 2 names for 3 players"]),
    ("it_IT.UTF-8", ["--names dà 0 nomi per 2 giocatori", "--names dà 1 nome per 2 giocatori",
                     "--names dà 2 nomi per 3 giocatori"]),
    ("fr_FR.UTF-8", ["--names donne 0 nom pour 2 joueurs", "--names donne 1 nom pour 2 joueurs",
                     "--names donne 2 noms pour 3 joueurs"]),  # French: 0 is one
])
def test_counts_agree_in_the_terminals_language(monkeypatch, locale, expected):
    from table_controller.cli.common import _tn

    monkeypatch.setenv("LANG", locale)
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert [_tn("--names gives {n} name for {players} players",
                "--names gives {n} names for {players} players", n, players=p)
            for n, p in ((0, 2), (1, 2), (2, 3))] == expected


def test_english_counts_agree():
    from table_controller.cli.table import joined
    assert joined(["Ada"]) == "Ada" and joined(["Ada", "Carla"]) == "Ada and Carla"
    assert joined(["A", "B", "C"]) == "A, B and C"


def test_run_says_the_store_and_stops_on_ctrl_c(tmp_path):
    (tmp_path / "t.toml").write_text('[camera]\nsource = "simulator"\n[dashboard]\n'
                                     'enabled = false\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path / "xdg"))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller", "run", "--config",
                             "t.toml"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    db = tmp_path / "xdg" / "briscola-table" / "briscola-table.db"
    assert first == f"store: {db}\n"
    assert proc.returncode == 130, err
    assert db.is_file() and not (tmp_path / "briscola-table.db").exists()
    assert "stopped" in rest and "Traceback" not in err



def test_run_says_plainly_that_its_port_is_in_use(tmp_path):
    """The table goes on refereeing (the players are at it), and says in one line why the
    phones cannot join and what to do."""
    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    (tmp_path / "t.toml").write_text('[camera]\nsource = "simulator"\n[dashboard]\n'
                                     f'host = "127.0.0.1"\nport = {port}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path / "xdg"))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller", "run", "--config",
                             "t.toml"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
    finally:
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
        taken.close()
    assert lines[1] == (f"dashboard not started: port {port} is in use (another dashboard "
                        "running?): give another port\n"), lines
    assert proc.returncode == 130 and "Traceback" not in err, err


def test_a_stop_signal_is_not_called_ctrl_c(tmp_path):
    code, text, after = _stopped_demo(tmp_path, signal.SIGTERM)  # systemd's stop, or kill
    assert code == 130, text
    assert "The match was stopped in hand 1" in text and "Ctrl-C" not in after


def test_the_display_says_who_leads_which_trick_of_how_many():
    from firmware_bridge.screen import trick_label
    from firmware_bridge.table_state import LINE_CHARS, TableState

    assert trick_label(TableState(players=2, dealer=1)) == "P1 leads trick 1/20"
    assert trick_label(TableState(players=2, trick_seat=0, trick_no=16)) == \
        "P1 leads trick 17/20"
    assert trick_label(TableState(players=4, dealer=3, trick_seat=2, trick_no=9)) == \
        "P3 leads trick 10/10"
    assert trick_label(TableState(players=6, trick_seat=5, trick_no=6)) == "Last trick: P6"
    longest = max((trick_label(TableState(players=n, trick_seat=s, trick_no=k))
                   for n in range(2, 7) for s in range(n) for k in range(256)), key=len)
    assert len(longest) <= LINE_CHARS, longest

def test_the_display_speaks_one_language_at_a_time():
    """One language throughout, the table's (English here, the board's own at start):
    never "Trump: Re coppe". Italian and French: tests/test_display_words.py; the board's
    C twin draws the same (tests/test_display_backends.py compares every pixel)."""
    from firmware_bridge.screen import trump_label
    from firmware_bridge.table_state import LINE_CHARS, TableState

    def label(suit, rank):
        return trump_label(TableState(players=2, trump_suit=suit, trump_rank=rank))
    assert label("c", 10) == "Trump: King of cups"
    assert label("d", 2) == "Trump: 2 of coins"
    assert label("s", 9) == "Trump: Knight swords"  # " of" would not fit the line
    assert label("b", 0) == "Trump: clubs"
    every = [label(s, r) for s in "dcsb" for r in range(1, 11)]
    assert max(map(len, every)) <= LINE_CHARS
    italian = re.compile(r"Asso|Fante|Cav|Re\b|denari|coppe|spade|bastoni")
    assert not [t for t in every if italian.search(t)]


def test_the_demo_pauses_between_hands_and_counts_down(capsys):
    from table_controller.app import paced
    from table_controller.cli.table import BetweenHands
    from table_controller.engine.referee import Decision

    report = TerminalReport(argparse.Namespace(referee=_Referee()), ["Ada", "Bruno"])
    stop = threading.Event()
    between = BetweenHands(report, 0.3, stop)
    last = Decision(None)
    last.hand_over, last.match = True, argparse.Namespace(winner="Ada")
    between(last)  # the match is over: no pause
    assert between.hold() == 0.0
    mid = Decision(None)
    mid.hand_over, mid.match = True, argparse.Namespace(winner=None)
    # The pace allows for the pause instead of catching up with a burst of frames.
    times = []
    for _ in paced(((i / 10, None) for i in range(4)), 10, True, stop, between.hold):
        times.append(time.monotonic())
        if len(times) == 1:
            between(mid)  # that frame ended a hand
    assert times[1] - times[0] >= 0.3  # held once, after the hand
    assert times[3] - times[2] >= 0.07  # then the camera's pace again
    assert capsys.readouterr().out == "  next hand in 0.3 s\n"
    between(mid)
    stop.set()  # Ctrl-C during the countdown ends it at once
    t0 = time.monotonic()
    between.hold()
    assert time.monotonic() - t0 < 0.2


def test_the_terminal_groups_teams_and_makes_the_verb_agree():
    out = io.StringIO()
    report = TerminalReport(argparse.Namespace(referee=_Referee()),
                            ["Ada", "Bruno", "Carla", "Dario"], out)
    result = argparse.Namespace(points=(17, 35, 39, 29), winners=(1, 3),
                                team_points=(56, 64), teams=((0, 2), (1, 3)))
    report(_decision(hand_over=True, result=result,
                     match=argparse.Namespace(hands_won=[0, 1, 0, 1])))
    assert out.getvalue().splitlines() == [
        "  points: Ada 17, Bruno 35, Carla 39, Dario 29; the hand goes to Bruno and Dario",
        "  teams: Ada and Carla 56, Bruno and Dario 64",
        "  standing: Ada 0 hands, Bruno 1 hand, Carla 0 hands, Dario 1 hand",
    ]


def test_indicators_demo_prints_words_not_python_values(tmp_path, capsys):
    assert main(["indicators-demo", "--no-emulator", "--delay", "0", "--image",
                 str(tmp_path / "t.png")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^hand over: P1 \d+, P2 \d+; (P[12] wins|a tie)$", out, re.M), out
    assert "REFUSED out_of_turn: P" in out
    assert not re.search(r"\bseat \d|\(\d+,|\{", out)  # no 0-based seat, tuple or dict


def test_the_readable_referee_account_counts_seats_from_1(tmp_path, capsys):
    events = tmp_path / "e.jsonl"
    events.write_text('{"type":"hand","players":2,"dealer":1}\n{"type":"trump","card":"5s"}\n'
                      '{"type":"play","seat":1,"card":"3c"}\n'
                      '{"type":"play","seat":0,"card":"9b"}\n'
                      '{"type":"play","seat":1,"card":"7b"}\n')
    assert main(["referee", "--events", str(events)]) == 0
    out = capsys.readouterr().out
    assert "violation line 3: out_of_turn: P2 played 3c but it is P1's turn" in out
    assert "trick  1: P1 9b, P2 7b  -> P1 +3" in out and "unfinished: 1 trick played" in out
    assert main(["referee", "--events", str(events), "--names", "Tu,Ada"]) == 0
    named = capsys.readouterr().out
    assert "trick  1: Tu 9b, Ada 7b  -> Tu (P1) +3" in named
    assert not re.search(r"\bseat \d|\b\d:\d+[dcsb]\b", out + named)
    assert main(["referee", "--events", str(events), "--json"]) == 0
    doc = capsys.readouterr().out
    assert '"seat": 1' in doc and "seat 1 played 3c" in doc  # the JSON contract is 0-based
