"""LongWiki's metrics (HalluLens section 3.2.1): per response precision = supported / claims, recall@K =
min(supported / K, 1), F1@K their harmonic mean; the false refusal and no-claim rates; run-wide claim totals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hallu_metrics.longform.sentences import cut_responses

OUTCOMES = ("refused", "no_claims", "judged", "unjudged", "too_long")


def precision(supported: int, claims: int) -> float:
    """Supported claims / claims of one response (section 3.2.1); only defined when it has claims."""
    return supported / claims


def recall_at_k(supported: int, k: int) -> float:
    """min(supported / K, 1): SAFE's recall against K wanted facts (Wei et al., 2024)."""
    return min(supported / k, 1.0)


def f1_at_k(precision_value: float, recall_value: float) -> float:
    """Harmonic mean of precision and recall@K; 0 when both are 0."""
    total = precision_value + recall_value
    return 2 * precision_value * recall_value / total if total else 0.0


def sample_metrics(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> dict[str, float | None]:
    """Per-response values; precision, recall@K and F1@K are None unless the response was judged with claims.
    An unjudged response (any unreadable or failed verdict) counts only in ``judge_unparseable_rate``: every other
    rate is over responses with readable verdicts; a response over the size limits (``too_long``) counts in none.
    ``abstain_rate_reference`` is the HalluLens reference code's abstain ratio (refused or claim-less)."""
    outcome = record["outcome"]
    judged = outcome not in ("unjudged", "too_long")
    values: dict[str, float | None] = {"precision": None, "recall_at_k": None, "f1_at_k": None}
    if outcome == "judged":
        p = precision(record["supported"], record["n_claims"])
        r = recall_at_k(record["supported"], record["k"])
        values = {"precision": p, "recall_at_k": r, "f1_at_k": f1_at_k(p, r)}
    return {
        "false_refusal_rate": float(outcome == "refused") if judged else None,
        **values,
        "no_claim_rate": float(outcome == "no_claims") if judged else None,
        "abstain_rate_reference": float(outcome in ("refused", "no_claims")) if judged else None,
        "judge_unparseable_rate": float(outcome == "unjudged"),
    }


def claim_totals(records: Sequence[Mapping[str, Any]], docs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Numbers that are not per-response means: K used, claims verified and supported over the whole run, and the
    responses cut at the token limit."""
    judged = [r for r in records if r.get("outcome") == "judged"]
    return {
        "k": sorted({r["k"] for r in records if "k" in r}),
        "claims": sum(r["n_claims"] for r in judged),
        "supported_claims": sum(r["supported"] for r in judged),
        **cut_responses(records),
    }


def evidence_warnings(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """A warning when every claim of the run was verified against no passage at all: the knowledge store has no page
    for these topics (a wrong or empty store), and precision then says nothing about the model."""
    claims = [c for r in records for c in r.get("claims") or []]
    if not claims or any(c.get("passages") for c in claims):
        return []
    return [f"all {len(claims)} claims were verified against no evidence (every lookup in the knowledge store came "
            "back empty): check --metadata knowledge / --knowledge; precision and F1 are not meaningful"]
