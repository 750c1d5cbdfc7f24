"""The referee engine: Briscola's rules as pure values and one state object.

This is the ground floor of the project. It imports nothing but the standard
library and itself and does no I/O, so every other part (vision,
the board, the dashboard, the store, the controller) stands on it and none of
them is needed to referee a game::

    from table_controller.engine import Card, HandStart, Play, Referee

    referee = Referee()
    referee.feed(HandStart(players=2, dealer=1))
"""

from table_controller.engine.cards import Card, CardError, Suit, deck_for, parse_cards
from table_controller.engine.events import (
    COLLECT,
    UNDO,
    Call,
    Collect,
    Correct,
    Event,
    EventError,
    HandStart,
    IllegalEvent,
    Play,
    Swap,
    Trump,
    Undo,
    ViolationKind,
    event_from_json,
    event_to_json,
    parse_token,
)
from table_controller.engine.hand import Hand, Outcome, Reason, Trick
from table_controller.engine.record import (
    Record,
    RecordError,
    dumps,
    match_records,
    parse_records,
    replay_match,
)
from table_controller.engine.referee import (
    MATCH_LENGTHS,
    Decision,
    MatchStanding,
    Note,
    NoteKind,
    Referee,
    Violation,
)
from table_controller.engine.report import hand_report, match_report, text_report
from table_controller.engine.rules import Direction, HandRules, Variant, parse_variants
from table_controller.engine.seats import player_labels, seat_label

__all__ = [
    "Card", "CardError", "Suit", "deck_for", "parse_cards",
    "Event", "HandStart", "Trump", "Play", "Collect", "Swap", "Call", "Undo", "Correct",
    "COLLECT", "UNDO", "IllegalEvent", "EventError", "ViolationKind",
    "event_from_json", "event_to_json", "parse_token",
    "Hand", "Outcome", "Reason", "Trick",
    "Record", "RecordError", "dumps", "match_records", "parse_records", "replay_match",
    "Referee", "Decision", "Violation", "Note", "NoteKind", "MatchStanding", "MATCH_LENGTHS",
    "hand_report", "match_report", "text_report",
    "Direction", "HandRules", "Variant", "parse_variants",
    "player_labels", "seat_label",
]
