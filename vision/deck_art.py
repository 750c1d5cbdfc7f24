"""Procedurally drawn card decks: Italian regional-like patterns and French-suited ones.

``DeckStyle.from_seed(seed)`` draws a random but self-consistent style (card
ratio, palette, pip shapes and layouts, figures, borders, indices, back);
``render_card(style, code)`` and ``render_back(style)`` paint BGR images.
Style 0 is the project's own built-in deck. The recognizer is trained on many
seeds so that it learns what makes two faces of one deck differ (pip count,
suit shape, figure) rather than the look of any single deck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from table_controller.engine.cards import ALL_CARDS, Card

CARD_W_MM = 58.0
CARD_H_MM = 89.0


def card_mm(ratio: float) -> tuple[float, float]:
    """A deck's card size in mm (width, height) from its proportions (height / width):
    the largest card of that shape that fits the mat's nominal 58x89 mm card. Scans
    carry no scale; the mat's zones are drawn for that card."""
    if ratio >= CARD_H_MM / CARD_W_MM:
        return CARD_H_MM / ratio, CARD_H_MM
    return CARD_W_MM, CARD_W_MM * ratio
RENDER_W = 160  # face width in pixels at which cards are drawn

Color = tuple[int, int, int]
# A drawable primitive in unit coordinates: polygon points (y down), colour, thickness
# (-1 = filled) - everything is a polygon so that one transform places any shape.
Prim = tuple[np.ndarray, Color, int]

_INKS: dict[str, list[Color]] = {  # BGR inks typical of printed Italian decks
    "red": [(40, 40, 200), (30, 30, 170), (60, 50, 220), (50, 70, 190)],
    "yellow": [(40, 200, 240), (60, 190, 230), (30, 170, 220), (80, 210, 250)],
    "blue": [(180, 90, 30), (200, 120, 40), (150, 70, 20), (210, 140, 60)],
    "green": [(60, 130, 30), (40, 110, 20), (80, 150, 60), (70, 120, 10)],
    "black": [(20, 20, 20), (40, 35, 30), (30, 30, 40)],
    "brown": [(40, 80, 140), (30, 60, 110), (60, 100, 160)],
    "skin": [(150, 190, 235), (130, 170, 220), (170, 205, 240)],
}


def _ink(rng: np.random.Generator, name: str) -> Color:
    options = _INKS[name]
    base = np.array(options[rng.integers(len(options))], float)
    return tuple(int(v) for v in np.clip(base + rng.normal(0, 12, 3), 0, 255))


def _ell(cx: float, cy: float, ax: float, ay: float, a0: int = 0, a1: int = 360,
         angle: float = 0) -> np.ndarray:
    pts = cv2.ellipse2Poly((0, 0), (1000, 1000), int(angle), a0, a1, 10).astype(float) / 1000
    return np.stack([cx + pts[:, 0] * ax, cy + pts[:, 1] * ay], 1)


def _poly(*pts: tuple[float, float]) -> np.ndarray:
    return np.array(pts, float)


