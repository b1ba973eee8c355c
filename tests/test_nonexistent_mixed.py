"""MixedEntities: name sources, existence checks against real names, determinism and counts."""

import csv
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from hallubench.cli import main
from hallubench.core.errors import HallubenchError
from hallubench_generators.nonexistent_refusal.medicines import MedicineNames, clean_words, load_kaggle
from hallubench_generators.nonexistent_refusal.mixedentities import generate, parse_domains
from hallubench_generators.nonexistent_refusal.taxonomy import ItisTaxonomy

# (tsn, parent, name, children); kingdoms: 202423 Animalia, 202422 Plantae, 50 Bacteria.
ITIS_ROWS = [
    (202423, 0, "Animalia", 1),
    (1, 202423, "Felidae", 5),
    (10, 1, "Panthera", 2),
    (100, 10, "Panthera leo", 0),
    (101, 10, "Panthera tigris", 0),
    (11, 1, "Neofelis", 1),
    (110, 11, "Neofelis nebulosa", 0),
    (12, 1, "Felis", 1),
    (120, 12, "Felis leo", 0),
    (13, 1, "Acinonyx", 0),
    (14, 1, "Felis x Panthera", 1),
    (202422, 0, "Plantae", 1),
    (2, 202422, "Fagaceae", 2),
    (20, 2, "Quercus", 1),
    (200, 20, "Quercus robur", 0),
    (21, 2, "Fagus", 1),
    (210, 21, "Fagus sylvatica", 0),
    (50, 0, "Bacteria", 1),
    (3, 50, "Enterobacteriaceae", 2),
    (30, 3, "Escherichia", 1),
    (300, 30, "Escherichia coli", 0),
    (31, 3, "Salmonella", 1),
    (310, 31, "Salmonella enterica", 0),
]
# The only species names a sibling-genus swap can make that the fixture does not hold.
NEW_ANIMALS = {"Neofelis leo", "Neofelis tigris", "Felis tigris", "Panthera nebulosa", "Felis nebulosa"}
KAGGLE_ROWS = [
    {"name": "Augmentin 625 Duo Tablet", "substitute0": "Azithral 500 Tablet", "substitute1": "Ascoril LS Syrup"},
    {"name": "Crocin (Paracetamol) Advance", "substitute0": "Dolo, Plus", "substitute1": "Cold & Flu Syrup"},
    {"name": "Allegra Tablet", "substitute0": "Avil Injection", "substitute1": "Benadryl"},
]


def _path(tsn, parent_of):
    chain = [tsn]
    while parent_of.get(chain[0]):
        chain.insert(0, parent_of[chain[0]])
    return "-".join(map(str, chain))


@pytest.fixture
def itis_db(tmp_path) -> Path:
    path = tmp_path / "ITIS.sqlite"
    parent_of = {tsn: parent for tsn, parent, _, _ in ITIS_ROWS}
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE hierarchy (hierarchy_string TEXT, TSN INT, Parent_TSN INT, level INT, ChildrenCount INT)"
        )
        db.execute("CREATE TABLE longnames (tsn INT, completename TEXT)")
        db.executemany(
            "INSERT INTO hierarchy VALUES (?, ?, ?, 0, ?)", [(_path(t, parent_of), t, p, c) for t, p, _, c in ITIS_ROWS]
        )
        db.executemany("INSERT INTO longnames VALUES (?, ?)", [(t, n) for t, _, n, _ in ITIS_ROWS])
    return path


@pytest.fixture
def kaggle_csv(tmp_path) -> Path:
    path = tmp_path / "medicines.csv"
    columns = ["id", "name", "substitute0", "substitute1", "substitute2", "substitute3", "substitute4"]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, columns)
        writer.writeheader()
        writer.writerows({"id": i, **row} for i, row in enumerate(KAGGLE_ROWS))
    return path


def test_itis_siblings_skip_childless_genera_and_hybrids(itis_db):
    """Sibling genera share the parent, have children, and exclude hybrids and the genus itself."""
    tax = ItisTaxonomy(itis_db)
    assert tax.sibling_genera("Panthera leo") == ["Felis", "Neofelis"]
    assert tax.domain("Quercus robur") == "plant" and tax.domain("Escherichia coli") == "bacteria"
    assert tax.exists("panthera LEO") and not tax.exists("Neofelis leo")


