"""HHEM summarization's judging: validity, then (valid summaries only) P(consistent) from the scorer, or the
faithfulness rubric score of an LLM judge."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.hhem_summarization.checks import CONSISTENCY, is_valid_summary
from hallu_metrics.benchmarks.hhem_summarization.metrics import THRESHOLD
from hallu_metrics.judges import JudgeSet, judge_kind
from hallu_metrics.rubric import RUBRIC


def summary_record(response: str, score: float | None) -> dict[str, Any]:
    """The judged record of one summary: validity, P(consistent) (None: invalid or unscored) and the outcome."""
    valid = is_valid_summary(response)
    score = score if valid else None
    outcome = ("invalid" if not valid else "unscored" if score is None
               else "hallucinated" if score < THRESHOLD else "consistent")
    return {"response": response, "valid": valid, "score": score, "outcome": outcome}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Validity, then (valid summaries only) P(consistent) from the scorer, or, when the judge is an LLM, the
    1-5 faithfulness rubric score (Jing et al., ``hallu_metrics.rubric.RUBRIC``) mapped to [0, 1] as
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
