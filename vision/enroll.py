"""Enrolling a deck: 40 face images (and optionally the back) -> ``EnrolledDeck``.

From a folder (``1d.png``, ``10s.jpg``, ..., ``back.jpg``) or live from a
camera, card by card. Every problem with the folder is collected and reported
at once, naming the files, and nothing is written unless all 40 faces are good.

    python -m vision.enroll --builtin   # rebuild vision/models/builtin_deck.npz
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from table_controller.engine.cards import ALL_CARDS, Card, CardError
from table_controller.engine.words import Say, say_n
from vision.deck import BACK, EnrolledDeck, model_sha1
from vision.deck_folder import on_white, with_outline
from vision.detect import edge_support, find_cards_classical, refine_corners, warp_card
from vision.embed import MODEL_PATH, PATCH_H, PATCH_W, Embedder

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"}
SCAN_EDGES = 0.004  # edge pixels around a card-shaped region that make a picture a face
BUILTIN_PATH = Path(__file__).with_name("models") / "builtin_deck.npz"


class EnrollmentError(ValueError):
    """The enrollment images are incomplete or unusable; the message lists every problem."""


class NoCardFound(ValueError):
    """No card could be found in an enrollment picture."""


def card_patch(image: np.ndarray, face: bool = True) -> np.ndarray:
    """The canonical patch of the card shown in ``image``: a scan, a crop or a photo.

    A photo of a card lying on something (any surface, any orientation, 4:3 or 16:9,
    landscape or portrait) is searched for its card, which is rectified. A scan or a
    tight crop is used whole: it is card-shaped, its edge is the card's own paper, and
    whatever card-shaped thing lies inside it (a pip, a figure's panel, the printed
    frame) is part of a busy face, not a card on a bare table; so is a picture
    whose corners are transparent (BGRA: a card cut out along its outline). A face
    (``face``; a back may be all pattern) shows some of its paper. Raises
    :class:`NoCardFound` for a picture that is neither.
    """
    return card_shape(image, face)[0]


def card_shape(image: np.ndarray, face: bool = True) -> tuple[np.ndarray, float]:
    """:func:`card_patch` and the card's proportions (long side / short side) as the
    picture shows them."""
    h, w = image.shape[:2]
    whole = max(h, w) / min(h, w)
    if image.ndim == 3 and image.shape[2] == 4:
        cut_out = _cut_out(image[..., 3])
        image = on_white(image)
        if cut_out:
            return card_patch_whole(image), whole
    quads = find_cards_classical(image, 0.02, 0.995, upright=False, solid=True)
    quad = max(quads, key=lambda q: q.area) if quads else None
    # In a photo the card lies whole in view: a quad against the picture's edge is the
    # picture itself or a card cut off, not the card to enroll.
    m = 0.01 * min(h, w)
    whole_in_view = [q for q in quads if _in_view(q.corners, w, h, m)]
    if 1.4 <= whole <= 1.95:
        # A 16:9 photo has a card's proportions. The learned detector settles it: in a
        # photo it sees the card lying there; in a scan (809 tried, real and procedural
        # decks) it never sees a card of this size, only pips.
        seen = _net_photo_card(image, m) if face else []
        if not seen and _is_scan(image, quad):
            if face and _paper(image) < 0.3:
                raise NoCardFound(Say("no card found"))  # a table, a wall: no card stock in view
            return card_patch_whole(image), whole
        if seen and not whole_in_view:
            corners = _better_outline(image, [], m)
            return warp_card(image, corners), _ratio(corners)
    if not whole_in_view:
        raise NoCardFound(Say("no card found"))
    quad = max(whole_in_view, key=lambda q: q.area)
    # A reference is compared pixel by pixel with every later view: its corners must be
    # the card's own, not the detector's rough ones (twice: a first pass may stop short).
    corners = refine_corners(image, refine_corners(image, quad.corners))
    if face and edge_support(image, corners) < SURE_EDGE:  # (a back's name is the embedding's)
        corners = _better_outline(image, whole_in_view, m)
    if face:
        # A printed frame steps all round too: the card's own edge is the outermost.
        wide = _refined_wide(image, corners)
        if cv2.contourArea(wide) > 1.02 * cv2.contourArea(corners) and \
                edge_support(image, wide) >= SURE_EDGE:
            corners = wide
    return warp_card(image, corners), _ratio(corners)


def _refined_wide(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """``corners`` moved onto the outermost edges within :data:`WIDE_REACH`, then settled:
    of the steps on the way, the outline that lies best on an edge all round (that far
    out, a side may also meet a bright fold of the cloth and step out onto it)."""
    once = refine_corners(image, corners, WIDE_REACH)
    twice = refine_corners(image, once, WIDE_REACH)
    steps = [refine_corners(image, once), refine_corners(image, twice)]
    support = [edge_support(image, c) for c in steps]
    return steps[len(steps) - 1 - int(np.argmax(support[::-1]))]  # ties: the later one


def _ratio(corners: np.ndarray) -> float:
    sides = [float(np.linalg.norm(corners[i] - corners[(i + 1) % 4])) for i in range(4)]
    return (sides[1] + sides[3]) / (sides[0] + sides[2])  # seen at a slant: roughly


def _in_view(corners: np.ndarray, w: int, h: int, margin: float) -> bool:
    return bool(corners[:, 0].min() > margin and corners[:, 1].min() > margin
                and corners[:, 0].max() < w - 1 - margin and corners[:, 1].max() < h - 1 - margin)


SURE_EDGE = 0.8  # a reference's outline must lie on the card's edge on every side
WIDE_REACH = 0.1  # of the card's short side: how far a rough side may be off its edge
PHOTO_CARD = (0.08, 0.6)  # of the picture: a card lying in a photo, not a pip in a scan


def _net_photo_card(image: np.ndarray, margin: float) -> list:
    """The cards of a photo's size the learned detector sees wholly in view, at the
    side it was trained at (one large card is what it saw most there)."""
    from vision.detect import learned_detectors

    net, _ = learned_detectors()
    if net is None:
        return []
    h, w = image.shape[:2]
    sides = (net.train_side,)
    return [c for s in sides for c in net.find(image, side=s) if c.visible >= 0.9
            and _in_view(c.corners, w, h, margin) and PHOTO_CARD[0] * h * w
            <= abs(cv2.contourArea(c.corners.astype(np.float32))) <= PHOTO_CARD[1] * h * w]


def _better_outline(image: np.ndarray, quads: list, margin: float) -> np.ndarray:
    """An outline of the photo's card that lies on its edge all round, where the colour
    masks' largest card does not (a corner ran into a shadow or a pale patch of the
    table) or was not found. The mask outlines ``quads`` and the learned detector's are
    tried; when none holds, the file is refused (a reference a few pixels
    off is worse than none: every later view of the card is compared with it)."""
    from vision.detect import learned_detectors

    tries = [refine_corners(image, refine_corners(image, q.corners)) for q in quads]
    # A mask's corner that ran into a pale patch of the table lies further off its edge
    # than the usual reach: looked for further out (the edge test below still judges).
    tries += [_refined_wide(image, q.corners) for q in quads]
    h, w = image.shape[:2]
    net, refiner = learned_detectors()
    if net is not None:
        # At the side it was trained at too: one large card is what it saw most there.
        found = [c.corners for side in dict.fromkeys((net.long_side, net.train_side))
                 for c in net.find(image, side=side)
                 if c.visible >= 0.9 and _in_view(c.corners, w, h, margin)]
        if found and refiner is not None:
            found = refiner.refine(image, found)
        tries += [refine_corners(image, refine_corners(image, c)) for c in found]
    support = [edge_support(image, c) for c in tries]
    if not tries or max(support) < SURE_EDGE:
        raise NoCardFound(Say("the card's edge is not clear all round"))
    return tries[int(np.argmax(support))]


def _as_card_image(img: np.ndarray) -> np.ndarray:
    """An enrollment file as BGR, or BGRA when it is a card cut out along its outline
    (transparent corners, or corners in a flat key colour as sprites cut from a sheet
    have); a photo's corners are the table, and stay as they are."""
    outlined = with_outline(img)
    if img.ndim == 3 and img.shape[2] == 4:  # a real alpha channel
        return outlined if _cut_out(outlined[..., 3]) else on_white(outlined)
    h, w = img.shape[:2]
    corners = img[[0, 0, -1, -1], [0, -1, 0, -1]].reshape(4, -1)
    # A sprite's key colour is one exact colour in all four corners of a card-shaped
    # picture; a photo's table never is.
    keyed = bool((corners == corners[0]).all()) and int(corners.min()) < 245 and \
        1.4 <= max(h, w) / min(h, w) <= 1.95  # (white corners: a scan's paper, or glare)
    if keyed and _cut_out(outlined[..., 3]):
        return outlined
    return outlined[..., :3]


