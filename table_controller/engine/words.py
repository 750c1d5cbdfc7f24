"""A text a person reads, in no language yet.

The floors below the pages and the commands (the engine, vision, the store, the
configuration) know no language: what they say to a person is a :class:`Say`, a ``str``
whose value is the English text (so it prints, compares and goes into JSON as before)
and which carries its catalog msgid (``web_dashboard/translations``), its context, its
plural and its values. The page or the command that shows it says it in its reader's
language (``web_dashboard.i18n.said``). A value may itself be a :class:`Say` (said in the
same language), a :class:`~table_controller.engine.cards.Card` (named in it) or a
:class:`Seat` (the referee's 0-based seat in English, its JSON contract; a person reads
P1..Pn: :meth:`Say.for_people`, and ``said`` in any language).

They are made in :mod:`table_controller.engine.say`, which imports nothing from the engine
but its seats, so that ``cards.py`` (which imports it) can
say what it refuses; a card in a ``Say`` reads by its English name (``cards.py`` says how).

``Say``, ``say_in`` and ``say_n`` are pybabel keywords (babel.cfg): their msgids are
extracted into the catalogs.
"""

from __future__ import annotations

from table_controller.engine.say import Say, Seat, say_in, say_n

__all__ = ["Say", "Seat", "say_in", "say_n"]