@dataclass
class DeckStyle:
    seed: int
    ratio: float  # height / width
    paper: Color
    border: int  # 0 none, 1 line, 2 double line, 3 thick frame
    border_color: Color
    indices: int  # 0 none, 1 rank numbers in corners, 2 numbers in boxes
    index_color: Color
    french: bool
    pips: dict[str, list[Prim]] = field(repr=False)
    layout: dict[str, dict] = field(repr=False)
    figure: dict = field(repr=False)
    back: dict = field(repr=False)

    @classmethod
    def from_seed(cls, seed: int) -> DeckStyle:
        """Style 0 is the built-in deck; any other seed gives a different style."""
        rng = np.random.default_rng(seed + 7919 if seed else 20240601)
        french = bool(seed) and rng.random() < 0.2
        ratio = 89 / 58 if seed == 0 else float(rng.uniform(1.45, 1.75))
        paper = (240, 246, 248) if seed == 0 else tuple(
            int(v) for v in np.clip(rng.normal([238, 244, 248], 8), 200, 255))
        border = 1 if seed == 0 else int(rng.choice([0, 0, 1, 2, 3]))
        border_color = _ink(rng, str(rng.choice(["red", "blue", "black", "green"])))
        indices = 0 if seed == 0 else int(rng.choice([0, 0, 1, 2]))
        pips = {s: _suit_shape(rng, s, french) for s in "dcsb"}
        layout = {s: {"spread_x": float(rng.uniform(0.16, 0.26)),
                      "spread_y": float(rng.uniform(0.22, 0.32)),
                      "size": float(rng.uniform(0.8, 1.15)),
                      "crossed": bool(s in "sb" and not french and rng.random() < 0.4),
                      "tilt": float(rng.uniform(-25, 25)) if rng.random() < 0.3 else 0.0}
                  for s in "dcsb"}
        figure = {"scale": float(rng.uniform(0.8, 1.0)), "ground": bool(rng.random() < 0.7),
                  "mirror": bool(rng.random() < 0.5),
                  "colors": [_ink(rng, n) for n in ("red", "yellow", "blue", "green", "red",
                                                    "green", "blue", "yellow")],
                  "skin": _ink(rng, "skin"), "horse": _ink(rng, str(rng.choice(
                      ["brown", "black", "yellow"]))), "seed": int(rng.integers(1 << 30))}
        back = {"kind": int(rng.integers(5)), "ink": _ink(rng, str(rng.choice(
            ["red", "blue", "black", "green"]))), "step": float(rng.uniform(0.07, 0.16)),
            "margin": float(rng.choice([0.0, 0.0, 0.05])), "angle": float(rng.uniform(0, 90))}
        return cls(seed, ratio, paper, border, border_color, indices,
                   _ink(rng, str(rng.choice(["black", "red", "blue"]))), french,
                   pips, layout, figure, back)

    @property
    def size(self) -> tuple[int, int]:
        return RENDER_W, int(round(RENDER_W * self.ratio))


