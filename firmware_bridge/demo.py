"""A hand of Briscola shown on the table's indicators, without any hardware.

Drives the real referee with a scripted hand (a couple of mistakes included)
and fans each decision out through ``Indicators``: GPIO LEDs (gpiozero's mock
pins off a Pi, the real ones on a Pi; printed either way),
the firmware emulator's OLED and ring over a pty, and a PNG of the screen.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def scripted_hand(players: int = 2, seed: int = 1,
                  mistakes: dict[int, str] | None = None) -> Iterator[dict[str, Any]]:
    """Events of a legal hand (with mistakes before the given play numbers); the
    turn comes from ``send`` (the referee's decision), so use ``.send(turn)``."""
    from table_controller.engine.cards import deck_for

    mistakes = {3: "out_of_turn", 7: "duplicate_card"} if mistakes is None else mistakes
    rng = random.Random(seed)
    deck = list(deck_for(players))
    rng.shuffle(deck)
    face_up = deck.pop()
    yield {"type": "hand", "players": players, "dealer": players - 1}
    taker = yield {"type": "trump", "card": str(face_up)}
    pool, played, turn = deck + [face_up], [], 0
    while pool:
        card = face_up if face_up in pool and taker == turn else next(
            c for c in pool if c is not face_up)
        kind = mistakes.get(len(played))
        if kind == "out_of_turn":
            yield {"type": "play", "seat": (turn + 1) % players, "card": str(card)}
        elif kind == "duplicate_card" and played:
            yield {"type": "play", "seat": turn, "card": str(played[-1])}
        reply = yield {"type": "play", "seat": turn, "card": str(card)}
        pool.remove(card)
        played.append(card)
        turn, taker = reply


def run_demo(players: int = 2, delay: float = 0.3, image: Path | None = None,
             emulator: bool = True, out=print) -> int:
    from table_controller.engine.referee import Referee

    from .config import IndicatorsConfig
    from .display import ImageDisplay
    from .gpio import GpioIndicators, make_pin_factory
    from .indicators import Indicators
    from .screen import player_labels, seat_label

    factory = make_pin_factory("auto")  # gpiozero's mock off a Pi, the real pins on one
    config = IndicatorsConfig.recommended()
    extra = [ImageDisplay(image)] if image else []
    emu = None
    if emulator:
        from .emulator import Emulator, compiler
        if compiler() is None:
            out("(no gcc: running without the firmware emulator)")
        else:
            emu = Emulator().start()
            config = IndicatorsConfig.recommended(serial_port=emu.port, display="board")
    ind = Indicators.from_config(config, pin_factory=factory, extra=extra)
    ind.on_button(lambda name: out(f"  button: {name}"))
    gpio = next(o for o in ind.outputs if isinstance(o, GpioIndicators))
    ref = Referee(players=players)
    script = scripted_hand(players)
    try:
        event = next(script)
        while True:
            decision = ref.feed_json(event)
            ind.apply(decision, ref.hand)
            leds = "".join("T" if led.value else "." for led in gpio.turn_leds[:players])
            wins = "".join("W" if led.value else "." for led in gpio.winner_leds[:players])
            what = (f"REFUSED {decision.violation.kind}: "
                    f"{player_labels(decision.violation.message)}"
                    if not decision.accepted else
                    f"trick to P{decision.trick_winner + 1}" if decision.trick_winner is not None
                    else "ok")
            seat = seat_label(event["seat"]) if "seat" in event else ""
            out(f"{event.get('type'):5} {seat:>2} {event.get('card', ''):>4}"
                f"  turn[{leds}] won[{wins}]  {what}")
            if ind.link is not None:
                ind.link.wait_synced(1.0)
            time.sleep(delay)
            try:
                if event["type"] == "hand" or not decision.accepted:
                    event = next(script)
                else:
                    hand = ref.hand
                    event = script.send((decision.turn if decision.turn is not None else 0,
                                         hand.briscola_taker))
            except StopIteration:
                break
        result = ref.hand.outcome()
        points = ", ".join(f"{seat_label(s)} {p}" for s, p in enumerate(result.points))
        who = " and ".join(seat_label(s) for s in result.winners)
        out(f"hand over: {points}; " + (f"{who} win{'s' * (len(result.winners) == 1)}"
                                        if result.winners else "a tie"))
        if emu is not None:
            stats = ", ".join(f"{k.replace('_', ' ')} {v}"
                              for k, v in ind.link.stats.as_dict().items() if v)
            out(f"board state digest {emu.state()['digest']}; link: {stats or 'quiet'}")
    finally:
        ind.close()
        if emu is not None:
            emu.close()
    return 0
