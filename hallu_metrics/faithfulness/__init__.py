"""Faithfulness scoring after Jing et al., "On A Scale From 1 to 5" (2025): the rubric judge, the
ROUGE-L/BLEU/BERTScore baseline and the benchmarks that compare scorers (rubric LLMs, HHEM, baseline).

``RUBRIC`` is the reusable 1-5 check (items: ``reference``, ``hypothesis``) that every judge kind answers:
an LLM through the rubric prompt, ``hhem:``/``nli:`` through 1 + 4 P(consistent), ``rule`` through the
baseline composite. The benchmarks live in ``hallu_metrics.faithfulness.benchmark``.
"""

from hallu_metrics.faithfulness.baseline import BaselineScores, baseline_rule, baseline_scores
from hallu_metrics.faithfulness.benchmark import BENCHMARKS, COLUMNS, expected_score, progression_summary
from hallu_metrics.faithfulness.rubric import (
    DEFAULT_RUBRIC,
    faithfulness_check,
    load_rubric,
    parse_rubric_score,
    rubric_check,
    rubric_messages,
    rubric_prompt,
)

RUBRIC = faithfulness_check()

__all__ = [
    "BENCHMARKS", "COLUMNS", "DEFAULT_RUBRIC", "RUBRIC", "BaselineScores", "baseline_rule",
    "baseline_scores", "expected_score", "faithfulness_check", "load_rubric", "parse_rubric_score",
    "progression_summary", "rubric_check", "rubric_messages", "rubric_prompt",
]
