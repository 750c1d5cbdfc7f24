"""Simulated hands fed through a table session: for demos, tests and the benchmark.

``briscola-table dashboard --demo 1.5`` plays bots' hands at the given pace so the
dashboard can be shown (and looked at) without a camera.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import SimulatedHand, play_hand


def simulated_hand(referee: Referee, rng: random.Random) -> SimulatedHand:
    """Bots' play of the referee's next hand (same players, variants and dealer)."""
    rules = referee.hand.rules if referee.hand else referee.defaults
    return play_hand(HandRules.of(rules.players, rules.variants, rules.removed),
                     referee.next_dealer(), rng, style="sensible")


def hand_events(sim: SimulatedHand) -> Iterator[dict[str, Any]]:
    """The hand's events as the tracker would send them (JSON objects)."""
    for event in sim.events:
        yield event.to_json()


def run_demo(session, delay: float = 1.5, seed: int | None = None,
             stop: threading.Event | None = None) -> threading.Thread:
    """Play hand after hand through ``session`` in a background thread."""
    stop = stop or threading.Event()
    rng = random.Random(seed)

    def loop() -> None:
        while not stop.is_set():
            if session.referee is None or session.referee.standing().over:
                session.start_match(2, ["Giulia", "Marco"], (), 3)
            sim = simulated_hand(session.referee, rng)
            for obj in hand_events(sim):
                if stop.wait(delay):
                    return
                session.feed(obj)
            stop.wait(delay * 6)  # time to enjoy the reveal

    thread = threading.Thread(target=loop, name="briscola-demo", daemon=True)
    thread.start()
    return thread


__all__ = ["simulated_hand", "hand_events", "run_demo"]
