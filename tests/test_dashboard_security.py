"""Issue 12, findings 4, 6 and 11: a PIN that can't be brute-forced or used to exhaust
memory, sessions that "lock" and a PIN change really end, and bad input (a Host
header, huge ids, odd characters) that can't crash anything or tell captured cards.

Finding 4: the lockout counted failures only after a 32 MiB scrypt check, so 60
concurrent guesses were all hashed, a 4-digit PIN fell in minutes, 40 parallel ``GET /``
with a wrong ``X-Table-PIN`` took the server to 1.3 GiB, and the table of lockouts was
wiped for everyone at 1,000 addresses. Finding 6: the session was a signed cookie only,
so a saved copy still undid moves after "lock" or a PIN change.
"""

import random
import re
import threading

import pytest
from test_dashboard_leak import table_cards

import web_dashboard.security as security
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import Store
from web_dashboard import create_app, hub_of, store_of
from web_dashboard.security import HASH_METHOD, PER_CLIENT, TABLE, PinGuard, Verdict

PIN = "2468"


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "s.sqlite3"), "TESTING": True,
                      "SSE_KEEPALIVE": 0.01, "SSE_MAX_SECONDS": 0.01})
    yield app
    hub_of(app).close()


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def hashes(monkeypatch):
    """Counts the hashes computed (the real ones)."""
    calls = []
    real = security.check_password_hash

    def counting(stored, pin):
        calls.append(pin)
        return real(stored, pin)

    monkeypatch.setattr(security, "check_password_hash", counting)
    return calls


def csrf(client, path="/unlock"):
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def unlock(client, pin=PIN, **kw):
    return client.post("/unlock", data={"pin": pin, "csrf_token": csrf(client), "next": "/"},
                       **kw)


# -- finding 4: the PIN ----------------------------------------------------------------

def test_a_check_costs_under_16_mib_and_old_hashes_still_verify_then_are_rehashed(tmp_path):
    from werkzeug.security import generate_password_hash

    method, n, r, p = HASH_METHOD.split(":")
    assert method == "scrypt" and 128 * int(n) * int(r) * int(p) < 16 * 2**20
    store = Store(tmp_path / "old.sqlite3")
    old = generate_password_hash(PIN)  # werkzeug's default: scrypt N=32768, 32 MiB
    assert old.startswith("scrypt:32768:")
    store.set_setting("pin_hash", old)
    guard = PinGuard(store)
    assert guard.attempt("1111").verdict is Verdict.WRONG
    assert store.get_setting("pin_hash") == old  # a wrong PIN changes nothing
    assert guard.check(PIN)
    assert store.get_setting("pin_hash").startswith(HASH_METHOD + "$")  # rehashed
    assert guard.check(PIN) and not guard.check("1111")
    guard.set("97531")
    assert store.get_setting("pin_hash").startswith(HASH_METHOD + "$")


def test_an_attempt_is_counted_before_hashing_one_in_flight_per_client_two_per_table(
        tmp_path, monkeypatch):
    guard = PinGuard(Store(tmp_path / "f.sqlite3"))
    guard.set(PIN)
    release, started, calls = threading.Event(), threading.Semaphore(0), []

    def slow_hash(stored, pin):  # a check that takes as long as the test wants
        calls.append(pin)
        started.release()
        release.wait(10)
        return False

    monkeypatch.setattr(security, "check_password_hash", slow_hash)
    results = {}
    threads = [threading.Thread(target=lambda w=w: results.__setitem__(w, guard.attempt(
        "1111", w))) for w in ("10.0.0.1", "10.0.0.2")]
    for t in threads:
        t.start()
    assert started.acquire(timeout=5) and started.acquire(timeout=5)
    # While they are being hashed: the same clients, and a third one (the table's two
    # checks are in flight), are refused at once, without a hash.
    for who in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        attempt = guard.attempt("2222", who)
        assert attempt.verdict is Verdict.REFUSED and attempt.retry_after >= 1, who
    assert len(calls) == 2 and guard.refused == 3
    release.set()
    for t in threads:
        t.join(5)
    assert [results[w].verdict for w in ("10.0.0.1", "10.0.0.2")] == [Verdict.WRONG] * 2
    assert guard.attempt("3333", "10.0.0.3").verdict is Verdict.WRONG  # free again
    assert len(calls) == 3


