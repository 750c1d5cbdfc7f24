"""The board display's words in the table's language (it, en, fr).

From the gettext catalogs every other text comes from (``web_dashboard/translations``,
context ``display``: the words are short enough for the 128x64 screen, see
``tests/test_display_words.py``), read here as files: this floor imports no dashboard
module (tests/test_layers.py). The display draws ASCII, so accents are folded
("Gia giocata"). The C firmware gets the same table as ``core/words.h``
(``python -m firmware_bridge.gen_headers``), so the OLED and its Python twin
(``screen.render``) draw the same pixels in every language.
"""

from __future__ import annotations

import gettext
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

# The LANGUAGE message's byte is the index: 0 (the board's own at start) is English.
LANGUAGES = ("en", "it", "fr")
CATALOGS = Path(__file__).resolve().parents[1] / "web_dashboard" / "translations"
CONTEXT = "display"


def Nc_(context: str, msgid: str) -> str:  # noqa: N802 (gettext's marker name)
    """Marks a display text for pybabel (``Nc_:1c,2`` in babel.cfg)."""
    return msgid


# key -> the English text; ``{name}`` placeholders, in the same order in every language
# (the firmware fills them with sprintf).
WORDS: dict[str, str] = {
    "waiting": Nc_("display", "Waiting for host"),
    "link_down": Nc_("display", "link down"),
    "trump_none": Nc_("display", "Trump: -"),
    "trump_suit": Nc_("display", "Trump: {suit}"),
    "trump_card": Nc_("display", "Trump: {rank} of {suit}"),
    "trump_short": Nc_("display", "Trump: {rank} {suit}"),
    "rank_1": Nc_("display", "Ace"),
    "rank_8": Nc_("display", "Knave"),
    "rank_9": Nc_("display", "Knight"),
    "rank_10": Nc_("display", "King"),
    "suit_d": Nc_("display", "coins"),
    "suit_c": Nc_("display", "cups"),
    "suit_s": Nc_("display", "swords"),
    "suit_b": Nc_("display", "clubs"),
    "tie": Nc_("display", "TIE"),
    "win": Nc_("display", "WIN"),
    "teams": Nc_("display", "Teams"),
    "error_1": Nc_("display", "NOT YOUR TURN"),
    "error_2": Nc_("display", "CARD PLAYED"),
    "error_3": Nc_("display", "NOT IN DECK"),
    "error_4": Nc_("display", "BAD SWAP"),
    "error_5": Nc_("display", "NO TRUMP YET"),
    "error_6": Nc_("display", "HAND IS OVER"),
    "error_7": Nc_("display", "BAD EVENT"),
    "error_8": Nc_("display", "ERROR"),
    "error_9": Nc_("display", "NOT HELD"),
    "title": Nc_("display", "Briscola table"),
    "no_hand": Nc_("display", "No hand yet"),
    "dealer": Nc_("display", "{players} players, dealer {player}"),
    "turn": Nc_("display", "TURN {player}"),
    "leads": Nc_("display", "{player} leads trick {n}/{total}"),
    "leads_n": Nc_("display", "{player} leads trick {n}"),
    "last_trick": Nc_("display", "Last trick: {player}"),
    "draw": Nc_("display", "Draw:"),
}
# What the host writes on the display itself (the firmware only shows these).
HOST_WORDS: dict[str, str] = {
    "note_title": Nc_("display", "DEALER OUT OF TURN"),
    "note_dealt": Nc_("display", "{player} deals;"),
    "note_expected": Nc_("display", "it was {player}'s deal"),
    # A violation's words for it and fr (English keeps the referee's own message).
    "msg_out_of_turn": Nc_("display", "{player} played {card}: it is {turn}'s turn"),
    "msg_duplicate_card": Nc_("display", "{card} was already played"),
    "msg_not_in_deck": Nc_("display", "{card} is not in this hand's deck"),
    "msg_not_held": Nc_("display", "{card} is in another player's hand"),
    "msg_illegal_swap": Nc_("display", "That swap is not allowed now"),
    "msg_no_trump": Nc_("display", "The trump card is not turned up yet"),
    "msg_hand_over": Nc_("display", "The hand is over"),
    # A held card (table_controller.controller.hold_text): wrapped onto the lines.
    "briscola": Nc_("display", "Briscola"),  # the face-up card's place, as a holder
    "hold_missing": Nc_("display", "{player}: {card} is not on the table - put it back or "
                                   "undo"),
    "hold_mismatch": Nc_("display", "{player}: not the card recorded: name it on the phone"),
    "hold_unplaced": Nc_("display", "{player}: {card} out of order? - confirm it on the "
                                    "phone"),
    "hold_unknown": Nc_("display", "{player}: can't read it: straighten it or name it on "
                                   "the phone"),
    "hold_more": Nc_("display", "(+{n} more)"),
    # The buttons' questions (table_controller.buttons), one line each. UNDO, OK and
    # NEW HAND are the buttons' own labels.
    "hint": Nc_("display", "{gesture}: {action}"),
    "gesture_hold": Nc_("display", "hold OK"),
    "gesture_both": Nc_("display", "hold/2x OK"),
    "gesture_twice": Nc_("display", "OK twice"),
    "action_name": Nc_("display", "name it"),
    "action_set": Nc_("display", "set"),
    "action_send": Nc_("display", "send"),
    "undo_next": Nc_("display", "UNDO: next"),
    "undo_next_of": Nc_("display", "UNDO: next {n}/{total}"),
    "undo_back": Nc_("display", "hold UNDO: back"),
    "undo_cancel": Nc_("display", "hold UNDO: cancel"),
    "new_hand_leave": Nc_("display", "NEW HAND: leave"),
    "fix": Nc_("display", "Fix {player}: {was}->{card}?"),
    "auction": Nc_("display", "Auction"),
    "ask_caller": Nc_("display", "Caller: {player}?"),
    "ask_rank": Nc_("display", "{player} calls: {rank} ..?"),
    "ask_card": Nc_("display", "Calls: {rank} {suit}?"),
    "ask_bid": Nc_("display", "Bid: {n}?"),
    "no_name": Nc_("display", "no name"),
    "pick_refused": Nc_("display", "{player}: {card} refused"),
    "call_refused": Nc_("display", "Call refused"),
    "names_no_store": Nc_("display", "No names: no store"),
    "names_at_end": Nc_("display", "Names: at match end"),
    "names_none_seen": Nc_("display", "No names seen yet"),
    "names_set": Nc_("display", "Names set"),
    "names_refused": Nc_("display", "Names refused"),
    "nothing_to_fix": Nc_("display", "Nothing to correct"),
    "not_possible": Nc_("display", "{card} can't be there"),
    "fix_refused": Nc_("display", "{card}: refused"),
    # display-test's sample of free text (under the title).
    "sample_press": Nc_("display", "Press NEW HAND"),
    "sample_start": Nc_("display", "to start"),
}


def fold(text: str) -> str:
    """ASCII for the display's font: accents dropped, other characters as '?'."""
    flat = unicodedata.normalize("NFKD", text)
    flat = "".join(c for c in flat if not unicodedata.combining(c))
    flat = flat.replace("\u2019", "'").replace("\u00a0", " ")
    return "".join(c if " " <= c <= "~" else "?" for c in flat)


@lru_cache(maxsize=4)
def words(language: int | str = 0) -> dict[str, str]:
    """Every display word in ``language`` (its index or code; unknown: English)."""
    code = language if isinstance(language, str) else (
        LANGUAGES[language] if 0 <= language < len(LANGUAGES) else "en")
    t = gettext.translation("messages", str(CATALOGS), languages=[code], fallback=True)
    return {key: fold(t.pgettext(CONTEXT, msg)) for key, msg in {**WORDS, **HOST_WORDS}.items()}


def placeholders(text: str) -> list[str]:
    return re.findall(r"{(\w+)}", text)


def language_index(code: str) -> int:
    return LANGUAGES.index(code) if code in LANGUAGES else 0


__all__ = ["LANGUAGES", "WORDS", "HOST_WORDS", "fold", "words", "placeholders",
           "language_index"]
