"""The table's words in Italian, English and French, from gettext catalogs.

The code and the templates hold the English source texts (msgids, ``{name}`` style
placeholders); ``translations/<lang>/LC_MESSAGES/messages.po`` hold the translations
(the translator's workflow is in ``web_dashboard/README.md``). The pages get them through
Flask-Babel (its locale selector: the ``lang`` cookie, else the browser's
Accept-Language, else the table's language); the terminal and the board's display through
:func:`tr` and :func:`trn` here, which import no Flask. The live page's script gets the
few messages it draws as JSON (:func:`catalogue`), with the catalog's plural rule as a
table, so that server and script never disagree.

The compiled ``messages.mo`` are committed beside their ``.po``: Flask-Babel and
:func:`translations` read them as they are, so an installed table needs neither a build
step nor a network, and ``tests/test_i18n_catalogs.py`` fails when a ``.mo`` is not its
``.po`` compiled.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.support import NullTranslations, Translations

if TYPE_CHECKING:
    from flask import Request

LANGUAGES = ("it", "en", "fr")
DEFAULT = "it"
TRANSLATIONS = Path(__file__).parent / "translations"
DOMAIN = "messages"


def N_(msgid: str) -> str:
    """Marks a text for extraction where it is only named, translated later."""
    return msgid


def Np_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a text with a plural for extraction (``Np_:1,2`` in the extract command)."""
    return singular, plural


def Nc_(context: str, msgid: str) -> tuple[str, str]:
    """Marks a text whose English says two things, with its context (``Nc_:1c,2``)."""
    return context, msgid


@lru_cache(maxsize=8)
def translations(lang: str) -> NullTranslations:
    """The compiled catalog of ``lang`` (the English texts when there is none)."""
    return Translations.load(str(TRANSLATIONS), [lang], DOMAIN)


def _fill(text: str, values: dict[str, object]) -> str:
    return text.format(**values) if values else text


def _said_values(lang: str, values: dict[str, object]) -> dict[str, object]:
    """Values said in ``lang`` too: what a lower floor said (a ``Say``, an exception made
    of one) in its words."""
    from table_controller.engine.words import Say

    return {k: said(lang, v) if isinstance(v, Say | BaseException) else v
            for k, v in values.items()}


def tr(lang: str, msgid: str, **values: object) -> str:
    """``msgid`` in ``lang``, its ``{placeholders}`` filled."""
    return _fill(translations(lang).gettext(msgid), _said_values(lang, values))


def trn(lang: str, singular: str, plural: str, n: int, **values: object) -> str:
    """The form that agrees with ``n`` (``{n}`` is filled with it)."""
    return _fill(translations(lang).ngettext(singular, plural, n),
                 {"n": n, **_said_values(lang, values)})


def trp(lang: str, context: str, msgid: str, **values: object) -> str:
    """``msgid`` in ``lang`` where the same English says two things (``context``)."""
    return _fill(translations(lang).pgettext(context, msgid), _said_values(lang, values))


def _(msgid: str, **values: object) -> str:
    """For the pages: ``msgid`` in the request's language (Flask-Babel's locale)."""
    from flask_babel import get_translations  # only the dashboard's process has Flask

    return _fill(get_translations().gettext(msgid), values)


def ngettext(singular: str, plural: str, n: int, **values: object) -> str:
    """For the pages: the form agreeing with ``n`` in the request's language."""
    from flask_babel import get_translations

    return _fill(get_translations().ngettext(singular, plural, n), {"n": n, **values})


def pgettext(context: str, msgid: str, **values: object) -> str:
    """For the pages: ``msgid`` where the same English says two things (``context``)."""
    from flask_babel import get_translations

    return _fill(get_translations().pgettext(context, msgid), values)


def said(lang: str, text: object) -> str:
    """What a lower floor said (a ``table_controller.engine.words.Say``, or an exception
    made of one) in ``lang``, its values too. Any other text is passed on as it is."""
    from table_controller.engine.cards import Card
    from table_controller.engine.words import Say, Seat

    if isinstance(text, BaseException) and len(text.args) == 1:
        text = text.args[0]
    if not isinstance(text, Say):
        return str(text)
    # A card in a Say is named (a code is a str), a seat is P1..Pn; {n} is the plural's own.
    values = {k: card_name(lang, str(v)) if isinstance(v, Card) else
              v.label() if isinstance(v, Seat) else v
              for k, v in text.values.items() if k != "n" or text.plural is None}
    if text.plural is not None:
        return trn(lang, text.msgid, text.plural, text.n or 0, **values)
    if text.context is not None:
        return trp(lang, text.context, text.msgid, **values)
    return tr(lang, text.msgid, **values)