def test_a_check_cut_short_still_counts(tmp_path, monkeypatch):
    """The failure is counted before the hash: a check that never returns (the client
    hangs up, the hash raises) has used up its attempt."""
    clock = Clock()
    guard = PinGuard(Store(tmp_path / "c.sqlite3"), clock=clock)
    guard.set(PIN)

    def broken(stored, pin):
        raise MemoryError

    monkeypatch.setattr(security, "check_password_hash", broken)
    for _ in range(PER_CLIENT.free):
        with pytest.raises(MemoryError):
            guard.attempt("1111", "10.0.0.9")
    assert guard.locked("10.0.0.9") and guard.retry_after("10.0.0.9") == PER_CLIENT.base


def test_exponential_back_off_per_client_and_refusals_cost_no_hash(tmp_path, hashes):
    clock = Clock()
    guard = PinGuard(Store(tmp_path / "b.sqlite3"), clock=clock)
    guard.set(PIN)
    who = "192.168.1.50"
    for _ in range(5):  # five free tries
        assert guard.attempt("0000", who).verdict is Verdict.WRONG
    waits = []
    for _ in range(6):
        assert guard.locked(who)
        wait = guard.retry_after(who)
        waits.append(wait)
        for _ in range(20):  # hammering while locked: refused, never hashed
            attempt = guard.attempt("0000", who)
            assert attempt.verdict is Verdict.REFUSED and attempt.retry_after == wait
        assert guard.attempt(PIN, who).verdict is Verdict.REFUSED  # even the right one
        clock.now += wait
        assert guard.attempt("0000", who).verdict is Verdict.WRONG
    assert waits == [30, 60, 120, 240, 480, 960]
    assert len(hashes) == 5 + 6 and guard.refused == 6 * 21
    # The cap: an hour at most; then, after it, the right PIN unlocks and forgives.
    for _ in range(5):
        clock.now += guard.retry_after(who)
        guard.attempt("0000", who)
    assert guard.retry_after(who) == PER_CLIENT.cap == 3600
    clock.now += 3600
    assert guard.attempt(PIN, who)
    assert not guard.locked(who) and guard.attempt("0000", who).verdict is Verdict.WRONG


def test_the_table_backs_off_whatever_the_addresses(tmp_path, hashes):
    clock = Clock()
    guard = PinGuard(Store(tmp_path / "t.sqlite3"), clock=clock)
    guard.set(PIN)
    addresses = (f"10.1.{i // 250}.{i % 250}" for i in range(100_000))
    for _ in range(TABLE.free):
        assert guard.attempt("0000", next(addresses)).verdict is Verdict.WRONG
    waits = []
    for _ in range(12):
        fresh = next(addresses)
        assert guard.locked(fresh)  # a new address is refused too
        wait = guard.retry_after(fresh)
        waits.append(wait)
        assert guard.attempt("0000", fresh).verdict is Verdict.REFUSED
        clock.now += wait
        assert guard.attempt("0000", next(addresses)).verdict is Verdict.WRONG
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]
    assert len(hashes) == TABLE.free + 12
    # At that rate the 10,000 PINs of 4 digits take more than a week (a month, in fact).
    week = 7 * 24 * 3600
    assert (10_000 - len(hashes)) * TABLE.cap > 4 * week


def test_the_lockouts_are_never_wiped_for_everyone(tmp_path, monkeypatch):
    monkeypatch.setattr(security, "MAX_TRACKED", 8)
    monkeypatch.setattr(security, "TABLE", security.Schedule(free=10**6, base=1, cap=1))
    clock = Clock()
    guard = PinGuard(Store(tmp_path / "w.sqlite3"), clock=clock)
    guard.set(PIN)
    locked = [f"10.0.0.{i}" for i in range(8)]
    for who in locked:
        for _ in range(PER_CLIENT.free):
            guard.attempt("0000", who)
        assert guard.locked(who)
    # 500 more addresses knock: with every remembered client locked out they are
    # refused (no hash, no memory), and none of the lockouts is forgotten.
    for i in range(500):
        assert guard.attempt("0000", f"10.9.{i // 250}.{i % 250}").verdict is Verdict.REFUSED
    assert all(guard.locked(who) for who in locked) and len(guard._clients) == 8
    # Once a lockout is over its client may be forgotten to make room, not before.
    clock.now += PER_CLIENT.base + 1
    guard.attempt("0000", locked[0])  # locked again, now the most recent
    assert guard.attempt("0000", "10.8.0.1").verdict is Verdict.WRONG
    assert locked[1] not in guard._clients and locked[0] in guard._clients
    assert len(guard._clients) == 8