def _cut_out(alpha: np.ndarray) -> bool:
    """Whether an alpha channel is a card's outline: at least three corners transparent
    for a run of 2% of the side along the top and bottom edges (rounded corners, not a
    stray pixel)."""
    h, w = alpha.shape
    run = max(2, w // 50)
    corners = [alpha[0, :run], alpha[0, -run:], alpha[-1, :run], alpha[-1, -run:]]
    return sum(int(np.all(c == 0)) for c in corners) >= 3


def card_patch_whole(image: np.ndarray) -> np.ndarray:
    """A scan or crop of a card, stood upright, as a canonical patch."""
    if image.shape[1] > image.shape[0]:  # a scan lying landscape
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(image, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)


def _paper(image: np.ndarray) -> float:
    """The fraction of ``image`` that looks like white card stock."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(int)
    return float(np.mean((lab[:, 0] > 150) & (np.abs(lab[:, 1:] - 128).max(axis=1) < 20)))


def _is_scan(image: np.ndarray, quad) -> bool:
    """Whether a card-shaped ``image`` is the card itself rather than a photo of one."""
    h, w = image.shape[:2]
    if quad is None or quad.area >= 0.75 * h * w:
        return True  # nothing card-like inside, or the card's own printed frame or panel
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    m = max(2, min(h, w) // 40)
    ring = np.concatenate([lab[:m].reshape(-1, 3), lab[-m:].reshape(-1, 3),
                           lab[:, :m].reshape(-1, 3), lab[:, -m:].reshape(-1, 3)]).astype(int)
    k = np.ones((2 * m + 1, 2 * m + 1), np.uint8)
    inside, band_in, band_out = _bands(lab, quad.corners, k)
    outside = cv2.bitwise_not(cv2.dilate(inside, k))
    # A card lying on a pale cloth: its own border is whiter than what surrounds it, and
    # that is what reaches the picture's edge (in a scan, a panel's edge is ink inside
    # and paper outside; a printed frame around a white panel is not the scan's edge).
    if band_in[0] > band_out[0] + 15 and \
            np.abs(np.median(ring, 0) - band_out).max() < 12:
        return False
    if quad.area < 0.4 * h * w and _paper(image) >= 0.4 and \
            _paper(warp_card(image, quad.corners)) < 0.4:
        # Mostly card stock, and what was found in it is ink: a pip, a panel; unless the
        # panel grows to a card's own edge, white inside, on a pale cloth.
        wide = _refined_wide(image, refine_corners(image, quad.corners))
        if edge_support(image, wide) >= SURE_EDGE and _in_view(wide, w, h, m) and \
                cv2.contourArea(wide) > 1.1 * cv2.contourArea(quad.corners.astype(np.float32)):
            _, wide_in, wide_out = _bands(lab, wide, k)
            if wide_in[0] > wide_out[0] + 15:
                return False
        return True
    paper = (ring[:, 0] > 140) & (np.abs(ring[:, 1:] - 128).max(axis=1) < 20)
    if paper.mean() < 0.75:
        return False  # the picture's edge is a table, not card stock
    # A card on a bare table differs from what lies around it: that is how it was found.
    # Inside a face, a pip or a panel lies on the card's own paper.
    if np.abs(band_in - band_out).max() < 12:
        return True
    edges = cv2.Canny(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 60, 150)
    busy = cv2.countNonZero(cv2.bitwise_and(edges, outside)) / max(1, cv2.countNonZero(outside))
    return busy > SCAN_EDGES  # more of the face around it


def _bands(lab: np.ndarray, corners: np.ndarray, k: np.ndarray,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mask inside ``corners``, and the median colour (Lab) of the band just inside
    its edge and of the band just outside, each as wide as the kernel ``k`` reaches."""
    inside = np.zeros(lab.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, np.round(corners).astype(np.int32), 255)
    band_in = np.median(lab[cv2.subtract(inside, cv2.erode(inside, k)) > 0], 0)
    band_out = np.median(lab[cv2.subtract(cv2.dilate(inside, k), inside) > 0], 0)
    return inside, band_in.astype(float), band_out.astype(float)


def read_enrollment_dir(folder: str | Path,
                        each: Callable[[str, np.ndarray], object] | None = None) -> dict:
    """Images of a deck folder keyed by card code (and ``"back"``); all errors at once.

    With ``each``, every image is handed to ``each(code, image)`` as it is read and the
    result kept instead of the image (41 phone photos would take 150 MB at once).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise EnrollmentError(Say("enrollment folder not found: {folder}", folder=folder))
    by_code: dict[str, list[Path]] = {}
    ignored: list[str] = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        stem = p.stem.strip().lower()
        if stem == BACK:
            by_code.setdefault(BACK, []).append(p)
            continue
        try:
            by_code.setdefault(str(Card.parse(stem)), []).append(p)
        except CardError:
            ignored.append(p.name)
    problems: list[Say] = []
    missing = [str(c) for c in ALL_CARDS if str(c) not in by_code]
    if missing:
        # Both English forms keep the "(s)" that scripts read; the catalogs agree with n.
        problems.append(say_n("missing {n} card(s): {cards}", "missing {n} card(s): {cards}",
                              len(missing), cards=", ".join(missing)))
    for code, paths in by_code.items():
        if len(paths) > 1:
            problems.append(Say("duplicate images for {card}: {files}", card=code,
                                files=", ".join(p.name for p in paths)))
    out: dict[str, object] = {}
    unreadable: list[str] = []
    digests: dict[str, str] = {}
    for code, paths in sorted(by_code.items()):
        img = cv2.imread(str(paths[0]), cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim not in (2, 3) or min(img.shape[:2]) < 16:
            unreadable.append(paths[0].name)
            continue
        img = _as_card_image(img)
        digest = hashlib.sha1(img.tobytes()).hexdigest()
        if digest in digests:
            problems.append(Say("{file} and {other} are the same picture",
                                file=digests[digest], other=paths[0].name))
        digests.setdefault(digest, paths[0].name)
        out[code] = img if each is None else each(code, img)
    if unreadable:
        problems.append(say_n("unreadable image(s): {files}", "unreadable image(s): {files}",
                              len(unreadable), files=", ".join(unreadable)))
    if problems:
        listed = _listed(problems)
        if ignored:
            raise EnrollmentError(Say("cannot enroll {folder}: {problems} (ignored files not "
                                      "named by card code: {files})", folder=folder,
                                      problems=listed, files=", ".join(ignored)))
        raise EnrollmentError(Say("cannot enroll {folder}: {problems}", folder=folder,
                                  problems=listed))
    return out


def _listed(problems: list[Say]) -> Say:
    """The problems one after another ("a; b; c"), each said in the reader's language."""
    listed = problems[0]
    for problem in problems[1:]:
        listed = Say("{first}; {then}", first=listed, then=problem)
    return listed


def _views(patch: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """The patch plus a few slightly blurred/shifted views: steadier references."""
    out = [patch]
    h, w = patch.shape[:2]
    for _ in range(n):
        m = np.float32([[1, 0, rng.uniform(-1, 1)], [0, 1, rng.uniform(-1, 1)]])
        v = cv2.warpAffine(patch, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        out.append(cv2.GaussianBlur(v, (0, 0), rng.uniform(0.4, 1.0)))
    return out


def enroll_patches(patches: dict[str, np.ndarray], embedder: Embedder, name: str = "deck",
                   ratio: float = 89 / 58, views: int = 2) -> EnrolledDeck:
    """Reference embeddings (upright, then turned 180 degrees) for each patch."""
    rng = np.random.default_rng(0)
    labels, embs = [], []
    codes = list(patches)
    for code in codes:
        for turned in (False, True):
            p = patches[code][::-1, ::-1] if turned else patches[code]
            e = embedder(np.stack(_views(p, rng, views))).mean(axis=0)
            embs.append(e / np.linalg.norm(e))
            labels.append(code)
    emb = np.stack(embs).astype(np.float32)
    cov_emb, cov_labels = _covered_references(patches, embedder)
    faces = np.stack([cv2.resize(patches[c], (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)
                      for c in codes]).astype(np.uint8)
    return EnrolledDeck(emb, np.array(labels), model_sha1(embedder.model_path), name, ratio,
                        cov_emb, cov_labels, faces, np.array(codes))


def _covered_references(patches: dict[str, np.ndarray], embedder: Embedder,
                        ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each face with its top or bottom half under the back, upright and turned.

    The stock lies across the briscola, so its back pattern shows turned by 90
    degrees over the hidden half.
    """
    if BACK not in patches:
        return None, None
    back = cv2.rotate(patches[BACK], cv2.ROTATE_90_CLOCKWISE)  # 96 wide, 64 tall
    half = PATCH_H // 2
    cover = cv2.resize(back, (PATCH_W, half), interpolation=cv2.INTER_AREA)
    views, labels = [], []
    for code, patch in patches.items():
        if code == BACK:
            continue
        for turned in (False, True):
            p = patch[::-1, ::-1] if turned else patch
            top, bottom = p.copy(), p.copy()
            top[:half] = cover
            bottom[PATCH_H - half:] = cover
            views += [top, bottom]
            labels += [code, code]
    emb = embedder(np.stack(views))
    return emb.astype(np.float32), np.array(labels)


def enroll_directory(folder: str | Path, embedder: Embedder | None = None) -> EnrolledDeck:
    """Enroll the deck in ``folder``: every file's card found and rectified, and every
    file whose card cannot be found named at once."""
    def shape(code: str, img: np.ndarray) -> tuple[np.ndarray, float] | None:
        try:
            return card_shape(img, face=code != BACK)
        except NoCardFound:
            return None

    shapes = read_enrollment_dir(folder, shape)
    embedder = embedder or Embedder()
    lost = [code for code, got in shapes.items() if got is None]
    patches = {code: got[0] for code, got in shapes.items() if got is not None}
    ratios = {code: got[1] for code, got in shapes.items() if got is not None}
    if lost:
        names = {code: p for code, p in _file_names(folder).items() if code in lost}
        raise EnrollmentError(Say("cannot enroll {folder}: no card found in {files} "
                                  "(photograph the card whole, on a plain surface, or crop "
                                  "it)", folder=folder,
                                  files=", ".join(names.get(c, c) for c in sorted(lost))))
    ratio = float(np.median([r for c, r in ratios.items() if c != BACK]))
    return enroll_patches(patches, embedder, Path(folder).name, ratio)


def _file_names(folder: str | Path) -> dict[str, str]:
    out = {}
    for p in sorted(Path(folder).iterdir()):
        stem = p.stem.strip().lower()
        if p.suffix.lower() in IMAGE_EXTS:
            try:
                out[stem if stem == BACK else str(Card.parse(stem))] = p.name
            except CardError:
                pass
    return out


def builtin_faces() -> dict[str, np.ndarray]:
    from vision.deck_art import DeckStyle, render_deck

    return render_deck(DeckStyle.from_seed(0))


def builtin_deck(embedder: Embedder | None = None) -> EnrolledDeck:
    """The project's own deck: the committed enrollment, or enrolled now if stale."""
    embedder = embedder or Embedder()
    if BUILTIN_PATH.is_file():
        deck = EnrolledDeck.load(BUILTIN_PATH)
        if deck.model_sha == model_sha1(embedder.model_path):
            return deck
    patches = {c: card_patch(img) for c, img in builtin_faces().items()}
    return enroll_patches(patches, embedder, "builtin")


def load_deck(path: str | Path | None, embedder: Embedder | None = None) -> EnrolledDeck:
    """A deck file, or the built-in deck when ``path`` is None."""
    if path is None:
        return builtin_deck(embedder)
    return EnrolledDeck.load(path, (embedder.model_path if embedder else MODEL_PATH))


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Rebuild the built-in deck's enrollment.")
    ap.add_argument("--builtin", action="store_true", required=True)
    ap.parse_args(argv)
    BUILTIN_PATH.unlink(missing_ok=True)
    deck = builtin_deck()
    deck.save(BUILTIN_PATH)
    print(f"wrote {BUILTIN_PATH} ({len(deck.labels)} references)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
