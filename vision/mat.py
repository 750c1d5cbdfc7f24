"""The printable play mat: ArUco markers, seat play zones, stock spot, trick piles.

All geometry is in mat millimetres with the origin at the top-left corner of the
sheet (landscape), x right, y down. Places go counter-clockwise from the bottom
edge, as play does. For 2 to 4 players the play zones form a cross: 0 bottom,
1 right, 2 top, 3 left (two players use places 0 and 2, three use 0, 1 and 3);
the stock and the won-trick piles sit in the quadrants between its arms. For 5
and 6 players (A2 only) the places sit as round a long table: 0 and 1 along the
bottom edge (left, right), 2 at the right end, 3 and 4 along the top (right,
left), 5 at the left end (6 players; with 5, Briscola chiamata, that end holds
no place and the mat has no stock).

Each mat is for one player count: its won-trick piles are one per player, or one
per team (4 players, and 6), as the game collects them (chiamata: one per player,
so that the piles do not tell the secret partner); its labels name the players
(P1..Pn, large, facing each player) as the referee numbers them for the play
direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.deck_art import CARD_H_MM, CARD_W_MM

PAPER_MM = {"A3": (420.0, 297.0), "A2": (594.0, 420.0)}
ARUCO_DICT = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
MAT_BGR = (70, 120, 40)  # felt green: white card stock stands out from it
LINE_BGR = (150, 200, 130)
SEATS_FOR_PLAYERS = {2: (0, 2), 3: (0, 1, 3), 4: (0, 1, 2, 3), 5: (0, 1, 2, 3, 4),
                     6: (0, 1, 2, 3, 4, 5)}
LONG_TABLE = (5, 6)  # player counts laid out round a long table (A2 only)
EDGES = ("bottom", "right", "top", "left")
# The way from a zone to the edge its player sits at, in mat coordinates (y down).
TOWARDS = {"bottom": (0.0, 1.0), "right": (1.0, 0.0), "top": (0.0, -1.0), "left": (-1.0, 0.0)}


class MatError(ValueError):
    """An unknown mat size or an unsupported player count."""


@dataclass(frozen=True)
class Zone:
    """A rotated rectangle on the mat (centre and size in mm, angle in degrees)."""

    name: str
    center: tuple[float, float]
    size: tuple[float, float]
    angle: float = 0.0

    def corners(self) -> np.ndarray:
        """4x2 corners in mm, clockwise from the top-left of the unrotated box."""
        w, h = self.size
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        return box @ rot.T + np.array(self.center)

    def contains(self, point_mm: tuple[float, float]) -> bool:
        a = math.radians(-self.angle)
        dx, dy = point_mm[0] - self.center[0], point_mm[1] - self.center[1]
        x = dx * math.cos(a) - dy * math.sin(a)
        y = dx * math.sin(a) + dy * math.cos(a)
        return abs(x) <= self.size[0] / 2 and abs(y) <= self.size[1] / 2


@dataclass(frozen=True)
class Place:
    """Where a player sits: the sheet's edge they reach in from, and the stretch of it
    (mm along that edge, from its left or top end) in front of them."""

    edge: str
    span: tuple[float, float]

    def entry(self, width: float, height: float, toward: tuple[float, float],
              beyond: float = 0.0) -> tuple[float, float]:
        """The point of this place's stretch of edge (pushed ``beyond`` mm off the
        sheet) nearest to ``toward``: where an arm reaching ``toward`` comes in."""
        lo, hi = self.span
        x, y = toward
        if self.edge in ("bottom", "top"):
            return (min(max(x, lo), hi), height + beyond if self.edge == "bottom" else -beyond)
        return (width + beyond if self.edge == "right" else -beyond, min(max(y, lo), hi))


@dataclass(frozen=True)
class MatLayout:
    paper: str
    width: float
    height: float
    marker_mm: float
    markers: dict[int, np.ndarray] = field(repr=False)  # id -> 4x2 corners in mm (TL,TR,BR,BL)
    zones: dict[str, Zone] = field(repr=False)
    players: int = 4
    places: dict[int, Place] = field(default_factory=dict, repr=False)  # used places only
    piles: dict[int, str] = field(default_factory=dict, repr=False)  # place -> its pile zone
    labels: dict[str, str] = field(default_factory=dict, repr=False)  # zone -> printed label

    def play_zone(self, place: int) -> Zone:
        return self.zones[f"play{place}"]

    @property
    def has_stock(self) -> bool:
        """False for Briscola chiamata: no stock, no face-up briscola."""
        return "briscola" in self.zones

    def pile_zone(self, place: int) -> Zone:
        """The pile where the tricks won by the player at ``place`` go."""
        return self.zones[self.piles[place]]

    def zone_at(self, point_mm: tuple[float, float], prefix: str = "") -> str | None:
        """The name of the zone holding ``point_mm`` (play zones first), or None."""
        for name, zone in sorted(self.zones.items(), key=lambda kv: not kv[0].startswith("play")):
            if name.startswith(prefix) and zone.contains(point_mm):
                return name
        return None


def seats_for(players: int) -> tuple[int, ...]:
    """The mat places used by ``players`` players, in counter-clockwise order."""
    try:
        return SEATS_FOR_PLAYERS[players]
    except KeyError:
        raise MatError(f"the mats are for 2 to 6 players, not {players} players "
                       f"(use {sorted(SEATS_FOR_PLAYERS)})") from None


def _markers(w: float, h: float, m: float, edge: float) -> dict[int, np.ndarray]:
    out = {}
    for mid, (x, y) in zip(MARKER_IDS, [(edge, edge), (w - edge - m, edge),
                                        (w - edge - m, h - edge - m), (edge, h - edge - m)],
                           strict=True):
        out[mid] = np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], float)
    return out


def mat_layout(paper: str = "A3", players: int = 4, direction: str = "ccw") -> MatLayout:
    """The mat geometry for ``paper`` ("A3" or "A2", landscape) and ``players`` (2-6;
    5 and 6 need A2). ``direction`` ("ccw" or "cw") only changes the printed labels:
    which player (P1..Pn, in the order of play) sits at which place."""
    key = paper.upper()
    if key not in PAPER_MM:
        raise MatError(f"unknown mat size {paper!r}: use one of {sorted(PAPER_MM)}")
    places_used = seats_for(players)
    if players in LONG_TABLE and key != "A2":
        raise MatError(f"{players} players need the A2 mat: on {key} their {players} play "
                       "zones, the stock and the trick piles do not fit readably")
    w, h = PAPER_MM[key]
    m = round(0.11 * h)  # marker side
    edge = 8.0
    markers = _markers(w, h, m, edge)
    if players in LONG_TABLE:
        zones, places, piles = _long_table(w, h, players)
    else:
        zones, places, piles = _cross(key, w, h, m, edge, players)
    labels = _labels(zones, places_used, piles, players, direction)
    return MatLayout(key, w, h, float(m), markers, zones, players, places, piles, labels)


def _cross(key: str, w: float, h: float, m: float, edge: float, players: int
           ) -> tuple[dict[str, Zone], dict[int, Place], dict[int, str]]:
    cx, cy = w / 2, h / 2
    zw, zh = CARD_W_MM + 10, CARD_H_MM + 8  # a play zone: one card plus slack
    gap = 4.0 if key == "A3" else 24.0
    side = zw / 2 + gap + zh / 2  # centre offset of the left and right zones
    every = {
        0: Zone("play0", (cx, cy + gap + zh / 2), (zw, zh)),
        1: Zone("play1", (cx + side, cy), (zw, zh), 90),
        2: Zone("play2", (cx, cy - gap - zh / 2), (zw, zh), 180),
        3: Zone("play3", (cx - side, cy), (zw, zh), 270),
    }
    used = seats_for(players)
    zones = {every[p].name: every[p] for p in used}  # no zone where nobody sits
    places = {p: Place(EDGES[p], (0.0, w if EDGES[p] in ("bottom", "top") else h))
              for p in used}
    # The quadrants between the arms of the cross and the corner markers hold the
    # stock (top right, the briscola crosswise under it, half showing) and the
    # piles of won tricks.
    x_in, x_out = zw / 2 + gap, w / 2 - edge - m - 4
    y_in, y_out = zw / 2 + gap + 4, h / 2 - edge
    qx, qy = (x_in + x_out) / 2, (y_in + y_out) / 2
    sx = cx + qx - 24
    zones["stock"] = Zone("stock", (sx, cy - qy), (CARD_W_MM + 6, CARD_H_MM + 6))
    zones["briscola"] = Zone("briscola", (sx + 32, cy - qy), (CARD_H_MM + 6, CARD_W_MM + 6))
    pw, ph = CARD_H_MM + 10, CARD_W_MM + 14
    quadrant = {"br": (1, 1), "tl": (-1, -1), "bl": (-1, 1)}
    # A pile next to its players where the cross allows; teams (4 players) keep two.
    groups = {2: [((0,), "br"), ((2,), "tl")],
              3: [((1,), "br"), ((0,), "bl"), ((3,), "tl")],
              4: [((0, 2), "br"), ((1, 3), "tl")]}[players]
    piles: dict[int, str] = {}
    for k, (owners, q) in enumerate(groups):
        dx, dy = quadrant[q]
        zones[f"tricks{k}"] = Zone(f"tricks{k}", (cx + dx * qx, cy + dy * qy), (pw, ph))
        piles.update({p: f"tricks{k}" for p in owners})
    return zones, places, piles


def _long_table(w: float, h: float, players: int
                ) -> tuple[dict[str, Zone], dict[int, Place], dict[int, str]]:
    """Two places along each long edge, one at each end (the left one empty for 5)."""
    cx, cy = w / 2, h / 2
    zw, zh = CARD_W_MM + 10, CARD_H_MM + 8
    gap = 24.0  # between neighbouring zones
    gy = 12.0  # from the centre line to the zones of the long edges
    px = zw / 2 + gap / 2  # x offset of the two zones of a long edge
    ex = px + zw / 2 + gap + zh / 2  # x offset of the end zones
    yb, yt = cy + gy + zh / 2, cy - gy - zh / 2
    every = {
        0: Zone("play0", (cx - px, yb), (zw, zh)),
        1: Zone("play1", (cx + px, yb), (zw, zh)),
        2: Zone("play2", (cx + ex, cy), (zw, zh), 90),
        3: Zone("play3", (cx + px, yt), (zw, zh), 180),
        4: Zone("play4", (cx - px, yt), (zw, zh), 180),
        5: Zone("play5", (cx - ex, cy), (zw, zh), 270),
    }
    zones = {every[p].name: every[p] for p in range(players)}
    # A player sits in front of their stretch of edge; the corners, with the markers,
    # are nobody's (an arm from there would hide a marker).
    c = 8.0 + round(0.11 * h) + 8.0 + 40.0  # edge, marker, white margin, half an arm
    places = {0: Place("bottom", (c, cx)), 1: Place("bottom", (cx, w - c)),
              2: Place("right", (c, h - c)), 3: Place("top", (cx, w - c)),
              4: Place("top", (c, cx)), 5: Place("left", (c, h - c))}
    places = {p: places[p] for p in range(players)}
    pw, ph = CARD_H_MM + 10, CARD_W_MM + 14  # a pile, lying crosswise
    # Corners: right of the top-right zone and left of the top-left one, past the
    # zones of the ends, clear of the markers.
    rx, lx = cx + ex + 10.5, cx - ex - 10.5
    top_y, bottom_y = 100.0, h - 100.0
    if players == 6:
        # The stock top right, the briscola crosswise under it, its right half showing.
        sx, sy = cx + ex - 14.5, 90.0
        zones["stock"] = Zone("stock", (sx, sy), (CARD_W_MM + 6, CARD_H_MM + 6))
        zones["briscola"] = Zone("briscola", (sx + 32, sy), (CARD_H_MM + 6, CARD_W_MM + 6))
        # One pile per team (0+2+4 vs 1+3+5), each beside the first of its players.
        zones["tricks0"] = Zone("tricks0", (lx, bottom_y), (pw, ph))
        zones["tricks1"] = Zone("tricks1", (rx, bottom_y), (pw, ph))
        piles = {p: f"tricks{p % 2}" for p in range(6)}
    else:
        # Chiamata: one pile per player (a team's pile would tell the secret partner),
        # each beside its player; the right end's stands on end beyond its zone.
        spots = {0: ((lx, bottom_y), (pw, ph)), 1: ((rx, bottom_y), (pw, ph)),
                 2: ((w - 8.0 - ph / 2 - 4, cy), (ph, pw)), 3: ((rx, top_y), (pw, ph)),
                 4: ((lx, top_y), (pw, ph))}
        piles = {}
        for p, (center, size) in spots.items():
            zones[f"tricks{p}"] = Zone(f"tricks{p}", center, size)
            piles[p] = f"tricks{p}"
    return zones, places, piles


def _labels(zones: dict[str, Zone], places: tuple[int, ...], piles: dict[int, str],
            players: int, direction: str) -> dict[str, str]:
    from table_controller.engine.rules import Direction

    d = Direction.parse(direction)
    # P1 is seat 0: the seat sitting at the i-th used place in the order of play.
    player_at = {p: f"P{d.seat_at(i, players) + 1}" for i, p in enumerate(places)}
    labels = {f"play{p}": player_at[p] for p in places}
    owners: dict[str, list[int]] = {}
    for p in places:
        owners.setdefault(piles[p], []).append(p)
    for pile, ps in owners.items():
        names = sorted((player_at[p] for p in ps), key=lambda n: int(n[1:]))
        labels[pile] = "PRESE " + "+".join(names)
    if "stock" in zones:
        labels["stock"], labels["briscola"] = "MAZZO", "BRISCOLA"
    return labels


def _text(img: np.ndarray, text: str, center: tuple[float, float], height: float,
          px_per_mm: float, up: str = "top", color: tuple[int, int, int] = LINE_BGR) -> None:
    """Draw ``text`` centred at ``center`` (mm), ``height`` mm tall, its top towards
    ``up`` (a sheet edge: "top" reads upright from the bottom edge).

    The text is drawn at a fixed resolution and then scaled, so that it covers the
    same millimetres at every scale: the observer masks the labels out of the
    camera's view with the mat drawn at its own, coarser scale."""
    import cv2

    fine = 8.0  # px per mm of the drawing before scaling
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height * fine / 22.0  # Hershey simplex capitals are ~22 px tall at scale 1
    thick = max(1, round(height * fine / 9))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 2
    canvas = np.zeros((th + 2 * pad, tw + 2 * pad), np.uint8)  # capitals: no descenders
    cv2.putText(canvas, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    turn = {"top": None, "bottom": cv2.ROTATE_180, "left": cv2.ROTATE_90_COUNTERCLOCKWISE,
            "right": cv2.ROTATE_90_CLOCKWISE}[up]
    if turn is not None:
        canvas = cv2.rotate(canvas, turn)
    # Scale to the image with the canvas centred on ``center`` to the sub-pixel.
    s = px_per_mm / fine
    ch, cw = canvas.shape
    H, W = img.shape[:2]
    cx, cy = center[0] * px_per_mm, center[1] * px_per_mm
    x0, y0 = max(0, int(cx - cw * s / 2) - 1), max(0, int(cy - ch * s / 2) - 1)
    x1, y1 = min(W, int(cx + cw * s / 2) + 2), min(H, int(cy + ch * s / 2) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    m = np.float32([[s, 0, cx - cw * s / 2 - x0], [0, s, cy - ch * s / 2 - y0]])
    alpha = cv2.warpAffine(canvas, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    alpha = alpha[..., None].astype(np.float32) / 255.0
    roi = img[y0:y1, x0:x1]
    roi[:] = (np.array(color, np.float32) * alpha + roi * (1 - alpha)).astype(np.uint8)


_OPPOSITE = {"bottom": "top", "top": "bottom", "left": "right", "right": "left"}


def draw_mat(layout: MatLayout, px_per_mm: float = 6.0) -> np.ndarray:
    """The mat as a BGR image at ``px_per_mm``."""
    import cv2

    s = px_per_mm
    img = np.full((round(layout.height * s), round(layout.width * s), 3), MAT_BGR, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))
    for mid, corners in layout.markers.items():
        x0, y0 = corners[0] * s
        side = round(layout.marker_mm * s)
        quiet = round(8 * s)  # white quiet zone so the detector sees the black border
        cv2.rectangle(img, (round(x0) - quiet, round(y0) - quiet),
                      (round(x0) + side + quiet, round(y0) + side + quiet), (255, 255, 255), -1)
        marker = cv2.aruco.generateImageMarker(dictionary, mid, side, borderBits=1)
        img[round(y0):round(y0) + side, round(x0):round(x0) + side] = marker[..., None]
    thick = max(1, round(0.8 * s))
    pile_owner = {}
    for place, pile in layout.piles.items():
        pile_owner.setdefault(pile, []).append(place)
    for name, zone in layout.zones.items():
        pts = np.round(zone.corners() * s * 16).astype(np.int32)
        cv2.polylines(img, [pts], True, LINE_BGR, thick, cv2.LINE_AA, shift=4)
        label = layout.labels.get(name)
        if not label:
            continue
        cx, cy = zone.center
        if name.startswith("play"):
            # Large, facing the player, just outside the zone on their side: never under
            # a card, and far enough from one not to merge with it in the camera's eyes.
            edge = layout.places[int(name[4:])].edge
            size = 16.0 if layout.paper == "A3" else 20.0
            # (Each zone is turned to face its place: its long side points at it.)
            off = max(zone.size) / 2 + 6 + size / 2
            tx, ty = TOWARDS[edge]
            _text(img, label, (cx + tx * off, cy + ty * off), size, s, _OPPOSITE[edge])
        elif name.startswith("tricks"):
            owners = pile_owner.get(name, [])
            edges = {layout.places[p].edge for p in owners}
            # A player's own pile faces them; a team's reads from the bottom edge.
            up = _OPPOSITE[edges.pop()] if len(edges) == 1 else "top"
            _text(img, label, (cx, cy), 7.0 if len(label) > 9 else 8.0, s, up)
        else:
            if name == "briscola":  # on its half that shows
                cx += zone.size[0] / 2 - 24
            _text(img, label, (cx, cy), 5.0, s)
    return img


def write_mat(path: str | Path, paper: str = "A3", px_per_mm: float = 8.0,
              players: int = 4, direction: str = "ccw") -> Path:
    """Write the mat for ``players`` as PNG (or JPEG) or as a one-page PDF at the real
    paper size."""
    import cv2

    path = Path(path)
    layout = mat_layout(paper, players, direction)
    img = draw_mat(layout, px_per_mm)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        data = _pdf_with_jpeg(jpg.tobytes(), img.shape[1], img.shape[0],
                              layout.width * 72 / 25.4, layout.height * 72 / 25.4)
    elif suffix in (".png", ".jpg", ".jpeg"):
        ok, buf = cv2.imencode(suffix, img)
        data = buf.tobytes()
    else:
        raise MatError(f"cannot write a mat as {path.name!r}: use .pdf, .png or .jpg")
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def _pdf_with_jpeg(jpeg: bytes, px_w: int, px_h: int, pt_w: float, pt_h: float) -> bytes:
    """A minimal one-page PDF showing one JPEG (DCTDecode) over the whole page."""
    content = f"q {pt_w:.2f} 0 0 {pt_h:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pt_w:.2f} {pt_h:.2f}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {px_w} /Height {px_h} "
         f"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode "
         f"/Length {len(jpeg)} >>\nstream\n").encode() + jpeg + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)