def test_an_ipv6_slash_64_is_one_client(tmp_path):
    guard = PinGuard(Store(tmp_path / "v6.sqlite3"), clock=Clock())
    guard.set(PIN)
    for i in range(PER_CLIENT.free):
        guard.attempt("0000", f"2001:db8:1:2::{i + 1:x}")
    assert guard.locked("2001:db8:1:2:ffff::1")
    assert not guard.locked("2001:db8:1:3::1")
    for _ in range(PER_CLIENT.free):
        guard.attempt("0000", "::ffff:192.0.2.7")
    assert guard.locked("192.0.2.7")  # an IPv4-mapped address is that IPv4 address


def test_wrong_pin_headers_on_pages_cost_no_hash(app, hashes):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    for path in ("/", "/setup/", "/history/", "/unlock", "/api/v1/table"):
        for i in range(20):
            assert client.get(path, headers={"X-Table-PIN": f"{i:04d}"}).status_code == 200
    assert hashes == []
    # On a write, a wrong header is one counted attempt; then 429, unhashed.
    for _ in range(PER_CLIENT.free):
        assert client.post("/api/v1/undo", headers={"X-Table-PIN": "0000"}).status_code == 403
    r = client.post("/api/v1/undo", headers={"X-Table-PIN": PIN})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == PER_CLIENT.base
    assert "try again in 30 s" in r.get_json()["error"]
    assert len(hashes) == PER_CLIENT.free


