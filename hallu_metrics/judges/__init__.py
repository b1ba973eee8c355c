"""Pluggable judges: a spec string names one (see ``kinds`` for the table of kinds)."""

from __future__ import annotations

from hallu_metrics.judges.base import Check, Judge, Verdict, failed_verdicts
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import JUDGE_KINDS, RuleJudge, ScorerJudge, judge_kind, make_judge, public_spec
from hallu_metrics.judges.llm import LLMJudge

DEFAULT_JUDGE = "rule"

__all__ = [
    "Check", "Judge", "Verdict", "failed_verdicts", "JudgeSet", "JUDGE_KINDS", "LLMJudge", "RuleJudge",
    "ScorerJudge", "judge_kind", "make_judge", "public_spec", "DEFAULT_JUDGE",
]
