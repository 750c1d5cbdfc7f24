"""Players without accounts and the general ranking: the store's players (migration,
names seen, renames and merges that keep the history), the openskill ranking for every
table size and ties, its pages and API, and that nothing in them moves during a hand."""

import json
import random
import re
import sqlite3

import pytest

from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import expected_winners, play_hand
from table_controller.store import SCHEMA_VERSION, Store, StoreError
from table_controller.store.database import _MIGRATIONS
from web_dashboard import create_app, hub_of
from web_dashboard.ranking import compute, from_store, points_plot

PIN = "2468"


def play_match(store, names, seeds, players=None):
    """A match with these names (one per seat), one whole hand per seed."""
    players = players or len(names)
    info = store.new_match(players=players, names=list(names), first_dealer=0)
    referee = info.referee()
    sims = []
    for seed in seeds:
        sim = play_hand(HandRules(players), referee.next_dealer(), random.Random(seed),
                        style="sensible")
        for event in sim.events:
            obj = event.to_json()
            store.append_event(info.id, obj, referee.feed_json(obj), referee)
        sims.append(sim)
    return info, referee, sims


def summary(names, points, winners, teams=None, tie=False):
    return {"names": names, "points": points, "winners": winners, "teams": teams,
            "outcome": "tie" if tie else "win", "match_id": 1, "idx": 0,
            "finished": "2026-12-01T10:00:00+00:00"}


# -- the store ----------------------------------------------------------------------------

def test_a_version_1_store_is_migrated_and_keeps_its_matches(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(_MIGRATIONS[1])
    conn.execute("INSERT INTO matches(created, players, names, variants) VALUES "
                 "('2026-01-01T00:00:00+00:00', 2, '[\"Ada\", \"Bea\"]', '[]')")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION == 3
    assert store.player_names() == ["Ada", "Bea"]
    assert store.match(1).names == ("Ada", "Bea")
    store.rename_player("Bea", "Beatrice")
    store.close()
    again = Store(path)  # reopened at the new version: nothing migrated twice
    assert again.player_names() == ["Ada", "Beatrice"]
    again.close()


def test_names_seen_most_recent_first_and_renames_keep_the_history(tmp_path):
    store = Store(tmp_path / "t.db")
    store.new_match(players=2, names=["Ada", "Bea"])
    store.new_match(players=3, names=["Carlo", "ada", ""])
    assert store.player_names() == ["Carlo", "ada", "Ada", "Bea"]
    assert store.rename_player("ada", "Ada") == "Ada"  # a merge of two spellings
    assert store.player_names() == ["Carlo", "Ada", "Bea"]
    assert store.match(2).names == ("Carlo", "ada", "")  # the history as typed
    store.rename_player("Ada", "Adele")  # both spellings follow the player
    assert store.aliases() == {"ada": "Adele", "Ada": "Adele"}
    assert store.player_of("ada") == "Adele"
    store.rename_player("Adele", "Ada")  # back: the name that means itself needs no alias
    assert store.aliases() == {"ada": "Ada"}
    with pytest.raises(StoreError, match="already one player"):
        store.rename_player("ada", "Ada")
    with pytest.raises(StoreError, match="no player named 'Zoe'"):
        store.rename_player("Zoe", "Ada")
    with pytest.raises(StoreError, match="old name and the new one"):
        store.rename_player("Ada", "  ")
    store.close()


# -- the ranking ---------------------------------------------------------------------------

def test_two_players_the_stronger_ranks_first_and_a_tie_moves_equals_nowhere():
    hands = [summary(["Ada", "Bea"], [80, 40], [0]) for _ in range(5)]
    r = compute(hands)
    ada, bea = r.player("Ada"), r.player("Bea")
    assert [p.name for p in r.ordered()] == ["Ada", "Bea"]
    assert ada.won == 5 and bea.won == 0 and ada.hands == bea.hands == 5
    assert ada.average_points == 80 and bea.average_points == 40
    tie = compute([summary(["Ada", "Bea"], [60, 60], [], tie=True)])
    assert tie.player("Ada").mu == pytest.approx(tie.player("Bea").mu)
    assert tie.player("Ada").tied == 1 and tie.player("Ada").won == 0
    assert tie.player("Ada").mu == pytest.approx(25.0)  # equals tied: no one moves
    assert tie.player("Ada").sigma < 25 / 3  # but they are better known


def test_three_alone_second_place_counts_and_teams_of_two_and_three_share_the_result():
    r = compute([summary(["A", "B", "C"], [70, 40, 10], [0])] * 3)
    assert [p.name for p in r.ordered()] == ["A", "B", "C"]
    assert r.player("B").mu > r.player("C").mu  # not just "won" against "lost"
    r = compute([summary(["A", "B", "C", "D"], [30, 20, 40, 30], [0, 2],
                         teams=[[0, 2], [1, 3]])] * 3)
    assert r.player("A").mu == pytest.approx(r.player("C").mu)
    assert r.player("A").mu > r.player("B").mu
    assert r.player("B").mu == pytest.approx(r.player("D").mu)
    six = compute([summary([*"ABCDEF"], [20, 20, 20, 20, 20, 20], [1, 3, 5],
                           teams=[[0, 2, 4], [1, 3, 5]])])
    assert six.player("B").mu > six.player("A").mu
    assert {p.name for p in six.ordered()[:3]} == {"B", "D", "F"}
    # Chiamata: the caller's side of two against three, won by reaching the bid.
    five = compute([summary([*"ABCDE"], [40, 0, 25, 30, 25], [0, 2],
                            teams=[[0, 2], [1, 3, 4]])])
    assert five.player("A").mu > five.player("D").mu  # D has more points but lost
    assert five.player("C").won == 1 and five.player("D").won == 0


def test_hands_without_every_name_or_with_a_name_twice_are_not_rated():
    r = compute([summary(["Ada", ""], [80, 40], [0]), summary(["Ada", "Ada"], [80, 40], [0]),
                 summary(["Ada", "Bea"], [80, 40], [0])])
    assert r.rated == 1 and r.unrated == 2 and r.player("Ada").hands == 1


def test_the_ranking_is_recomputed_from_the_store_with_renames(tmp_path):
    store = Store(tmp_path / "t.db")
    _, ref1, sims1 = play_match(store, ["Ada", "Bea"], [1, 2, 3])
    _, ref2, sims2 = play_match(store, ["bea", "Carlo", "Dora", "Ezio"], [4, 5])
    r = from_store(store)
    assert r.rated == 5 and set(r.players) == {"Ada", "Bea", "bea", "Carlo", "Dora", "Ezio"}
    won_ada = sum(0 in expected_winners(s) for s in sims1)
    assert r.player("Ada").won == won_ada
    assert r.player("Ada").points == sum(s.points[0] for s in sims1)
    store.rename_player("bea", "Bea")
    merged = from_store(store)
    assert "bea" not in merged.players and merged.player("Bea").hands == 5
    assert len(merged.player("Bea").matches) == 2
    # Recomputing from the store gives the same figures as rating the hands afresh.
    again = compute(store.finished_hands(), store.aliases())
    assert again.to_json() == merged.to_json()
    store.close()


def test_points_plot_is_numbers_for_an_inline_svg():
    plot = points_plot([{"points": 0, "result": "lost"}, {"points": 120, "result": "won"}],
                       width=100, height=50)
    assert plot["points"] == "4.0,46.0 96.0,4.0"
    assert plot["mid"] == 25.0 and [d["result"] for d in plot["dots"]] == ["lost", "won"]
    assert points_plot([])["points"] == ""


# -- pages and API --------------------------------------------------------------------------

@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "d.db"), "TESTING": True})
    yield app
    hub_of(app).close()


