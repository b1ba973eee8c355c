"""PopQA's test set (Mallen et al., 2023): the Hub split or a local copy, and its rows as the docs the grader reads
(gold = any of ``possible_answers``; popularity bin = floor(log10(s_pop)))."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

HUB_ID = "akariasai/PopQA"


def popularity(s_pop: Any, row: int) -> float | None:
    """``s_pop`` as a number (None when missing); text, a boolean, infinity or NaN is a one-line error."""
    if s_pop is None:
        return None
    if isinstance(s_pop, bool) or not isinstance(s_pop, (int, float)) or not math.isfinite(s_pop):
        raise HallubenchError(f"popqa: row {row} s_pop must be a finite number, got {s_pop!r}")
    return s_pop


def popularity_bin(s_pop: float | None) -> int | None:
    """floor(log10(s_pop)); None for a missing or non-positive popularity."""
    if s_pop is None:
        return None
    return math.floor(math.log10(s_pop)) if s_pop >= 1 else None


def parse_answers(value: str | list[str], row: int) -> list[str]:
    """``possible_answers``: a JSON list in a string (as on the Hub) or a list; at least one non-empty answer."""
    answers = json.loads(value) if isinstance(value, str) else value
    if not isinstance(answers, list) or not any(isinstance(a, str) and a.strip() for a in answers):
        raise HallubenchError(f"popqa: row {row} possible_answers is not a non-empty list of strings: {value!r}")
    return [a for a in answers if isinstance(a, str) and a.strip()]


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs: question, gold answers, relation (``prop``), popularity and its log10 bin."""
    import datasets
    docs = []
    for i, row in enumerate(rows):
        try:
            golds = parse_answers(row["possible_answers"], i)
        except json.JSONDecodeError as exc:
            raise HallubenchError(f"popqa: row {i} possible_answers is not JSON ({exc.msg})") from exc
        s_pop = popularity(row["s_pop"], i)
        docs.append({"id": str(row.get("id") if row.get("id") is not None else i), "question": row["question"],
                     "golds": golds, "prop": str(row["prop"]), "s_pop": s_pop, "popularity_bin": popularity_bin(s_pop)})
    return datasets.Dataset.from_list(docs)


def read_official(location: str | None) -> list[dict[str, Any]]:
    """The Hub test split (``location`` None) or the parquet / JSON-lines / TSV files of a folder (a snapshot of
    the Hub repository, or the authors' ``test.tsv``)."""
    import datasets
    if location is None:
        return datasets.load_dataset(HUB_ID, split="test").to_list()
    builders = {".parquet": "parquet", ".jsonl": "json", ".tsv": "csv"}
    files = sorted(p for p in Path(location).rglob("*") if p.suffix in builders)
    if not files:
        raise HallubenchError(f"{location}: no .parquet, .jsonl or .tsv files of {HUB_ID}")
    same = [str(p) for p in files if p.suffix == files[0].suffix]
    extra = {"delimiter": "\t"} if files[0].suffix == ".tsv" else {}
    return datasets.load_dataset(builders[files[0].suffix], data_files=same, split="train", **extra).to_list()
