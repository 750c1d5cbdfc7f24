"""The phone dashboard: a Flask app following the table.

``from web_dashboard import create_app`` works as usual; Flask itself is only
imported then, so that ``briscola-table`` commands that do not serve the
dashboard start fast on a Pi.
"""

from __future__ import annotations

from typing import Any

_APP_NAMES = ("create_app", "hub_of", "store_of")


def __getattr__(name: str) -> Any:
    if name in _APP_NAMES:
        from web_dashboard import app
        return getattr(app, name)
    raise AttributeError(f"module 'web_dashboard' has no attribute {name!r}")


__all__ = list(_APP_NAMES)