def seat_name(names: list[str], seat: int) -> str:
    """A seat as people read it: the player's name, else P1..Pn (never the 0-based seat)."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"P{seat + 1}"


def joined(lang: str, names: list[str]) -> str:
    """"Ada", "Ada and Carla", "Ada, Bruno and Carla", in the language's words."""
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return tr(lang, "{names} and {last}", names=", ".join(names[:-1]), last=names[-1])


def wins_hand(lang: str, names: list[str]) -> str:
    """The reveal's banner: the verb agrees with one winner or a team."""
    return trn(lang, "{names} wins the hand!", "{names} win the hand!", len(names),
               names=joined(lang, names))


def wins_match(lang: str, names: list[str]) -> str:
    return trn(lang, "{names} wins the match!", "{names} win the match!", len(names),
               names=joined(lang, names))


def hands_won(lang: str, n: int) -> str:
    return trn(lang, "{n} hand won", "{n} hands won", n)


def tricks_played(lang: str, n: int, left: int) -> str:
    return trn(lang, "{n} trick played, {left} to go", "{n} tricks played, {left} to go", n,
               left=left)


SUITS = {"d": N_("coins"), "c": N_("cups"), "s": N_("swords"), "b": N_("batons")}
RANKS = {1: N_("Ace"), 8: N_("Knave"), 9: N_("Knight"), 10: N_("King")}
# French-suited decks: the same codes (d c s b, 8 9 10) under their own names.
FRENCH_SUITS = {"d": N_("diamonds"), "c": N_("hearts"), "s": N_("spades"), "b": N_("clubs")}
FRENCH_RANKS = {8: N_("Jack"), 9: N_("Queen"), 10: N_("King")}
KINDS = {  # a violation's kind, as the phone and the display name it
    "out_of_turn": N_("out of turn"), "duplicate_card": N_("card already played"),
    "not_in_deck": N_("card not in the deck"), "illegal_swap": N_("illegal swap"),
    "no_trump": N_("no trump yet"), "hand_over": N_("hand over"),
    "bad_event": N_("bad event"), "not_held": N_("card held by another seat"),
}
VARIANTS = {"swap7": N_("The 7 of trump takes the face-up card"),
            "swap2": N_("The 2 of trump takes the face-up card (first trick)")}

RANK_LABELS = {  # what a card face shows in the corner
    "it": {1: "A", 8: "F", 9: "C", 10: "R"},
    "en": {1: "A", 8: "J", 9: "Kn", 10: "K"},
    "fr": {1: "A", 8: "V", 9: "C", 10: "R"},
}


def suit_name(lang: str, suit: str, french: bool = False) -> str:
    words = FRENCH_SUITS if french else SUITS
    return tr(lang, words[suit]) if suit in words else suit


def kind_name(lang: str, kind: str) -> str:
    return tr(lang, KINDS[kind]) if kind in KINDS else kind


def card_name(lang: str, code: str, french: bool = False) -> str:
    """A card code in words ("6 di coppe", "Queen of hearts"); the code itself when it
    is not one."""
    m = re.fullmatch(r"(10|[1-9])([dcsb])", code.strip().lower())
    if m is None:
        return code
    rank, suit = int(m.group(1)), m.group(2)
    word = (FRENCH_RANKS if french else {}).get(rank) or RANKS.get(rank)
    text = tr(lang, "{rank} of {suit}", rank=tr(lang, word) if word else str(rank),
              suit=suit_name(lang, suit, french))
    if lang.split("_")[0].lower() == "fr":  # elision: "Roi d'épées", not "Roi de épées"
        text = _ELIDED.sub(r"d'\1", text)
    return text


_ELIDED = re.compile(r"\bde ([aeiouyhàâéèêëîïôûü])", re.IGNORECASE)


