"""The table's configuration: one TOML file, validated at start.

Every key has a default, so an empty file is a valid table (a simulated camera,
mock GPIO, no serial board). A bad value or an unknown key stops the start
with a :class:`ConfigError` that names the file, the section and the key::

    [table]
    players = 2                 # 2..6 (5 = Briscola chiamata)
    names = ["Tu", "Ada"]       # one per seat, in order of play
    direction = "ccw"           # play direction: "ccw" or "cw"
    variants = ["swap7"]        # any of swap7, swap2
    match = 3                   # best of 1, 3 or 5 hands
    first_dealer = "lot"        # "lot" or a seat number
    language = "it"             # it, en, fr: the board's display

    [camera]
    source = 0                  # camera index, video file, stream URL, image folder,
                                # "picamera" or "simulator"
    width = 1280
    height = 720
    fps = 30

    [mat]
    size = "A3"                 # A3 or A2 (5 and 6 players: A2, the default for them)

    [vision]
    deck = "builtin"            # "builtin" or the path of an enrolled deck.npz

    [indicators]                # LEDs, buzzer, buttons, the board and the display:
    [gpio]                      # see firmware_bridge/config.py for every key, e.g.
    [serial]                    #   [gpio] seat_leds = [17, 27], buzzer = 18
    [display]                   #   [serial] port = "auto"

    [dashboard]
    enabled = true
    host = "0.0.0.0"
    port = 8000

    [storage]
    database = "/var/lib/briscola-table/briscola-table.db"
                                # default: the user's data folder (default_database)

    [club]                      # optional: publish to a club's MQTT broker
    broker = "192.168.1.10:1883"    # host[:port] (default port 1883), or mqtt://host:port
    club = "circolo"            # topics briscola/<club>/<table>/...: letters, digits, - _
    table = "tavolo-1"
    username = "tavolo-1"       # the broker's user for this table (default: the table)
    password = "..."            # or password_file = "/etc/briscola-table/club.secret"
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.config import ConfigError as IndicatorsConfigError
from firmware_bridge.config import IndicatorsConfig
from table_controller.engine.rules import Direction, Variant
from table_controller.engine.words import Say

LANGUAGES = ("it", "en", "fr")
MAT_SIZES = ("A3", "A2")


class ConfigError(ValueError):
    """A configuration that cannot be used; the message (a ``Say``: the commands say it
    in the terminal's language) names the file and the key."""


def default_database() -> Path:
    """Where the table keeps its store when nothing says: the user's data folder
    (``$XDG_DATA_HOME/briscola-table/briscola-table.db``, by default under
    ``~/.local/share``), not whatever folder the command happens to run in."""
    data = os.environ.get("XDG_DATA_HOME") or ""
    base = Path(data) if os.path.isabs(data) else Path.home() / ".local" / "share"
    return base / "briscola-table" / "briscola-table.db"


@dataclass(frozen=True)
class TableConfig:
    players: int = 2
    names: tuple[str, ...] = ()
    direction: Direction = Direction.COUNTERCLOCKWISE
    variants: frozenset[Variant] = frozenset()
    match: int = 1
    first_dealer: int | None = None  # None: drawn by lot
    language: str = "it"

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else f"Player {seat + 1}"


@dataclass(frozen=True)
class CameraConfig:
    source: int | str = "simulator"
    width: int = 1280
    height: int = 720
    fps: int = 30


@dataclass(frozen=True)
class DashboardConfig:
    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = 8000
    pin: str | None = None  # the first PIN; stored hashed by the dashboard


@dataclass(frozen=True)
class ClubConfig:
    """Where the table publishes for its club (``table_controller.club``)."""

    host: str
    port: int
    club: str
    table: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def prefix(self) -> str:
        """The table's own topics: ``briscola/<club>/<table>``."""
        return f"briscola/{self.club}/{self.table}"


# A topic segment: no MQTT wildcard (+ #), no level separator, nothing invisible.
TOPIC_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
DEFAULT_MQTT_PORT = 1883


def parse_broker(text: str) -> tuple[str, int]:
    """``host``, ``host:port``, ``[v6]:port`` or ``mqtt://host:port`` -> (host, port);
    ValueError says what is wrong."""
    text = text.strip()
    if text.startswith("mqtt://"):
        text = text[len("mqtt://"):].rstrip("/")
    elif "://" in text:
        raise ValueError(Say("expected host[:port] or mqtt://host:port, got {value} (only "
                             "plain MQTT: TLS is not supported yet)", value=repr(text[:60])))
    m = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::([0-9]{1,5}))?|([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?",
                     text)
    if m is None:
        raise ValueError(Say("expected host[:port], got {value}", value=repr(text[:60])))
    host = m.group(1) or m.group(3)
    port = int(m.group(2) or m.group(4) or DEFAULT_MQTT_PORT)
    if not 1 <= port <= 65535:
        raise ValueError(Say("the port must be 1..65535, got {value}", value=port))
    return host, port


@dataclass(frozen=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    mat_size: str = "A3"
    deck: str = "builtin"
    indicators: IndicatorsConfig = field(default_factory=IndicatorsConfig)
    dashboard: DashboardConfig = field(default_factory=DashboardConfig)
    database: str | None = None  # None: default_database()
    source: str = "<defaults>"  # where it was read from, for messages
    club: ClubConfig | None = None  # None: no club, the table stands alone

    @property
    def database_path(self) -> Path:
        """The store's file: ``[storage] database`` (relative to the working folder, as
        any path on the command line), else :func:`default_database`."""
        return Path(self.database) if self.database else default_database()


class _Reader:
    """Takes keys out of one TOML table, checking types; leftovers are unknown keys."""

    def __init__(self, origin: str, section: str, data: Any) -> None:
        self.origin, self.section = origin, section
        if not isinstance(data, dict):
            self.fail(None, Say("must be a table ([{section}]), not {kind}", section=section,
                                kind=type(data).__name__))
        self.data = dict(data)

    def fail(self, key: str | None, message: str) -> None:
        where = f"[{self.section}]" + (f" {key}" if key else "")
        raise ConfigError(Say("{origin}: {where}: {problem}", origin=self.origin,
                              where=where, problem=message))

    def take(self, key: str, default: Any, kinds: type | tuple[type, ...], what: str) -> Any:
        if key not in self.data:
            return default
        value = self.data.pop(key)
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple)
                                                     else (kinds,)) \
                or not isinstance(value, kinds):
            self.fail(key, Say("expected {what}, got {value}", what=what, value=repr(value)))
        return value

    def int_in(self, key: str, default: int, lo: int, hi: int) -> int:
        what = Say("an integer {lo}..{hi}", lo=lo, hi=hi)
        value = self.take(key, default, int, what)
        if not lo <= value <= hi:
            self.fail(key, Say("expected {what}, got {value}", what=what, value=value))
        return value

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        what = Say("one of {choices}", choices=", ".join(choices))
        value = self.take(key, default, str, what)
        if value not in choices:
            self.fail(key, Say("expected {what}, got {value}", what=what, value=repr(value)))
        return value

    def done(self) -> None:
        if self.data:
            key = sorted(self.data)[0]
            self.fail(key, Say("unknown key (misspelt?)"))


