"""``briscola-table referee --video``: the offline referee on recordings."""

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
