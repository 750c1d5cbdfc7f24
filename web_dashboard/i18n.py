"""The dashboard's words in Italian, English and French.

The language comes from the ``lang`` cookie (the switch on every page), else
the browser's Accept-Language, else Italian. The live page's script gets the
same catalogue as JSON, so server and script never disagree.
"""

from __future__ import annotations

import re

from flask import Request

LANGUAGES = ("it", "en", "fr")
DEFAULT = "it"

MESSAGES: dict[str, dict[str, str]] = {
    "title": {"it": "Briscola al tavolo", "en": "Briscola table", "fr": "Table de Briscola"},
    "table": {"it": "Tavolo", "en": "Table", "fr": "Table"},
    "history": {"it": "Partite", "en": "History", "fr": "Historique"},
    "setup": {"it": "Impostazioni", "en": "Setup", "fr": "Réglages"},
    "language": {"it": "Lingua", "en": "Language", "fr": "Langue"},
    "no_match": {"it": "Nessuna partita in corso.", "en": "No match in progress.",
                 "fr": "Aucune partie en cours."},
    "set_up_match": {"it": "Prepara una partita", "en": "Set up a match",
                     "fr": "Préparer une partie"},
    "waiting_hand": {"it": "In attesa della smazzata…", "en": "Waiting for the deal…",
                     "fr": "En attente de la donne…"},
    "hand_n": {"it": "Smazzata {n}", "en": "Hand {n}", "fr": "Donne {n}"},
    "trump": {"it": "Briscola", "en": "Trump", "fr": "Atout"},
    "briscola_under": {"it": "Carta scoperta", "en": "Face-up card", "fr": "Carte retournée"},
    "stock": {"it": "Mazzo", "en": "Stock", "fr": "Talon"},
    "cards_left": {"it": "{n} carte", "en": "{n} cards", "fr": "{n} cartes"},
    "turn": {"it": "Tocca a", "en": "To play", "fr": "À jouer"},
    "your_turn": {"it": "tocca a {name}", "en": "{name} to play", "fr": "à {name} de jouer"},
    "leads": {"it": "{name} apre", "en": "{name} leads", "fr": "{name} entame"},
    "dealer": {"it": "mazziere", "en": "dealer", "fr": "donneur"},
    "tricks": {"it": "Prese", "en": "Tricks", "fr": "Plis"},
    "tricks_played": {"it": "{n} prese giocate, {left} da giocare",
                      "en": "{n} tricks played, {left} to go",
                      "fr": "{n} plis joués, {left} à jouer"},
    "trick_n": {"it": "Presa {n}", "en": "Trick {n}", "fr": "Pli {n}"},
    "current_trick": {"it": "Sul tavolo", "en": "On the table", "fr": "Sur la table"},
    "last_trick_won": {"it": "Ultima presa: {name}", "en": "Last trick: {name}",
                       "fr": "Dernier pli : {name}"},
    "takes_trick": {"it": "{name} prende", "en": "{name} takes it", "fr": "{name} remporte"},
    "draw_order": {"it": "Si pesca: {names}", "en": "Drawing: {names}",
                   "fr": "Pioche : {names}"},
    "briscola_taker": {"it": "La briscola scoperta va a {name}",
                       "en": "The face-up trump goes to {name}",
                       "fr": "L'atout retourné va à {name}"},
    "violation": {"it": "Irregolarità", "en": "Violation", "fr": "Irrégularité"},
    "score_hidden": {"it": "I punti restano coperti fino all'ultima presa.",
                     "en": "Points stay hidden until the last trick.",
                     "fr": "Les points restent cachés jusqu'au dernier pli."},
    "standing": {"it": "Partita", "en": "Match", "fr": "Match"},
    "hands_won": {"it": "smazzate vinte", "en": "hands won", "fr": "donnes gagnées"},
    "best_of": {"it": "al meglio di {n}", "en": "best of {n}", "fr": "au meilleur de {n}"},
    "open_series": {"it": "serie libera", "en": "open series", "fr": "série libre"},
    "reveal": {"it": "I punti", "en": "The points", "fr": "Les points"},
    "points": {"it": "punti", "en": "points", "fr": "points"},
    "wins_hand": {"it": "{name} vince la smazzata!", "en": "{name} wins the hand!",
                  "fr": "{name} gagne la donne !"},
    "win_hand_plural": {"it": "{name} vincono la smazzata!", "en": "{name} win the hand!",
                        "fr": "{name} gagnent la donne !"},
    "tie": {"it": "Pareggio: la smazzata non conta.", "en": "A tie: the hand counts for nobody.",
            "fr": "Égalité : la donne ne compte pour personne."},
    "wins_match": {"it": "{name} vince la partita!", "en": "{name} wins the match!",
                   "fr": "{name} gagne le match !"},
    "trick_account": {"it": "Presa per presa", "en": "Trick by trick", "fr": "Pli par pli"},
    "team": {"it": "Squadra", "en": "Team", "fr": "Équipe"},
    "and": {"it": "e", "en": "and", "fr": "et"},
    "caller": {"it": "chiama", "en": "calls", "fr": "appelle"},
    "partner": {"it": "socio", "en": "partner", "fr": "partenaire"},
    "bid": {"it": "a {n}", "en": "for {n}", "fr": "pour {n}"},
    "new_hand": {"it": "Nuova smazzata", "en": "New hand", "fr": "Nouvelle donne"},
    "undo": {"it": "Annulla l'ultima", "en": "Undo last", "fr": "Annuler le dernier"},
    "correction": {"it": "Correggi", "en": "Correct", "fr": "Corriger"},
    "play_card": {"it": "Carta giocata", "en": "Card played", "fr": "Carte jouée"},
    "seat": {"it": "Posto", "en": "Seat", "fr": "Place"},
    "card": {"it": "Carta", "en": "Card", "fr": "Carte"},
    "event_type": {"it": "Evento", "en": "Event", "fr": "Événement"},
    "send": {"it": "Invia", "en": "Send", "fr": "Envoyer"},
    "save": {"it": "Salva", "en": "Save", "fr": "Enregistrer"},
    "start": {"it": "Inizia", "en": "Start", "fr": "Commencer"},
    "players": {"it": "Giocatori", "en": "Players", "fr": "Joueurs"},
    "player_names": {"it": "Nomi (nell'ordine di gioco)", "en": "Names (in order of play)",
                     "fr": "Noms (dans l'ordre de jeu)"},
    "variants": {"it": "Varianti", "en": "Variants", "fr": "Variantes"},
    "swap7": {"it": "Il 7 di briscola prende la carta scoperta",
              "en": "The 7 of trump takes the face-up card",
              "fr": "Le 7 d'atout prend la carte retournée"},
    "swap2": {"it": "Il 2 di briscola prende la carta scoperta (prima presa)",
              "en": "The 2 of trump takes the face-up card (first trick)",
              "fr": "Le 2 d'atout prend la carte retournée (premier pli)"},
    "match_length": {"it": "Durata", "en": "Match length", "fr": "Durée"},
    "deck": {"it": "Mazzo di carte", "en": "Deck", "fr": "Jeu de cartes"},
    "deck_builtin": {"it": "Carte italiane (integrate)", "en": "Italian cards (built-in)",
                     "fr": "Cartes italiennes (intégrées)"},
    "deck_french": {"it": "Carte francesi", "en": "French-suited cards",
                    "fr": "Cartes françaises"},
    "deck_printed": {"it": "Carte italiane stampate (della visione)",
                     "en": "Printed Italian cards (the vision's deck)",
                     "fr": "Cartes italiennes imprimées (jeu de la vision)"},
    "done_new_hand": {"it": "Nuova smazzata.", "en": "New hand dealt.",
                      "fr": "Nouvelle donne."},
    "done_undo": {"it": "Ultimo evento annullato.", "en": "Last event undone.",
                  "fr": "Dernier événement annulé."},
    "done_event": {"it": "Correzione accettata.", "en": "Correction accepted.",
                   "fr": "Correction acceptée."},
    "done_setup": {"it": "Partita pronta.", "en": "Match set up.", "fr": "Match prêt."},
    "rank": {"it": "Valore", "en": "Rank", "fr": "Valeur"},
    "suit": {"it": "Seme", "en": "Suit", "fr": "Couleur"},
    "next_dealer": {"it": "prossimo mazziere: {name}", "en": "next dealer: {name}",
                    "fr": "prochain donneur : {name}"},
    "abandoned": {"it": "abbandonata e ridistribuita", "en": "abandoned and redealt",
                  "fr": "abandonnée et redistribuée"},
    "table_language": {"it": "Lingua del tavolo (se il telefono non ne chiede una)",
                       "en": "Table language (when a phone asks for none of these)",
                       "fr": "Langue de la table (si le téléphone n'en demande aucune)"},
    # A violation told in the player's language ({name}, {card}, {turn}); bad_event and
    # anything unforeseen keep the referee's own (English) message.
    "msg_out_of_turn": {"it": "{name} ha giocato fuori turno: tocca a {turn}",
                        "en": "{name} played out of turn: it is {turn}'s turn",
                        "fr": "{name} a joué hors tour : c'est à {turn} de jouer"},
    "msg_duplicate_card": {"it": "{card} è già stata giocata", "en": "{card} was already played",
                           "fr": "{card} a déjà été jouée"},
    "msg_not_in_deck": {"it": "{card} non fa parte del mazzo di questa smazzata",
                        "en": "{card} is not in this hand's deck",
                        "fr": "{card} ne fait pas partie du jeu de cette donne"},
    "msg_not_held": {"it": "{card} è in mano a un altro giocatore",
                     "en": "{card} is in another player's hand",
                     "fr": "{card} est dans la main d'un autre joueur"},
    # The same without the card: during a hand a phone is not told a card that may lie
    # in a taken trick.
    "msg_duplicate_card_nocard": {"it": "Quella carta è già stata giocata",
                                  "en": "That card was already played",
                                  "fr": "Cette carte a déjà été jouée"},
    "msg_not_in_deck_nocard": {"it": "Quella carta non fa parte del mazzo di questa smazzata",
                               "en": "That card is not in this hand's deck",
                               "fr": "Cette carte ne fait pas partie du jeu de cette donne"},
    "msg_not_held_nocard": {"it": "Quella carta è in mano a un altro giocatore",
                            "en": "That card is in another player's hand",
                            "fr": "Cette carte est dans la main d'un autre joueur"},
    "msg_illegal_swap": {"it": "Scambio non permesso in questo momento",
                         "en": "That swap is not allowed now",
                         "fr": "Cet échange n'est pas permis maintenant"},
    "msg_no_trump": {"it": "La briscola non è ancora stata scoperta",
                     "en": "The trump card has not been turned up yet",
                     "fr": "L'atout n'a pas encore été retourné"},
    "msg_hand_over": {"it": "La smazzata è finita", "en": "The hand is over",
                      "fr": "La donne est terminée"},
    "hands": {"it": "Smazzate", "en": "Hands", "fr": "Donnes"},
    "series": {"it": "La serie", "en": "The series", "fr": "La série"},
    "deck_enrolled": {"it": "Mazzo registrato: {name}", "en": "Enrolled deck: {name}",
                      "fr": "Jeu enregistré : {name}"},
    "first_dealer": {"it": "Primo mazziere", "en": "First dealer", "fr": "Premier donneur"},
    "pin": {"it": "PIN del tavolo", "en": "Table PIN", "fr": "PIN de la table"},
    "pin_new": {"it": "Scegli il PIN del tavolo (4-12 cifre)",
                "en": "Choose the table's PIN (4-12 digits)",
                "fr": "Choisissez le PIN de la table (4 à 12 chiffres)"},
    "pin_repeat": {"it": "Ripeti il PIN", "en": "Repeat the PIN", "fr": "Répétez le PIN"},
    "pin_current": {"it": "PIN attuale", "en": "Current PIN", "fr": "PIN actuel"},
    "pin_change": {"it": "Cambia PIN", "en": "Change PIN", "fr": "Changer le PIN"},
    "pin_needed": {"it": "Serve il PIN del tavolo per modificare.",
                   "en": "Changes need the table's PIN.",
                   "fr": "Les modifications demandent le PIN de la table."},
    "pin_wrong": {"it": "PIN errato.", "en": "Wrong PIN.", "fr": "PIN incorrect."},
    "pin_locked": {"it": "Troppi tentativi: riprova fra poco.",
                   "en": "Too many attempts: try again shortly.",
                   "fr": "Trop d'essais : réessayez dans un moment."},
    "pin_mismatch": {"it": "I due PIN non coincidono.", "en": "The two PINs differ.",
                     "fr": "Les deux PIN diffèrent."},
    "pin_format": {"it": "Il PIN ha da 4 a 12 cifre.", "en": "The PIN has 4 to 12 digits.",
                   "fr": "Le PIN a de 4 à 12 chiffres."},
    "pin_saved": {"it": "PIN salvato.", "en": "PIN saved.", "fr": "PIN enregistré."},
    "unlock": {"it": "Sblocca", "en": "Unlock", "fr": "Déverrouiller"},
    "lock": {"it": "Blocca", "en": "Lock", "fr": "Verrouiller"},
    "unlocked": {"it": "Modifiche abilitate su questo telefono.",
                 "en": "Changes enabled on this phone.",
                 "fr": "Modifications autorisées sur ce téléphone."},
    "bad_form": {"it": "Modulo scaduto: riprova.", "en": "The form expired: try again.",
                 "fr": "Formulaire expiré : réessayez."},
    "scan_to_follow": {"it": "Inquadra per seguire il tavolo",
                       "en": "Scan to follow the table", "fr": "Scannez pour suivre la table"},
    "matches": {"it": "Partite giocate", "en": "Matches played", "fr": "Matchs joués"},
    "match_n": {"it": "Partita {n}", "en": "Match {n}", "fr": "Match {n}"},
    "in_progress": {"it": "in corso", "en": "in progress", "fr": "en cours"},
    "finished": {"it": "finita", "en": "finished", "fr": "terminé"},
    "download": {"it": "Scarica la registrazione (.bgn)", "en": "Download the record (.bgn)",
                 "fr": "Télécharger l'enregistrement (.bgn)"},
    "no_matches": {"it": "Ancora nessuna partita.", "en": "No matches yet.",
                   "fr": "Pas encore de match."},
    "result": {"it": "Risultato", "en": "Result", "fr": "Résultat"},
    "winner": {"it": "Vincitore", "en": "Winner", "fr": "Gagnant"},
    "hidden_until_over": {"it": "coperto fino alla fine", "en": "hidden until the end",
                          "fr": "caché jusqu'à la fin"},
    "connection_lost": {"it": "Connessione persa, riconnessione…",
                        "en": "Connection lost, reconnecting…",
                        "fr": "Connexion perdue, reconnexion…"},
    "live": {"it": "in diretta", "en": "live", "fr": "en direct"},
    "not_found": {"it": "Pagina non trovata.", "en": "Page not found.",
                  "fr": "Page introuvable."},
    "store_damaged": {"it": "L'archivio del tavolo è danneggiato: il tavolo va riavviato.",
                      "en": "The table's store is damaged: restart the table.",
                      "fr": "Le registre de la table est endommagé : redémarrez la table."},
    "back_to_table": {"it": "Torna al tavolo", "en": "Back to the table",
                      "fr": "Retour à la table"},
    "kind_out_of_turn": {"it": "fuori turno", "en": "out of turn", "fr": "hors tour"},
    "kind_duplicate_card": {"it": "carta già giocata", "en": "card already played",
                            "fr": "carte déjà jouée"},
    "kind_not_in_deck": {"it": "carta non nel mazzo", "en": "card not in the deck",
                         "fr": "carte hors du jeu"},
    "kind_illegal_swap": {"it": "scambio non valido", "en": "illegal swap",
                          "fr": "échange interdit"},
    "kind_no_trump": {"it": "briscola non ancora vista", "en": "no trump yet",
                      "fr": "pas encore d'atout"},
    "kind_hand_over": {"it": "smazzata finita", "en": "hand over", "fr": "donne terminée"},
    "kind_bad_event": {"it": "evento non valido", "en": "bad event", "fr": "événement invalide"},
    "kind_not_held": {"it": "carta in mano a un altro", "en": "card held by another seat",
                      "fr": "carte tenue par un autre"},
}

