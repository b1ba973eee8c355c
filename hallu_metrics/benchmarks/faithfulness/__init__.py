"""Faithfulness scoring after Jing et al., "On A Scale From 1 to 5" (2025): the rubric judge, the
ROUGE-L/BLEU/BERTScore baseline and the benchmarks that compare scorers (rubric LLMs, HHEM, baseline).

``RUBRIC`` is the reusable 1-5 check (items: ``reference``, ``hypothesis``) that every judge kind answers:
an LLM through the rubric prompt, ``hhem:``/``nli:`` through 1 + 4 P(consistent), ``rule`` through the
baseline composite. It and the baseline are shared (``hhem_summarization`` asks ``RUBRIC`` of LLM judges).

The benchmarks of faithfulness scorers (sections 4.1-4.2): each pair of a test set (``hallubench generate
faithfulness``) has an expected score: 5 for gold, 1 for hallucinated sentences, 5 - 4 x share on the progression
set. Three ways to score it, one result shape:

- ``faithfulness_rubric`` / ``faithfulness_rubric_so`` (``RUBRIC_TASK``): the model under test is the rubric judge;
  its reply is read, no judge runs (like HaluEval's recogniser);
- ``faithfulness_hhem`` (``HHEM``): a classifier scorer (``--judge hhem:...`` / ``nli:...``) scores (reference,
  hypothesis); P(consistent) mapped to 1 + 4p;
- ``faithfulness_baseline`` (``BASELINE``): the rule judge computes the ROUGE-L/BLEU/BERTScore composite.

Metrics: the mean absolute residual |expected - predicted| on the paper's four pair types (pair-weighted,
Table 10 "All Tasks") and per type, the mean predicted score, the unparseable rate; on the progression set
the mean score per hallucination share and ``delta_per_step`` = (score at 100% - score at 0%) / 5 for
intrinsic and extrinsic rewrites (Table 4).

The rubric prompt in ``prompts`` (the rubric text itself: ``hallu_metrics/data/faithfulness_rubric.md``), the
rubric reader and checks in ``rubric``, the baseline composite in ``baseline``, the judging in ``chain``, metrics
in ``metrics``, columns and docs in ``data``; the ``evaluate`` module is ``faithfulness_rubric/``.
"""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.faithfulness.chain import (
    BASELINE_KEY,
    judge_baseline,
    judge_hhem,
    judge_reply,
    read_reply,
)
from hallu_metrics.benchmarks.faithfulness.data import COLUMN_TYPES, rubric_docs
from hallu_metrics.benchmarks.faithfulness.metrics import (
    OUTCOMES,
    STEPS,
    TYPES,
    expected_score,
    progression_summary,
    sample_metrics,
)
from hallu_metrics.contract import UNREADABLE_METRIC, About, Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.rubric.baseline import BaselineScores, baseline_rule, baseline_scores
from hallu_metrics.rubric.prompts import DEFAULT_RUBRIC, load_rubric, rubric_messages, rubric_prompt
from hallu_metrics.rubric.rubric import RUBRIC, faithfulness_check, parse_rubric_score, rubric_check
from hallu_metrics.scorers import HHEM_MODEL_ID

__all__ = [
    "BASELINE", "BASELINE_KEY", "BENCHMARKS", "COLUMN_TYPES", "DEFAULT_RUBRIC", "HHEM", "RUBRIC", "RUBRIC_TASK",
    "STEPS",
    "TYPES", "BaselineScores", "baseline_rule", "baseline_scores", "expected_score", "faithfulness_check",
    "load_rubric", "parse_rubric_score", "progression_summary", "read_reply", "rubric_check", "rubric_messages",
    "rubric_prompt",
]

PAPER = "Jing et al., On A Scale From 1 to 5 (2025), sections 3-4"
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


# offline: False, its pairs come from a source set not shipped in any wheel (HaluEval summarization)
_ABOUT = dict(paper_title="On A Scale From 1 to 5: Quantifying Hallucination in Faithfulness Evaluation",
              paper_url=None, section="sections 3-4", network=False, gpu=False, offline=False)


def _benchmark(name: str, judge_item, **kwargs: Any) -> Benchmark:
    return Benchmark(
        name=name, family="faithfulness", paper=PAPER, column_types=COLUMN_TYPES, metrics=_METRICS,
        judge_item=judge_item,
        sample_metrics=sample_metrics, breakdowns=_BREAKDOWNS, headline=("residual", "score", UNREADABLE_METRIC),
        generator="faithfulness", evaluate_module="faithfulness_rubric", extra_summary=progression_summary,
        outcomes=OUTCOMES, **kwargs,
    )


RUBRIC_TASK = _benchmark("faithfulness_rubric", judge_reply, tasks=("faithfulness_rubric", "faithfulness_rubric_so"),
                         judge_roles=(), answer_readers=(parse_rubric_score,), doc_columns=(*COLUMN_TYPES, "prompt"),
                         to_docs=rubric_docs,
                         options={"rubric": None},
                         about=About(**_ABOUT, weights=False, judge=False, runtime="fast"))
HHEM = _benchmark("faithfulness_hhem", judge_hhem, checks=(RUBRIC,),
                  default_judge=f"hhem:model={HHEM_MODEL_ID}",  # HHEM-2.1, sliding
                  about=About(**_ABOUT, weights=True, judge=False, runtime="slow"))
BASELINE = _benchmark("faithfulness_baseline", judge_baseline, checks=(RUBRIC,), options={"bertscore_model": None},
                      rule_label="ROUGE-L / BLEU / BERTScore composite: the paper's baseline scorer, no LLM",
                      about=About(**_ABOUT, weights=True, judge=False, runtime="slow"))  # weights: BERTScore's
BENCHMARKS = (RUBRIC_TASK, HHEM, BASELINE)
