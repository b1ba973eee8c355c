"""NonExistentRefusal's judging chain (HalluLens section 3.3): one ``does_believe`` verdict per response."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.nonexistent_refusal.checks import DOES_BELIEVE
from hallu_metrics.judges.judge_set import JudgeSet


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """One ``does_believe`` verdict per response (section 3.3)."""
    item = {"name": doc["name"], "type": doc["type"], "prompt": doc["prompt"], "response": response}
    verdict = await judges.get("judge").ask(DOES_BELIEVE, item)
    outcome = "unjudged" if not verdict.ok else ("believed" if verdict.label else "not_believed")
    return {"response": response, "verdict": verdict.to_dict(), "outcome": outcome}
