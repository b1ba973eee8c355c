"""Benchmarks of faithfulness scorers (Jing et al., "On A Scale From 1 to 5", sections 4.1-4.2).

Each pair of a test set (``hallubench generate faithfulness``) has an expected score: 5 for gold, 1 for
hallucinated sentences, 5 - 4 x share on the progression set. Three ways to score it, one result shape:

- ``faithfulness_rubric`` / ``faithfulness_rubric_so``: the model under test is the rubric judge; its reply
  is read, no judge runs (like HaluEval's recogniser);
- ``faithfulness_hhem``: a classifier scorer (``--judge hhem:...`` / ``nli:...``) scores (reference,
  hypothesis); P(consistent) mapped to 1 + 4p;
- ``faithfulness_baseline``: the rule judge computes the ROUGE-L/BLEU/BERTScore composite.

Metrics: the mean absolute residual |expected - predicted| on the paper's four pair types (pair-weighted,
Table 10 "All Tasks") and per type, the mean predicted score, the unparseable rate; on the progression set
the mean score per hallucination share and ``delta_per_step`` = (score at 100% - score at 0%) / 5 for
intrinsic and extrinsic rewrites (Table 4).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from hallu_metrics.contract import UNREADABLE_METRIC, Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.faithfulness.baseline import BaselineScorer
from hallu_metrics.faithfulness.rubric import faithfulness_check, load_rubric, parse_rubric_score, rubric_prompt
from hallu_metrics.judges.base import Judge
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import ScorerJudge, judge_kind
from hallu_metrics.scorers import HHEM_MODEL_ID
from hallu_metrics.settings import option, task_setting
from hallubench.errors import HallubenchError

PAPER = "Jing et al., On A Scale From 1 to 5 (2025), sections 3-4"
TYPES = ("gold_full", "gold_sentence", "intrinsic", "extrinsic", "progression")
RESIDUAL_TYPES = TYPES[:4]  # the paper's residuals (Figure 2, Table 10); progression has its own metrics
PROGRESSION_KINDS = ("intrinsic", "extrinsic")
STEPS = 5  # sentences per progression hypothesis: shares 0, 0.2, ..., 1
GOLD_SCORE, HALLUCINATED_SCORE = 5.0, 1.0
OUTCOMES = ("scored", "unparseable", "failed")
BASELINE_KEY = "rule:faithfulness-baseline"  # the batched baseline judge inside a JudgeSet

_STRING = datasets.Value("string")
COLUMNS = datasets.Features({
    "id": _STRING,
    "reference": _STRING,
    "hypothesis": _STRING,
    "type": _STRING,
    "hallucinated_share": datasets.Value("float64"),
    "expected_score": datasets.Value("float64"),
    "progression_kind": _STRING,
})


def expected_score(share: float) -> float:
    """5 for a faithful hypothesis, 1 for a fully hallucinated one (the paper's convention); in between
    (progression set only) linear in the share of hallucinated sentences, our choice: the paper states
    only the two ends (Figure 3)."""
    return GOLD_SCORE - (GOLD_SCORE - HALLUCINATED_SCORE) * share


# ---------------------------------------------------------------- records

def read_reply(response: str) -> dict[str, Any]:
    """The record of a model-under-test reply: its score, or unparseable."""
    score = parse_rubric_score(response)
    return {"response": response, "score": score, "outcome": "unparseable" if score is None else "scored"}


async def judge_reply(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """No judge: the model under test is the scorer."""
    return read_reply(response)


async def _score_pair(judge: Judge, doc: dict) -> dict[str, Any]:
    """The faithfulness check of (reference, hypothesis), answered on 1-5 by ``judge``."""
    verdict = await judge.ask(_CHECK, {"reference": doc["reference"], "hypothesis": doc["hypothesis"]})
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
    """The baseline composite scores the pair; the model's response is ignored."""
    _require(judges, ("rule",), "the rule judge (--judge rule), which computes the baseline")
    return await _score_pair(baseline_judge(judges), doc)


_CHECK = faithfulness_check()


# ---------------------------------------------------------------- metrics

def sample_metrics(record: dict[str, Any], doc: dict) -> dict[str, float | None]:
    """``residual`` (paper types only), ``score`` (any scored pair), ``judge_unparseable_rate`` (every pair)."""
    score = record.get("score")
    scored = score is not None
    return {
        "residual": abs(float(doc["expected_score"]) - float(score)) if scored and doc["type"] in RESIDUAL_TYPES
        else None,
        "score": float(score) if scored else None,
        UNREADABLE_METRIC: float(not scored),
    }


def progression_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """Mean score per share for each progression kind and ``delta_per_step`` = (score at share 1 - score at
    share 0) / 5 (Table 4; negative when the scorer follows the hallucination). Share 0 of a kind is its
    gold 5-sentence hypothesis; None where a share has no scored pair."""
    scores: dict[str, dict[float, list[float]]] = {kind: defaultdict(list) for kind in PROGRESSION_KINDS}
    for record, doc in zip(records, docs):
        if doc["type"] == "progression" and doc["progression_kind"] in scores:
            bucket = scores[doc["progression_kind"]][round(float(doc["hallucinated_share"]), 6)]
            if record.get("score") is not None:
                bucket.append(float(record["score"]))
    out: dict[str, Any] = {"progression": {}}
    for kind, by_share in scores.items():
        if not by_share:
            continue
        means = {share: (sum(v) / len(v) if v else None) for share, v in sorted(by_share.items())}
        start, end = means.get(0.0), means.get(1.0)
        delta = (end - start) / STEPS if start is not None and end is not None else None
        out["progression"][kind] = {
            "shares": list(means), "scores": list(means.values()), "n": [len(by_share[s]) for s in means],
            "delta_per_step": delta,
        }
        out[f"delta_per_step_{kind}"] = delta
    return out


def rubric_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs: the rows plus the rubric ``prompt`` (``--metadata rubric=PATH`` swaps the rubric;
    ``dataset_kwargs: faithfulness_output`` picks ``reasoning`` or ``score_only``)."""
    output = options.get("faithfulness_output", "reasoning")
    if output not in ("reasoning", "score_only"):
        raise HallubenchError(f"faithfulness_output must be reasoning or score_only, not {output!r}")
    path, _ = task_setting(options, "rubric", str(options.get("task", "")))
    rubric = load_rubric(path)
    prompts = [rubric_prompt(r["reference"], r["hypothesis"], rubric, output == "reasoning") for r in rows]
    return rows.add_column("prompt", prompts)


_METRICS = (
    Metric("residual", "score", False, "mean |expected - predicted| over gold_full, gold_sentence, intrinsic and "
           "extrinsic pairs (pair-weighted; unparseable pairs left out)", scale=(0.0, 4.0), conditional=True),
    Metric("score", "score", None, "mean predicted 1-5 score (higher = judged more faithful; compare with the "
           "expected score of each type)", scale=(1.0, 5.0), conditional=True),
    unreadable_share("pairs"),
)
_BREAKDOWNS = (
    Breakdown("type", "category", "pair type"),
    Breakdown("hallucinated_share", "ordered", "share of hallucinated sentences (progression set)",
              lambda d: d["hallucinated_share"] if d["type"] == "progression" else None),
    Breakdown("progression_kind", "category", "progression rewrite kind",
              lambda d: d["progression_kind"] if d["type"] == "progression" else None),
)


def _benchmark(name: str, judge_item, **kwargs: Any) -> Benchmark:
    return Benchmark(
        name=name, family="faithfulness", paper=PAPER, columns=COLUMNS, metrics=_METRICS, judge_item=judge_item,
        sample_metrics=sample_metrics, breakdowns=_BREAKDOWNS, headline=("residual", "score", UNREADABLE_METRIC),
        generator="faithfulness", evaluate_module="faithfulness_rubric", extra_summary=progression_summary,
        outcomes=OUTCOMES, **kwargs,
    )


RUBRIC = _benchmark("faithfulness_rubric", judge_reply, tasks=("faithfulness_rubric", "faithfulness_rubric_so"),
                    judge_roles=(), doc_columns=(*COLUMNS, "prompt"), to_docs=rubric_docs, options={"rubric": None})
HHEM = _benchmark("faithfulness_hhem", judge_hhem, checks=(_CHECK,),
                  default_judge=f"hhem:model={HHEM_MODEL_ID}")  # HHEM-2.1, sliding
BASELINE = _benchmark("faithfulness_baseline", judge_baseline, checks=(_CHECK,), options={"bertscore_model": None},
                      rule_label="ROUGE-L / BLEU / BERTScore composite: the paper's baseline scorer, no LLM")
BENCHMARKS = (RUBRIC, HHEM, BASELINE)
