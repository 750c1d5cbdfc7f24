"""The bridge's subcommands of ``briscola-table``."""

from __future__ import annotations

from firmware_bridge.display import read_png
from table_controller.cli import build_parser, main


def test_subcommands_are_registered():
    help_text = build_parser().format_help()
    for name in ("emulator", "display-test", "indicators-demo"):
        assert name in help_text


def test_display_test_writes_the_layouts(tmp_path, capsys):
    assert main(["display-test", "--out", str(tmp_path), "--scale", "2"]) == 0
    pngs = sorted(tmp_path.glob("*.png"))
    assert [p.stem for p in pngs] == ["idle", "result", "text", "turn", "violation"]
    assert read_png(pngs[0]).shape == (128, 256)


def test_indicators_demo_plays_a_hand_without_hardware(tmp_path, capsys):
    png = tmp_path / "table.png"
    assert main(["indicators-demo", "--no-emulator", "--delay", "0", "--image", str(png)]) == 0
    out = capsys.readouterr().out
    assert "REFUSED out_of_turn" in out and "REFUSED duplicate_card" in out
    assert "hand over:" in out
    assert read_png(png).shape == (64, 128)