MESSAGES.update({
    "suit_d": {"it": "denari", "en": "coins", "fr": "deniers"},
    "suit_c": {"it": "coppe", "en": "cups", "fr": "coupes"},
    "suit_s": {"it": "spade", "en": "swords", "fr": "épées"},
    "suit_b": {"it": "bastoni", "en": "batons", "fr": "bâtons"},
    "of": {"it": "di", "en": "of", "fr": "de"},
    "rank_1": {"it": "Asso", "en": "Ace", "fr": "As"},
    "rank_8": {"it": "Fante", "en": "Knave", "fr": "Valet"},
    "rank_9": {"it": "Cavallo", "en": "Knight", "fr": "Cavalier"},
    "rank_10": {"it": "Re", "en": "King", "fr": "Roi"},
    "ev_play": {"it": "Carta giocata", "en": "Card played", "fr": "Carte jouée"},
    "ev_collect": {"it": "Presa raccolta", "en": "Trick collected", "fr": "Pli ramassé"},
    "ev_trump": {"it": "Briscola scoperta", "en": "Face-up trump", "fr": "Atout retourné"},
    "ev_swap": {"it": "Scambio", "en": "Swap", "fr": "Échange"},
    "ev_correct": {"it": "Carta letta male (la sostituisce)",
                   "en": "Card read wrongly (replace it)",
                   "fr": "Carte mal lue (la remplacer)"},
    "done_correct": {"it": "Carta corretta.", "en": "Card corrected.",
                     "fr": "Carte corrigée."},
    "done_pick": {"it": "Carta indicata.", "en": "Card named.", "fr": "Carte indiquée."},
    "hold_title": {"it": "Carta da indicare", "en": "A card to name",
                   "fr": "Une carte à indiquer"},
    "hold_unknown": {"it": "{name}: carta non riconosciuta. Raddrizzala, o scegli qui "
                           "quale è.",
                     "en": "{name}: card not recognised. Straighten it, or pick it here.",
                     "fr": "{name} : carte non reconnue. Redressez-la, ou choisissez-la "
                           "ici."},
    "hold_unplaced": {"it": "{name}: c'è una carta fuori ordine. Confermala qui.",
                      "en": "{name}: a card lies there out of order. Confirm it here.",
                      "fr": "{name} : une carte est posée hors de son tour. Confirmez-la "
                            "ici."},
    "hold_mismatch": {"it": "{name}: la carta sul tavolo non è quella registrata. Indica "
                            "quale è.",
                      "en": "{name}: the card on the table is not the one recorded. Pick "
                            "which it is.",
                      "fr": "{name} : la carte sur la table n'est pas celle enregistrée. "
                            "Indiquez laquelle c'est."},
    "hold_missing": {"it": "{name}: la carta registrata non è sul tavolo. Rimettila, o "
                           "annulla.",
                     "en": "{name}: the recorded card is not on the table. Put it back, or "
                           "undo.",
                     "fr": "{name} : la carte enregistrée n'est pas sur la table. "
                           "Remettez-la, ou annulez."},
    "hold_likely": {"it": "Più probabili", "en": "Most likely", "fr": "Les plus probables"},
    "hold_other_card": {"it": "Un'altra carta", "en": "Another card",
                        "fr": "Une autre carte"},
    "hold_name_it": {"it": "È questa", "en": "This is it", "fr": "C'est celle-ci"},
    "pick_not_possible": {"it": "{card}: questa carta non può essere lì ora.",
                          "en": "{card}: that card cannot be there now.",
                          "fr": "{card} : cette carte ne peut pas être là maintenant."},
    "pick_too_many": {"it": "Troppe carte rifiutate per questa: raddrizzala, o sollevala "
                            "e posala di nuovo.",
                      "en": "Too many cards refused for this one: straighten it, or lift it "
                            "and lay it again.",
                      "fr": "Trop de cartes refusées pour celle-ci : redressez-la, ou "
                            "soulevez-la et reposez-la."},
    "pick_bad_card": {"it": "Scegli un valore e un seme.", "en": "Choose a rank and a suit.",
                      "fr": "Choisissez une valeur et une couleur."},
    "enroll_title": {"it": "Registrazione del mazzo", "en": "Enrolling the deck",
                     "fr": "Enregistrement du jeu"},
    "enroll_none": {"it": "Nessuna registrazione in corso.", "en": "No enrollment is running.",
                    "fr": "Aucun enregistrement en cours."},
    "enroll_show": {"it": "Mostra {card}", "en": "Show {card}", "fr": "Montrez {card}"},
    "enroll_back": {"it": "il dorso", "en": "the back", "fr": "le dos"},
    "enroll_last": {"it": "Ultima presa: {card}", "en": "Last capture: {card}",
                    "fr": "Dernière prise : {card}"},
    "enroll_progress": {"it": "{n} di {total} carte prese", "en": "{n} of {total} cards captured",
                        "fr": "{n} cartes sur {total} prises"},
    "enroll_retake": {"it": "Rifai", "en": "Re-take", "fr": "Reprendre"},
    "enroll_retake_done": {"it": "{card} sarà chiesta di nuovo.",
                           "en": "{card} will be asked again.",
                           "fr": "{card} sera redemandée."},
    "enroll_unlock": {"it": "Sblocca con il PIN per rifare una carta.",
                      "en": "Unlock with the PIN to re-take a card.",
                      "fr": "Déverrouillez avec le PIN pour reprendre une carte."},
    "enroll_blurred": {"it": "Presa rifiutata: sfocata.", "en": "Capture refused: blurred.",
                       "fr": "Prise refusée : floue."},
    "enroll_partial": {"it": "Presa rifiutata: la carta non è tutta nell'inquadratura.",
                       "en": "Capture refused: the card is not whole in view.",
                       "fr": "Prise refusée : la carte n'est pas entière dans le cadre."},
    "enroll_covered": {"it": "Presa rifiutata: qualcosa copre la carta.",
                       "en": "Capture refused: something covers the card.",
                       "fr": "Prise refusée : quelque chose couvre la carte."},
    "enroll_duplicate": {"it": "Presa rifiutata: è {other}, già presa.",
                         "en": "Capture refused: this is {other}, already captured.",
                         "fr": "Prise refusée : c'est {other}, déjà prise."},
    # French-suited decks: the same codes (d c s b, 8 9 10) under their own names.
    "fsuit_d": {"it": "quadri", "en": "diamonds", "fr": "carreau"},
    "fsuit_c": {"it": "cuori", "en": "hearts", "fr": "cœur"},
    "fsuit_s": {"it": "picche", "en": "spades", "fr": "pique"},
    "fsuit_b": {"it": "fiori", "en": "clubs", "fr": "trèfle"},
    "frank_8": {"it": "Jack", "en": "Jack", "fr": "Valet"},
    "frank_9": {"it": "Donna", "en": "Queen", "fr": "Dame"},
    "frank_10": {"it": "Re", "en": "King", "fr": "Roi"},
    "hold_unlock": {"it": "Sblocca con il PIN per indicarla.",
                    "en": "Unlock with the PIN to pick it.",
                    "fr": "Déverrouillez avec le PIN pour la choisir."},
    "briscola_spot": {"it": "Briscola", "en": "Face-up trump", "fr": "Atout retourné"},
    # Players and the general ranking.
    "ranking": {"it": "Classifica", "en": "Ranking", "fr": "Classement"},
    "ranking_note": {"it": "Senza iscrizione: un giocatore è un nome. Calcolata da ogni "
                           "smazzata finita.",
                     "en": "No sign-up: a player is a name. Computed from every finished "
                           "hand.",
                     "fr": "Sans inscription : un joueur est un nom. Calculé sur chaque "
                           "donne terminée."},
    "no_ranking": {"it": "Nessuna smazzata finita con i nomi dei giocatori.",
                   "en": "No finished hand with the players' names yet.",
                   "fr": "Aucune donne terminée avec les noms des joueurs."},
    "rank": {"it": "Pos.", "en": "Rank", "fr": "Rang"},
    "player": {"it": "Giocatore", "en": "Player", "fr": "Joueur"},
    "rating": {"it": "Punteggio", "en": "Rating", "fr": "Cote"},
    "hands_played": {"it": "Smazzate", "en": "Hands", "fr": "Donnes"},
    "won": {"it": "Vinte", "en": "Won", "fr": "Gagnées"},
    "tied": {"it": "Pari", "en": "Tied", "fr": "Nulles"},
    "average_points": {"it": "Punti medi", "en": "Average points", "fr": "Points moyens"},
    "matches_played": {"it": "Partite", "en": "Matches", "fr": "Parties"},
    "unrated": {"it": "{n} smazzate senza tutti i nomi non contano.",
                "en": "{n} hands without every player's name are not rated.",
                "fr": "{n} donnes sans le nom de chaque joueur ne comptent pas."},
    "points_per_hand": {"it": "Punti per smazzata", "en": "Points per hand",
                        "fr": "Points par donne"},
    "also_named": {"it": "Anche: {names}", "en": "Also as: {names}",
                   "fr": "Aussi : {names}"},
    "rename_player": {"it": "Rinomina o unisci (PIN)", "en": "Rename or merge (PIN)",
                      "fr": "Renommer ou fusionner (PIN)"},
    "rename_old": {"it": "Nome attuale", "en": "Name now", "fr": "Nom actuel"},
    "rename_new": {"it": "Nuovo nome (o un giocatore esistente)",
                   "en": "New name (or an existing player)",
                   "fr": "Nouveau nom (ou un joueur existant)"},
    "rename": {"it": "Rinomina", "en": "Rename", "fr": "Renommer"},
    "renamed": {"it": "{old} ora è {new}.", "en": "{old} is now {new}.",
                "fr": "{old} est maintenant {new}."},
    "known_players": {"it": "Giocatori già visti", "en": "Players seen before",
                      "fr": "Joueurs déjà vus"},
    "result_won": {"it": "vinta", "en": "won", "fr": "gagnée"},
    "result_lost": {"it": "persa", "en": "lost", "fr": "perdue"},
    "result_tie": {"it": "pari", "en": "tie", "fr": "nulle"},
    "club": {"it": "Circolo", "en": "Club", "fr": "Club"},
    "club_tables": {"it": "Tavoli", "en": "Tables", "fr": "Tables"},
    "club_hands": {"it": "Smazzate finite", "en": "Finished hands", "fr": "Donnes terminées"},
    "club_no_tables": {"it": "Nessun tavolo collegato finora.",
                       "en": "No table has been heard from yet.",
                       "fr": "Aucune table ne s'est encore signalée."},
    "club_no_hands": {"it": "Nessuna smazzata finita finora.",
                      "en": "No finished hand yet.", "fr": "Aucune donne terminée."},
    "club_online": {"it": "in linea", "en": "online", "fr": "en ligne"},
    "club_offline": {"it": "non in linea", "en": "offline", "fr": "hors ligne"},
    "recent_hands": {"it": "Ultime smazzate", "en": "Recent hands", "fr": "Dernières donnes"},
})

