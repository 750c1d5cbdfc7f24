"""Seat LEDs, buzzer and buttons on the Pi's own GPIO, through gpiozero.

``GpioIndicators`` is a table output: ``show(state)`` sets the pins from a
``TableState``. Single-colour LEDs: the turn LED of the seat to play is on, the
winner LED of the seat that took the last trick is on (in Briscola that seat
also draws first and leads next); at the end of the hand the winner LEDs show
who won it. RGB LEDs mix the same: blue turn, green trick/hand winner (cyan
when both), red the seat of a violation. The buzzer beeps twice on each new
violation. CONFIRM and UNDO also tell a long press (``long_press_ms``, gpiozero's
hold detection): reported as ``confirm_long`` / ``undo_long``, their short press on
release. Without a Pi, ``make_pin_factory`` picks gpiozero's ``MockFactory``.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from .buttons import LONG_BUTTONS
from .config import IndicatorsConfig
from .table_state import OUTCOME_NONE, TableState

_FACTORIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
}


def on_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text().lower()
    except OSError:
        return False


def make_pin_factory(name: str = "auto"):
    """A gpiozero pin factory: ``mock`` off a Pi unless $GPIOZERO_PIN_FACTORY says otherwise."""
    if name == "auto":
        env = os.environ.get("GPIOZERO_PIN_FACTORY", "")
        if env and env != "mock":
            return None  # gpiozero builds the one the environment names
        name = "mock" if env == "mock" or not on_raspberry_pi() else ""
        if not name:
            return None  # on a Pi: gpiozero's own choice (lgpio on Bookworm)
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin
        return MockFactory(pin_class=MockPWMPin)
    module, cls = _FACTORIES[name]
    return getattr(importlib.import_module(module), cls)()


class GpioIndicators:
    """LEDs per seat, a buzzer and buttons; see the module docstring."""

    def __init__(self, config: IndicatorsConfig, *, pin_factory=None,
                 on_button: Callable[[str], None] | None = None) -> None:
        from gpiozero import LED, RGBLED, Button, Buzzer

        self.config = config
        f = pin_factory if pin_factory is not None else make_pin_factory(config.pin_factory)
        self.pin_factory = f
        hi = config.active_high
        self.turn_leds = [LED(p, active_high=hi, pin_factory=f) for p in config.seat_leds]
        self.winner_leds = [LED(p, active_high=hi, pin_factory=f) for p in config.winner_leds]
        self.rgb_leds = [RGBLED(*pins, active_high=hi, pwm=False, pin_factory=f)
                         for pins in config.rgb_leds]
        self.buzzer = Buzzer(config.buzzer, pin_factory=f) if config.buzzer is not None else None
        self.on_button = on_button
        self.buttons = {}
        for name, pin in config.buttons.items():
            b = Button(pin, pull_up=True, bounce_time=config.bounce_ms / 1000 or None,
                       hold_time=config.long_press_ms / 1000, pin_factory=f)
            if name in LONG_BUTTONS:
                b.when_pressed, b.when_held, b.when_released = self._long_capable(name)
            else:
                b.when_pressed = self._pressed(name)
            self.buttons[name] = b
        self._state: TableState | None = None

    def _emit(self, name: str) -> None:
        if self.on_button is not None:
            self.on_button(name)

    def _debounced(self) -> Callable[[], bool]:
        # A lockout on top of the driver's bounce_time: some pin drivers (and the
        # mock) do not filter, and a doubled "undo" would take back two events.
        last = [-1e9]

        def fresh() -> bool:
            now = time.monotonic()
            if now - last[0] < self.config.bounce_ms / 1000:
                return False
            last[0] = now
            return True
        return fresh

    def _pressed(self, name: str) -> Callable[[], None]:
        fresh = self._debounced()

        def fire() -> None:
            if fresh():
                self._emit(name)
        return fire

    def _long_capable(self, name: str) -> tuple[Callable[[], None], ...]:
        """CONFIRM and UNDO: the short press is reported on release (only then is it
        known not to be a long one), the long press once held for ``long_press_ms``;
        never both for one press."""
        fresh = self._debounced()
        press = {"live": False, "held": False}

        def pressed() -> None:
            press["live"], press["held"] = fresh(), False

        def held() -> None:
            if press["live"] and not press["held"]:
                press["held"] = True
                self._emit(f"{name}_long")

        def released() -> None:
            if press["live"] and not press["held"]:
                self._emit(name)
            press["live"] = False
        return pressed, held, released

    def show(self, state: TableState) -> None:
        prev, self._state = self._state, state
        over = state.outcome != OUTCOME_NONE
        winners = set(state.winners) if over else (
            {state.trick_seat} if state.trick_seat is not None else set())
        for seat, led in enumerate(self.turn_leds):
            led.value = int(not over and seat == state.turn)
        for seat, led in enumerate(self.winner_leds):
            led.value = int(seat in winners)
        for seat, led in enumerate(self.rgb_leds):
            red = state.error_kind != 0 and state.error_seat == seat
            led.value = (int(red), int(seat in winners),
                         int(not over and seat == state.turn and not red))
        if self.buzzer is not None and state.error_kind and (
                prev is None or (prev.error_kind, prev.error_seat, prev.error_text) !=
                (state.error_kind, state.error_seat, state.error_text)):
            self.buzzer.beep(on_time=0.08, off_time=0.08, n=2, background=True)

    def close(self) -> None:
        for dev in (*self.turn_leds, *self.winner_leds, *self.rgb_leds, *self.buttons.values()):
            dev.close()
        if self.buzzer is not None:
            self.buzzer.close()
