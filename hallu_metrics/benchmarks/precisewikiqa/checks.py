"""PreciseWikiQA's checks (HalluLens section 3.1.2): abstention, then correctness against the gold answer; the rule
stand-ins are the shared abstention-phrase and gold-match rules (hallu_metrics.judges.rules)."""

from __future__ import annotations

from hallu_metrics.benchmarks.precisewikiqa.prompts import abstention_messages, correctness_messages
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import parse_json_bool, parse_label
from hallu_metrics.judges.rules import abstention_precisewikiqa, gold_reason, is_abstention_precisewikiqa, matches_gold

CORRECTNESS_LABELS = ("CORRECT", "INCORRECT", "UNVERIFIABLE")

ABSTENTION = Check(
    name="abstention",
    fields=("question", "gold", "response"),
    messages=abstention_messages,
    parse=lambda text: parse_json_bool(text, "is_abstaining"),
    reminder='Answer with exactly {"is_abstaining": true} or {"is_abstaining": false}.',
    structured=structured.boolean("is_abstaining"),
    rule=lambda item: is_abstention_precisewikiqa(item["response"]),
    why=lambda item: abstention_precisewikiqa(item["response"]),
    max_tokens=32,
)

CORRECTNESS = Check(
    name="correctness",
    fields=("question", "gold", "response"),
    messages=correctness_messages,
    parse=lambda text: parse_label(text, CORRECTNESS_LABELS),
    reminder='Answer with exactly one of {"verdict": "CORRECT"}, {"verdict": "INCORRECT"}, {"verdict": '
        '"UNVERIFIABLE"}.',
    structured=structured.label("verdict", CORRECTNESS_LABELS),
    rule=lambda item: "CORRECT" if matches_gold(item["response"], item["gold"]) else "INCORRECT",
    why=lambda item: gold_reason(item["response"], item["gold"]),
    max_tokens=32,
)
