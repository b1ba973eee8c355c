"""FaithEval's data: the Hub test splits (or a local snapshot) and the lm-eval docs with the prompts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.faitheval.prompts import KeywordTask, choice_prompt, keyword_prompt
from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

HUB_IDS = {
    "unanswerable": "Salesforce/FaithEval-unanswerable-v1.0",
    "inconsistent": "Salesforce/FaithEval-inconsistent-v1.0",
    "counterfactual": "Salesforce/FaithEval-counterfactual-v1.0",
}


def _choices(row: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    choices = row["choices"]
    if not isinstance(choices, Mapping) or not {"label", "text"} <= set(choices):
        raise HallubenchError(f"faitheval_counterfactual: choices must be {{label: [...], text: [...]}}: {choices!r}")
    return [str(label) for label in choices["label"]], [str(text) for text in choices["text"]]


def _row_id(row: Mapping[str, Any], index: int) -> str:
    return str(row.get("id") or row.get("qid") or index)


def keyword_docs(task: KeywordTask):
    def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
        """Docs with the prompt; ``subset`` (the source QA dataset) kept for the breakdown when present."""
        import datasets
        return datasets.Dataset.from_list([
            {"id": _row_id(row, i), "subset": str(row.get("subset") or ""),
             "prompt": keyword_prompt(task, row["context"], row["question"])}
            for i, row in enumerate(rows)
        ])

    return to_docs


def choice_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs with the multiple-choice prompt, the option labels / texts and the context's answer key."""
    import datasets
    docs = []
    for i, row in enumerate(rows):
        labels, texts = _choices(row)
        if row["answerKey"] not in labels:
            raise HallubenchError(f"faitheval_counterfactual: row {i} answerKey {row['answerKey']!r} not in {labels}")
        docs.append({"id": _row_id(row, i), "subset": "", "prompt": choice_prompt(row["context"], row["question"],
                     labels, texts), "choice_labels": labels, "choice_texts": texts, "answer_key": row["answerKey"]})
    return datasets.Dataset.from_list(docs)


def read_official_for(task: str):
    def read_official(location: str | None) -> list[dict[str, Any]]:
        """The Hub test split (``location`` None), or the parquet / JSON-lines files of a folder (e.g. a
        snapshot of the Hub repository, whose ``data/`` holds ``test-*.parquet``)."""
        import datasets
        if location is None:
            return datasets.load_dataset(HUB_IDS[task], split="test").to_list()
        folder = Path(location)
        files = sorted(p for p in folder.rglob("*") if p.suffix in (".parquet", ".jsonl"))
        if not files:
            raise HallubenchError(f"{location}: no .parquet or .jsonl files of {HUB_IDS[task]}")
        builder = "parquet" if files[0].suffix == ".parquet" else "json"
        same_kind = [str(p) for p in files if p.suffix == files[0].suffix]
        return datasets.load_dataset(builder, data_files=same_kind, split="train").to_list()

    return read_official
