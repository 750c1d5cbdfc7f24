"""The indicators configuration: TOML sections, aliases, and errors that name the key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from firmware_bridge.config import ConfigError, IndicatorsConfig
from firmware_bridge.gpio import make_pin_factory

ROOT = Path(__file__).resolve().parents[1]


def test_documented_example_parses():
    doc = tomllib.loads('''
[indicators]
display = "image"
image_path = "out/table.png"
brightness = 90
[gpio]
pin_factory = "mock"
seat_leds = [17, 27, 22, 23]
winner_leds = [5, 6, 13, 19]
buzzer = 18
buttons = { confirm = 16, undo = 20, new_hand = 12 }
[serial]
port = "/dev/ttyACM0"
baud = 115200
''')
    c = IndicatorsConfig.from_mapping(doc)
    assert c.seat_leds == (17, 27, 22, 23) and c.winner_leds == (5, 6, 13, 19)
    assert c.buttons == {"confirm": 16, "undo": 20, "new_hand": 12}
    assert c.serial_port == "/dev/ttyACM0" and c.display_backend == "image"
    assert c.brightness == 90 and c.seats == 4


@pytest.mark.skipif(not (ROOT / "examples" / "table.toml").exists(), reason="no example")
def test_the_project_example_table_toml_is_accepted():
    with open(ROOT / "examples" / "table.toml", "rb") as f:
        c = IndicatorsConfig.from_mapping(tomllib.load(f))
    assert c.seat_leds and c.display_backend in ("board", "none")


def test_recommended_map_is_valid_and_has_no_shared_pins():
    c = IndicatorsConfig.recommended()
    pins = [*c.seat_leds, *c.winner_leds, c.buzzer, *c.buttons.values()]
    assert len(pins) == len(set(pins)) == 16 and c.seats == 6


def test_rgb_leds_replace_single_leds():
    c = IndicatorsConfig.from_mapping({"gpio": {"rgb_leds": [[4, 5, 6], [7, 8, 9]]}})
    assert c.rgb_leds == ((4, 5, 6), (7, 8, 9)) and c.seats == 2


@pytest.mark.parametrize("doc,key", [
    ({"gpio": {"seat_ledz": [1]}}, "gpio.seat_ledz"),
    ({"gpio": {"seat_leds": [17, 40]}}, r"gpio.seat_leds\[1\]"),
    ({"gpio": {"seat_leds": [17], "buzzer": 17}}, "gpio.buzzer"),
    ({"gpio": {"seat_leds": [17, 18], "winner_leds": [5]}}, "gpio.winner_leds"),
    ({"gpio": {"buttons": {"pause": 4}}}, "gpio.buttons.pause"),
    ({"gpio": {"buttons": {"confirm": "x"}}}, "gpio.buttons.confirm"),
    ({"gpio": {"rgb_leds": [[1, 2]]}}, r"gpio.rgb_leds\[0\]"),
    ({"gpio": {"pin_factory": "wiringpi"}}, "gpio.pin_factory"),
    ({"gpio": {"seat_leds": 17}}, "gpio.seat_leds"),
    ({"gpio": {"seat_leds": [17], "turn_leds": [18]}}, "gpio.turn_leds"),
    ({"indicators": {"display": "tv"}}, "indicators.display"),
    ({"indicators": {"display": "board"}}, "indicators.display"),
    ({"indicators": {"display": "image"}}, "indicators.image_path"),
    ({"indicators": {"display": "i2c"}, "gpio": {"buzzer": 3}}, "gpio.buzzer"),
    ({"indicators": {"brightness": 300}}, "indicators.brightness"),
    ({"serial": {"baud": 12345}}, "serial.baud"),
    ({"serial": {"retries": 0}}, "serial.retries"),
    ({"serial": "ttyACM0"}, r"\[serial\]"),
])
def test_bad_settings_name_the_key(doc, key):
    with pytest.raises(ConfigError, match=key):
        IndicatorsConfig.from_mapping(doc)


def test_pin_factory_is_mock_off_a_pi(monkeypatch):
    from gpiozero.pins.mock import MockFactory
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    assert isinstance(make_pin_factory("mock"), MockFactory)
    monkeypatch.setattr("firmware_bridge.gpio.on_raspberry_pi", lambda: False)
    assert isinstance(make_pin_factory("auto"), MockFactory)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert isinstance(make_pin_factory("auto"), MockFactory)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    assert make_pin_factory("auto") is None  # gpiozero builds the one the variable names
