"""``briscola-table dashboard`` as a user runs it."""

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from table_controller.cli import build_parser, main
from table_controller.store import Store

ROOT = Path(__file__).resolve().parent.parent


def test_the_subcommand_is_registered_with_its_options():
    args = build_parser().parse_args(["dashboard", "--host", "127.0.0.1", "--port", "8123",
                                      "--db", "x.sqlite3", "--no-mdns"])
    assert args.handler.__module__ == "table_controller.cli.dashboard"
    assert (args.host, args.port, str(args.db), args.no_mdns) == ("127.0.0.1", 8123,
                                                                  "x.sqlite3", True)


def test_set_pin_from_the_terminal(tmp_path, monkeypatch, capsys):
    answers = iter(["4321", "4321", "11", "11", "5555", "5556"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    db = tmp_path / "pin.sqlite3"
    assert main(["dashboard", "--db", str(db), "--set-pin"]) == 0
    assert "PIN saved" in capsys.readouterr().out
    from web_dashboard.security import PinGuard
    assert PinGuard(Store(db)).check("4321")
    assert main(["dashboard", "--db", str(db), "--set-pin"]) == 2
    assert "4 to 12 digits" in capsys.readouterr().err
    assert main(["dashboard", "--db", str(db), "--set-pin"]) == 2
    assert "differ" in capsys.readouterr().err


def test_bad_database_path_is_reported(tmp_path, capsys):
    assert main(["dashboard", "--port", "0", "--db",
                 str(tmp_path / "no" / "such" / "dir.sqlite3")]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_serves_the_dashboard(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "dashboard", "--host", "127.0.0.1",
         "--port", "0", "--no-mdns", "--db", str(tmp_path / "run.sqlite3")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("briscola-table dashboard on http://"), line
        url = line.split(" on ", 1)[1].split()[0]
        port = url.rsplit(":", 1)[1].rstrip("/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/table", timeout=5) as r:
            doc = json.load(r)
        assert doc["match"] is None and doc["hand"] is None
        assert "no PIN yet" in proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_command_line_starts_without_importing_flask():
    code = ("import sys; from table_controller.cli import build_parser; build_parser(); "
            "print('flask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_service_stop_closes_the_store_and_checkpoints_the_wal(tmp_path):
    """systemd stops the dashboard with SIGTERM: it closes as Ctrl-C does, the WAL
    folded into the main file (a copy of the .db alone then holds everything)."""
    db = tmp_path / "run.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "dashboard", "--host", "127.0.0.1",
         "--port", "0", "--no-mdns", "--db", str(db)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        port = line.split(" on ", 1)[1].split()[0].rsplit(":", 1)[1].rstrip("/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/table", timeout=5):
            pass
    finally:
        proc.terminate()
        code = proc.wait(10)
    assert code == 0
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
