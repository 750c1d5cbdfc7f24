"""``briscola-table referee`` as a user runs it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_report_matches_the_contract(capsys):
    code, out, _ = run(capsys, "referee", "--events", str(EXAMPLES / "hand-2p-mistakes.jsonl"),
                       "--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) >= {"hands", "match"}
    (hand,) = doc["hands"]
    for key in ("dealer", "trump", "tricks", "points", "team_points", "outcome", "winners",
                "complete", "violations"):
        assert key in hand
    assert hand["dealer"] == 1 and hand["trump"] == "7s" and hand["complete"] is True
    assert hand["points"] == [63, 57] and hand["team_points"] is None
    assert hand["outcome"] == "win" and hand["winners"] == [0]
    assert len(hand["tricks"]) == 20
    t0 = hand["tricks"][0]
    assert set(t0) == {"leader", "plays", "winner", "points"}
    assert t0["plays"][0] == {"seat": 0, "card": "7d"}
    kinds = [(v["line"], v["kind"]) for v in hand["violations"]]
    assert kinds == [(12, "out_of_turn"), (23, "duplicate_card"), (24, "not_in_deck"),
                     (25, "bad_event")]
    v = hand["violations"][0]
    assert set(v) == {"line", "kind", "seat", "card", "message"} and v["seat"] == 0
    assert doc["match"]["hands_won"] == [1, 0] and doc["match"]["winner"] is None


def test_readable_account(capsys):
    code, out, _ = run(capsys, "referee", "--events", str(EXAMPLES / "hand-2p.bgn"),
                       "--names", "Tu,Ada")
    assert code == 0
    assert "trick 20" in out and "Tu (P1) 63" in out and "Tu (P1) wins" in out


def test_match_option_declares_the_winner(capsys, tmp_path):
    lines = (EXAMPLES / "hand-2p.jsonl").read_text()
    f = tmp_path / "m.jsonl"
    f.write_text(lines)
    code, out, _ = run(capsys, "referee", "--events", str(f), "--match", "1", "--json")
    assert json.loads(out)["match"]["winner"] == 0


def test_events_without_hand_event_use_players_option(capsys, tmp_path):
    f = tmp_path / "e.jsonl"
    f.write_text('{"type":"trump","card":"5s"}\n{"type":"play","seat":0,"card":"2d"}\n')
    code, out, _ = run(capsys, "referee", "--events", str(f), "--players", "3", "--json")
    (hand,) = json.loads(out)["hands"]
    assert hand["players"] == 3 and hand["violations"][0]["kind"] == "not_in_deck"
    assert hand["violations"][0]["line"] == 2 and hand["complete"] is False


def test_variants_option(capsys, tmp_path):
    f = tmp_path / "e.jsonl"
    f.write_text('{"type":"trump","card":"10s"}\n{"type":"play","seat":0,"card":"2s"}\n'
                 '{"type":"play","seat":1,"card":"3c"}\n{"type":"swap","seat":0,"card":"7s"}\n')
    _, out, _ = run(capsys, "referee", "--events", str(f), "--json")
    assert json.loads(out)["hands"][0]["violations"][0]["kind"] == "illegal_swap"
    _, out, _ = run(capsys, "referee", "--events", str(f), "--variant", "swap7", "--json")
    hand = json.loads(out)["hands"][0]
    assert hand["violations"] == [] and hand["swaps"] == [
        {"seat": 0, "card": "7s", "after_trick": 1}]


@pytest.mark.parametrize("path,message", [("missing.jsonl", "no such file"),
                                          (".", "directory")])
def test_unreadable_file_exits_2_with_a_message(capsys, tmp_path, path, message):
    code, out, err = run(capsys, "referee", "--events", str(tmp_path / path))
    assert code == 2 and message in err and out == ""


def test_binary_file_exits_2(capsys, tmp_path):
    f = tmp_path / "b.jsonl"
    f.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "referee", "--events", str(f))
    assert code == 2 and "cannot read" in err


def test_record_out_writes_a_record_that_referees_the_same(capsys, tmp_path):
    out_file = tmp_path / "out.bgn"
    run(capsys, "referee", "--events", str(EXAMPLES / "hand-2p-mistakes.jsonl"),
        "--record-out", str(out_file), "--json")
    _, a, _ = run(capsys, "referee", "--events", str(EXAMPLES / "hand-2p.jsonl"), "--json")
    _, b, _ = run(capsys, "referee", "--events", str(out_file), "--json")
    strip = [dict(h, violations=[]) for h in json.loads(a)["hands"]]
    assert [dict(h, violations=[]) for h in json.loads(b)["hands"]] == strip


def test_console_script_runs_from_the_installed_package():
    proc = subprocess.run([sys.executable, "-m", "table_controller", "referee", "--events",
                           str(EXAMPLES / "hand-2p.bgn"), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hands"][0]["points"] == [63, 57]


@pytest.mark.parametrize(("content", "said"), [
    ("", "holds no events: an empty file"),
    ("\n\n", "holds no events: an empty file"),
    ("garbage\nnot json either\n", "no hand could be started from its 2 events (line 1:"),
])
def test_a_file_with_nothing_to_referee_is_one_line_and_writes_no_record(
        capsys, tmp_path, content, said):
    """Not "Match: hands won 0-0" and an empty record: the file held nothing to referee."""
    events = tmp_path / "garbage.txt"
    events.write_text(content)
    out_file = tmp_path / "r2.bgn"
    code, out, err = run(capsys, "referee", "--events", str(events), "--record-out",
                         str(out_file))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and said in err and err.startswith("briscola-table referee:")
    assert not out_file.exists()
