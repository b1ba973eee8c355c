"""HHEM leaderboard summarization (HalluLens section 4.1; Vectara's hallucination leaderboard).

The model under test summarises each source document; a consistency scorer (HHEM-2.1-Open by default) gives
P(consistent) for (document, summary). As on the leaderboard: a summary is valid with at least 5 words and is
not a refusal; the hallucination rate is the share of valid summaries scored below 0.5; the answer rate is
valid summaries / documents; the average summary length counts words of valid summaries.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import datasets

from hallu_metrics.contract import UNREADABLE_METRIC, Benchmark, Metric, unreadable_share
from hallu_metrics.faithfulness import RUBRIC
from hallu_metrics.judges import JudgeSet, judge_kind
from hallu_metrics.judges.base import Check
from hallu_metrics.scorers import FLAN_T5_BASE_ID, FLAN_T5_BASE_REVISION, HHEM_2_1_REVISION, HHEM_MODEL_ID
from hallu_metrics.settings import task_setting
from hallubench.errors import HallubenchError

NAME = "hhem_summarization"
THRESHOLD = 0.5  # leaderboard: a summary scored below 0.5 is hallucinated
MIN_WORDS = 5  # leaderboard: a valid summary has at least 5 (whitespace-separated) words
# HHEM-2.1-Open reads the whole (document, summary) pair, as its own predict() does (T5's relative positions need no
# fixed length). 4096 tokens hold every leaderboard document with its summary and the template (the longest pair
# measured 2,330-2,592 tokens with stand-in tokenizers; 2048 cut 1-4 of them, docs/hhem_summarization.md); a longer
# document of another data set is windowed (score = max over windows), never cut, and every record says how much of
# its pair the scorer saw (``scorer_input``).
DEFAULT_SCORER_SPEC = f"hhem:model={HHEM_MODEL_ID},kind=hhem-2.1,window=sliding,max_length=4096"
LEADERBOARD_REPO = "vectara/leaderboard_results"  # Hub dataset with every model's leaderboard summaries
LEADERBOARD_FILE = "leaderboard_summaries.csv"  # columns include source, summary, model
LOCAL_FILES = (LEADERBOARD_FILE, "source_documents.jsonl")

# The leaderboard's prompt structure (a chat assistant told to stick to the passage, asked for a concise
# summary covering the core information, then the passage), in this project's words.
PROMPT = (
    "You are a chat assistant that answers only from the data it is given. Use nothing but the information in "
    "the passage below.\nWrite a concise summary of the passage that covers its key information.\n\n"
    "Passage:\n{source}"
)

# Replies that decline the task instead of summarising (checked at the start of the reply).
_REFUSAL = re.compile(
    r"^\W*(?:I(?:'m| am) sorry|sorry\b|I apologi[sz]e|I (?:cannot|can't|can not|won't|am unable to|'m unable to|"
    r"am not able to|'m not able to)\b|as an AI\b|unfortunately,? I\b)",
    re.IGNORECASE,
)


# ---------------------------------------------------------------- validity and metrics

def word_count(summary: str) -> int:
    return len(summary.split())


def is_valid_summary(summary: str) -> bool:
    """The leaderboard's rule (at least 5 words), plus: a refusal is not a summary."""
    text = summary.replace("\u2019", "'").strip()
    return word_count(text) >= MIN_WORDS and not _REFUSAL.match(text)


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-summary values; rates over valid summaries are None for invalid ones (and for unscored ones). A record
    from a run with judge ``none`` holds only the response: validity is read from it."""
    valid = bool(record["valid"]) if "valid" in record else is_valid_summary(record["response"])
    score = record.get("score")
    scored = valid and score is not None
    hallucinated = float(score < THRESHOLD) if scored else None
    return {
        "hallucination_rate": hallucinated,
        "factual_consistency_rate": None if hallucinated is None else 1.0 - hallucinated,
        "answer_rate": float(valid),
        "average_summary_length": float(word_count(record["response"])) if valid else None,
        UNREADABLE_METRIC: float(valid and score is None),
        "scorer_cut_rate": float(record["scorer_input"]["cut"]) if scored and record.get("scorer_input") else None,
    }


# ---------------------------------------------------------------- judging

def _no_rule(item: dict) -> float:
    raise HallubenchError(f"{NAME} has no rule judge: use judge=hhem:..., nli:... or an LLM spec with the rubric")


# P(consistent) of (document, summary) from a classifier scorer.
CONSISTENCY = Check(name="summary_consistency", pair=lambda item: (item["reference"], item["hypothesis"]),
                    rule=_no_rule)


def summary_record(response: str, score: float | None) -> dict[str, Any]:
    """The judged record of one summary: validity, P(consistent) (None: invalid or unscored) and the outcome."""
    valid = is_valid_summary(response)
    score = score if valid else None
    outcome = ("invalid" if not valid else "unscored" if score is None
               else "hallucinated" if score < THRESHOLD else "consistent")
    return {"response": response, "valid": valid, "score": score, "outcome": outcome}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Validity, then (valid summaries only) P(consistent) from the scorer, or, when the judge is an LLM, the
    1-5 faithfulness rubric score (Jing et al., ``hallu_metrics.faithfulness.RUBRIC``) mapped to [0, 1] as
    (score - 1) / 4: scores 1-2 (misleading errors) fall below 0.5."""
    if not is_valid_summary(response):
        return summary_record(response, None)
    judge = judges.get("judge")
    item = {"reference": doc["source"], "hypothesis": response}
    if judge_kind(judge.spec) in ("hhem", "nli", "rule"):
        verdict = await judge.ask(CONSISTENCY, item)
        score = verdict.label if verdict.ok else None
    else:
        verdict = await judge.ask(RUBRIC, item)
        score = (float(verdict.label) - 1.0) / 4.0 if verdict.ok else None
    return {**summary_record(response, score), "verdict": verdict.to_dict(), "scorer_input": scorer_input(judge, item)}