def test_100_concurrent_wrong_guesses_are_refused_but_a_few(app, hashes):
    """Through a real threaded server: 100 guesses at once from one address, then from
    100 addresses (loopback has them all): hardly any is hashed, the rest get 429."""
    import http.client

    from werkzeug.serving import make_server

    app.extensions["pin"].set(PIN)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    barrier = threading.Barrier(100)
    statuses: list[int] = []

    def guess(i: int, source: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30,
                                          source_address=(source, 0))
        conn.connect()
        barrier.wait()
        conn.request("POST", "/api/v1/undo", headers={"X-Table-PIN": f"{1000 + i}"})
        statuses.append(conn.getresponse().status)
        conn.close()

    hashed = []
    try:
        for sources in (["127.0.0.1"] * 100, [f"127.0.{1 + i // 200}.{1 + i % 200}"
                                               for i in range(100)]):
            statuses.clear()
            barrier.reset()
            hashed_before = len(hashes)
            threads = [threading.Thread(target=guess, args=(i, s))
                       for i, s in enumerate(sources)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert len(statuses) == 100 and set(statuses) <= {403, 429}
            assert statuses.count(403) == len(hashes) - hashed_before
            hashed.append(statuses.count(403))
    finally:
        server.shutdown()
    # One address: one check at a time, five in all; many: the table's ten free ones,
    # then its back-off (a second or two apart, on a slow machine).
    assert hashed[0] <= PER_CLIENT.free, hashed
    assert sum(hashed) <= TABLE.free + 2, hashed


# -- finding 6: sessions ---------------------------------------------------------------

def _session_cookie(client) -> str:
    return client.get_cookie("session").value


def _restore(app, value: str):
    client = app.test_client()
    client.set_cookie("session", value)
    return client


def setup_match(app):
    assert hub_of(app).submit("setup", players=2, names=["A", "B"], variants=[], length=3,
                              deck="builtin", dealer=0)["accepted"]
    session = app.extensions["briscola"]["session"]
    sim = play_hand(HandRules(2), 0, random.Random(3), style="sensible")
    for event in sim.events[1:4]:
        session.feed(event.to_json())
    return session


def can_undo(client) -> bool:
    """Whether this client's session may undo (a form post with its own CSRF token)."""
    page = client.get("/").get_data(as_text=True)
    m = re.search(r'action="/table/undo"><input type="hidden" name="csrf_token" '
                  r'value="([^"]+)"', page)
    if m is None:
        return False
    r = client.post("/table/undo", data={"csrf_token": m.group(1)})
    return r.status_code == 302 and r.headers["Location"] == "/"


def test_a_saved_cookie_no_longer_undoes_moves_after_lock(app):
    app.extensions["pin"].set(PIN)
    setup_match(app)
    phone, other = app.test_client(), app.test_client()
    assert unlock(phone).status_code == 302 and unlock(other).status_code == 302
    saved = _session_cookie(phone)
    saved_token = csrf(phone, "/")
    assert can_undo(_restore(app, saved))
    moves = hub_of(app).last.n
    phone.post("/lock", data={"csrf_token": csrf(phone, "/")})
    # The saved copy of the cookie: no undo by form, nor by the API with its token.
    thief = _restore(app, saved)
    assert not can_undo(thief)
    r = thief.post("/table/undo", data={"csrf_token": saved_token})
    assert r.status_code == 302 and r.headers["Location"].startswith("/unlock")
    r = thief.post("/api/v1/undo", headers={"X-CSRF-Token": saved_token})
    assert r.status_code == 401
    assert hub_of(app).last.n == moves  # nothing was undone
    # "Lock" locks the table: every phone's unlock ended with it.
    assert not can_undo(other)
    assert unlock(phone).status_code == 302 and can_undo(phone)


def test_lock_from_a_locked_phone_locks_nobody_out(app):
    app.extensions["pin"].set(PIN)
    setup_match(app)
    phone, stranger = app.test_client(), app.test_client()
    unlock(phone)
    stranger.post("/lock", data={"csrf_token": csrf(stranger)})
    assert can_undo(phone)


def test_a_pin_change_ends_every_other_session(app, tmp_path):
    app.extensions["pin"].set(PIN)
    setup_match(app)
    phone, changer = app.test_client(), app.test_client()
    unlock(phone)
    unlock(changer)
    saved = _session_cookie(phone)
    r = changer.post("/setup/pin", data={"current": PIN, "pin": "13579", "pin2": "13579",
                                         "csrf_token": csrf(changer, "/setup/pin")})
    assert r.status_code == 302
    assert not can_undo(phone) and not can_undo(_restore(app, saved))
    assert can_undo(changer)  # the phone that changed it stays unlocked
    # From the terminal (briscola-table dashboard --set-pin) too.
    PinGuard(store_of(app)).set("8642")
    assert not can_undo(changer)


def test_old_cookies_marked_unlocked_true_are_locked(app):
    """Cookies signed before sessions carried a generation (``unlocked: True``)."""
    app.extensions["pin"].set(PIN)
    setup_match(app)
    client = app.test_client()
    with client.session_transaction() as s:
        s["unlocked"] = True
        s["csrf"] = "t"
    assert client.post("/table/undo", data={"csrf_token": "t"}).headers["Location"] \
        .startswith("/unlock")


def test_cookies_are_secure_when_served_over_https(tmp_path, monkeypatch):
    def cookies(app, base="http://table.lan"):
        client = app.test_client()
        page = client.get("/unlock", base_url=base).get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        r = client.post("/unlock", data={"pin": PIN, "csrf_token": token}, base_url=base)
        assert r.status_code == 302
        lang = client.get("/lang/en", base_url=base)
        return r.headers["Set-Cookie"], lang.headers["Set-Cookie"]

    plain = create_app({"DATABASE": str(tmp_path / "p.sqlite3"), "TESTING": True})
    plain.extensions["pin"].set(PIN)
    assert all("Secure" not in c for c in cookies(plain))
    for config in ({"PUBLIC_URL": "https://briscola.lan/"}, {"SESSION_COOKIE_SECURE": True}):
        app = create_app({"DATABASE": str(tmp_path / "h.sqlite3"), "TESTING": True, **config})
        app.extensions["pin"].set(PIN)
        session_cookie, lang_cookie = cookies(app, "https://briscola.lan")
        assert "Secure" in session_cookie and "HttpOnly" in session_cookie, config
        assert "SameSite=Strict" in session_cookie and "Secure" in lang_cookie, config
    # From the environment too (a systemd unit's Environment=), e.g. behind a proxy.
    monkeypatch.setenv("BRISCOLA_PUBLIC_URL", "https://briscola.lan/")
    monkeypatch.setenv("BRISCOLA_PROXY_HOPS", "1")
    app = create_app({"DATABASE": str(tmp_path / "e.sqlite3"), "TESTING": True})
    assert app.config["SESSION_COOKIE_SECURE"] is True and app.config["PROXY_HOPS"] == 1


def test_behind_a_proxy_the_pin_back_off_is_per_real_client(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "x.sqlite3"), "TESTING": True,
                      "PROXY_HOPS": 1})
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    for _ in range(PER_CLIENT.free):
        client.post("/api/v1/undo", environ_base=proxy,
                    headers={"X-Table-PIN": "0000", "X-Forwarded-For": "192.168.1.9",
                             "X-Forwarded-Proto": "https"})
    guard = app.extensions["pin"]
    assert guard.locked("192.168.1.9") and not guard.locked("127.0.0.1")
    # Without PROXY_HOPS a client's X-Forwarded-For is not believed.
    direct = create_app({"DATABASE": str(tmp_path / "y.sqlite3"), "TESTING": True})
    direct.extensions["pin"].set(PIN)
    c = direct.test_client()
    for _ in range(PER_CLIENT.free):
        c.post("/api/v1/undo", environ_base={"REMOTE_ADDR": "10.0.0.5"},
               headers={"X-Table-PIN": "0000", "X-Forwarded-For": "1.2.3.4"})
    assert direct.extensions["pin"].locked("10.0.0.5")
    assert not direct.extensions["pin"].locked("1.2.3.4")