# What the live page's script draws, by the key it asks for. A tuple is a text with a
# plural: the script gets its forms and picks one with the catalog's own rule.
SCRIPT_MESSAGES: dict[str, str | tuple[str, str]] = {
    "no_match": N_("No match in progress."),
    "set_up_match": N_("Set up a match"),
    "waiting_hand": N_("Waiting for the deal…"),
    "hand_n": N_("Hand {n}"),
    "cards_left": Np_("{n} card", "{n} cards"),
    "your_turn": N_("{name} to play"),
    "leads": N_("{name} leads"),
    "dealer": N_("dealer"),
    "tricks": N_("Tricks"),
    "tricks_played": Np_("{n} trick played, {left} to go", "{n} tricks played, {left} to go"),
    "trick_n": N_("Trick {n}"),
    "current_trick": N_("On the table"),
    "last_trick_won": N_("Last trick: {name}"),
    "takes_trick": N_("{name} takes it"),
    "briscola_taker": N_("The face-up trump goes to {name}"),
    "hands_won": Np_("{n} hand won", "{n} hands won"),
    "best_of": N_("best of {n}"),
    "open_series": N_("open series"),
    "reveal": N_("The points"),
    "wins_hand": Np_("{names} wins the hand!", "{names} win the hand!"),
    "tie": N_("A tie: the hand counts for nobody."),
    "wins_match": Np_("{names} wins the match!", "{names} win the match!"),
    "trick_account": N_("Trick by trick"),
    "team": N_("Team"),
    "team_n": N_("Team {n}"),
    "team_points": Np_("{n} point", "{n} points"),
    "names_and": N_("{names} and {last}"),
    "caller": N_("calls"),
    "partner": N_("partner"),
    "bid": N_("for {n}"),
    "series": N_("The series"),
    "next_dealer": N_("next dealer: {name}"),
    "rank": N_("Rank"),
    "suit": N_("Suit"),
    "card_of": N_("{rank} of {suit}"),
    "of": N_("of"),  # between the rank and the suit choosers
    "hold_unknown": N_("{name}: card not recognised. Straighten it, or pick it here."),
    "hold_unplaced": N_("{name}: a card lies there out of order. Confirm it here."),
    "hold_mismatch": N_("{name}: the card on the table is not the one recorded. "
                        "Pick which it is."),
    "hold_missing": N_("{name}: the recorded card is not on the table. Put it back, or undo."),
    "hold_likely": N_("Most likely"),
    "hold_other_card": N_("Another card"),
    "hold_name_it": N_("This is it"),
    "hold_unlock": N_("Unlock with the PIN to pick it."),
    # ``briscola_spot`` names the place under the stock; ``ev_trump`` the event.
    "msg_out_of_turn": N_("{name} played out of turn: it is {turn}'s turn"),
    "msg_duplicate_card": N_("{card} was already played"),
    "msg_not_in_deck": N_("{card} is not in this hand's deck"),
    "msg_not_held": N_("{card} is in another player's hand"),
    # The same without the card: during a hand a phone is not told a card that may lie
    # in a taken trick.
    "msg_duplicate_card_nocard": N_("That card was already played"),
    "msg_not_in_deck_nocard": N_("That card is not in this hand's deck"),
    "msg_not_held_nocard": N_("That card is in another player's hand"),
    "msg_illegal_swap": N_("That swap is not allowed now"),
    "msg_no_trump": N_("The trump card has not been turned up yet"),
    "msg_hand_over": N_("The hand is over"),
    "note_dealer": N_("{name} dealt, out of turn: it was {expected}'s deal"),
    "next_hand_in": Np_("The next hand in {n} second", "The next hand in {n} seconds"),
    "see_last_hand": N_("The last hand's points"),
    # Chiamata's auction, entered on a phone (the partner is never named here).
    "auction": N_("The auction"),
    "auction_waiting": N_("Waiting for the auction's result…"),
    "auction_caller": N_("Caller"),
    "auction_bid": N_("Bid (61-120)"),
    "auction_confirm": N_("Confirm the call"),
    "auction_called": N_("{name} calls {card} for {n}"),
}
SCRIPT_CONTEXT = {"briscola_spot": Nc_("zone", "Face-up trump")}  # the place, not the event
PLURAL_TABLE = 201  # the script knows the plural form of 0..200 (the app counts to 120)
# Numbers that reach every plural form of it, en and fr (French and Italian have a form
# for millions): the script gets every form, even those it will never use.
_PLURAL_SAMPLES = (*range(PLURAL_TABLE), 10**6)


def _plural_index(t: NullTranslations, n: int) -> int:
    return t.plural(n) if hasattr(t, "plural") else int(n != 1)


