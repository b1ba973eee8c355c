"""Real medicine names for MixedEntities: every known variant (for the existence check) and
per-position word pools (for building new names).

Sources: the paper's Kaggle "250k medicines" CSV (columns ``name``, ``substitute0..4``) given as
a path, or, offline, the name dictionary shipped in ``drug-named-entity-recognition`` (a bz2
pickle read as trusted package data; its variants are lower case and are title-cased here).
"""

from __future__ import annotations

import bz2
import csv
import importlib.util
import pickle
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from hallubench.errors import HallubenchError

MAX_WORDS = 3
KAGGLE_COLUMNS = ("name", "substitute0", "substitute1", "substitute2", "substitute3", "substitute4")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def clean_words(name: str) -> list[str] | None:
    """The paper's cleaning: drop bracketed parts and words with digits; None for names with ',' or '&'."""
    if "," in name or "&" in name:
        return None
    words = [w for w in _BRACKETS.sub(" ", name).split() if not any(ch.isdigit() for ch in w)]
    return words or None


@dataclass(frozen=True)
class MedicineNames:
    """``known``: every name variant, lower case; ``shapes``: the cleaned real names (word
    tuples, <= 3 words, sorted) whose lengths are copied; ``pools[i]``: sorted words seen at position i."""

    source: str
    known: frozenset[str]
    shapes: tuple[tuple[str, ...], ...]
    pools: tuple[tuple[str, ...], ...]

    @classmethod
    def from_names(cls, names: Iterable[str], source: str) -> "MedicineNames":
        names = sorted({" ".join(n.split()) for n in names if n and n.strip()})
        known = {n.lower() for n in names}
        shapes = set()
        for name in names:
            words = clean_words(name)
            if words and len(words) <= MAX_WORDS:
                shapes.add(tuple(words))
                known.add(" ".join(words).lower())
        if not shapes:
            raise HallubenchError(f"no usable medicine names in {source}")
        pools = tuple(
            tuple(sorted({s[i] for s in shapes if len(s) > i})) for i in range(MAX_WORDS)
        )
        return cls(source, frozenset(known), tuple(sorted(shapes)), pools)

    def exists(self, name: str) -> bool:
        return " ".join(name.split()).lower() in self.known


def load_kaggle(path: Path) -> MedicineNames:
    """The Kaggle 250k medicines CSV: every ``name`` and ``substitute*`` cell is a real name."""
    if not Path(path).is_file():
        raise HallubenchError(f"medicine list {path} not found (Kaggle: shudhanshusingh/250k-medicines-usage-side-effects-and-substitutes)")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in KAGGLE_COLUMNS[:1] if c not in (reader.fieldnames or [])]
        if missing:
            raise HallubenchError(f"{path}: no {missing} column; expected the Kaggle 250k medicines CSV")
        names = [row[c] for row in reader for c in KAGGLE_COLUMNS if row.get(c)]
    return MedicineNames.from_names(names, f"Kaggle 250k medicines ({Path(path).name})")


def load_drug_ner() -> MedicineNames:
    """Every name variant of ``drug-named-entity-recognition``'s dictionary (offline)."""
    spec = importlib.util.find_spec("drug_named_entity_recognition")
    if spec is None or spec.origin is None:
        raise HallubenchError("the offline medicine list needs drug-named-entity-recognition (scripts/setup.sh)")
    with bz2.open(Path(spec.origin).parent / "drug_ner_dictionary.pkl.bz2", "rb") as fh:
        variants = pickle.load(fh)["drug_variant_to_canonical"]  # trusted package data
    names = [" ".join(w[:1].upper() + w[1:] for w in v.split()) for v in variants]
    return MedicineNames.from_names(names, "drug-named-entity-recognition 2.0.9 dictionary")