# -- finding 11 ------------------------------------------------------------------------

def test_the_host_header_is_not_trusted_for_the_page_url_and_qr(app, tmp_path):
    client = app.test_client()
    evil = {"Host": "evil.example:666"}
    page = client.get("/", headers=evil).get_data(as_text=True)
    qr = client.get("/qr.svg", headers=evil).get_data(as_text=True)
    assert "evil.example" not in page
    from web_dashboard.qr import lan_address, qr_svg
    expected = f"http://{lan_address() or 'localhost'}/"
    assert f'<p class="url">{expected}</p>' in page and qr == qr_svg(expected, standalone=True)
    # Configured: the public URL, or a Host among TRUSTED_HOSTS (any other is a 400).
    app.config["PUBLIC_URL"] = "http://briscola.local:8000/"
    assert "http://briscola.local:8000/" in client.get("/", headers=evil).get_data(True)
    trusting = create_app({"DATABASE": str(tmp_path / "th.sqlite3"), "TESTING": True,
                           "TRUSTED_HOSTS": ["briscola.lan"]})
    c = trusting.test_client()
    assert "http://briscola.lan:8080/" in c.get(
        "/", headers={"Host": "briscola.lan:8080"}).get_data(True)
    assert c.get("/", headers=evil).status_code == 400
    hub_of(trusting).close()


HUGE = "1" + "0" * 29


@pytest.mark.parametrize("path", [
    f"/history/{HUGE}", f"/history/{HUGE}/hands/0", f"/history/1/hands/{HUGE}",
    f"/history/{HUGE}/record.bgn", f"/api/v1/matches/{HUGE}",
    f"/api/v1/matches/{HUGE}/hands/0", f"/api/v1/matches/1/hands/{HUGE}",
    f"/api/v1/matches/1/hands/{HUGE}/events", f"/api/v1/matches/{HUGE}/record.bgn",
    f"/history/{2**63}", f"/api/v1/matches/{2**63}", "/history/-1",
])
def test_huge_ids_are_a_404_not_a_500(app, path):
    hub_of(app).submit("setup", players=2, names=[], variants=[], length=None,
                       deck="builtin", dealer=0)
    r = app.test_client().get(path)
    assert r.status_code == 404, path
    if path.startswith("/api/"):
        assert "no such resource" in r.get_json()["error"]


@pytest.mark.parametrize("target", ["/\n/evil.example", "/history/\n", "\n",
                                    "/\r\nSet-Cookie: x=1"])