def csrf(client, path):
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_ranking_page_player_page_api_and_the_setup_suggestions(app):
    store = app.extensions["briscola"]["store"]
    play_match(store, ["Ada", "Bea"], [1, 2, 3, 4])
    client = app.test_client()
    page = client.get("/ranking/").get_data(as_text=True)
    assert 'href="/players/Ada"' in page and 'href="/players/Bea"' in page
    doc = client.get("/api/v1/ranking").get_json()
    assert doc["hands_rated"] == 4 and [p["rank"] for p in doc["players"]] == [1, 2]
    assert {p["name"] for p in doc["players"]} == {"Ada", "Bea"}
    first = doc["players"][0]
    assert first["won"] + first["tied"] + first["lost"] == first["hands"] == 4
    player = client.get("/players/Ada").get_data(as_text=True)
    assert "<svg" in player and "<polyline" in player and player.count("<circle") == 4
    assert 'href="/history/1"' in player
    assert "style=" not in player.split("<svg", 1)[1].split("</svg>")[0]  # CSP: no inline
    api = client.get("/api/v1/players/Ada").get_json()
    assert api["hands"] == 4 and len(api["history"]) == 4 and api["match_ids"] == [1]
    assert {h["hand"] for h in api["history"]} == {0, 1, 2, 3}  # JSON: 0-based indices
    assert "Hand 1:" in client.get("/players/Ada", headers={"Accept-Language": "en"}
                                   ).get_data(as_text=True)  # pages: 1-based
    assert client.get("/players/Nobody").status_code == 404
    assert client.get("/api/v1/players/Nobody").status_code == 404
    assert client.get("/api/v1/players").get_json() == {"players": ["Ada", "Bea"]}
    setup = client.get("/setup/").get_data(as_text=True)
    assert '<datalist id="known-names"><option value="Ada"><option value="Bea">' in setup
    assert 'data-name="Ada"' in setup and 'list="known-names"' in setup


