"""The short-answer judging chain: one grader call per reply against all the doc's gold answers."""

from __future__ import annotations

from typing import Any

from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.short_answer_qa.checks import GRADE

OUTCOME_OF = {"CORRECT": "correct", "INCORRECT": "incorrect", "NOT_ATTEMPTED": "not_attempted"}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """One grader call per reply against all the doc's gold answers (``doc["golds"]``)."""
    item = {"question": doc["question"], "golds": list(doc["golds"]), "response": response}
    verdict = await judges.get("judge").ask(GRADE, item)
    outcome = OUTCOME_OF[verdict.label] if verdict.ok else "unjudged"
    return {"response": response, "grade": verdict.to_dict(), "outcome": outcome}
