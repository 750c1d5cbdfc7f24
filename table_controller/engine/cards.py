"""Cards, suits, ranks and decks of Briscola.

Card codes are the project's contract: ``<rank><suit>`` with rank 1-10
(1 Asso, 2-7, 8 Fante, 9 Cavallo, 10 Re) and suit ``d`` denari, ``c`` coppe,
``s`` spade, ``b`` bastoni. ``Card.parse("10s")`` and ``str(card)`` round-trip.

Every card is interned: ``Card.parse("3c") is Card.parse("3c")``, so the
referee compares cards by identity and looks them up by ``card.index``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from table_controller.engine.say import Say, english_as, say_n


def short_repr(value: object, limit: int = 24) -> str:
    """A value as a message shows it: its repr, cut (a bad card code may be anything)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an integer over 4,300 digits, deep lists
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


class CardError(ValueError):
    """A card code or deck description that is not valid."""


class Suit(enum.Enum):
    DENARI = "d"
    COPPE = "c"
    SPADE = "s"
    BASTONI = "b"

    @property
    def french(self) -> str:
        return _FRENCH_SUIT[self]

    def name_in(self, lang: str = "it") -> str:
        return _SUIT_NAMES[_lang(lang)][self]


SUITS: tuple[Suit, ...] = tuple(Suit)

# Asso > 3 > Re > Cavallo > Fante > 7 > 6 > 5 > 4 > 2 (the Asso is the highest;
# sources claiming the 3 outranks it are wrong).
_STRENGTH = {1: 10, 3: 9, 10: 8, 9: 7, 8: 6, 7: 5, 6: 4, 5: 3, 4: 2, 2: 1}
_POINTS = {1: 11, 3: 10, 10: 4, 9: 3, 8: 2}

_FRENCH_SUIT = {Suit.DENARI: "diamonds", Suit.COPPE: "hearts",
                Suit.SPADE: "spades", Suit.BASTONI: "clubs"}
_FRENCH_SUIT_LETTER = {"d": Suit.DENARI, "h": Suit.COPPE, "s": Suit.SPADE, "c": Suit.BASTONI}
_FRENCH_RANK = {"a": 1, "j": 8, "q": 9, "k": 10}
_FRENCH_RANK_OUT = {1: "A", 8: "J", 9: "Q", 10: "K"}

_SUIT_NAMES = {
    "it": {Suit.DENARI: "denari", Suit.COPPE: "coppe", Suit.SPADE: "spade",
           Suit.BASTONI: "bastoni"},
    "en": {Suit.DENARI: "coins", Suit.COPPE: "cups", Suit.SPADE: "swords",
           Suit.BASTONI: "batons"},
    "fr": {Suit.DENARI: "deniers", Suit.COPPE: "coupes", Suit.SPADE: "épées",
           Suit.BASTONI: "bâtons"},
}
_RANK_NAMES = {
    "it": {1: "Asso", 8: "Fante", 9: "Cavallo", 10: "Re"},
    "en": {1: "Ace", 8: "Knave", 9: "Knight", 10: "King"},
    "fr": {1: "As", 8: "Valet", 9: "Cavalier", 10: "Roi"},
}
_OF = {"it": "di", "en": "of", "fr": "de"}


def _lang(lang: str) -> str:
    lang = (lang or "it")[:2].lower()
    return lang if lang in _SUIT_NAMES else "en"


_CODE = re.compile(r"^\s*(10|[1-9])([dcsb])\s*$", re.IGNORECASE)


