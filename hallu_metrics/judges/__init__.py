"""Pluggable judges. A judge spec is ``rule`` (rule-based), ``none`` (skip judging) or any
backend spec (``openai:...``, ``hf:...``, ``smollm2``) for an LLM judge."""

from __future__ import annotations

from hallubench.backends import BACKEND_KINDS, CallCache, backend_spec, make_client
from hallubench.errors import HallubenchError
from hallu_metrics.judges.base import Check, Judge, Verdict, failed_verdicts
from hallu_metrics.judges.llm import LLMJudge
from hallu_metrics.judges.rules import RuleJudge

DEFAULT_JUDGE = "rule"

__all__ = ["Check", "Judge", "Verdict", "failed_verdicts", "LLMJudge", "RuleJudge", "make_judge", "DEFAULT_JUDGE"]


def make_judge(spec: str, cache: CallCache | None = None) -> Judge:
    """Build a judge from its spec string."""
    text = (spec or "").strip()
    if text == "rule":
        return RuleJudge()
    if text.split(":", 1)[0] not in BACKEND_KINDS:
        raise HallubenchError(f"bad judge spec {spec!r}: expected 'rule' or a backend spec ({', '.join(BACKEND_KINDS)})")
    return LLMJudge(make_client(backend_spec(text), cache if cache is not None else CallCache()))