def _table(r: _Reader) -> TableConfig:
    players = r.int_in("players", 2, 2, 6)
    names = r.take("names", [], list, Say("a list of players' names"))
    if not all(isinstance(n, str) and n.strip() for n in names):
        r.fail("names", Say("every name must be a non-empty string"))
    if names and len(names) != players:
        r.fail("names", Say("expected {players} names (one per seat), got {n}",
                            players=players, n=len(names)))
    try:
        direction = Direction.parse(r.take("direction", "ccw", str, Say("'ccw' or 'cw'")))
    except ValueError as exc:  # the engine's Say, said in the reader's language
        r.fail("direction", exc.args[0])
    raw_variants = r.take("variants", [], list, Say("a list such as [\"swap7\"]"))
    try:
        variants = frozenset(Variant.parse(v) for v in raw_variants)
    except ValueError as exc:  # the engine's Say, said in the reader's language
        r.fail("variants", exc.args[0])
    if players == 5 and variants:
        r.fail("variants", Say("Briscola chiamata (5 players) has no face-up card to swap"))
    match = r.take("match", 1, int, Say("1, 3 or 5"))
    if match not in (1, 3, 5):
        r.fail("match", Say("expected 1, 3 or 5 hands, got {value}", value=match))
    lot = Say("\"lot\" or a seat number")
    first = r.take("first_dealer", "lot", (str, int), lot)
    if isinstance(first, str):
        if first != "lot":
            r.fail("first_dealer", Say("expected {what}, got {value}", what=lot,
                                       value=repr(first)))
        first = None
    elif not 0 <= first < players:
        # The key counts seats from 0 (as the JSON does): said, with the seat's P name.
        r.fail("first_dealer", Say("expected a seat number from 0 (P1) to {last} (P{n}), "
                                   "got {value}", last=players - 1, n=players, value=first))
    language = r.choice("language", "it", LANGUAGES)
    r.done()
    return TableConfig(players, tuple(n.strip() for n in names), direction, variants, match,
                       first, language)


def _camera(r: _Reader) -> CameraConfig:
    source = r.take("source", "simulator", (int, str),
                    Say("a camera index, a file or URL, \"picamera\" or \"simulator\""))
    if isinstance(source, int) and source < 0:
        r.fail("source", Say("a camera index is 0 or more, got {value}", value=source))
    if isinstance(source, str) and not source.strip():
        r.fail("source", Say("must not be empty"))
    cfg = CameraConfig(source, r.int_in("width", 1280, 160, 4096),
                       r.int_in("height", 720, 120, 4096), r.int_in("fps", 30, 1, 120))
    r.done()
    return cfg