def test_itis_generation_rejects_existing_names_and_meets_exact_counts(itis_db):
    """Every animal the fixture allows is made exactly once; the real 'Felis leo' is never produced."""
    tax = ItisTaxonomy(itis_db)
    rows, report = generate(["animal", "plant"], 2, 7, lambda: tax, lambda: None)
    assert [r["domain"] for r in rows] == ["animal"] * 2 + ["plant"] * 2
    assert {r["name"] for r in rows[2:]} == {"Fagus robur", "Quercus sylvatica"}
    rows, report = generate(["animal"], 5, 7, lambda: tax, lambda: None)
    assert {r["name"] for r in rows} == NEW_ANIMALS
    assert report.rejected[("animal", "exists")] > 0 and report.rejected[("animal", "duplicate")] > 0
    assert all(r["name"].split()[1] == r["source_name"].split()[1] for r in rows)


def test_shortfall_is_a_clear_error_unless_allowed(itis_db):
    """Asking for more names than the source allows fails, or returns what exists with --allow-shortfall."""
    tax = ItisTaxonomy(itis_db)
    with pytest.raises(HallubenchError, match="only"):
        generate(["animal"], 6, 1, lambda: tax, lambda: None)
    rows, _ = generate(["animal"], 6, 1, lambda: tax, lambda: None, allow_shortfall=True)
    assert len(rows) == 5


def test_kaggle_cleaning_and_medicine_existence(kaggle_csv):
    """Brackets and digit words are dropped, names with ',' or '&' skipped; every variant counts as known."""
    assert clean_words("Crocin (Paracetamol) 500 Advance") == ["Crocin", "Advance"]
    assert clean_words("Dolo, Plus") is None and clean_words("Cold & Flu") is None
    names = load_kaggle(kaggle_csv)
    assert names.exists("augmentin duo tablet") and names.exists("AUGMENTIN 625 DUO TABLET")
    assert names.exists("Crocin (Paracetamol) Advance") and names.exists("Dolo, Plus")
    rows, _ = generate(["medicine"], 5, 3, lambda: None, lambda: names)
    assert len(rows) == 5 and not any(names.exists(r["name"]) for r in rows)


def test_medicine_pools_are_kept_per_name_length_and_position(kaggle_csv):
    """As in the reference, a word fills only the position it had in real names of the same length:
    "Augmentin" starts three-word names only, "Tablet" ends two- and three-word names, and the one-word
    pool holds only one-word names."""
    names = load_kaggle(kaggle_csv)
    assert names.pools[(3, 0)] == ("Ascoril", "Augmentin") and names.pools[(3, 2)] == ("Syrup", "Tablet")
    assert names.pools[(2, 0)] == ("Allegra", "Avil", "Azithral", "Crocin")
    assert names.pools[(2, 1)] == ("Advance", "Injection", "Tablet") and names.pools[(1, 0)] == ("Benadryl",)
    rows, _ = generate(["medicine"], 14, 3, lambda: None, lambda: names)
    for row in rows:
        words = row["name"].split()
        assert all(w in names.pools[(len(words), i)] for i, w in enumerate(words)), row
        assert len(words) == len(row["source_name"].split()) > 1


STEM_NAMES = [
    "Calcium Sandoz Forte",
    "Vitamin C",
    "Crocin Advance",
    "Zincovit Tablet",
    "Aspirin",
    "Dolo Plus",
    "Ultra D3",
]


def test_words_and_brand_stems_of_real_names_are_rejected_in_any_case():
    """A candidate equal to a word of a real name ("Calcium", "VITAMIN", "crocin") or to a brand stem (the first
    words of a real name, "Calcium Sandoz") counts as real; every possible new name is made, none of them reserved."""
    names = MedicineNames.from_names(STEM_NAMES, "stems")
    for reserved in ("Calcium", "VITAMIN", "crocin", "zincovit", "calcium SANDOZ", "Ultra"):
        assert names.is_reserved(reserved), reserved
    assert not names.is_reserved("Calcium Plus") and not names.exists("Calcium Plus")
    rows, report = generate(["medicine"], 50, 1, lambda: None, lambda: names, allow_shortfall=True)
    made = {r["name"] for r in rows}
    two_word = {
        f"{a} {b}" for a in ("Vitamin", "Crocin", "Zincovit", "Dolo") for b in ("C", "Advance", "Tablet", "Plus")
    }
    assert made == two_word - {"Vitamin C", "Crocin Advance", "Zincovit Tablet", "Dolo Plus"}
    assert not any(names.is_reserved(n) for n in made) and report.rejected[("medicine", "exists")] > 0


@pytest.fixture(scope="module")
def drug_names():
    """The offline drug dictionary's names (immutable; ~4 s to load, so once for the module)."""
    from hallubench_generators.nonexistent_refusal.medicines import load_drug_ner

    return load_drug_ner()


