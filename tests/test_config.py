from pathlib import Path

import pytest

from table_controller.config import Config, ConfigError, config_from_dict, load_config
from table_controller.engine.rules import Direction, Variant

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "table.toml"


def test_example_config_loads():
    cfg = load_config(EXAMPLE)
    assert cfg.table.players == 2 and cfg.table.names == ("Tu", "Ada")
    assert cfg.table.variants == {Variant.SWAP7} and cfg.table.match == 3
    assert cfg.table.first_dealer is None and cfg.table.direction is Direction.COUNTERCLOCKWISE
    assert cfg.camera.source == 0 and cfg.indicators.seat_leds == (17, 27)
    assert cfg.indicators.baud == 115200 and cfg.indicators.display_backend == "board"
    assert cfg.indicators.buttons == {"confirm": 16, "undo": 20, "new_hand": 12}
    assert cfg.dashboard.port == 8000


def test_empty_config_is_all_defaults():
    cfg = config_from_dict({})
    default = Config()
    assert (cfg.table, cfg.camera, cfg.indicators, cfg.dashboard, cfg.database) == (
        default.table, default.camera, default.indicators, default.dashboard, default.database)
    assert cfg.indicators.seats == 0  # nothing wired unless configured
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
    ({"gpio": {"seat_leds": [17]}}, "gpio.seat_leds"),
    ({"gpio": {"buzzer": 40}}, "gpio.buzzer"),
    ({"gpio": {"seat_leds": [17, 27], "buzzer": 17}}, "pin 17"),
    ({"gpio": {"pin_factory": "magic"}}, "gpio.pin_factory"),
    ({"gpio": {"leds": [1]}}, "gpio.leds"),
    ({"serial": {"baud": 1234}}, "serial.baud"),
    ({"display": {"backend": "crt"}}, "indicators.display"),
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