def _dashboard(r: _Reader) -> DashboardConfig:
    enabled = r.take("enabled", True, bool, Say("true or false"))
    host = r.take("host", "0.0.0.0", str, Say("an address to listen on"))
    port = r.int_in("port", 8000, 1, 65535)
    pin = r.take("pin", None, (str, type(None)), Say("a PIN of 4 to 8 digits, as a string"))
    if pin is not None and not (pin.isdigit() and 4 <= len(pin) <= 8):
        r.fail("pin", Say("expected 4 to 8 digits, as a string such as \"2468\""))
    r.done()
    return DashboardConfig(enabled, host, port, pin)


def _club(r: _Reader) -> ClubConfig | None:
    if not r.data:
        return None
    broker = r.take("broker", None, str, Say("the broker's host[:port]"))
    if broker is None:
        r.fail("broker", Say("required in [club] (host[:port] of the club's MQTT broker; "
                             "leave the section out for a table without a club)"))
    try:
        host, port = parse_broker(broker)
    except ValueError as exc:
        r.fail("broker", exc.args[0])
    names = {}
    for key in ("club", "table"):
        value = r.take(key, None, str, Say("a name of letters, digits, - and _"))
        if value is None:
            r.fail(key, Say("required in [club]: this {key}'s name in the topics "
                            "briscola/<club>/<table>/...", key=key))
        if not TOPIC_NAME.fullmatch(value):
            r.fail(key, Say("expected 1 to 32 letters, digits, - or _, got {value}",
                            value=repr(value[:40])))
        names[key] = value
    username = r.take("username", names["table"], str, Say("the broker's user name"))
    if not username.strip():
        r.fail("username", Say("must not be empty"))
    password = r.take("password", None, str, Say("the broker's password"))
    password_file = r.take("password_file", None, str, Say("a file holding the password"))
    if password is not None and password_file is not None:
        r.fail("password_file", Say("give password or password_file, not both"))
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            r.fail("password_file", Say("cannot read {path}: {problem}", path=password_file,
                                        problem=getattr(exc, "strerror", None) or exc))
    r.done()
    return ClubConfig(host, port, names["club"], names["table"], username, password)


SECTIONS = ("table", "camera", "mat", "vision", "indicators", "gpio", "serial", "display",
            "dashboard", "storage", "club")
INDICATOR_SECTIONS = ("indicators", "gpio", "serial", "display")


def _indicators(data: dict[str, Any], origin: str, players: int) -> IndicatorsConfig:
    """The indicators' sections, validated by their own module (one owner per key)."""
    try:
        cfg = IndicatorsConfig.from_mapping({k: data[k] for k in INDICATOR_SECTIONS if k in data})
    except (IndicatorsConfigError, TypeError) as exc:
        raise ConfigError(Say("{origin}: {problem}", origin=origin,
                              problem=exc.args[0] if exc.args else str(exc))) from None
    if cfg.seats and cfg.seats < players:
        raise ConfigError(Say("{origin}: {problem}", origin=origin, problem=Say(
            "gpio.seat_leds: {n} LEDs for {players} players (one per seat)", n=cfg.seats,
            players=players)))
    return cfg


def config_from_dict(data: dict[str, Any], origin: str = "<config>") -> Config:
    """Validate a decoded TOML document."""
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(Say("{origin}: {problem}", origin=origin, problem=Say(
            "unknown section [{section}]; known sections are {sections}", section=unknown[0],
            sections=", ".join(f"[{s}]" for s in SECTIONS))))
    table = _table(_Reader(origin, "table", data.get("table", {})))
    camera = _camera(_Reader(origin, "camera", data.get("camera", {})))
    mat = _Reader(origin, "mat", data.get("mat", {}))
    # 5 and 6 players fit only on the A2 mat (vision.mat.LONG_TABLE).
    long_table = table.players >= 5
    mat_size = mat.choice("size", "A2" if long_table else "A3", MAT_SIZES)
    if long_table and mat_size != "A2":
        mat.fail("size", Say("{players} players need the A2 mat (their places, stock and "
                             "trick piles do not fit on A3)", players=table.players))
    mat.done()
    vision = _Reader(origin, "vision", data.get("vision", {}))
    deck = vision.take("deck", "builtin", str, Say("\"builtin\" or the path of a deck.npz"))
    vision.done()
    indicators = _indicators(data, origin, table.players)
    dashboard = _dashboard(_Reader(origin, "dashboard", data.get("dashboard", {})))
    storage = _Reader(origin, "storage", data.get("storage", {}))
    database = storage.take("database", None, str, Say("a file path"))
    if database is not None and not database.strip():
        storage.fail("database", Say("must not be empty (leave the key out for the default)"))
    storage.done()
    club = _club(_Reader(origin, "club", data.get("club", {})))
    return Config(table, camera, mat_size, deck, indicators, dashboard, database, origin, club)


def load_config(path: str | Path | None) -> Config:
    """Read and validate a TOML file (None: all defaults)."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(Say("{path}: no such configuration file", path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(Say("{path}: cannot read: {problem}", path=path,
                              problem=exc)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(Say("{path}: not valid TOML: {problem}", path=path,
                              problem=exc)) from None
    return config_from_dict(data, str(path))
