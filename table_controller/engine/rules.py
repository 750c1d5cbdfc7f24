"""The rules that vary between tables: player count, deck, variants, teams, layout."""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from table_controller.engine.cards import (
    ALL_CARDS,
    DEFAULT_REMOVED,
    Card,
    CardError,
    deck_for,
    short_repr,
)
from table_controller.engine.words import Say


class Variant(enum.StrEnum):
    """House rules, each off unless switched on."""

    # The winner of a trick holding the 7 of trump may take a stronger face-up briscola.
    SWAP7 = "swap7"
    # The holder of the 2 of trump may take the face-up briscola before trick 1 ends.
    SWAP2 = "swap2"

    @classmethod
    def parse(cls, name: str) -> Variant:
        try:
            return cls(str(name).strip().lower())
        except ValueError:
            known = ", ".join(v.value for v in cls)
            # A Say: the English str, said in the reader's language where it reaches one.
            raise ValueError(Say("unknown variant {value}: known variants are {known}",
                                 value=short_repr(name), known=known)) from None


class Direction(enum.StrEnum):
    """Which way play goes round the table; maps seats (play order) to places."""

    COUNTERCLOCKWISE = "ccw"
    CLOCKWISE = "cw"

    @classmethod
    def parse(cls, text: str) -> Direction:
        t = str(text).strip().lower().replace("-", "")
        if t in ("ccw", "counterclockwise", "anticlockwise", "antiorario"):
            return cls.COUNTERCLOCKWISE
        if t in ("cw", "clockwise", "orario"):
            return cls.CLOCKWISE
        raise ValueError(Say("unknown play direction {value}: use 'ccw' or 'cw'",
                             value=short_repr(text)))

    def place_of(self, seat: int, players: int) -> int:
        """The physical place (numbered counter-clockwise round the mat) of ``seat``."""
        return seat % players if self is Direction.COUNTERCLOCKWISE else (-seat) % players

    def seat_at(self, place: int, players: int) -> int:
        """The seat sitting at physical ``place``; the inverse of :meth:`place_of`."""
        return place % players if self is Direction.COUNTERCLOCKWISE else (-place) % players


TRICKS_PER_HAND = {2: 20, 3: 13, 4: 10, 5: 8, 6: 6}
HAND_SIZE = {2: 3, 3: 3, 4: 3, 5: 8, 6: 3}
CHIAMATA_PLAYERS = 5
DEFAULT_BID = 61


@dataclass(frozen=True)
class HandRules:
    """Everything fixed for a hand before the deal."""

    players: int = 2
    variants: frozenset[Variant] = field(default_factory=frozenset)
    removed: tuple[Card, ...] | None = None  # None: the default for the player count
    deck: tuple[Card, ...] = field(init=False, repr=False, compare=False)
    in_deck: bytes = field(init=False, repr=False, compare=False)  # by card index

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or self.players not in TRICKS_PER_HAND:
            raise ValueError(Say("players must be 2, 3, 4, 5 or 6, not {value}",
                                 value=repr(self.players)))
        variants = frozenset(Variant.parse(v) for v in self.variants)
        object.__setattr__(self, "variants", variants)
        removed = DEFAULT_REMOVED[self.players] if self.removed is None else self.removed
        removed = tuple(sorted(Card.parse(str(c)) for c in removed))
        deck = deck_for(self.players, removed)  # raises CardError naming the problem
        object.__setattr__(self, "removed", removed)
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "in_deck", _in_deck(deck))
        if self.chiamata and variants:
            raise ValueError(Say("swap variants need a face-up briscola; Briscola chiamata "
                                 "has none"))

    @classmethod
    def of(cls, players: int = 2, variants: Iterable[Variant | str] = (),
           removed: Iterable[Card] | None = None) -> HandRules:
        """Like the constructor, but shared: rules are immutable and made once."""
        return _cached_rules(players, frozenset(variants),
                             None if removed is None else tuple(removed))

    @property
    def chiamata(self) -> bool:
        return self.players == CHIAMATA_PLAYERS

    @property
    def tricks(self) -> int:
        return TRICKS_PER_HAND[self.players]

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def total_points(self) -> int:
        return sum(c.points for c in self.deck)

    @property
    def fixed_teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Seats 0+2 vs 1+3 with 4 players, 0+2+4 vs 1+3+5 with 6; None otherwise."""
        if self.players in (4, 6):
            return (tuple(range(0, self.players, 2)), tuple(range(1, self.players, 2)))
        return None


@functools.lru_cache(maxsize=256)
def _cached_rules(players: int, variants: frozenset, removed: tuple | None) -> HandRules:
    return HandRules(players, variants, removed)


@functools.lru_cache(maxsize=64)
def _in_deck(deck: tuple[Card, ...]) -> bytes:
    mask = bytearray(len(ALL_CARDS))
    for card in deck:
        mask[card.index] = 1
    return bytes(mask)


def draw_first_dealer(players: int, rng: random.Random | None = None) -> int:
    """The first dealer of a match, drawn by lot."""
    return (rng or random.SystemRandom()).randrange(players)


def parse_variants(names: Iterable[str] | str | None) -> frozenset[Variant]:
    if names is None:
        return frozenset()
    if isinstance(names, str):
        names = [n for n in names.replace(",", " ").split() if n]
    return frozenset(Variant.parse(n) for n in names)


__all__ = ["CardError", "Direction", "HandRules", "Variant", "TRICKS_PER_HAND",
           "HAND_SIZE", "CHIAMATA_PLAYERS", "DEFAULT_BID", "parse_variants", "draw_first_dealer"]
