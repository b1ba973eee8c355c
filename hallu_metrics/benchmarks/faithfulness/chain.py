"""The faithfulness benchmarks' judging: the model under test's rubric reply read (``faithfulness_rubric``), or the
pair scored by a classifier (``faithfulness_hhem``) or the baseline composite (``faithfulness_baseline``)."""

from __future__ import annotations

from typing import Any

from hallu_metrics.judges.base import Judge
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import ScorerJudge, judge_kind
from hallu_metrics.rubric.baseline import BaselineScorer, baseline_reason
from hallu_metrics.rubric.rubric import RUBRIC, parse_rubric_score
from hallu_metrics.settings import option
from hallubench.core.errors import HallubenchError

BASELINE_KEY = "rule:faithfulness-baseline"  # the batched baseline judge inside a JudgeSet


def read_reply(response: str) -> dict[str, Any]:
    """The record of a model-under-test reply: its score, or unparseable."""
    score = parse_rubric_score(response)
    return {"response": response, "score": score, "outcome": "unparseable" if score is None else "scored"}


async def judge_reply(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """No judge: the model under test is the scorer."""
    return read_reply(response)


async def _score_pair(judge: Judge, doc: dict) -> dict[str, Any]:
    """The faithfulness check of (reference, hypothesis), answered on 1-5 by ``judge``."""
    verdict = await judge.ask(RUBRIC, {"reference": doc["reference"], "hypothesis": doc["hypothesis"]})
    outcome = "scored" if verdict.ok else ("failed" if verdict.status == "failed" else "unparseable")
    return {"score": verdict.label if verdict.ok else None, "verdict": verdict.to_dict(), "outcome": outcome}


def _require(judges: JudgeSet, kinds: tuple[str, ...], hint: str) -> None:
    spec = judges.specs["judge"]
    if judge_kind(spec) not in kinds:
        raise HallubenchError(f"this task needs {hint}, not --judge {spec.split(':', 1)[0]}")


async def judge_hhem(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """The classifier judge scores the pair; the model's response is ignored."""
    _require(judges, ("hhem", "nli"), "a classifier judge (--judge hhem:model=... or nli:model=...)")
    return await _score_pair(judges.get("judge"), doc)


def baseline_judge(judges: JudgeSet) -> Judge:
    """The rule judge's baseline composite, batched and cached like a classifier scorer (same numbers as the
    check's ``rule``; ``bertscore_model`` from --metadata or $HALLUBENCH_BERTSCORE_MODEL)."""
    judge = judges.built(BASELINE_KEY)
    if judge is None:
        model = option(judges.settings, "bertscore_model", "faithfulness_baseline")
        judge = judges.use(BASELINE_KEY, ScorerJudge(BaselineScorer(model), judges.cached(), "rule"))
    return judge


async def judge_baseline(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """The baseline composite scores the pair, its verdict saying why as the rule judge's do (``rule: REASON``, the
    three metrics); the model's response is ignored."""
    _require(judges, ("rule",), "the rule judge (--judge rule), which computes the baseline")
    record = await _score_pair(baseline_judge(judges), doc)
    if record["verdict"]["status"] == "ok":
        model = option(judges.settings, "bertscore_model", "faithfulness_baseline")
        item = {"reference": doc["reference"], "hypothesis": doc["hypothesis"], "bertscore_model": model}
        record["verdict"]["raw"] = f"rule: {baseline_reason(item)}"
    return record