def _suit_shape(rng: np.random.Generator, suit: str, french: bool) -> list[Prim]:
    """A pip in a box of half-size 1 (x and y in -1..1, y down)."""
    c = {n: _ink(rng, n) for n in _INKS}
    outline = c["black"] if rng.random() < 0.6 else None
    prims: list[Prim] = []
    if french:
        red = c["red"]
        if suit == "d":
            prims.append((_poly((0, -1), (0.7, 0), (0, 1), (-0.7, 0)), red, -1))
        elif suit == "c":
            prims += [(_ell(-0.38, -0.35, 0.42, 0.42), red, -1),
                      (_ell(0.38, -0.35, 0.42, 0.42), red, -1),
                      (_poly((-0.78, -0.2), (0.78, -0.2), (0, 0.95)), red, -1)]
        elif suit == "s":
            k = c["black"]
            prims += [(_ell(-0.38, 0.25, 0.42, 0.42), k, -1), (_ell(0.38, 0.25, 0.42, 0.42), k, -1),
                      (_poly((-0.78, 0.1), (0.78, 0.1), (0, -0.95)), k, -1),
                      (_poly((-0.1, 0.4), (0.1, 0.4), (0.3, 0.95), (-0.3, 0.95)), k, -1)]
        else:
            k = c["black"]
            prims += [(_ell(0, -0.45, 0.4, 0.4), k, -1), (_ell(-0.45, 0.15, 0.4, 0.4), k, -1),
                      (_ell(0.45, 0.15, 0.4, 0.4), k, -1),
                      (_poly((-0.1, 0.1), (0.1, 0.1), (0.3, 0.95), (-0.3, 0.95)), k, -1)]
        return prims
    if suit == "d":  # coin: rings and a rosette
        r_in = rng.uniform(0.55, 0.8)
        prims += [(_ell(0, 0, 1, 1), c["yellow"], -1), (_ell(0, 0, r_in, r_in), c["red"], -1)]
        petals = int(rng.integers(4, 11))
        for i in range(petals):
            a = 2 * math.pi * i / petals
            prims.append((_ell(0.5 * r_in * math.cos(a), 0.5 * r_in * math.sin(a),
                               0.4 * r_in, 0.16, angle=math.degrees(a)), c["yellow"], -1))
        prims.append((_ell(0, 0, 0.2, 0.2), c[str(rng.choice(["blue", "green"]))], -1))
        if rng.random() < 0.5:
            prims.append((_ell(0, 0, 0.9, 0.9), c["black"], 1))
    elif suit == "c":  # cup: bowl, stem, foot
        w = rng.uniform(0.6, 0.9)
        prims += [(np.vstack([_ell(0, -0.55, w, 0.65, 0, 180)]), c["yellow"], -1),
                  (_ell(0, -0.55, w, 0.16), c["red"], -1),
                  (_poly((-0.12, 0.05), (0.12, 0.05), (0.1, 0.6), (-0.1, 0.6)), c["yellow"], -1),
                  (_ell(0, 0.3, 0.22, 0.12), c["red"], -1),
                  (_poly((-0.12, 0.6), (0.12, 0.6), (0.55, 0.95), (-0.55, 0.95)),
                   c[str(rng.choice(["red", "green", "yellow"]))], -1)]
        if rng.random() < 0.5:
            prims.append((_poly((-w, -0.3), (w, -0.3), (w * 0.8, -0.1), (-w * 0.8, -0.1)),
                          c["green"], -1))
        if rng.random() < 0.4:  # handles
            prims += [(_ell(-w - 0.1, -0.35, 0.2, 0.25, 90, 270), c["black"], 2),
                      (_ell(w + 0.1, -0.35, 0.2, 0.25, -90, 90), c["black"], 2)]
    elif suit == "s":  # sword: blade, guard, grip, pommel
        bw = rng.uniform(0.1, 0.2)
        curve = rng.uniform(0, 0.4) if rng.random() < 0.4 else 0
        ys = np.linspace(-1, 0.45, 8)
        left = [(-bw + curve * math.sin((y + 1) * 1.6), y) for y in ys[1:]]
        right = [(bw + curve * math.sin((y + 1) * 1.6), y) for y in ys[::-1][:-1]]
        tip = (0.0, -1.0)
        blade = np.array([tip] + right[::-1] + left[::-1], float)
        prims += [(blade, c["blue"], -1),
                  (_poly((-0.45, 0.45), (0.45, 0.45), (0.45, 0.55), (-0.45, 0.55)),
                   c["yellow"], -1),
                  (_poly((-0.09, 0.55), (0.09, 0.55), (0.09, 0.85), (-0.09, 0.85)),
                   c[str(rng.choice(["red", "brown", "yellow"]))], -1),
                  (_ell(0, 0.9, 0.14, 0.1), c["yellow"], -1)]
    else:  # bastone: a tapered knotty club or a leaf-shaped one
        if rng.random() < 0.5:
            prims.append((_poly((-0.13, -1), (0.13, -1), (0.28, 0.95), (-0.28, 0.95)),
                          c[str(rng.choice(["green", "brown", "red"]))], -1))
            for y in np.linspace(-0.7, 0.7, int(rng.integers(2, 5))):
                prims.append((_ell(0.22 + 0.1 * y, y, 0.1, 0.07), c["red"], -1))
                prims.append((_ell(-0.22 - 0.1 * y, y + 0.12, 0.1, 0.07), c["yellow"], -1))
        else:
            prims += [(_ell(0, 0.15, 0.42, 0.85), c["red"], -1),
                      (_poly((-0.12, -1), (0.12, -1), (0.25, 0), (-0.25, 0)), c["green"], -1),
                      (_ell(0, 0.2, 0.12, 0.6), c["yellow"], -1)]
    if outline is not None:
        prims = prims + [(p, outline, 1) for p, _, t in prims[:1] if t < 0]
    return prims