RANK_LABELS = {  # what a card face shows in the corner
    "it": {1: "A", 8: "F", 9: "C", 10: "R"},
    "en": {1: "A", 8: "J", 9: "Kn", 10: "K"},
    "fr": {1: "A", 8: "V", 9: "C", 10: "R"},
}


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


def translate(lang: str, key: str, **values: object) -> str:
    entry = MESSAGES.get(key)
    if entry is None:
        return key
    text = entry.get(lang) or entry[DEFAULT]
    return text.format(**values) if values else text


def card_name(lang: str, code: str, french: bool = False) -> str:
    """A card code in words ("6 di coppe", "Queen of hearts"); the code itself when it
    is not one."""
    m = re.fullmatch(r"(10|[1-9])([dcsb])", code.strip().lower())
    if m is None:
        return code
    rank, suit = int(m.group(1)), m.group(2)
    ranks = ("frank_", "rank_") if french else ("rank_",)
    word = next((translate(lang, f"{p}{rank}") for p in ranks if f"{p}{rank}" in MESSAGES),
                str(rank))
    suit_word = translate(lang, ("fsuit_" if french else "suit_") + suit)
    return f"{word} {translate(lang, 'of')} {suit_word}"


def catalogue(lang: str) -> dict[str, str]:
    """Every message in one language, for the live page's script."""
    return {key: entry.get(lang) or entry[DEFAULT] for key, entry in MESSAGES.items()}


__all__ = ["LANGUAGES", "MESSAGES", "pick_language", "translate", "catalogue", "RANK_LABELS",
           "card_name"]
