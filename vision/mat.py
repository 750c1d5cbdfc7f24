"""The printable play mat: ArUco markers, seat play zones, stock spot, trick piles.

All geometry is in mat millimetres with the origin at the top-left corner of the
sheet (landscape), x right, y down. Seats go counter-clockwise from the bottom
edge, as play does: 0 bottom, 1 right, 2 top, 3 left. Two players use seats 0
and 2, three use 0, 1 and 3. Play zones form a cross around the centre; the
stock and the won-trick piles sit in the quadrants between its arms.
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
SEATS_FOR_PLAYERS = {2: (0, 2), 3: (0, 1, 3), 4: (0, 1, 2, 3)}


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
class MatLayout:
    paper: str
    width: float
    height: float
    marker_mm: float
    markers: dict[int, np.ndarray] = field(repr=False)  # id -> 4x2 corners in mm (TL,TR,BR,BL)
    zones: dict[str, Zone] = field(repr=False)

    def play_zone(self, seat: int) -> Zone:
        return self.zones[f"play{seat}"]

    def zone_at(self, point_mm: tuple[float, float], prefix: str = "") -> str | None:
        """The name of the zone holding ``point_mm`` (play zones first), or None."""
        for name, zone in sorted(self.zones.items(), key=lambda kv: not kv[0].startswith("play")):
            if name.startswith(prefix) and zone.contains(point_mm):
                return name
        return None


def seats_for(players: int) -> tuple[int, ...]:
    try:
        return SEATS_FOR_PLAYERS[players]
    except KeyError:
        raise MatError(f"the mat has 4 seats: {players} players are not supported "
                       f"(use {sorted(SEATS_FOR_PLAYERS)})") from None


def mat_layout(paper: str = "A3") -> MatLayout:
    """The mat geometry for ``paper`` ("A3" or "A2"), landscape."""
    key = paper.upper()
    if key not in PAPER_MM:
        raise MatError(f"unknown mat size {paper!r}: use one of {sorted(PAPER_MM)}")
    w, h = PAPER_MM[key]
    m = round(0.11 * h)  # marker side
    edge = 8.0
    markers = {}
    for mid, (x, y) in zip(MARKER_IDS, [(edge, edge), (w - edge - m, edge),
                                        (w - edge - m, h - edge - m), (edge, h - edge - m)],
                           strict=True):
        markers[mid] = np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], float)
    cx, cy = w / 2, h / 2
    zw, zh = CARD_W_MM + 10, CARD_H_MM + 8  # a play zone: one card plus slack
    gap = 4.0 if key == "A3" else 24.0
    side = zw / 2 + gap + zh / 2  # centre offset of the left and right zones
    zones = {
        "play0": Zone("play0", (cx, cy + gap + zh / 2), (zw, zh)),
        "play1": Zone("play1", (cx + side, cy), (zw, zh), 90),
        "play2": Zone("play2", (cx, cy - gap - zh / 2), (zw, zh), 180),
        "play3": Zone("play3", (cx - side, cy), (zw, zh), 270),
    }
    # The quadrants between the arms of the cross and the corner markers hold the
    # stock (top right, the briscola crosswise under it, half showing) and the
    # piles of won tricks (one per seat or team).
    x_in, x_out = zw / 2 + gap, w / 2 - edge - m - 4
    y_in, y_out = zw / 2 + gap + 4, h / 2 - edge
    qx, qy = (x_in + x_out) / 2, (y_in + y_out) / 2
    sx = cx + qx - 24
    zones["stock"] = Zone("stock", (sx, cy - qy), (CARD_W_MM + 6, CARD_H_MM + 6))
    zones["briscola"] = Zone("briscola", (sx + 32, cy - qy), (CARD_H_MM + 6, CARD_W_MM + 6))
    pw, ph = CARD_H_MM + 10, CARD_W_MM + 14
    for pile, (dx, dy) in enumerate([(1, 1), (-1, -1), (-1, 1)]):
        zones[f"tricks{pile}"] = Zone(f"tricks{pile}", (cx + dx * qx, cy + dy * qy), (pw, ph))
    return MatLayout(key, w, h, float(m), markers, zones)


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
    for name, zone in layout.zones.items():
        pts = np.round(zone.corners() * s * 16).astype(np.int32)
        cv2.polylines(img, [pts], True, LINE_BGR, thick, cv2.LINE_AA, shift=4)
        label = {"stock": "MAZZO", "briscola": "BRISCOLA"}.get(name) or (
            f"{int(name[-1]) + 1}" if name.startswith("play") else f"PRESE {int(name[-1]) + 1}")
        scale = 0.35 * s / 2
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        # Labels sit just inside the zone's edge nearest its owner, not under the card centre.
        cx, cy = zone.center
        a = math.radians(zone.angle)
        off = zone.size[1] / 2 - 6 if name.startswith("play") else 0
        if name == "briscola":
            cx += zone.size[0] / 2 - 12
        px, py = (cx - off * math.sin(a)) * s, (cy + off * math.cos(a)) * s
        cv2.putText(img, label, (round(px - tw / 2), round(py + th / 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, LINE_BGR, thick, cv2.LINE_AA)
    return img


def write_mat(path: str | Path, paper: str = "A3", px_per_mm: float = 8.0) -> Path:
    """Write the mat as PNG (or JPEG) or as a one-page PDF at the real paper size."""
    import cv2

    path = Path(path)
    img = draw_mat(mat_layout(paper), px_per_mm)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        layout = mat_layout(paper)
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
