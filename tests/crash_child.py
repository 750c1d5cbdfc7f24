"""A controller process for the crash test: a simulated hand seen by a perfect observer,
stored in SQLite, resumed from the store when restarted. Not a test module itself.

    python tests/crash_child.py DB SEED START_FRAME PROGRESS_FILE [DELAY_S]
"""

import json
import os
import sys
import time

from table_controller.controller import Controller
from table_controller.store import Store
from vision.observer import seat_zones_for
from vision.simtable import SimulatedTable
from vision.tracker import Tracker


def main() -> int:
    db, seed, start, progress = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    delay = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    store = Store(db)
    resumed = store.resume()
    if resumed is None:
        info = store.new_match(players=2, variants=("swap7",), length=1, first_dealer=1)
        referee = info.referee()
    else:
        referee, info = resumed
    controller = Controller(referee, store=store, match_id=info.id)
    tracker = Tracker(seat_zones_for(2), lambda: controller.referee.hand)
    controller.tracker = tracker
    if referee.hand is None:
        controller.submit({"type": "hand", "players": 2, "dealer": 1})
    else:
        tracker.prime()
    sim = SimulatedTable(players=2, variants=("swap7",), seed=seed, pace="fast", hands=1,
                         first_dealer=1, faults=("taken_back", "out_of_turn"))
    fd = os.open(progress, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    for spec in sim.script():
        if spec.index < start:
            continue
        for event in tracker.update(sim.truth_observation(spec)):
            controller.submit(event)
        os.pwrite(fd, f"{spec.index:10d}\n".encode(), 0)
        if delay:
            time.sleep(delay)
    hand = controller.referee.hand
    print(json.dumps({"points": hand.points, "over": hand.is_over(),
                      "winners": [t.winner for t in hand.tricks]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
