"""Configuration of the table's indicators: GPIO pin map, serial link, display.

Built by the controller's TOML loader from three sections (all keys optional;
``IndicatorsConfig.from_mapping`` validates and names any bad key)::

    [indicators]
    display = "board"        # none | board (the board's OLED) | i2c (OLED on the Pi) | image
    image_path = "out/table.png"   # image backend: PNG rewritten on every change
    i2c_port = 1             # i2c backend (luma.oled): bus and address of the SSD1306
    i2c_address = 0x3C
    brightness = 128         # 0-255: ring LEDs and OLED contrast

    [gpio]
    pin_factory = "auto"     # auto (mock when not on a Pi, or $GPIOZERO_PIN_FACTORY),
                             # mock, lgpio, rpigpio, pigpio, native
    seat_leds = [17, 27, 22, 23, 24, 25]   # BCM pins: "your turn" LED per seat
                                           # (alias: turn_leds)
    winner_leds = [5, 6, 13, 19, 26, 21]   # "won the last trick" LED per seat (optional)
    rgb_leds = []            # or one [r, g, b] triple per seat instead of the two above
    active_high = true       # LEDs wired pin -> resistor -> LED -> GND
    buzzer = 18              # active buzzer (through a transistor), beeps on violations
    buttons = { confirm = 16, undo = 20, new_hand = 12 }   # to GND, internal pull-ups
                             # (or confirm_button = 16, undo_button = 20, new_hand_button = 12)
    bounce_ms = 50

    [serial]
    port = "auto"            # "auto": the first Pico/Arduino-like USB serial device;
                             # a path such as /dev/serial/by-id/usb-Raspberry_Pi_Pico_...;
                             # "" or absent: no board
    baud = 115200
    ack_timeout_ms = 60
    retries = 6

``[display]`` with ``backend`` (and ``path``) is accepted as an alias of
``indicators.display`` (and ``image_path``); ``backend = "auto"`` means the
board's OLED when a serial port is configured, else none. Everything defaults
to off; ``IndicatorsConfig.recommended()`` is the wiring of ``hardware/WIRING.md``.

Pins are BCM numbers 0-27; each may be used once. 2/3 (I2C) are refused when
the i2c display is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.engine.words import Say

from .protocol import MAX_SEATS

DISPLAYS = ("auto", "none", "board", "i2c", "image")
PIN_FACTORIES = ("auto", "mock", "lgpio", "rpigpio", "pigpio", "native")
BUTTONS = ("confirm", "undo", "new_hand")
BUTTONS_TABLE = Say("must be a table like {example}", example="{ confirm = 16 }")
BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)


class ConfigError(ValueError):
    """A bad indicators/gpio/serial setting; the message (a ``Say``) names the key."""


def _refuse(key: str, problem: Say) -> ConfigError:
    return ConfigError(Say("{key}: {problem}", key=key, problem=problem))


@dataclass(frozen=True)
class IndicatorsConfig:
    display: str = "none"
    image_path: str | None = None
    i2c_port: int = 1
    i2c_address: int = 0x3C
    brightness: int = 128
    pin_factory: str = "auto"
    seat_leds: tuple[int, ...] = ()
    winner_leds: tuple[int, ...] = ()
    rgb_leds: tuple[tuple[int, int, int], ...] = ()
    active_high: bool = True
    buzzer: int | None = None
    buttons: Mapping[str, int] = field(default_factory=dict)
    bounce_ms: int = 50
    long_press_ms: int = 2000  # CONFIRM/UNDO held this long: a long press (GPIO)
    double_press_ms: int = 500  # the board's two presses this close: a long press
    serial_port: str | None = None
    baud: int = 115200
    ack_timeout_ms: int = 60
    retries: int = 6

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def recommended(cls, **changes: Any) -> IndicatorsConfig:
        """The pin map of hardware/WIRING.md: six seats, buzzer, three buttons."""
        base: dict[str, Any] = dict(
            seat_leds=(17, 27, 22, 23, 24, 25), winner_leds=(5, 6, 13, 19, 26, 21),
            buzzer=18, buttons={"confirm": 16, "undo": 20, "new_hand": 12})
        base.update(changes)
        return cls(**base)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> IndicatorsConfig:
        """From a parsed TOML document (its other sections are ignored)."""
        keys = {
            "indicators": {"display": "display", "image_path": "image_path",
                           "i2c_port": "i2c_port", "i2c_address": "i2c_address",
                           "brightness": "brightness"},
            "display": {"backend": "display", "path": "image_path", "i2c_port": "i2c_port",
                        "i2c_address": "i2c_address"},
            "gpio": {"pin_factory": "pin_factory", "seat_leds": "seat_leds",
                     "turn_leds": "seat_leds", "winner_leds": "winner_leds",
                     "rgb_leds": "rgb_leds", "active_high": "active_high", "buzzer": "buzzer",
                     "buttons": "buttons", "confirm_button": "confirm",
                     "undo_button": "undo", "new_hand_button": "new_hand",
                     "bounce_ms": "bounce_ms", "long_press_ms": "long_press_ms"},
            "serial": {"port": "serial_port", "baud": "baud",
                       "double_press_ms": "double_press_ms",
                       "ack_timeout_ms": "ack_timeout_ms", "retries": "retries"},
        }
        kwargs: dict[str, Any] = {}
        buttons: dict[str, Any] = {}
        for section, names in keys.items():
            values = data.get(section, {})
            if not isinstance(values, Mapping):
                raise _refuse(f"[{section}]", Say("must be a table, not {kind}",
                                                  kind=type(values).__name__))
            for key, value in values.items():
                if key not in names:
                    raise _refuse(f"{section}.{key}", Say("unknown key (expected one of "
                                                          "{keys})", keys=", ".join(names)))
                if names[key] in BUTTONS:
                    buttons[names[key]] = value
                elif names[key] in kwargs:
                    raise _refuse(f"{section}.{key}",
                                  Say("set twice (under another name too)"))
                else:
                    kwargs[names[key]] = value
        if buttons:
            if not isinstance(kwargs.get("buttons", {}), Mapping):
                raise _refuse("gpio.buttons", BUTTONS_TABLE)
            kwargs["buttons"] = {**kwargs.get("buttons", {}), **buttons}
        for name in ("seat_leds", "winner_leds"):
            if name in kwargs:
                kwargs[name] = _tuple(kwargs[name], f"gpio.{name}")
        if "rgb_leds" in kwargs:
            kwargs["rgb_leds"] = tuple(_tuple(v, f"gpio.rgb_leds[{i}]") for i, v in
                                       enumerate(_tuple(kwargs["rgb_leds"], "gpio.rgb_leds")))
            if kwargs["rgb_leds"]:  # RGB LEDs replace the single-colour ones
                kwargs.setdefault("seat_leds", ())
                kwargs.setdefault("winner_leds", ())
        if kwargs.get("serial_port") == "":
            kwargs["serial_port"] = None
        if kwargs.get("image_path") == "":
            kwargs["image_path"] = None
        return cls(**kwargs)

    def validate(self) -> None:
        if self.display not in DISPLAYS:
            raise _refuse("indicators.display", Say("{value} is not one of {choices}",
                                                    value=repr(self.display),
                                                    choices=", ".join(DISPLAYS)))
        if self.display == "board" and not self.serial_port:
            raise _refuse("indicators.display", Say("'board' needs serial.port"))
        if self.display == "image" and not self.image_path:
            raise _refuse("indicators.image_path", Say("the image display needs a path"))
        _int(self.brightness, "indicators.brightness", 0, 255)
        _int(self.i2c_port, "indicators.i2c_port", 0, 20)
        _int(self.i2c_address, "indicators.i2c_address", 0x03, 0x77)
        if self.pin_factory not in PIN_FACTORIES:
            raise _refuse("gpio.pin_factory", Say("{value} is not one of {choices}",
                                                  value=repr(self.pin_factory),
                                                  choices=", ".join(PIN_FACTORIES)))
        if not isinstance(self.active_high, bool):
            raise _refuse("gpio.active_high", Say("must be true or false"))
        _int(self.bounce_ms, "gpio.bounce_ms", 0, 1000)
        _int(self.long_press_ms, "gpio.long_press_ms", 100, 10000)
        _int(self.double_press_ms, "serial.double_press_ms", 100, 2000)
        used: dict[int, str] = {}
        if self.display == "i2c":
            used.update({2: "I2C SDA", 3: "I2C SCL"})

        def claim(pin: Any, key: str) -> None:
            _int(pin, key, 0, 27, what=Say("a BCM GPIO pin"))
            if pin in used:
                raise _refuse(key, Say("pin {pin} is already used by {other}", pin=pin,
                                       other=used[pin]))
            used[pin] = key

        if self.rgb_leds and (self.seat_leds or self.winner_leds):
            raise _refuse("gpio.rgb_leds", Say("use either rgb_leds or seat_leds/winner_leds"))
        for name in ("seat_leds", "winner_leds", "rgb_leds"):
            pins = getattr(self, name)
            if len(pins) > MAX_SEATS:
                raise _refuse(f"gpio.{name}", Say("{n} seats, at most {most}", n=len(pins),
                                                  most=MAX_SEATS))
        if self.winner_leds and len(self.winner_leds) != len(self.seat_leds):
            raise _refuse("gpio.winner_leds", Say("needs one pin per seat, like "
                                                  "gpio.seat_leds"))
        for i, pin in enumerate(self.seat_leds):
            claim(pin, f"gpio.seat_leds[{i}]")
        for i, pin in enumerate(self.winner_leds):
            claim(pin, f"gpio.winner_leds[{i}]")
        for i, rgb in enumerate(self.rgb_leds):
            if len(rgb) != 3:
                raise _refuse(f"gpio.rgb_leds[{i}]", Say("needs three pins [r, g, b]"))
            for c, pin in zip("rgb", rgb, strict=True):
                claim(pin, f"gpio.rgb_leds[{i}].{c}")
        if self.buzzer is not None:
            claim(self.buzzer, "gpio.buzzer")
        if not isinstance(self.buttons, Mapping):
            raise _refuse("gpio.buttons", BUTTONS_TABLE)
        for name, pin in self.buttons.items():
            if name not in BUTTONS:
                raise _refuse(f"gpio.buttons.{name}", Say("unknown button (expected {names})",
                                                          names=", ".join(BUTTONS)))
            claim(pin, f"gpio.buttons.{name}")
        if self.serial_port is not None and not isinstance(self.serial_port, str):
            raise _refuse("serial.port", Say("must be a device path"))
        if self.baud not in BAUDS:
            raise _refuse("serial.baud", Say("{value} is not one of {choices}",
                                             value=repr(self.baud),
                                             choices=", ".join(map(str, BAUDS))))
        _int(self.ack_timeout_ms, "serial.ack_timeout_ms", 5, 5000)
        _int(self.retries, "serial.retries", 1, 50)

    @property
    def display_backend(self) -> str:
        """The display to use, with "auto" resolved."""
        if self.display == "auto":
            return "board" if self.serial_port else "none"
        return self.display

    @property
    def seats(self) -> int:
        return len(self.rgb_leds) or len(self.seat_leds)


def _int(value: Any, key: str, lo: int, hi: int, what: str | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _refuse(key, Say("{value} is not {what} in {lo}-{hi}", value=repr(value),
                               what=what or Say("a number"), lo=lo, hi=hi))


def _tuple(value: Any, key: str) -> tuple:
    if not isinstance(value, list | tuple):
        raise _refuse(key, Say("must be a list, not {kind}", kind=type(value).__name__))
    return tuple(value)