def test_a_next_with_a_newline_goes_home(app, target):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    for r in (client.get("/lang/en", query_string={"next": target}),
              client.get("/unlock", query_string={"next": target}),
              client.post("/unlock", data={"pin": PIN, "csrf_token": csrf(client),
                                           "next": target})):
        assert r.status_code in (200, 302), target
        assert r.headers.get("Location", "/") == "/"


ODD = ["1e999", "²", "-1e999", "nan", "inf", "1" * 5000, "٣", "2.5", " ", "0x2"]


@pytest.mark.parametrize("value", ODD)
def test_odd_numbers_in_setup_fields_get_a_clear_refusal(app, value):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    unlock(client)
    token = csrf(client, "/setup/")
    for field in ("players", "length", "dealer"):
        form = {"csrf_token": token, "players": "2", "deck": "builtin", field: value}
        r = client.post("/setup/", data=form)
        assert r.status_code == 302 and r.headers["Location"] == "/setup/", (field, value)
        assert f"&#39;{field}&#39;" in client.get("/setup/").get_data(as_text=True)
        r = client.post("/api/v1/setup", headers={"X-CSRF-Token": token},
                        json={"players": 2, field: value})
        assert r.status_code == 400 and field in r.get_json()["error"], (field, value)
    # As JSON numbers: 1e999 is infinite, 2.0 is no seat count.
    for raw in ('{"players": 1e999}', '{"players": -1e999}', '{"dealer": 1e999}',
                '{"length": 3.0}', '{"players": 2.0}', '{"dealer": true}'):
        r = client.post("/api/v1/setup", headers={"X-CSRF-Token": token,
                                                  "Content-Type": "application/json"},
                        data=raw)
        assert r.status_code == 400, raw
    for field in ("seat", "rank"):
        r = client.post("/table/event", data={"csrf_token": token, "type": "play",
                                              "seat": value if field == "seat" else "0",
                                              "rank": value, "suit": "d"})
        assert r.status_code == 302


def test_huge_seats_in_the_api_are_refused_without_echoing_them(app):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    for body in ({"seat": 10**4000, "card": "3c"}, {"seat": 99, "card": "3c"},
                 {"seat": -1, "card": "3c"}):
        r = client.post("/api/v1/correct", json=body, headers={"X-Table-PIN": PIN})
        assert r.status_code == 400 and len(r.get_json()["error"]) < 100
    r = client.post("/api/v1/hands", json={"dealer": 10**4000}, headers={"X-Table-PIN": PIN})
    assert r.status_code == 400 and "huge" in r.get_json()["error"]


def test_violations_told_to_phones_name_no_captured_card(app):
    """'5s was already played this hand' told every phone a card of a taken trick."""
    app.extensions["pin"].set(PIN)
    session = setup_match(app)
    sim = play_hand(HandRules(2), 0, random.Random(3), style="sensible")
    events = [e.to_json() for e in sim.events[1:]]
    for obj in events[3:]:
        session.feed(obj)
        if len(session.referee.hand.tricks) >= 2 and not session.referee.hand.current:
            break
    hand = session.referee.hand
    captured = str(hand.tricks[0].plays[0].card)
    visible = table_cards(session.referee)
    assert captured not in visible
    # A camera's misreading: the captured card seen again, then by a phone (API, form).
    decision = session.feed({"type": "play", "seat": hand.turn, "card": captured})
    assert decision.violation.kind.value == "duplicate_card"
    assert captured in decision.violation.message  # the referee's own words
    client = app.test_client()
    r = client.post("/api/v1/events", headers={"X-Table-PIN": PIN},
                    json={"type": "play", "seat": hand.turn, "card": captured})
    assert r.status_code == 409 and r.get_json()["kind"] == "duplicate_card"
    assert r.get_json()["message"] == "a card was already played this hand"
    unlock(client)
    client.post("/table/event", data={"csrf_token": csrf(client, "/"), "type": "play",
                                      "seat": str(hand.turn), "card": captured})
    page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "a card was already played this hand" in page
    for doc in (hub_of(app).snapshot(), client.get("/api/v1/table").get_json()):
        assert doc["violation"]["kind"] == "duplicate_card"
        assert doc["violation"]["card"] is None
        assert doc["violation"]["message"] == "a card was already played this hand"
    assert not re.search(rf"(?<![0-9A-Za-z]){captured}(?![0-9A-Za-z])", page)
    # A card that does lie on the table may be named.
    from web_dashboard.state import hide_cards
    assert hide_cards("3c and 5s and 10d1", {"3c"}) == "3c and a card and 10d1"