def catalogue(lang: str) -> dict[str, object]:
    """What the live page's script needs in one language: its messages (a list of forms
    for a plural), the card words, and ``plural``: the form's index for n = 0..200."""
    t = translations(lang)
    out: dict[str, object] = {}
    for key, msg in SCRIPT_MESSAGES.items():
        if isinstance(msg, tuple):
            # One form per index: n for which the catalog chooses that index.
            forms: dict[int, str] = {}
            for n in _PLURAL_SAMPLES:
                forms.setdefault(_plural_index(t, n), t.ngettext(msg[0], msg[1], n))
            out[key] = [forms.get(i, msg[1]) for i in range(max(forms) + 1)]
        else:
            out[key] = t.gettext(msg)
    for key, (context, msg) in SCRIPT_CONTEXT.items():
        out[key] = t.pgettext(context, msg)
    for code, msg in SUITS.items():
        out[f"suit_{code}"] = t.gettext(msg)
    for code, msg in FRENCH_SUITS.items():
        out[f"fsuit_{code}"] = t.gettext(msg)
    for rank, msg in RANKS.items():
        out[f"rank_{rank}"] = t.gettext(msg)
    for rank, msg in FRENCH_RANKS.items():
        out[f"frank_{rank}"] = t.gettext(msg)
    for kind, msg in KINDS.items():
        out[f"kind_{kind}"] = t.gettext(msg)
    out["trump"] = t.gettext("Trump")
    out["plural"] = [_plural_index(t, n) for n in range(PLURAL_TABLE)]
    return out


def init_flask(app: Any, table_language: Callable[[], str]) -> None:
    """Flask-Babel for ``app``: its locale selector is the ``lang`` cookie, else
    Accept-Language, else ``table_language()``; ``g.lang`` is that locale. Jinja's own
    gettext callables are not installed: the templates' _() and ngettext() fill {name}
    placeholders (as the terminal's and the script's texts do), not %(name)s."""
    from flask import g, request
    from flask_babel import Babel, get_locale

    Babel(app, locale_selector=lambda: pick_language(request, table_language()),
          configure_jinja=False, default_translation_directories=str(TRANSLATIONS),
          default_domain=DOMAIN)

    @app.before_request
    def _language() -> None:
        g.lang = str(get_locale())


def table_language(app: Any) -> str:
    """The dashboard's table language: the setup page's choice, kept in the store; else
    the configuration's (``LANGUAGE``: the table's ``[table] language``)."""
    chosen = app.extensions["briscola"]["store"].get_setting("language")
    return chosen if chosen in LANGUAGES else app.config.get("LANGUAGE", DEFAULT)


def template_helpers(lang: str) -> dict[str, Any]:
    """The words the templates use, in ``lang`` (the request's locale)."""
    return {"_": _, "ngettext": ngettext, "pgettext": pgettext, "lang": lang,
            "languages": LANGUAGES,
            "tricks_played": lambda n, left: tricks_played(lang, n, left),
            "hands_won": lambda n: hands_won(lang, n),
            "wins_hand": lambda names: wins_hand(lang, names),
            "wins_match": lambda names: wins_match(lang, names),
            "joined": lambda names: joined(lang, names),
            "suit_name": lambda s: suit_name(lang, s),
            "kind_name": lambda k: kind_name(lang, k),
            "variant_name": lambda v: _(VARIANTS[v]) if v in VARIANTS else v,
            "card_name": lambda c, french=False: card_name(lang, c, french),
            "seat_name": seat_name}


def pick_language(request: Request, default: str = DEFAULT) -> str:
    """The cookie's choice, else the browser's best match, else the table's language."""
    chosen = request.cookies.get("lang")
    if chosen in LANGUAGES:
        return chosen
    # By the browser's order of preference; "fr-CH" counts as "fr".
    for value, _quality in request.accept_languages:
        code = value[:2].lower()
        if code in LANGUAGES:
            return code
    return default if default in LANGUAGES else DEFAULT


__all__ = ["LANGUAGES", "N_", "Nc_", "Np_", "RANK_LABELS", "SCRIPT_MESSAGES", "_", "card_name",
           "catalogue", "hands_won", "init_flask", "joined", "kind_name", "ngettext",
           "pick_language", "said", "seat_name", "suit_name", "table_language",
           "template_helpers", "tr", "translations", "trn", "trp", "tricks_played",
           "wins_hand", "wins_match"]