def _draw(img: np.ndarray, prims: list[Prim], cx: float, cy: float, sx: float, sy: float,
          angle: float = 0.0) -> None:
    ca, sa = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for pts, color, thick in prims:
        x, y = pts[:, 0] * sx, pts[:, 1] * sy
        p = np.stack([cx + x * ca - y * sa, cy + x * sa + y * ca], 1)
        p = np.round(p * 16).astype(np.int32)
        if thick < 0:
            cv2.fillPoly(img, [p], color, cv2.LINE_AA, shift=4)
        else:
            cv2.polylines(img, [p], True, color, max(1, int(thick)), cv2.LINE_AA, shift=4)


def _pip_positions(rank: int, suit: str, lay: dict) -> list[tuple[float, float, float]]:
    """Pip centres (fractions of card width/height) and rotation for ranks 1-7."""
    sx, sy = lay["spread_x"], lay["spread_y"]
    long_pips = suit in "sb"
    if rank == 1:
        return [(0.5, 0.5, 0.0)]
    if long_pips and lay["crossed"]:
        # Swords and clubs crossing in an X, extra ones upright in the middle.
        out = []
        pairs, extra = divmod(rank, 2)
        for i in range(pairs):
            dx = (i - (pairs - 1) / 2) * 0.25
            out += [(0.5 + dx, 0.5, 28.0), (0.5 + dx, 0.5, -28.0)]
        if extra:
            out.append((0.5, 0.5, 0.0))
        return out
    if long_pips:
        cols = {2: [0.38, 0.62], 3: [0.3, 0.5, 0.7], 4: [0.3, 0.7], 5: [0.3, 0.7],
                6: [0.3, 0.5, 0.7], 7: [0.3, 0.5, 0.7]}[rank]
        if rank <= 3:
            return [(x, 0.5, 0.0) for x in cols]
        out = [(x, y, 0.0) for y in (0.28, 0.72) for x in cols]
        if rank == 5:
            out.append((0.5, 0.5, 90.0))
        if rank == 7:
            out.append((0.5, 0.5, 90.0))
        return out
    grid = {
        2: [(0.5, 0.5 - sy), (0.5, 0.5 + sy)],
        3: [(0.5, 0.5 - sy * 1.2), (0.5, 0.5), (0.5, 0.5 + sy * 1.2)],
        4: [(0.5 - sx, 0.5 - sy), (0.5 + sx, 0.5 - sy), (0.5 - sx, 0.5 + sy),
            (0.5 + sx, 0.5 + sy)],
        5: [(0.5 - sx, 0.5 - sy), (0.5 + sx, 0.5 - sy), (0.5, 0.5), (0.5 - sx, 0.5 + sy),
            (0.5 + sx, 0.5 + sy)],
        6: [(0.5 + dx, 0.5 + dy) for dy in (-sy * 1.2, 0, sy * 1.2) for dx in (-sx, sx)],
        7: [(0.5 + dx, 0.5 + dy) for dy in (-sy * 1.2, 0, sy * 1.2) for dx in (-sx, sx)]
        + [(0.5, 0.5 - sy * 0.6)],
    }[rank]
    return [(x, y, 0.0) for x, y in grid]


def _pip_size(rank: int, suit: str, lay: dict, w: int, h: int) -> tuple[float, float]:
    """Half-width and half-height of one pip in pixels."""
    base = {1: 0.36, 2: 0.2, 3: 0.17, 4: 0.16, 5: 0.15, 6: 0.14, 7: 0.13}[rank] * lay["size"]
    if suit in "sb" and rank > 1:
        if rank >= 4 and not lay["crossed"]:  # two rows of long pips
            return w * 0.08 * lay["size"], h * 0.2
        return w * 0.09 * lay["size"], h * 0.36
    return w * base, w * base


