"""The facade with everything configured: mock GPIO, the emulated board over a pty, a PNG."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.config import IndicatorsConfig
from firmware_bridge.demo import scripted_hand
from firmware_bridge.display import read_png
from firmware_bridge.emulator import Emulator, build, compiler
from firmware_bridge.indicators import Indicators
from firmware_bridge.screen import render
from table_controller.engine.referee import Referee

pytestmark = pytest.mark.skipif(compiler() is None, reason="gcc not installed: cannot build "
                                "the firmware emulator")


def wait(cond, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_a_hand_on_every_output_and_a_cable_pulled_mid_hand(tmp_path):
    factory = MockFactory(pin_class=MockPWMPin)
    png = tmp_path / "table.png"
    with Emulator(binary=build(sanitize=True)) as emu:
        config = IndicatorsConfig.recommended(serial_port=emu.port, display="image",
                                              image_path=str(png), bounce_ms=0)
        with Indicators.from_config(config, pin_factory=factory) as ind:
            pressed = []
            ind.on_button(pressed.append)
            ref = Referee(players=2)
            script = scripted_hand(2, seed=9)
            event, tricks = next(script), 0
            while True:
                decision = ref.feed_json(event)
                ind.apply(decision, ref.hand)
                if decision.trick_winner is not None:
                    tricks += 1
                    if tricks % 4 == 0:  # every 4th trick the board must be showing it
                        assert ind.link.wait_synced(5)
                        assert emu.table() == ind.state
                        assert (emu.framebuffer() == render(ind.state)).all() or wait(
                            lambda: (emu.framebuffer() == render(ind.state)).all())
                        assert (read_png(png) == render(ind.state)).all()
                    if tricks == 6:  # the cable comes out; play goes on; it comes back
                        emu.power_cycle(off_seconds=0.3)
                try:
                    if event["type"] == "hand" or not decision.accepted:
                        event = next(script)
                    else:
                        event = script.send((decision.turn or 0, ref.hand.briscola_taker))
                except StopIteration:
                    break
            assert ind.link.wait_synced(5)
            assert emu.table() == ind.state and ind.state.outcome != 0
            assert ind.link.stats.board_reboots == 1
            import json
            status = json.loads(json.dumps(ind.status()))
            assert status["link"]["connected"] and status["link"]["board"]["seats"] == 6
            assert status["state"]["outcome"] == ind.state.outcome
            assert "GpioIndicators" in status["outputs"]
            # buttons: from the board and from the Pi's GPIO, one stream
            emu.press(0)
            undo = factory.pin(config.buttons["undo"])
            undo.drive_low()
            undo.drive_high()  # a short press, told from a long one on release
            assert wait(lambda: sorted(pressed) == ["confirm", "undo"]), pressed
            # The board reports presses only: its double press is the long press.
            emu.press(1)
            emu.press(1)
            assert wait(lambda: pressed[2:] == ["undo_long"]), pressed
    assert emu.exit_codes == [0, 0]
