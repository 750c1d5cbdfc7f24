"""The table's SQLite store: every event with its verdict, kept through crashes
and power cuts. It stands on the engine only, so the dashboard (which reads it)
and the controller (which writes it) both stand on it without importing each
other."""

from table_controller.store.database import (
    SCHEMA_VERSION,
    EventRow,
    HandRow,
    MatchInfo,
    Store,
    StoreDamaged,
    StoreError,
    hand_is_over,
    open_store,
    set_aside,
)

__all__ = ["Store", "StoreError", "StoreDamaged", "MatchInfo", "HandRow", "EventRow",
           "SCHEMA_VERSION", "open_store", "set_aside", "hand_is_over"]
