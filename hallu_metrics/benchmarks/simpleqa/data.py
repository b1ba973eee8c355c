"""SimpleQA's test set (Wei et al., 2024): the public CSV from simple-evals, and its rows as the docs the grader
reads."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

OFFICIAL_URL = "https://openaipublic.blob.core.windows.net/simple-evals/simple_qa_test_set.csv"
OFFICIAL_FILE = "simple_qa_test_set.csv"


def parse_metadata(text: str | Mapping[str, Any] | None, row: int) -> dict[str, Any]:
    """The CSV's metadata cell: a Python dict literal (``{'topic': ..., 'answer_type': ..., 'urls': [...]}``), read
    with ``ast.literal_eval`` (literals only, nothing is executed) or as JSON; a dict is taken as is."""
    if isinstance(text, Mapping):
        return dict(text)
    if not isinstance(text, str) or not text.strip():
        raise HallubenchError(f"simpleqa: row {row} has an empty metadata cell (expected a dict literal with its "
                              "topic and answer_type)")
    for reader in (ast.literal_eval, json.loads):
        try:
            value = reader(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, dict):
            return value
    raise HallubenchError(f"simpleqa: row {row} metadata is not a dict literal: {str(text)[:80]!r}")


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs: question, gold answer (as the one-element ``golds`` list the grader reads), topic, answer type."""
    import datasets
    docs = []
    for i, row in enumerate(rows):
        meta = parse_metadata(row["metadata"], i)
        answer = str(row["answer"]).strip()  # a CSV reader may type an all-numeric column as numbers
        docs.append({"id": str(row.get("id") or i), "question": str(row["problem"]), "answer": answer,
                     "golds": [answer], "topic": str(meta.get("topic") or ""),
                     "answer_type": str(meta.get("answer_type") or "")})
    return datasets.Dataset.from_list(docs)


def read_official(location: str | None) -> list[dict[str, Any]]:
    """The public test set: downloaded once from simple-evals' blob (``location`` None) or read from a folder
    holding ``simple_qa_test_set.csv``. (A single .csv file is read by the shared loader.)"""
    import datasets
    from datasets.utils.file_utils import cached_path

    if location is None:
        try:
            path = cached_path(OFFICIAL_URL)
        except Exception as exc:  # offline, HTTP errors, ...
            raise HallubenchError(f"cannot download {OFFICIAL_URL} ({type(exc).__name__}); pass a local copy "
                                  "with --metadata dataset=PATH") from exc
    else:
        path = Path(location) / OFFICIAL_FILE
        if not path.is_file():
            raise HallubenchError(f"{location}: no {OFFICIAL_FILE} in this folder")
    return datasets.load_dataset("csv", data_files=str(path), split="train").to_list()
