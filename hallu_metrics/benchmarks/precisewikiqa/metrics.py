"""PreciseWikiQA's per-sample metrics (HalluLens section 3.1): false refusal, hallucination when not refused and
correct answer rates from each sample's outcome."""

from __future__ import annotations

from typing import Any

OUTCOMES = ("abstained", "correct", "hallucinated", "unjudged")


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values; None where the sample does not count. An unjudged sample (an unreadable or failed
    verdict) counts toward no rate but ``judge_unparseable_rate``: the other rates are over readable verdicts."""
    outcome = record["outcome"]
    judged = outcome != "unjudged"
    attempted = outcome in ("correct", "hallucinated")
    return {
        "false_refusal_rate": float(outcome == "abstained") if judged else None,
        "hallucination_rate": float(outcome == "hallucinated") if attempted else None,
        "correct_rate": float(outcome == "correct") if judged else None,
        "judge_unparseable_rate": float(not judged),
    }
