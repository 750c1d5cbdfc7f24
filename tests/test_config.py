from pathlib import Path

import pytest

from table_controller.config import Config, ConfigError, config_from_dict, load_config
from table_controller.rules import Direction, Variant

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "table.toml"


def test_example_config_loads():
    cfg = load_config(EXAMPLE)
    assert cfg.table.players == 2 and cfg.table.names == ("Tu", "Ada")
    assert cfg.table.variants == {Variant.SWAP7} and cfg.table.match == 3
    assert cfg.table.first_dealer is None and cfg.table.direction is Direction.COUNTERCLOCKWISE
    assert cfg.camera.source == 0 and cfg.gpio.turn_leds == (17, 27)
    assert cfg.serial.baud == 115200 and cfg.dashboard.port == 8000


def test_empty_config_is_all_defaults():
    cfg = config_from_dict({})
    default = Config()
    assert (cfg.table, cfg.camera, cfg.serial, cfg.dashboard, cfg.database) == (
        default.table, default.camera, default.serial, default.dashboard, default.database)
    assert cfg.gpio.turn_leds == (17, 27)  # one LED per seat
    assert load_config(None) == default


@pytest.mark.parametrize("data,where", [
    ({"table": {"players": 7}}, "[table] players"),
    ({"table": {"players": "2"}}, "[table] players"),
    ({"table": {"players": True}}, "[table] players"),
    ({"table": {"players": 3, "names": ["a", "b"]}}, "[table] names"),
    ({"table": {"direction": "up"}}, "[table] direction"),
    ({"table": {"variants": ["swap9"]}}, "[table] variants"),
    ({"table": {"players": 5, "variants": ["swap7"]}}, "[table] variants"),
    ({"table": {"match": 2}}, "[table] match"),
    ({"table": {"first_dealer": 4}}, "[table] first_dealer"),
    ({"table": {"playrs": 2}}, "[table] playrs"),
    ({"camera": {"fps": 0}}, "[camera] fps"),
    ({"camera": {"source": -1}}, "[camera] source"),
    ({"gpio": {"turn_leds": [17]}}, "[gpio] turn_leds"),
    ({"gpio": {"buzzer": 40}}, "[gpio] buzzer"),
    ({"gpio": {"buzzer": 17}}, "pin 17 is used twice"),
    ({"gpio": {"pin_factory": "magic"}}, "[gpio] pin_factory"),
    ({"serial": {"baud": 1234}}, "[serial] baud"),
    ({"display": {"backend": "crt"}}, "[display] backend"),
    ({"dashboard": {"pin": "12"}}, "[dashboard] pin"),
    ({"dashboard": {"pin": 1234}}, "[dashboard] pin"),
    ({"mat": {"size": "A4"}}, "[mat] size"),
    ({"camera": 3}, "[camera]"),
    ({"cameras": {}}, "unknown section [cameras]"),
])
def test_bad_values_name_the_key(data, where):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data, "table.toml")
    assert where in str(info.value) and str(info.value).startswith("table.toml")


def test_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="no such"):
        load_config(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nplayers=2")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
