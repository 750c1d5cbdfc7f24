import pytest

from table_controller.engine.cards import ALL_CARDS, Card, CardError, Suit, deck_for, parse_cards


def test_codes_round_trip_for_all_40_cards():
    assert len(ALL_CARDS) == 40
    for card in ALL_CARDS:
        assert Card.parse(str(card)) is card
        assert Card.from_index(card.index) is card
    assert len({str(c) for c in ALL_CARDS}) == 40


@pytest.mark.parametrize("code,rank,suit", [("1d", 1, Suit.DENARI), ("3C", 3, Suit.COPPE),
                                            ("10s", 10, Suit.SPADE), (" 8b ", 8, Suit.BASTONI)])
def test_parse_is_case_insensitive(code, rank, suit):
    card = Card.parse(code)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("bad", ["", "0d", "11s", "3x", "d3", "10", "1dd", None, 3, "1 d"])
def test_parse_rejects_bad_codes_with_a_clear_error(bad):
    with pytest.raises(CardError) as info:
        Card.parse(bad)
    assert isinstance(info.value, ValueError)
    assert "card code" in str(info.value)


def test_strength_order_asso_above_three():
    order = [Card.parse(f"{r}d") for r in (1, 3, 10, 9, 8, 7, 6, 5, 4, 2)]
    strengths = [c.strength for c in order]
    assert strengths == sorted(strengths, reverse=True)
    assert Card.parse("1c").strength > Card.parse("3c").strength


def test_points_total_120():
    assert {c.rank: c.points for c in ALL_CARDS if c.suit is Suit.SPADE} == {
        1: 11, 2: 0, 3: 10, 4: 0, 5: 0, 6: 0, 7: 0, 8: 2, 9: 3, 10: 4}
    assert sum(c.points for c in ALL_CARDS) == 120


def test_beats():
    trump = Suit.SPADE
    assert Card.parse("1c").beats(Card.parse("3c"), trump)
    assert not Card.parse("3c").beats(Card.parse("1c"), trump)
    assert Card.parse("2s").beats(Card.parse("1c"), trump)  # any trump beats a non-trump
    assert not Card.parse("1d").beats(Card.parse("2c"), trump)  # off-suit never wins


def test_cards_are_immutable():
    with pytest.raises(AttributeError):
        Card.parse("1d").rank = 3


@pytest.mark.parametrize("french,code", [("AH", "1c"), ("QC", "9b"), ("JD", "8d"),
                                         ("KS", "10s"), ("7c", "7b"), ("2h", "2c")])
def test_french_suited_mapping(french, code):
    card = Card.from_french(french)
    assert card is Card.parse(code)
    assert Card.from_french(card.french) is card


@pytest.mark.parametrize("bad", ["8H", "10S", "ZH", "AX", "A"])
def test_french_rejects_cards_outside_a_40_card_deck(bad):
    with pytest.raises(CardError):
        Card.from_french(bad)


def test_names_in_three_languages():
    card = Card.parse("1d")
    assert card.name("it") == "Asso di denari"
    assert card.name("en") == "Ace of coins"
    assert card.name("fr") == "As de deniers"
    assert Card.parse("9s").name("it") == "Cavallo di spade"


@pytest.mark.parametrize("players,size", [(2, 40), (3, 39), (4, 40), (5, 40), (6, 36)])
def test_deck_sizes(players, size):
    deck = deck_for(players)
    assert len(deck) == size
    assert sum(c.points for c in deck) == 120


def test_three_players_remove_2d_by_default_or_another():
    assert Card.parse("2d") not in deck_for(3)
    assert Card.parse("2d") in deck_for(3, parse_cards("2b"))
    with pytest.raises(CardError, match="exactly 1"):
        deck_for(3, parse_cards("2b 2c"))
    with pytest.raises(CardError, match="2 to 6"):
        deck_for(7)