class Card:
    """One of the 40 cards; immutable and interned (use ``Card.parse``)."""

    __slots__ = ("rank", "suit", "index", "strength", "points", "_code")

    rank: int
    suit: Suit
    index: int  # 0..39, suit-major: stable across runs, used for arrays
    strength: int  # 1 (the 2) .. 10 (the Asso) within a suit
    points: int

    _all: dict[str, Card] = {}

    def __init__(self, rank: int, suit: Suit) -> None:
        sset = object.__setattr__
        sset(self, "rank", rank)
        sset(self, "suit", suit)
        sset(self, "index", SUITS.index(suit) * 10 + rank - 1)
        sset(self, "strength", _STRENGTH[rank])
        sset(self, "points", _POINTS.get(rank, 0))
        sset(self, "_code", f"{rank}{suit.value}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self):  # keep interning across pickling
        return (Card.parse, (self._code,))

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a card code such as ``"3c"`` or ``"10S"`` (case-insensitive)."""
        try:
            return cls._all[code]
        except (KeyError, TypeError):
            pass
        if not isinstance(code, str):
            raise CardError(Say("card code must be a string like '3c', not {value}",
                                value=short_repr(code)))
        m = _CODE.match(code)
        if not m:
            raise CardError(Say(
                "invalid card code {value}: expected rank 1-10 then suit d, c, s or b "
                "(e.g. '1d', '3c', '10s')", value=short_repr(code)))
        return cls._all[f"{int(m.group(1))}{m.group(2).lower()}"]

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 40:
            raise CardError(Say("card index must be 0..39, not {index}", index=index))
        return ALL_CARDS[index]

    @classmethod
    def from_french(cls, text: str) -> Card:
        """Parse a French-suited card of a 40-card deck: ``"QH"``, ``"7c"``, ``"AS"``.

        Diamonds = d, hearts = c, spades = s, clubs = b; J = 8, Q = 9, K = 10.
        """
        t = text.strip().lower()
        if len(t) < 2:
            raise CardError(Say("invalid French card {value}", value=short_repr(text)))
        rank_s, suit_s = t[:-1], t[-1]
        if suit_s not in _FRENCH_SUIT_LETTER:
            raise CardError(Say("invalid French suit in {value}: expected D, H, S or C",
                                value=short_repr(text)))
        if rank_s in _FRENCH_RANK:
            rank = _FRENCH_RANK[rank_s]
        elif rank_s.isdigit() and 2 <= int(rank_s) <= 7:
            rank = int(rank_s)
        else:
            raise CardError(Say("invalid French rank in {value}: a 40-card deck has A, 2-7, "
                                "J, Q, K", value=short_repr(text)))
        return cls.parse(f"{rank}{_FRENCH_SUIT_LETTER[suit_s].value}")

    @property
    def french(self) -> str:
        """The French-suited name, e.g. ``QH`` for ``9c``."""
        rank = _FRENCH_RANK_OUT.get(self.rank, str(self.rank))
        return rank + self.suit.french[0].upper()

    def name(self, lang: str = "it") -> str:
        """A display name: ``"Asso di denari"``, ``"Knight of swords"``."""
        lang = _lang(lang)
        rank = _RANK_NAMES[lang].get(self.rank, str(self.rank))
        return f"{rank} {_OF[lang]} {self.suit.name_in(lang)}"

    def beats(self, other: Card, trump: Suit) -> bool:
        """Whether this card, played after ``other`` (the trick's best so far), takes it."""
        if self.suit is other.suit:
            return self.strength > other.strength
        return self.suit is trump

    def __str__(self) -> str:
        return self._code

    def __repr__(self) -> str:
        return f"Card.parse({self._code!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in range(1, 11))
for _c in ALL_CARDS:
    Card._all[str(_c)] = _c
del _c
# A card in a Say reads by its English name ("Three of cups"); a person reads it in
# their language (web_dashboard.i18n.said).
english_as(Card, lambda card: card.name("en"))


def parse_cards(codes: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse a list of codes or a string of codes separated by spaces or commas."""
    if isinstance(codes, str):
        codes = [c for c in re.split(r"[\s,]+", codes) if c]
    return tuple(Card.parse(c) for c in codes)


# Deck per player count: which cards are taken out by default.
DEFAULT_REMOVED: dict[int, tuple[Card, ...]] = {
    2: (),
    3: (Card.parse("2d"),),
    4: (),
    5: (),
    6: tuple(Card.parse(f"2{s.value}") for s in SUITS),
}
PLAYER_COUNTS = tuple(DEFAULT_REMOVED)


def deck_for(players: int, removed: Iterable[Card] | None = None) -> tuple[Card, ...]:
    """The cards in play for ``players`` players, minus ``removed`` (default per count)."""
    if players not in DEFAULT_REMOVED:
        raise CardError(Say("Briscola is played by 2 to 6 players, not {players}",
                            players=players))
    out = DEFAULT_REMOVED[players] if removed is None else tuple(removed)
    need = len(DEFAULT_REMOVED[players])
    if len(set(out)) != need:
        raise CardError(say_n(
            "{players} players remove exactly {n} card(s) from the deck, not {count} ({cards})",
            "{players} players remove exactly {n} card(s) from the deck, not {count} ({cards})",
            need, players=players, count=len(set(out)),
            cards=" ".join(map(str, out)) or Say("none")))
    gone = set(out)
    return tuple(c for c in ALL_CARDS if c not in gone)
