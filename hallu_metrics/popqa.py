"""PopQA as an extrinsic hallucination proxy (Mallen et al., 2023; HalluLens section 5.2): long-tail entity questions
graded three ways (hallu_metrics.short_answer_qa), which adds the refusal measure HalluLens asks for; gold = any
of ``possible_answers``. Results per popularity bin: floor(log10(s_pop)), s_pop = the subject's Wikipedia page
views, so bin k holds subjects with 10^k to 10^(k+1) - 1 views (0 = least popular = hardest)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import datasets

from hallu_metrics import short_answer_qa as qa
from hallu_metrics.contract import Benchmark, Breakdown
from hallubench.errors import HallubenchError

HUB_ID = "akariasai/PopQA"


def popularity_bin(s_pop: Any) -> int | None:
    """floor(log10(s_pop)); None for a missing or non-positive popularity."""
    if s_pop is None or isinstance(s_pop, bool):
        return None
    value = float(s_pop)
    return math.floor(math.log10(value)) if value >= 1 else None


def parse_answers(value: str | list[str], row: int) -> list[str]:
    """``possible_answers``: a JSON list in a string (as on the Hub) or a list; at least one non-empty answer."""
    answers = json.loads(value) if isinstance(value, str) else value
    if not isinstance(answers, list) or not any(isinstance(a, str) and a.strip() for a in answers):
        raise HallubenchError(f"popqa: row {row} possible_answers is not a non-empty list of strings: {value!r}")
    return [a for a in answers if isinstance(a, str) and a.strip()]


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs: question, gold answers, relation (``prop``), popularity and its log10 bin."""
    docs = []
    for i, row in enumerate(rows):
        try:
            golds = parse_answers(row["possible_answers"], i)
        except json.JSONDecodeError as exc:
            raise HallubenchError(f"popqa: row {i} possible_answers is not JSON ({exc.msg})") from exc
        docs.append({"id": str(row.get("id") if row.get("id") is not None else i), "question": row["question"],
                     "golds": golds, "prop": str(row["prop"]), "s_pop": row["s_pop"],
                     "popularity_bin": popularity_bin(row["s_pop"])})
    return datasets.Dataset.from_list(docs)


def read_official(location: str | None) -> list[dict[str, Any]]:
    """The Hub test split (``location`` None) or the parquet / JSON-lines / TSV files of a folder (a snapshot of
    the Hub repository, or the authors' ``test.tsv``)."""
    if location is None:
        return datasets.load_dataset(HUB_ID, split="test").to_list()
    builders = {".parquet": "parquet", ".jsonl": "json", ".tsv": "csv"}
    files = sorted(p for p in Path(location).rglob("*") if p.suffix in builders)
    if not files:
        raise HallubenchError(f"{location}: no .parquet, .jsonl or .tsv files of {HUB_ID}")
    same = [str(p) for p in files if p.suffix == files[0].suffix]
    extra = {"delimiter": "\t"} if files[0].suffix == ".tsv" else {}
    return datasets.load_dataset(builders[files[0].suffix], data_files=same, split="train", **extra).to_list()


BENCHMARK = Benchmark(
    name="popqa_hallu",
    family="hallulens_extrinsic_proxies",
    paper="PopQA (Mallen et al., 2023); HalluLens (Bang et al., 2025) section 5.2",
    columns=datasets.Features({"question": datasets.Value("string"), "possible_answers": datasets.Value("string"),
                               "s_pop": datasets.Value("int64"), "prop": datasets.Value("string")}),
    doc_columns=("id", "question", "golds", "prop", "s_pop", "popularity_bin"),
    to_docs=to_docs,
    metrics=qa.METRICS,
    judge_item=qa.judge_item,
    checks=(qa.GRADE,),
    sample_metrics=qa.sample_metrics,
    breakdowns=(Breakdown("popularity_bin", "ordered", "popularity bin: floor(log10 s_pop), 0 = least popular"),
                Breakdown("prop", "category", "relation")),
    headline=qa.HEADLINE,
    generator=None,
    evaluate_module="short_answer_qa",
    read_official=read_official,
    extra_summary=qa.f_score,
    outcomes=qa.OUTCOMES,
    nullable=("popularity_bin", "s_pop"),
)
