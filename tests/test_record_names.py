"""Issue 12, finding 9: any player's name round-trips through a game record."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.cli import main
from table_controller.engine.record import (
    MAX_HEADER_VALUE,
    RecordError,
    dumps,
    match_records,
    parse_records,
)
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand


def a_refereed_hand(seed=1):
    referee = Referee()
    sim = play_hand(HandRules(2), 1, random.Random(seed))
    for event in sim.events:
        referee.feed(event)
    return referee


NAMES = [
    "Ada; Bruno",  # before the fix ";" started a comment inside the header
    'Carla "la Rossa"',
    "C:\\tavolo\\new",  # backslashes (and a "\n" that is not a newline)
    "Dario\nMarco",  # a newline split the header in two
    "tab\there",
    "line\u2028sep and \x1c and \x85",  # str.splitlines breaks on these too
    "esc \x1b[31m red",
    "Ümlaut, comma, [brackets] {braces}",
    "trailing space ",
    "",
    "x" * MAX_HEADER_VALUE,
]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_with_any_character_round_trips_through_a_record(name):
    referee = a_refereed_hand()
    text = dumps(match_records(referee, [name, "Ada"]))
    header = next(line for line in text.splitlines() if line.startswith("[Seat0 "))
    assert header.endswith('"]')  # one line, quotes closed
    (record,) = parse_records(text)
    assert record.names == [name, "Ada"]
    assert record.replay() == referee.hand


def test_the_referee_command_reads_a_record_with_such_names_and_writes_them_back(
        tmp_path, capsys):
    # Finding 9: a name with ";" or a newline exported a .bgn that referee --events refused.
    names = ["Ada; Bruno\nsecond line", 'Carla, "la Rossa" \\o/']
    first = tmp_path / "first.bgn"
    first.write_text(dumps(match_records(a_refereed_hand(), names)), encoding="utf-8")
    again = tmp_path / "again.bgn"
    assert main(["referee", "--events", str(first), "--record-out", str(again)]) == 0
    capsys.readouterr()
    assert parse_records(again.read_text(encoding="utf-8"))[0].names == names
    assert again.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")


def test_old_records_still_read_the_same():
    text = '[Players "2"]\n[Seat0 "a \\"q\\" \\\\ b"]\n[Seat1 "x"] ; a comment\n' \
           '[Dealer "1"]\n\ntrump:5s ; c\n*\n'
    (record,) = parse_records(text)
    assert record.names == ['a "q" \\ b', "x"]


@pytest.mark.parametrize("text,said", [
    ('[Seat0 "' + "a" * (MAX_HEADER_VALUE + 1) + '"]\n', "at most 256"),
    ('[Players "9999999999999"]\n', "must be 2..6"),
    ('[Hand "0"]\n', "must be 1..100000"),
    ('[Match "' + "9" * 300 + '"]\n', "at most 256"),
])
def test_the_reader_bounds_every_header_value(text, said):
    with pytest.raises(RecordError, match=said):
        parse_records(text + "\ntrump:5s\n")


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=40), min_size=2, max_size=2))
def test_any_names_round_trip(names):
    # (st.text leaves out lone surrogates: those cannot be written out as UTF-8 at all.)
    referee = a_refereed_hand(seed=3)
    (record,) = parse_records(dumps(match_records(referee, names)))
    assert record.names == names


def test_the_text_account_shows_such_names_on_one_line_without_terminal_codes(tmp_path,
                                                                              capsys):
    path = tmp_path / "r.bgn"
    path.write_text(dumps(match_records(a_refereed_hand(), ["Ada\nBis", "\x1b[2Jx"])),
                    encoding="utf-8")
    assert main(["referee", "--events", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "Ada\\nBis (P1)" in out and "\\x1b[2Jx (P2)" in out


def test_names_given_on_the_command_line_are_checked_in_one_line(tmp_path, capsys):
    path = tmp_path / "r.bgn"
    path.write_text(dumps(match_records(a_refereed_hand(), None)), encoding="utf-8")
    for names, said in [("Ada,\udcff", "must be UTF-8"), ("x" * 300 + ",y", "at most 256")]:
        assert main(["referee", "--events", str(path), "--names", names,
                     "--record-out", str(tmp_path / "o.bgn")]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1
    assert not (tmp_path / "o.bgn").exists()
