"""HaluEval's per-sample metrics: accuracy by the official rule and by the project's reader, per gold class, and
the official rule's failures."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.halueval.prompts import NO, YES


def sample_metrics(record: dict[str, Any], doc: dict) -> dict[str, float | None]:
    """``accuracy`` (official rule; a failure is wrong), ``accuracy_lenient`` (documented lenient rule),
    per-gold-class accuracy (None for the other class) and ``invalid_rate`` (official failures)."""
    correct = float(record["prediction"] == doc["label"])
    return {
        "accuracy": correct,
        "accuracy_lenient": float(record["prediction_lenient"] == doc["label"]),
        "accuracy_hallucinated": correct if doc["label"] == YES else None,
        "accuracy_correct": correct if doc["label"] == NO else None,
        "invalid_rate": float(record["prediction"] is None),
    }