def test_dashboard_serves_https_with_its_own_certificate(tmp_path, capsys):
    import json
    import shutil
    import ssl
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    from table_controller.cli import main

    # (--port 0: the refusal must not depend on port 8000 being free on this machine)
    assert main(["dashboard", "--db", str(tmp_path / "a.sqlite3"), "--port", "0",
                 "--cert", "x.pem"]) == 2
    assert "--cert and --key go together" in capsys.readouterr().err
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    assert main(["dashboard", "--db", str(tmp_path / "a.sqlite3"), "--no-mdns", "--port", "0",
                 "--host", "127.0.0.1", "--cert", str(bad), "--key", str(bad)]) == 2
    assert "cannot use" in capsys.readouterr().err
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "dashboard", "--host", "127.0.0.1",
         "--port", "0", "--no-mdns", "--db", str(tmp_path / "tls.sqlite3"),
         "--cert", str(cert), "--key", str(key)],
        cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("briscola-table dashboard on https://"), line
        port = line.split(" on ", 1)[1].split()[0].rstrip("/").rsplit(":", 1)[1]
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/api/v1/table", timeout=10,
                                    context=context) as r:
            assert json.load(r)["hand"] is None
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/setup/pin", timeout=10,
                                    context=context) as r:
            cookie = r.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=10,
                                    context=context) as r:
            assert re.search(r'<p class="url">https://[^<]+</p>', r.read().decode())
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("path", ["/api/v1/setup", "/api/v1/hands", "/api/v1/events",
                                  "/api/v1/correct", "/api/v1/pick", "/api/v1/names"])
def test_deeply_nested_json_is_a_400_not_a_500(app, path):
    app.extensions["pin"].set(PIN)
    r = app.test_client().post(path, data="[" * 5000 + "]" * 5000,
                               headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    assert r.status_code == 400 and "error" in r.get_json()


@pytest.mark.parametrize("t", ["1e999", "-1e999", "NaN", "Infinity", "1" * 401, '"soon"', "true"])
def test_an_event_time_must_be_a_finite_number(app, t):
    app.extensions["pin"].set(PIN)
    setup_match(app)
    before = hub_of(app).last.n
    r = app.test_client().post(
        "/api/v1/events", data=f'{{"type": "collect", "t": {t}}}',
        headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    assert r.status_code == 400 and "'t' must be a finite number" in r.get_json()["error"]
    assert len(r.get_json()["error"]) < 100 and hub_of(app).last.n == before


def test_the_pin_change_form_is_held_to_the_same_limits(app, hashes):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    token = csrf(client, "/setup/pin")
    form = {"current": "0000", "pin": "1357", "pin2": "1357", "csrf_token": token}
    for _ in range(PER_CLIENT.free):
        assert client.post("/setup/pin", data=form).status_code == 403
    r = client.post("/setup/pin", data=dict(form, current=PIN))
    assert r.status_code == 429 and len(hashes) == PER_CLIENT.free
    assert app.extensions["pin"].check(PIN, "10.0.0.2")  # unchanged


def test_a_store_damaged_while_the_table_runs_is_a_503_with_a_line_not_a_500(app, monkeypatch):
    """A page or an API call that reads a row damaged on disk says the store is
    damaged (503, one line), and logs it; it never gives a 500 and a traceback."""
    import sqlite3

    from web_dashboard.app import store_of

    def damaged(*args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(store_of(app), "matches", damaged)
    client = app.test_client()
    page = client.get("/history/", headers={"Accept-Language": "en"})
    assert page.status_code == 503
    assert "store is damaged" in page.get_data(as_text=True)
    api = client.get("/api/v1/matches")
    assert api.status_code == 503
    assert api.get_json() == {"error": "the table's store is damaged: restart the table"}
