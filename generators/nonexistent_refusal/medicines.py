"""Real medicine names for MixedEntities: every known variant (for the existence check) and
word pools per (name length, word position) (for building new names), as HalluLens' reference does.

Sources: the paper's Kaggle "250k medicines" CSV (columns ``name``, ``substitute0..4``) given as
a path, or, offline, the name dictionary shipped in ``drug-named-entity-recognition`` (a bz2
pickle read as trusted package data; its variants are lower case and are title-cased here). That
dictionary also holds MeSH headings that are not medicines (proteins, enzymes, receptors, drug
classes); only medicine names feed the pools (``is_medicine_entry``), while every variant stays known.
"""

from __future__ import annotations

import bz2
import csv
import importlib.util
import pickle
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hallubench.core.errors import HallubenchError

MAX_WORDS = 3
KAGGLE_COLUMNS = ("name", "substitute0", "substitute1", "substitute2", "substitute3", "substitute4")
# Sources of drug-named-entity-recognition entries that describe medicines; MeSH alone also covers
# proteins ("AraC Transcription Factor"), enzymes and chemical classes ("Antimalarials").
MEDICINE_SOURCES = frozenset({"drugbank_id", "medline_plus_id", "nhs_url", "wikipedia_url"})
# Words of biomolecule names that DrugBank also lists ("Mast cell growth factor 2", "MBP2 protein").
BIOMOLECULE_WORD = re.compile(
    r"\b(?:receptors?|factors?|regulators?|proteins?|kinases?|antigens?|(?:co-)?repressors?|channels?|subunits?"
    r"|enzymes?|transcription|ligands?)\b",
    re.IGNORECASE,
)
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def clean_words(name: str) -> list[str] | None:
    """The paper's cleaning: drop bracketed parts and words with digits; None for names with ',' or '&'."""
    if "," in name or "&" in name:
        return None
    words = [w for w in _BRACKETS.sub(" ", name).split() if not any(ch.isdigit() for ch in w)]
    return words or None


def _squash(name: str) -> str:
    return " ".join(name.split()).lower()


@dataclass(frozen=True)
class MedicineNames:
    """``known``: every name variant and its cleaned form, lower case; ``reserved``: every word of a
    known name and every word-prefix of a cleaned name (brand stems such as "augmentin duo" of
    "Augmentin 625 Duo Tablet"), lower case; ``shapes``: the cleaned real names (word tuples, <= 3
    words, sorted) whose lengths are copied; ``pools[(length, i)]``: sorted words seen at position i
    of real names of that length."""

    source: str
    known: frozenset[str]
    reserved: frozenset[str]
    shapes: tuple[tuple[str, ...], ...]
    pools: Mapping[tuple[int, int], tuple[str, ...]]

    @classmethod
    def from_names(cls, names: Iterable[str], source: str, also_known: Iterable[str] = ()) -> MedicineNames:
        """Pools from ``names``; ``also_known`` (e.g. non-medicine entries of the same source) only
        count as existing."""
        names = sorted({" ".join(n.split()) for n in names if n and n.strip()})
        known = {n.lower() for n in names} | {_squash(n) for n in also_known if n and n.strip()}
        shapes = set()
        for name in names:
            words = clean_words(name)
            if words and len(words) <= MAX_WORDS:
                shapes.add(tuple(words))
                known.add(" ".join(words).lower())
        if not shapes:
            raise HallubenchError(f"no usable medicine names in {source}")
        reserved = {w for n in known for w in n.split()}
        reserved |= {" ".join(s[:k]).lower() for s in shapes for k in range(1, len(s))}
        pools = {
            (length, i): tuple(sorted({s[i] for s in shapes if len(s) == length}))
            for length in {len(s) for s in shapes}
            for i in range(length)
        }
        return cls(source, frozenset(known), frozenset(reserved), tuple(sorted(shapes)), pools)

    def exists(self, name: str) -> bool:
        """Whether ``name`` (any case) is a real name variant."""
        return _squash(name) in self.known

    def is_reserved(self, name: str) -> bool:
        """Whether ``name`` (any case) is a word of a real name or a brand stem (a real name's first words)."""
        return _squash(name) in self.reserved

    def real_names_within(self, name: str) -> list[str]:
        """The words of ``name`` that are, on their own, a real medicine name ("Aspirin" in "Aspirin Zolvex")."""
        return [w for w in name.split() if self.exists(w)]


def load_kaggle(path: Path) -> MedicineNames:
    """The Kaggle 250k medicines CSV: every ``name`` and ``substitute*`` cell is a real name."""
    if not Path(path).is_file():
        raise HallubenchError(
            f"medicine list {path} not found (Kaggle: "
            "shudhanshusingh/250k-medicines-usage-side-effects-and-substitutes)"
        )
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in KAGGLE_COLUMNS[:1] if c not in (reader.fieldnames or [])]
        if missing:
            raise HallubenchError(f"{path}: no {missing} column; expected the Kaggle 250k medicines CSV")
        names = [row[c] for row in reader for c in KAGGLE_COLUMNS if row.get(c)]
    return MedicineNames.from_names(names, f"Kaggle 250k medicines ({Path(path).name})")


def is_medicine_entry(variant: str, canonical_data: Iterable[Mapping]) -> bool:
    """A dictionary variant names a medicine when one of its entries comes from a drug source
    (DrugBank, MedlinePlus, NHS, a Wikipedia drug infobox), not from MeSH alone, and it has no
    biomolecule word ("factor", "receptor", "protein", ...) and no wiki markup (":")."""
    return (
        any(MEDICINE_SOURCES & set(data) for data in canonical_data)
        and not BIOMOLECULE_WORD.search(variant)
        and ":" not in variant
    )


def load_drug_ner() -> MedicineNames:
    """Medicine-name variants of ``drug-named-entity-recognition``'s dictionary (offline); its other
    variants are known (rejected as candidates) but never used as sources."""
    spec = importlib.util.find_spec("drug_named_entity_recognition")
    if spec is None or spec.origin is None:
        raise HallubenchError("the offline medicine list needs drug-named-entity-recognition (scripts/setup.sh)")
    with bz2.open(Path(spec.origin).parent / "drug_ner_dictionary.pkl.bz2", "rb") as fh:
        dictionary = pickle.load(fh)  # trusted package data
    entries = dictionary["drug_canonical_to_data"]
    medicines, others = [], []
    for variant, canonicals in dictionary["drug_variant_to_canonical"].items():
        name = " ".join(w[:1].upper() + w[1:] for w in variant.split())
        is_medicine = is_medicine_entry(variant, [entries.get(c, {}) for c in canonicals])
        (medicines if is_medicine else others).append(name)
    return MedicineNames.from_names(
        medicines, "drug-named-entity-recognition 2.0.9 dictionary (medicine entries only)", also_known=others
    )