def _draw_figure(img: np.ndarray, style: DeckStyle, rank: int, suit: str) -> None:
    """A stylised Fante (8), Cavallo (9) or Re (10): different colours per suit and rank."""
    h, w = img.shape[:2]
    f = style.figure
    rng = np.random.default_rng(f["seed"] + 31 * rank + ord(suit))
    cols = [f["colors"][i] for i in rng.permutation(len(f["colors"]))]
    s = f["scale"]
    mirror = -1 if (f["mirror"] ^ (suit in "cb")) else 1
    cx = w * 0.5

    def X(v: float) -> float:
        return cx + mirror * v * w * s

    def Y(v: float) -> float:
        return h * (0.5 + v * s)

    def poly(color: Color, *pts: tuple[float, float]) -> None:
        p = np.array([(X(x), Y(y)) for x, y in pts])
        cv2.fillPoly(img, [np.round(p * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)

    def ell(color: Color, x: float, y: float, ax: float, ay: float) -> None:
        cv2.ellipse(img, (int(X(x)), int(Y(y))), (max(1, int(ax * w * s)), max(1, int(ay * h * s))),
                    0, 0, 360, color, -1, cv2.LINE_AA)

    if f["ground"]:
        poly(cols[7], (-0.35, 0.42), (0.35, 0.42), (0.35, 0.46), (-0.35, 0.46))
    if rank == 9:  # horse with a small rider
        horse = style.figure["horse"]
        ell(horse, 0.0, 0.12, 0.28, 0.09)
        for lx in (-0.2, -0.1, 0.12, 0.22):
            poly(horse, (lx - 0.025, 0.15), (lx + 0.025, 0.15), (lx + 0.02, 0.42),
                 (lx - 0.02, 0.42))
        poly(horse, (0.18, 0.1), (0.28, 0.05), (0.36, -0.12), (0.26, -0.12))
        ell(horse, 0.36, -0.12, 0.08, 0.035)
        poly(cols[0], (-0.12, -0.15), (0.08, -0.15), (0.12, 0.08), (-0.14, 0.08))
        poly(cols[1], (-0.02, 0.0), (0.06, 0.0), (0.04, 0.2), (-0.01, 0.2))
        ell(f["skin"], -0.02, -0.21, 0.06, 0.045)
        poly(cols[2], (-0.09, -0.25), (0.05, -0.25), (-0.02, -0.3))
        hand = (0.2, -0.26)
    else:
        poly(cols[1], (-0.1, 0.1), (-0.02, 0.1), (-0.04, 0.42), (-0.1, 0.42))
        poly(cols[2], (0.02, 0.1), (0.1, 0.1), (0.1, 0.42), (0.04, 0.42))
        robe = 0.28 if rank == 10 else 0.16
        poly(cols[0], (-0.14, -0.22), (0.14, -0.22), (robe, 0.15 if rank == 8 else 0.38),
             (-robe, 0.15 if rank == 8 else 0.38))
        poly(cols[3], (-0.14, -0.2), (-0.25, 0.05), (-0.2, 0.07), (-0.1, -0.1))
        poly(cols[4], (0.12, -0.2), (0.28, -0.3), (0.3, -0.25), (0.14, -0.1))
        ell(f["skin"], 0.0, -0.3, 0.09, 0.06)
        if rank == 10:  # crown
            poly(cols[5] if cols[5] != cols[0] else (40, 200, 240), (-0.09, -0.35), (-0.09, -0.43),
                 (-0.045, -0.38), (0, -0.45), (0.045, -0.38), (0.09, -0.43), (0.09, -0.35))
        else:
            poly(cols[5], (-0.1, -0.34), (0.12, -0.36), (0.0, -0.42))
        hand = (0.3, -0.3)
    pip_w = w * 0.1 * s
    if suit in "sb" and not style.french:
        _draw(img, style.pips[suit], X(hand[0]), Y(hand[1]) + pip_w * 0.5, pip_w * 0.9,
              pip_w * 2.5, 0)
    else:
        _draw(img, style.pips[suit], X(hand[0]), Y(hand[1]), pip_w, pip_w)


_FIG_LABEL = {8: "F", 9: "C", 10: "R"}
_FRENCH_LABEL = {1: "A", 8: "J", 9: "Q", 10: "K"}


def render_card(style: DeckStyle, code: str | Card) -> np.ndarray:
    """The face of one card as a BGR image of ``style.size``."""
    card = code if isinstance(code, Card) else Card.parse(code)
    w, h = style.size
    img = np.full((h, w, 3), style.paper, np.uint8)
    suit, rank = card.suit.value, card.rank
    if rank >= 8:
        _draw_figure(img, style, rank, suit)
    else:
        lay = style.layout[suit]
        hw, hh = _pip_size(rank, suit, lay, w, h)
        for fx, fy, ang in _pip_positions(rank, suit, lay):
            _draw(img, style.pips[suit], fx * w, fy * h, hw, hh, ang + lay["tilt"] * (rank > 1))
    _draw_frame(img, style, card)
    return img


def _draw_frame(img: np.ndarray, style: DeckStyle, card: Card) -> None:
    h, w = img.shape[:2]
    m = int(w * 0.05)
    if style.border == 1:
        cv2.rectangle(img, (m, m), (w - m, h - m), style.border_color, 1, cv2.LINE_AA)
    elif style.border == 2:
        cv2.rectangle(img, (m, m), (w - m, h - m), style.border_color, 2, cv2.LINE_AA)
        cv2.rectangle(img, (m + 4, m + 4), (w - m - 4, h - m - 4), style.border_color, 1)
    elif style.border == 3:
        cv2.rectangle(img, (m, m), (w - m, h - m), style.border_color, 4, cv2.LINE_AA)
    if style.indices:
        label = (_FRENCH_LABEL.get(card.rank) if style.french else None) or str(card.rank)
        for flip in (False, True):
            tile = np.full((26, 24, 3), style.paper, np.uint8)
            if style.indices == 2:
                cv2.rectangle(tile, (1, 1), (22, 24), style.index_color, 1)
            color = style.pips[card.suit.value][0][1] if style.french else style.index_color
            cv2.putText(tile, label, (3 if len(label) == 1 else 0, 19), cv2.FONT_HERSHEY_SIMPLEX,
                        0.6 if len(label) == 1 else 0.5, color, 2, cv2.LINE_AA)
            if flip:
                tile = tile[::-1, ::-1]
                img[h - m - 28:h - m - 2, w - m - 26:w - m - 2] = tile
            else:
                img[m + 2:m + 28, m + 2:m + 26] = tile


def render_back(style: DeckStyle) -> np.ndarray:
    """The back of the deck: a repeating pattern, the same for all 40 cards."""
    w, h = style.size
    b = style.back
    ink, paper = b["ink"], (250, 250, 250)
    img = np.full((h, w, 3), paper, np.uint8)
    step = max(5, int(b["step"] * w))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(b["angle"])
    u, v = xx * math.cos(a) + yy * math.sin(a), -xx * math.sin(a) + yy * math.cos(a)
    kind = b["kind"]
    if kind == 0:  # checks
        mask = ((u // step + v // step) % 2) == 0
    elif kind == 1:  # cross-hatching
        mask = ((u % step) < step * 0.3) | ((v % step) < step * 0.3)
    elif kind == 2:  # dots
        mask = ((u % step - step / 2) ** 2 + (v % step - step / 2) ** 2) < (step * 0.3) ** 2
    elif kind == 3:  # stripes
        mask = (u % step) < step * 0.5
    else:  # tumbling blocks-like: three tones
        t = ((u // step) + 2 * (v // step)) % 3
        img[t == 1] = ink
        img[t == 2] = tuple(int(c * 0.5 + 127) for c in ink)
        mask = np.zeros((h, w), bool)
    img[mask] = ink
    m = int(b["margin"] * w)
    if m:
        img[:m], img[-m:], img[:, :m], img[:, -m:] = paper, paper, paper, paper
    return img


def render_deck(style: DeckStyle) -> dict[str, np.ndarray]:
    """All 40 faces keyed by card code, plus ``"back"``."""
    out = {str(c): render_card(style, c) for c in ALL_CARDS}
    out["back"] = render_back(style)
    return out
