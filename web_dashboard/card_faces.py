"""Card faces for the pages: drawn here in SVG, or images of an enrolled deck.

Decks: ``builtin`` (Italian suits, drawn here), ``french`` (the same cards with
French suits and J/Q/K), ``printed`` (the vision package's procedural deck,
when it is installed) and ``enrolled:NAME`` (photos in ``DECKS_DIR/NAME/<code>.png``
or ``.jpg``, e.g. the faces captured when a deck was enrolled). Faces are drawn
big and simple: they are read at arm's length on a phone.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from table_controller.engine.cards import Card

SUIT_COLOURS = {"d": "#c8900e", "c": "#c62828", "s": "#1f4e9c", "b": "#2e7d32"}
FRENCH_COLOURS = {"d": "#c62828", "c": "#c62828", "s": "#1b1b1b", "b": "#1b1b1b"}
ITALIAN_LABELS = {1: "A", 8: "F", 9: "C", 10: "R"}
FRENCH_LABELS = {1: "A", 8: "J", 9: "Q", 10: "K"}
_DECK_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# Suit symbols in a 100x100 box centred on (50, 50).
_ITALIAN_SUITS = {
    # denari: a coin with a rim and a rosette
    "d": ('<circle cx="50" cy="50" r="44" fill="{c}"/>'
          '<circle cx="50" cy="50" r="34" fill="none" stroke="#fff6d8" stroke-width="5"/>'
          '<circle cx="50" cy="50" r="12" fill="#fff6d8"/>'),
    # coppe: a chalice
    "c": ('<path d="M14 10 H86 C86 46 68 60 56 62 V78 C66 80 76 84 78 92 H22 C24 84 34 80 44 78'
          ' V62 C32 60 14 46 14 10 Z" fill="{c}"/>'
          '<path d="M24 18 H76" stroke="#ffd9d2" stroke-width="5" stroke-linecap="round"/>'),
    # spade: a sword, point down
    "s": ('<path d="M44 26 H56 V80 L50 96 L44 80 Z" fill="{c}"/>'
          '<rect x="24" y="20" width="52" height="9" rx="4" fill="{c}"/>'
          '<rect x="45" y="4" width="10" height="17" rx="3" fill="{c}"/>'
          '<circle cx="50" cy="5" r="6" fill="{c}"/>'),
    # bastoni: a knotted club
    "b": ('<path d="M38 94 L30 30 C28 14 40 4 52 4 C66 4 74 16 70 30 L60 94 Z" fill="{c}"/>'
          '<circle cx="34" cy="46" r="6" fill="{c}"/><circle cx="66" cy="40" r="6" fill="{c}"/>'
          '<circle cx="37" cy="70" r="5" fill="{c}"/><circle cx="62" cy="66" r="5" fill="{c}"/>'
          '<path d="M40 22 C44 16 54 14 60 18" stroke="#cdebc9" stroke-width="4" fill="none"'
          ' stroke-linecap="round"/>'),
}
_FRENCH_SUITS = {
    "d": '<path d="M50 4 L88 50 L50 96 L12 50 Z" fill="{c}"/>',
    "c": ('<path d="M50 92 L12 52 C-2 36 8 10 30 10 C40 10 46 16 50 24 C54 16 60 10 70 10'
          ' C92 10 102 36 88 52 Z" fill="{c}"/>'),
    "s": ('<path d="M50 6 L88 50 C100 66 86 86 68 80 C62 78 56 74 54 70 L60 94 H40 L46 70'
          ' C44 74 38 78 32 80 C14 86 0 66 12 50 Z" fill="{c}"/>'),
    "b": ('<circle cx="50" cy="28" r="20" fill="{c}"/><circle cx="28" cy="60" r="20" fill="{c}"/>'
          '<circle cx="72" cy="60" r="20" fill="{c}"/><path d="M46 50 H54 L60 94 H40 Z"'
          ' fill="{c}"/>'),
}


@functools.lru_cache(maxsize=128)
def card_svg(code: str, french: bool = False) -> str:
    """One face as a standalone SVG document (100x150 units)."""
    card = Card.parse(code)
    suit = card.suit.value
    colour = (FRENCH_COLOURS if french else SUIT_COLOURS)[suit]
    shape = (_FRENCH_SUITS if french else _ITALIAN_SUITS)[suit].format(c=colour)
    label = (FRENCH_LABELS if french else ITALIAN_LABELS).get(card.rank, str(card.rank))
    figure = card.rank >= 8
    size = 46 if len(label) == 1 else 40
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 150" role="img">',
        f'<title>{card.name("it")}</title>',
        '<rect x="1.5" y="1.5" width="97" height="147" rx="9" fill="#fffdf6" '
        f'stroke="{colour}" stroke-width="3"/>',
    ]
    if figure:  # a coloured band marks the figures, as the printed decks' frames do
        parts.append(f'<rect x="8" y="8" width="84" height="134" rx="6" fill="{colour}" '
                     'fill-opacity="0.12"/>')
    parts.append(f'<text x="50" y="{44 if len(label) == 1 else 42}" text-anchor="middle" '
                 f'font-family="DejaVu Sans, Arial, sans-serif" font-weight="700" '
                 f'font-size="{size}" fill="{colour}">{label}</text>')
    parts.append(f'<g transform="translate(18 58) scale(0.64)">{shape}</g>')
    if card.points:  # a small mark on the cards that carry points
        parts.append(f'<circle cx="86" cy="14" r="5" fill="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def back_svg() -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 150">'
            '<rect x="1.5" y="1.5" width="97" height="147" rx="9" fill="#7b1e1e" '
            'stroke="#3d0d0d" stroke-width="3"/>'
            '<rect x="10" y="10" width="80" height="130" rx="5" fill="none" stroke="#e8c36a" '
            'stroke-width="2" stroke-dasharray="4 3"/>'
            '<circle cx="50" cy="75" r="18" fill="none" stroke="#e8c36a" stroke-width="3"/>'
            '</svg>')


@functools.lru_cache(maxsize=48)
def printed_png(code: str) -> bytes | None:
    """The vision package's built-in printed deck (style 0) as PNG; None if unavailable."""
    try:
        import cv2

        from vision.deck_art import DeckStyle, render_card
    except ImportError:
        return None
    image = render_card(DeckStyle.from_seed(0), Card.parse(code))
    ok, buf = cv2.imencode(".png", image)
    return buf.tobytes() if ok else None


def printed_available() -> bool:
    try:
        import vision.deck_art  # noqa: F401
    except ImportError:
        return False
    return True


def enrolled_decks(decks_dir: str | Path | None) -> list[str]:
    """Names of the enrolled decks that have image files."""
    if not decks_dir or not Path(decks_dir).is_dir():
        return []
    return sorted(p.name for p in Path(decks_dir).iterdir()
                  if p.is_dir() and _DECK_NAME.match(p.name)
                  and (any(p.glob("*.png")) or any(p.glob("*.jpg"))))


def enrolled_face(decks_dir: str | Path | None, deck: str, code: str) -> Path | None:
    """The image file for ``code`` in enrolled deck ``deck``, if there is one."""
    if not decks_dir or not _DECK_NAME.match(deck):
        return None
    card = str(Card.parse(code))  # canonical code: no path tricks
    for ext in ("png", "jpg", "jpeg", "webp"):
        path = Path(decks_dir) / deck / f"{card}.{ext}"
        if path.is_file():
            return path
    return None


__all__ = ["card_svg", "back_svg", "printed_png", "printed_available", "enrolled_decks",
           "enrolled_face"]
