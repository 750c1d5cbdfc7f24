"""An enrolled deck: one reference embedding per card face (both ways up) and the back.

Saved as ``.npz`` with the embeddings, their labels (card codes, ``"back"``),
the sha1 of the model that made them (embeddings of another model are
meaningless), the deck's card size ratio, and the enrolled faces themselves as
64x96 patches: the final name comes from comparing a card with them
(``vision.verify``), not from the embedding alone.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from table_controller.engine.words import Say

BACK = "back"


class DeckFileError(ValueError):
    """A deck file that cannot be used (missing, corrupt, made by another model). Its
    message is a ``Say``: English as a str, said in the reader's language where it
    reaches one."""


def model_sha1(model_path: str | Path) -> str:
    return hashlib.sha1(Path(model_path).read_bytes()).hexdigest()


@dataclass
class EnrolledDeck:
    embeddings: np.ndarray  # (N, D) float32, L2-normalised
    labels: np.ndarray  # (N,) str: card code or "back"
    model_sha: str
    name: str = "deck"
    ratio: float = 89 / 58  # card height / width
    # Faces with one half hidden under the deck's own back, as the crosswise briscola
    # lies under the stock (empty when no back was enrolled).
    covered_embeddings: np.ndarray | None = None
    covered_labels: np.ndarray | None = None
    # The enrolled faces (and back) as upright 64x96 BGR patches, one per code.
    patches: np.ndarray | None = None  # (K, 96, 64, 3) uint8
    patch_labels: np.ndarray | None = None  # (K,) str

    def faces(self) -> dict[str, np.ndarray]:
        """Code (and ``"back"``) -> enrolled patch; empty for a deck saved without them."""
        if self.patches is None:
            return {}
        return {str(c): p for c, p in zip(self.patch_labels, self.patches, strict=True)}

    @property
    def codes(self) -> list[str]:
        return sorted({str(x) for x in self.labels if x != BACK})

    @property
    def has_back(self) -> bool:
        return bool(np.any(self.labels == BACK))

    def save(self, path: str | Path) -> Path:
        """Write atomically: a reader never sees a half-written deck."""
        path = Path(path)
        tmp = path.with_name(path.name + ".part.npz")
        extra = {}
        if self.covered_embeddings is not None:
            extra = {"covered_embeddings": self.covered_embeddings.astype(np.float32),
                     "covered_labels": self.covered_labels.astype(str)}
        if self.patches is not None:
            extra |= {"patches": self.patches.astype(np.uint8),
                      "patch_labels": self.patch_labels.astype(str)}
        try:
            np.savez_compressed(tmp, embeddings=self.embeddings.astype(np.float32),
                     labels=self.labels.astype(str), model_sha=np.array(self.model_sha),
                     name=np.array(self.name), ratio=np.array(self.ratio), **extra)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)  # no half-written file left behind
            raise
        return path

    @classmethod
    def load(cls, path: str | Path, model_path: str | Path | None = None) -> EnrolledDeck:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                covered = ((z["covered_embeddings"].astype(np.float32),
                            z["covered_labels"].astype(str))
                           if "covered_embeddings" in z.files else (None, None))
                faces = ((z["patches"].astype(np.uint8), z["patch_labels"].astype(str))
                         if "patches" in z.files else (None, None))
                deck = cls(z["embeddings"].astype(np.float32), z["labels"].astype(str),
                           str(z["model_sha"]), str(z["name"]), float(z["ratio"]), *covered,
                           *faces)
        except FileNotFoundError:
            raise DeckFileError(Say("deck file not found: {path}", path=str(path))) from None
        except IsADirectoryError:
            raise DeckFileError(Say("{path} is a folder, not a deck file",
                                    path=str(path))) from None
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):
            # NumPy's own reasons (pickled data, a bad zip) say nothing to a player.
            raise DeckFileError(Say("{path} is not a deck file made by 'enroll'",
                                    path=str(path))) from None
        if model_path is not None and deck.model_sha != model_sha1(model_path):
            raise DeckFileError(Say("{path} was enrolled with another recognition model: "
                                    "enroll the deck again", path=str(path)))
        if deck.patches is None:
            raise DeckFileError(Say("{path} was enrolled by an older version that kept no "
                                    "pictures of the faces: enroll the deck again",
                                    path=str(path)))
        return deck
