"""``briscola-table referee --video``: the offline referee on recordings."""

import itertools
import json

import cv2

from table_controller.cli import main


def write_video(path, frames, fps=30):
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    for f in frames:
        out.write(f)
    out.release()


def test_missing_video_exits_2(capsys, tmp_path):
    assert main(["referee", "--video", str(tmp_path / "none.avi")]) == 2
    assert "no such video" in capsys.readouterr().err


def test_unreadable_video_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"not a video at all")
    assert main(["referee", "--video", str(bad)]) == 2
    assert "bad.avi" in capsys.readouterr().err


def test_empty_table_video_reports_a_hand_with_no_tricks(capsys, tmp_path):
    from vision.simtable import SimulatedTable

    sim = SimulatedTable(players=2, seed=1, pace="fast", hands=1, size=(640, 360),
                         bumps=False)
    frames = []
    for spec, img in sim.frames():  # the empty mat before the deal
        if spec.index >= 5:
            break
        frames.append(img)
    video = tmp_path / "empty.avi"
    write_video(video, frames)
    events = tmp_path / "seen.jsonl"
    code = main(["referee", "--video", str(video), "--json", "--events-out", str(events),
                 "--dealer", "1"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert len(doc["hands"]) == 1 and doc["hands"][0]["tricks"] == []
    assert doc["hands"][0]["dealer"] == 1
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    assert lines[0]["type"] == "hand" and lines[0]["dealer"] == 1 and len(lines) == 1


def test_recorded_hand_is_refereed_like_the_table_saw_it(capsys, tmp_path):
    """A whole simulated hand recorded to a video file, refereed after the fact."""
    from vision.simtable import SimulatedTable

    sim = SimulatedTable(players=2, seed=31, pace="fast", hands=1, size=(960, 540),
                         first_dealer=1)
    video = tmp_path / "hand.avi"
    out = None
    for _, img in sim.frames():
        if out is None:
            out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30,
                                  (img.shape[1], img.shape[0]))
        out.write(img)
    out.release()
    events = tmp_path / "seen.jsonl"
    code = main(["referee", "--video", str(video), "--dealer", "1", "--json",
                 "--events-out", str(events)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    (hand,) = doc["hands"]
    (truth,) = sim.hands
    assert hand["complete"] and hand["points"] == truth.points
    assert [t["winner"] for t in hand["tricks"]] == truth.winners
    assert hand["violations"] == []
    # The events written replay to the same report without the video.
    code = main(["referee", "--events", str(events), "--json"])
    again = json.loads(capsys.readouterr().out)
    assert again["hands"][0]["points"] == truth.points


def _chiamata_video(tmp_path, seed=3):
    """Two hands of Briscola chiamata on the simulated table, recorded to a file."""
    from vision.simtable import SimulatedTable

    sim = SimulatedTable(players=5, seed=seed, pace="fast", hands=2, first_dealer=1,
                         size=(960, 540))
    video = tmp_path / "five.avi"
    write_video(video, [img for _, img in sim.frames()])
    calls = [next(e for e in h.events if e.type == "call") for h in sim.hands]
    return sim, video, [f"{c.seat}:{c.card}:{c.points}" for c in calls]


def test_a_chiamata_video_is_refereed_with_the_auction_from_the_command_line(
        capsys, tmp_path):
    sim, video, calls = _chiamata_video(tmp_path)
    events = tmp_path / "seen.jsonl"
    code = main(["referee", "--video", str(video), "--players", "5", "--dealer", "1",
                 "--json", "--events-out", str(events)]
                + [x for c in calls for x in ("--call", c)])
    out = capsys.readouterr()
    assert code == 0, out.err
    doc = json.loads(out.out)
    assert len(doc["hands"]) == len(sim.hands) == 2
    for hand, truth, call in zip(doc["hands"], sim.hands, calls, strict=True):
        assert hand["complete"] and hand["violations"] == [] and hand["notes"] == []
        assert hand["points"] == truth.points
        assert [t["winner"] for t in hand["tricks"]] == truth.winners
        assert (hand["caller"], hand["called"], hand["bid"], hand["partner"]) == (
            truth.caller, str(truth.called), int(call.split(":")[2]), truth.partner)
    # Each call comes right after its hand's start, before any card.
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    starts = [i for i, e in enumerate(lines) if e["type"] == "hand"]
    assert len(starts) == 2 and all(lines[i + 1]["type"] == "call" for i in starts)
    assert lines[1] == {"type": "call", "seat": sim.hands[0].caller,
                        "card": str(sim.hands[0].called),
                        "points": int(calls[0].split(":")[2]), "t": 0.0}
    code = main(["referee", "--events", str(events), "--json"])
    again = json.loads(capsys.readouterr().out)
    assert [h["points"] for h in again["hands"]] == [h.points for h in sim.hands]


def test_a_chiamata_video_without_its_call_is_refused_in_one_line(capsys, tmp_path):
    video = tmp_path / "v.avi"
    video.write_bytes(b"x")  # refused before the video is opened
    out = tmp_path / "seen.jsonl"
    cases = {
        (): "a 5-player video is Briscola chiamata, whose spoken auction no camera sees: "
            "give its result with --call SEAT:CARD[:BID]",
        ("--call", "2"): "--call '2': expected SEAT:CARD[:BID], such as 2:1d:70",
        ("--call", "5:1d"): "--call '5:1d': the seat is 0-4 (counted from 0, as in "
                            "--dealer: P1 is 0)",
        ("--call", "P2:1d"): "the seat is 0-4",
        ("--call", "1:1z"): "--call '1:1z': '1z' is not a card code such as 1d",
        ("--call", "1:1d:60"): "--call '1:1d:60': the bid is 61-120 points",
        ("--call", "1:1d:121"): "the bid is 61-120 points",
        ("--call", "1:1d:x:9"): "expected SEAT:CARD[:BID]",
    }
    for extra, message in cases.items():
        code = main(["referee", "--video", str(video), "--players", "5",
                     "--events-out", str(out), *extra])
        err = capsys.readouterr().err
        assert code == 2 and message in err, (extra, err)
        assert err.count("\n") == 1 and "Traceback" not in err
        assert not out.exists()
    code = main(["referee", "--video", str(video), "--players", "4", "--call", "1:1d"])
    assert code == 2
    assert "--call is for Briscola chiamata (5 players), not 4" in capsys.readouterr().err


def test_a_call_the_video_has_no_hand_for_is_said_on_stderr(capsys, tmp_path):
    from vision.simtable import SimulatedTable

    sim = SimulatedTable(players=5, seed=1, pace="fast", hands=1, size=(640, 360),
                         bumps=False)
    frames = [img for _, img in itertools.islice(sim.frames(), 5)]
    video = tmp_path / "empty.avi"
    write_video(video, frames)
    code = main(["referee", "--video", str(video), "--players", "5", "--json",
                 "--call", "4:1b:90", "--call", "0:3c"])
    out = capsys.readouterr()
    assert code == 0
    (hand,) = json.loads(out.out)["hands"]
    assert (hand["caller"], hand["called"], hand["bid"], hand["tricks"]) == (4, "1b", 90, [])
    assert out.err == ("briscola-table referee: note: 1 --call not used (the video shows "
                       "1 hand): 0:3c\n")
