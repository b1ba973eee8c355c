"""NonExistentRefusal's per-sample metric (HalluLens section 3.3): false acceptance = believed / judged."""

from __future__ import annotations

from typing import Any

OUTCOMES = ("believed", "not_believed", "unjudged")


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values; an unjudged sample (unreadable or failed verdict) is left out of the false acceptance
    rate (None) and counts only in ``judge_unparseable_rate``."""
    judged = record["outcome"] != "unjudged"
    return {
        "false_acceptance_rate": float(record["outcome"] == "believed") if judged else None,
        "judge_unparseable_rate": float(not judged),
    }