def scorer_input(judge: Any, item: dict) -> dict[str, Any] | None:
    """How much of (document, summary) a windowed classifier scorer sees: windows, tokens of each and tokens scored,
    and ``cut`` when a token is seen by no window (see ``hallu_metrics.scorers.windows.Coverage``); None for judges
    that read the whole pair themselves (LLM judges) or do not tell."""
    coverage = getattr(getattr(judge, "scorer", None), "coverage", None)
    return coverage([CONSISTENCY.pair(item)])[0].to_dict() if callable(coverage) else None


def cut_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """``scorer_input``: how many scored summaries a classifier saw whole, windowed (several windows over the whole
    document) or cut (part of the document or summary unseen)."""
    seen = [r["scorer_input"] for r in records if r.get("score") is not None and r.get("scorer_input")]
    return {"scorer_input": {"pairs": len(seen), "cut": sum(bool(s["cut"]) for s in seen),
                             "windowed": sum(s["windows"] > 1 and not s["cut"] for s in seen)}}


# ---------------------------------------------------------------- data

def default_scorer_available() -> bool:
    """Whether HHEM-2.1-Open (and its flan-t5-base foundation) can be loaded: cached, or the Hub is reachable."""
    from huggingface_hub import constants, try_to_load_from_cache

    if not constants.HF_HUB_OFFLINE:
        return True
    needed = ((HHEM_MODEL_ID, "model.safetensors", HHEM_2_1_REVISION),
              (FLAN_T5_BASE_ID, "config.json", FLAN_T5_BASE_REVISION))
    return all(isinstance(try_to_load_from_cache(repo, name, revision=rev), str) for repo, name, rev in needed)