def test_offline_dictionary_feeds_only_medicine_names_into_the_pools(drug_names):
    """drug-named-entity-recognition also lists MeSH proteins and drug classes: they stay known (never produced)
    but are never sources; DrugBank / MedlinePlus drugs are."""
    from hallubench_generators.nonexistent_refusal.medicines import is_medicine_entry

    names = drug_names
    shapes = {" ".join(s).lower() for s in names.shapes}
    for protein in ("Arac Transcriptional Regulator", "Smrt Co-repressor", "Scatter Factor", "Antimalarials"):
        assert names.exists(protein) and protein.lower() not in shapes, protein
    assert {"aspirin", "ibuprofen", "metformin"} <= shapes
    assert not any(w in ("Regulator", "Factor", "Receptor", "Protein", "Kinase") for s in names.shapes for w in s)
    assert is_medicine_entry("zolvex", [{"drugbank_id": "DB1"}]) and not is_medicine_entry(
        "zolvex", [{"mesh_id": "D1"}]
    )
    assert not is_medicine_entry("mast cell growth factor", [{"drugbank_id": "DB2"}])


def test_medicine_pools_made_only_of_real_names_give_a_shortfall():
    """When every possible combination is a real name, all candidates are rejected."""
    names = MedicineNames.from_names(["Alpha", "Beta"], "two words")
    with pytest.raises(HallubenchError, match="only"):
        generate(["medicine"], 1, 0, lambda: None, lambda: names)


def test_domains_are_validated():
    """Unknown or repeated domains are refused."""
    assert parse_domains("plant,medicine") == ["plant", "medicine"]
    for bad in ("fungi", "plant,plant", ""):
        with pytest.raises(HallubenchError):
            parse_domains(bad)


def _generate_args(out: Path, itis_db: Path, kaggle_csv: Path) -> list[str]:
    return ["generate", "mixedentities", "--n-per-domain", "2", "--seed", "5", "--itis-db", str(itis_db),
            "--medicine-csv", str(kaggle_csv), "--out", str(out)]


def test_cli_output_is_identical_under_different_hash_seeds(tmp_path, itis_db, kaggle_csv):
    """Same seed, another PYTHONHASHSEED (this process's, and a child's set to another value): identical rows; the
    card reports sources and counts."""
    assert main(_generate_args(tmp_path / "a", itis_db, kaggle_csv)) == 0
    other = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    subprocess.run([sys.executable, "-m", "hallubench.cli", *_generate_args(tmp_path / "b", itis_db, kaggle_csv)],
                   check=True, env={**os.environ, "PYTHONHASHSEED": other}, capture_output=True)
    a, b = (datasets.load_from_disk(str(tmp_path / x))["test"].to_list() for x in "ab")
    assert a == b and len(a) == 8
    assert {r["template_id"] for r in a} <= set(range(10))
    card = (tmp_path / "a" / "README.md").read_text()
    assert "ITIS SQLite" in card and "Kaggle 250k medicines" in card and "| animal | 2 |" in card


def test_ncbi_knows_real_species_and_mixed_names_are_new():
    """Hand-picked real species exist in the offline NCBI taxonomy; generated names do not, keep the
    epithet, and take a sibling genus of the source species."""
    # taxoniq is part of the set-up: no skip
    from hallubench_generators.nonexistent_refusal.taxonomy import NcbiTaxonomy

    tax = NcbiTaxonomy()
    for real in (
        "Panthera leo",
        "Homo sapiens",
        "Quercus robur",
        "Escherichia coli",
        "Arabidopsis thaliana",
        "Neofelis nebulosa",
    ):
        assert tax.exists(real), real
    assert (tax.domain("Panthera leo"), tax.domain("Quercus robur"), tax.domain("Escherichia coli")) == (
        "animal",
        "plant",
        "bacteria",
    )
    assert tax.sibling_genera("Panthera leo") == ["Neofelis", "Pardofelis"]
    rows, _ = generate(["animal", "plant", "bacteria"], 3, 11, lambda: tax, lambda: None)
    for row in rows:
        assert not tax.exists(row["name"]) and tax.exists(row["source_name"])
        genus, epithet = row["name"].split()
        assert epithet == row["source_name"].split()[1]
        assert genus in tax.sibling_genera(row["source_name"])


def test_drug_dictionary_knows_real_drugs_and_mixed_names_are_new(drug_names):
    """Hand-picked real drugs (any case) exist in the offline dictionary; generated medicines do not."""
    names = drug_names
    for real in ("Aspirin", "ibuprofen", "PARACETAMOL", "Lipitor", "amoxicillin", "Metformin"):
        assert names.exists(real), real
    rows, _ = generate(["medicine"], 10, 2, lambda: None, lambda: names)
    assert len({r["name"].lower() for r in rows}) == 10
    assert not any(names.exists(r["name"]) or names.is_reserved(r["name"]) for r in rows)
