"""PreciseWikiQA's judging chain (HalluLens section 3.1.2): abstention, then correctness on attempted answers."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.precisewikiqa.checks import ABSTENTION, CORRECTNESS
from hallu_metrics.judges.judge_set import JudgeSet


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Abstention, then (for attempted answers) correctness against the gold answer (section 3.1.2)."""
    judge = judges.get("judge")
    item = {"question": doc["question"], "gold": doc["answer"], "response": response}
    abstention = await judge.ask(ABSTENTION, item)
    record: dict[str, Any] = {"response": response, "abstention": abstention.to_dict(), "correctness": None}
    if not abstention.ok:
        record["outcome"] = "unjudged"
    elif abstention.label:
        record["outcome"] = "abstained"
    else:
        verdict = await judge.ask(CORRECTNESS, item)
        record["correctness"] = verdict.to_dict()
        record["outcome"] = (
            "unjudged" if not verdict.ok else ("correct" if verdict.label == "CORRECT" else "hallucinated")
        )
    return record
