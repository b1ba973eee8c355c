"""FaithEval's per-sample metrics: keyword accuracy both ways (whole words / the reference's substrings), strict
and non-strict; counterfactual accuracy, the answer-key substring baseline and invalid replies."""

from __future__ import annotations

from typing import Any


def keyword_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float]:
    return {
        "accuracy": float(record["lenient"]),
        "accuracy_official": float(record["lenient_official"]),
        "accuracy_strict": float(record["strict"]),
        "accuracy_strict_official": float(record["strict_official"]),
    }


def choice_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float]:
    return {
        "accuracy": float(record["outcome"] == "correct"),
        "accuracy_key_substring": float(record["official"]),
        "invalid_rate": float(record["outcome"] == "invalid"),
    }