def test_renaming_needs_the_pin_and_merges_the_history(app):
    store = app.extensions["briscola"]["store"]
    play_match(store, ["Ada", "Bea"], [1, 2])
    play_match(store, ["ada", "Bea"], [3])
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    r = client.post("/api/v1/players/rename", json={"from": "ada", "to": "Ada"})
    assert r.status_code == 401
    r = client.post("/ranking/rename", data={"old": "ada", "new": "Ada",
                                             "csrf_token": csrf(client, "/ranking/")})
    assert r.status_code == 302 and "/unlock" in r.headers["Location"]
    assert store.aliases() == {}
    r = client.post("/api/v1/players/rename", json={"from": "ada", "to": "Ada"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 200 and r.get_json()["player"] == "Ada"
    assert client.get("/api/v1/players/Ada").get_json()["hands"] == 3
    assert client.get("/api/v1/players/ada").get_json()["name"] == "Ada"  # old spelling
    assert client.get("/players/ada").headers["Location"].endswith("/players/Ada")
    r = client.post("/api/v1/players/rename", json={"from": "Zoe", "to": "Ada"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 409 and "no player named 'Zoe'" in r.get_json()["error"]
    r = client.post("/api/v1/players/rename", json={"from": 3, "to": "Ada"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 400 and "'from' and 'to'" in r.get_json()["error"]
    # By the form, unlocked.
    r = client.post("/unlock", data={"pin": PIN, "csrf_token": csrf(client, "/unlock"),
                                     "next": "/"})
    r = client.post("/ranking/rename", data={"old": "Bea", "new": "Beatrice",
                                             "csrf_token": csrf(client, "/ranking/")})
    assert r.status_code == 302
    assert [p["name"] for p in client.get("/api/v1/ranking").get_json()["players"]] \
        .count("Beatrice") == 1
    assert store.match(1).names == ("Ada", "Bea")  # history as typed


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_nothing_of_the_hand_being_played_reaches_the_ranking(app, players):
    """Every ranking read, after every event of a hand, is the one before the hand
    began, until the hand is over: no points, no winner, no partner through them."""
    store = app.extensions["briscola"]["store"]
    names = [f"P{s}" for s in range(players)]
    play_match(store, names, [7])
    client = app.test_client()
    urls = ["/ranking/", "/api/v1/ranking", "/api/v1/players"] + \
        [f"/players/{n}" for n in names] + [f"/api/v1/players/{n}" for n in names]

    def read():
        return {u: client.get(u).get_data(as_text=True) for u in urls}

    before = read()
    hub_of(app).submit("setup", players=players, names=names, variants=[], length=None,
                       deck="builtin", dealer=0)
    session = app.extensions["briscola"]["session"]
    sim = play_hand(HandRules(players), 0, random.Random(11), style="sensible")
    events = sim.events[1:]
    for event in events[:-1]:
        decision = session.feed(event.to_json())
        assert decision.accepted, decision.violation
        if not session.referee.hand.is_over():
            now = read()
            assert now == before, "the ranking moved during the hand"
    session.feed(events[-1].to_json())
    after = json.loads(read()["/api/v1/ranking"])
    assert after["hands_rated"] == 2


def test_ranking_of_a_referee_free_summary_list_matches_the_referee(tmp_path):
    """The store's summaries carry what the referee decided (ties included)."""
    store = Store(tmp_path / "t.db")
    info, referee, sims = play_match(store, ["A", "B", "C"], range(20, 30))
    hands = store.finished_hands()
    assert len(hands) == 10
    for hand, sim in zip(hands, sims, strict=True):
        assert hand["points"] == sim.points
        assert sorted(hand["winners"]) == sorted(expected_winners(sim)) or \
            hand["outcome"] == "tie"
    assert isinstance(referee, Referee)
    store.close()


def test_the_cached_ranking_follows_every_change_it_depends_on(app):
    """The dashboard recomputes when a result, a name or a rename changes (and only
    then): a result rewritten to the same length, names set during a match."""
    from web_dashboard.players import current_ranking

    store = app.extensions["briscola"]["store"]
    info, referee, _ = play_match(store, ["Ada", "Bea"], [1])
    with app.app_context():
        first = current_ranking()
        assert current_ranking() is first  # nothing changed: the cached one
        key = store.ranking_fingerprint()
        # An event inside a new hand changes nothing the ranking reads.
        obj = {"type": "hand", "players": 2, "dealer": referee.next_dealer()}
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
        assert store.ranking_fingerprint() == key and current_ranking() is first
        store.set_names(info.id, ["Ada", "Bice"])
        renamed = current_ranking()
        assert renamed is not first and set(renamed.players) == {"Ada", "Bice"}
        # A result with the same length but other points (as a correction could make).
        conn = store._conn()
        row = conn.execute("SELECT result FROM hands WHERE match_id=? AND idx=0",
                           (info.id,)).fetchone()[0]
        doc = json.loads(row)
        doc["points"] = doc["points"][::-1]
        doc["winners"] = [1 - w for w in doc["winners"]]
        assert len(json.dumps(doc)) == len(row)
        conn.execute("UPDATE hands SET result=? WHERE match_id=? AND idx=0",
                     (json.dumps(doc), info.id))
        swapped = current_ranking()
        assert swapped is not renamed
        assert swapped.player("Ada").points == renamed.player("Bice").points
