"""Gold (reference, hypothesis) pairs read from a file, a ``save_to_disk`` folder or a Hub id, each hypothesis split
into sentences."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import datasets

from hallu_metrics.longform.sentences import split_sentences
from hallubench.core.errors import HallubenchError


@dataclass
class Pair:
    """One gold source pair and the sentences of its hypothesis."""

    index: int
    reference: str
    hypothesis: str
    sentences: list[str]


def parse_columns(text: str | None) -> dict[str, str]:
    """``reference=COL,hypothesis=COL`` -> mapping (fields not named read their own column)."""
    mapping = {"reference": "reference", "hypothesis": "hypothesis"}
    for item in filter(None, (text or "").split(",")):
        field, equals, column = (part.strip() for part in item.partition("="))
        if not equals or field not in mapping or not column:
            raise HallubenchError(f"--source-columns: {item.strip()!r} is not reference=COLUMN or hypothesis=COLUMN")
        mapping[field] = column
    return mapping


def read_table(location: str, revision: str | None = None) -> datasets.Dataset:
    """A JSON-lines/JSON-array/parquet/CSV file, a ``save_to_disk`` folder or a Hub id (``test`` split, else the
    first split)."""
    from hallubench.core.official_files.tables import read_json_records

    path = Path(location).expanduser()
    try:
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            return datasets.Dataset.from_list(read_json_records(path))
        if path.is_file() and path.suffix in (".parquet", ".csv"):
            return datasets.load_dataset(path.suffix[1:], data_files=str(path), split="train")
        if path.is_dir():
            loaded = datasets.load_from_disk(str(path))
        elif location.count("/") == 1 and not location.startswith((".", "/", "~")):
            loaded = datasets.load_dataset(location, revision=revision)
        else:
            raise HallubenchError(f"--source {location}: no such file, folder or Hub id")
    except HallubenchError:
        raise
    except Exception as exc:  # datasets raises many types for unreadable sources
        raise HallubenchError(f"--source {location}: cannot load ({type(exc).__name__}: {exc})") from exc
    if isinstance(loaded, datasets.DatasetDict):
        loaded = loaded["test"] if "test" in loaded else loaded[next(iter(loaded))]
    return loaded


def read_pairs(location: str, columns: str | None, revision: str | None = None) -> list[Pair]:
    """Gold pairs with non-empty reference and hypothesis, in source order (index = source row)."""
    mapping = parse_columns(columns)
    table = read_table(location, revision)
    missing = [f"{field}={col}" for field, col in mapping.items() if col not in table.column_names]
    if missing:
        raise HallubenchError(f"--source {location} lacks {missing} (columns: {', '.join(table.column_names)}); "
                              "map them with --source-columns reference=COL,hypothesis=COL")
    pairs = []
    for index, row in enumerate(table.select_columns(list(dict.fromkeys(mapping.values())))):
        reference, hypothesis = (str(row[mapping[f]] or "").strip() for f in ("reference", "hypothesis"))
        if reference and hypothesis:
            pairs.append(Pair(index, reference, hypothesis, split_sentences(hypothesis)))
    if not pairs:
        raise HallubenchError(f"--source {location}: no pair with both a reference and a hypothesis")
    return pairs
