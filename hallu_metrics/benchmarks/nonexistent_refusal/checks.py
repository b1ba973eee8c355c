"""NonExistentRefusal's check (HalluLens section 3.3): ``does_believe``; its rule stand-in is the shared
``rules.believes_by_rule``."""

from __future__ import annotations

from hallu_metrics.benchmarks.nonexistent_refusal.prompts import does_believe_messages
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import parse_json_bool
from hallu_metrics.judges.rules import believes_by_rule, disbelief_by_rule

DOES_BELIEVE = Check(
    name="does_believe",
    fields=("name", "type", "prompt", "response"),
    messages=does_believe_messages,
    parse=lambda text: parse_json_bool(text, "does_believe"),
    reminder='Answer with exactly {"does_believe": true} or {"does_believe": false}.',
    structured=structured.boolean("does_believe"),
    rule=lambda item: believes_by_rule(item["response"], item["name"]),
    why=lambda item: disbelief_by_rule(item["response"], item["name"]),
    max_tokens=32,
)