def check_scorer(options: Mapping[str, Any]) -> None:
    """Fail before the model runs when no judge is given and HHEM-2.1-Open's weights cannot be had."""
    task = str(options.get("task") or NAME)
    spec, _ = task_setting(options, "judge", task)
    if spec in (None, DEFAULT_SCORER_SPEC) and not default_scorer_available():
        raise HallubenchError(
            f"{task}: HHEM-2.1-Open ({HHEM_MODEL_ID}) is not in the local Hugging Face cache and the Hub is offline; "
            "pass judge=hhem:model=FOLDER,foundation=FOLDER, another classifier or an LLM judge spec"
        )


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """One doc per distinct source document (a leaderboard summaries file repeats each per model), in file order,
    with the summarisation prompt."""
    check_scorer(options)
    ids = rows["id"] if "id" in rows.column_names else range(len(rows))
    docs: dict[str, dict[str, str]] = {}
    for row_id, source in zip(ids, rows["source"]):
        if source and source not in docs:
            docs[source] = {"id": str(row_id), "source": source, "prompt": PROMPT.format(source=source)}
    return datasets.Dataset.from_list(list(docs.values()))


def _read_csv_sources(path: Path) -> list[dict[str, Any]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if "source" not in (reader.fieldnames or []):
            raise HallubenchError(f"{path}: no 'source' column (columns: {reader.fieldnames})")
        sources = dict.fromkeys(row["source"] for row in reader if row["source"])
    return [{"id": str(i), "source": s} for i, s in enumerate(sources)]


def read_official(location: str | None) -> list[dict[str, Any]]:
    """Source documents from the leaderboard's public summaries file: downloaded from the Hub dataset
    ``vectara/leaderboard_results`` when ``location`` is None, else read from a folder holding
    ``leaderboard_summaries.csv`` or ``source_documents.jsonl`` (id, source)."""
    from hallubench.sources.json_records import read_json_records

    if location is None:
        from huggingface_hub import hf_hub_download

        return _read_csv_sources(Path(hf_hub_download(LEADERBOARD_REPO, LEADERBOARD_FILE, repo_type="dataset")))
    folder = Path(location)
    for name in LOCAL_FILES:
        if (folder / name).is_file():
            path = folder / name
            return _read_csv_sources(path) if path.suffix == ".csv" else read_json_records(path)
    raise HallubenchError(f"{location}: holds neither {' nor '.join(LOCAL_FILES)}")


BENCHMARK = Benchmark(
    name=NAME,
    family="hallulens_intrinsic",
    paper="HalluLens (Bang et al., 2025) section 4.1; Vectara hallucination leaderboard",
    columns=datasets.Features({"source": datasets.Value("string")}),
    doc_columns=("id", "source", "prompt"),
    to_docs=to_docs,
    metrics=(
        Metric("hallucination_rate", "rate", False, "valid summaries scored below 0.5 / valid summaries",
               conditional=True),
        Metric("factual_consistency_rate", "rate", True, "1 - hallucination_rate", conditional=True),
        Metric("answer_rate", "rate", True, "valid summaries (>= 5 words, not a refusal) / documents"),
        Metric("average_summary_length", "count", None, "words per valid summary", scale=(0.0, 1000.0),
               conditional=True),
        unreadable_share("valid summaries", "documents", note="; all of them with judge=none"),
        Metric("scorer_cut_rate", "rate", False, "scored summaries whose (document, summary) the classifier did not "
               "see whole (part cut to fit its max_length) / summaries scored by a classifier", conditional=True),
    ),
    judge_item=judge_item,
    checks=(CONSISTENCY, RUBRIC),  # a classifier (or rule) judge, or an LLM judge
    sample_metrics=sample_metrics,
    headline=("hallucination_rate", "factual_consistency_rate", "answer_rate", "average_summary_length"),
    generator=None,
    evaluate_module=NAME,
    default_judge=DEFAULT_SCORER_SPEC,
    read_official=read_official,
    extra_summary=cut_summary,
    outcomes=("consistent", "hallucinated", "invalid", "unscored"),
)
