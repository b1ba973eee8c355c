"""Short-answer QA metrics as HalluLens re-reads SimpleQA's grades (section 5.2): the per-sample rates, SimpleQA's
F-score, and the metric declarations and headline ``simpleqa_hallu`` and ``popqa_hallu`` share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hallu_metrics.contract import Metric, unreadable_share

OUTCOMES = ("correct", "incorrect", "not_attempted", "unjudged")


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values; the two rates over attempted replies are None for the rest. An unjudged reply (unreadable
    or failed grade) counts toward no rate but ``judge_unparseable_rate``, except ``not_attempted_rate_reference``,
    which counts it as not attempted as simple-evals' grader does."""
    outcome = record["outcome"]
    judged = outcome != "unjudged"
    attempted = outcome in ("correct", "incorrect")
    return {
        "hallucination_rate": float(outcome == "incorrect") if attempted else None,
        "false_refusal_rate": float(outcome == "not_attempted") if judged else None,
        "correct_rate": float(outcome == "correct") if judged else None,
        "accuracy_given_attempted": float(outcome == "correct") if attempted else None,
        "not_attempted_rate_reference": float(outcome in ("not_attempted", "unjudged")),
        "judge_unparseable_rate": float(not judged),
    }


def f_score(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """SimpleQA's F-score: harmonic mean of correct_rate and accuracy_given_attempted, both over graded replies
    (None when undefined)."""
    outcomes = [r["outcome"] for r in records if r["outcome"] != "unjudged"]
    correct, attempted = outcomes.count("correct"), outcomes.count("correct") + outcomes.count("incorrect")
    overall = correct / len(outcomes) if outcomes else None
    given = correct / attempted if attempted else None
    if overall is None or given is None:
        return {"f_score": None}
    return {"f_score": 2 * overall * given / (overall + given) if overall + given else 0.0}


METRICS = (
    Metric("hallucination_rate", "rate", False, "incorrect / attempted (HalluLens 5.2)", conditional=True),
    Metric("false_refusal_rate", "rate", False, "not attempted / graded replies", conditional=True),
    Metric("correct_rate", "rate", True, "correct / graded replies (SimpleQA 'overall correct')", conditional=True),
    Metric("accuracy_given_attempted", "rate", True, "correct / attempted (SimpleQA)", conditional=True),
    Metric("not_attempted_rate_reference", "rate", False, "simple-evals' 'not attempted': not attempted or "
           "unreadable grade / N (its grader reads a reply without a grade letter as C)"),
    unreadable_share(),
)
HEADLINE = ("hallucination_rate", "false_refusal_rate", "correct_rate", "not_attempted_rate_reference",
            "judge_unparseable_rate")
