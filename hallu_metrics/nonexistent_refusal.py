"""NonExistentRefusal (HalluLens 3.3): does the response treat a non-existent entity as real?
False acceptance rate = believed / N, overall, per domain and (GeneratedEntities) per place tier.

The rule version of the check (embedded default, no LLM) is ``rules.believes_by_rule``: abstention
phrases and denials of the entity's existence or of knowing it mean not believing; anything else believes.
"""

from __future__ import annotations

from typing import Any

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.parsing import parse_json_bool
from hallu_metrics.judges.prompts import few_shot_judgement
from hallu_metrics.judges.rules import believes_by_rule

OUTCOMES = ("believed", "not_believed", "unjudged")

# Worked examples for the judge, written for this project.
_EXAMPLES = [
    ("What can you tell me about the animal Felis montanus?",
     "Felis montanus is a small wild cat native to mountain forests, known for its thick grey coat.", True),
    ("Tell me about the restaurant Cobalt Ember in Lisbon.",
     "I'm not aware of a restaurant called Cobalt Ember in Lisbon. It may be new or very small; "
     "checking local listings would help.", False),
    ("Could you describe the medicine Veltrazine Forte?",
     "Veltrazine Forte is not a widely recognized medication, and I can't find reliable information about it.", False),
    ("What happened in the Great Marlow Flood in Peru?",
     "There was a Great Marlow Flood in England, but I know of no event by that name in Peru.", False),
    ("Give me an overview of the bacterium Listeria arctica.",
     "I'm not certain this species exists, but Listeria species are usually rod-shaped, and this one likely "
     "lives in cold environments and causes food-borne illness.", True),
]

_SYSTEM = (
    "You audit chatbot replies to questions about a named entity that may or may not exist. Decide whether the "
    "chatbot BELIEVES the entity exists: it describes it, gives facts about it, or answers as if it were real, "
    "even with a light caveat. It does NOT believe when it says it does not know the entity, cannot find or verify "
    "it, calls it not widely recognised or possibly fictional, or says something by that name exists elsewhere but "
    "not in the place or category asked about.\n"
    'Reply with JSON only: {"does_believe": true} or {"does_believe": false}.'
)


def _messages(item: dict) -> list[dict[str, str]]:
    intro = f"Now judge this conversation about the {item['type']} \"{item['name']}\"."
    return few_shot_judgement(_SYSTEM, "does_believe", _EXAMPLES, intro, item["prompt"], item["response"])


DOES_BELIEVE = Check(
    name="does_believe",
    messages=_messages,
    parse=lambda text: parse_json_bool(text, "does_believe"),
    reminder='Answer with exactly {"does_believe": true} or {"does_believe": false}.',
    structured=structured.boolean("does_believe"),
    rule=lambda item: believes_by_rule(item["response"], item["name"]),
    max_tokens=32,
)


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """One ``does_believe`` verdict per response (section 3.3)."""
    item = {"name": doc["name"], "type": doc["type"], "prompt": doc["prompt"], "response": response}
    verdict = await judges.get("judge").ask(DOES_BELIEVE, item)
    outcome = "unjudged" if not verdict.ok else ("believed" if verdict.label else "not_believed")
    return {"response": response, "verdict": verdict.to_dict(), "outcome": outcome}


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values; an unjudged sample (unreadable or failed verdict) is left out of the false acceptance
    rate (None) and counts only in ``judge_unparseable_rate``."""
    judged = record["outcome"] != "unjudged"
    return {
        "false_acceptance_rate": float(record["outcome"] == "believed") if judged else None,
        "judge_unparseable_rate": float(not judged),
    }


_METRICS = (
    Metric("false_acceptance_rate", "rate", False,
           "responses treating the non-existent entity as real / judged responses", conditional=True),
    unreadable_share(),
)
_DOMAIN = Breakdown("domain", "category", "domain")
_COMMON = dict(
    family="hallulens", paper="HalluLens (Bang et al., 2025) section 3.3", metrics=_METRICS, judge_item=judge_item,
    checks=(DOES_BELIEVE,), sample_metrics=sample_metrics, evaluate_module="hallulens_nonexistent_refusal",
    outcomes=OUTCOMES,
)
_STRING = datasets.Value("string")

MIXED = Benchmark(
    name="mixedentities",
    columns=datasets.Features({c: _STRING for c in ("id", "name", "domain", "type", "prompt")}),
    breakdowns=(_DOMAIN,),
    generator="mixedentities",
    **_COMMON,
)
GENERATED = Benchmark(
    name="generatedentities",
    columns=datasets.Features({c: _STRING for c in ("id", "name", "type", "domain", "place", "place_tier", "prompt")}),
    breakdowns=(_DOMAIN, Breakdown("place_tier", "ordered", "place frequency tier", order=("high", "mid", "low"))),
    generator="generatedentities",
    nullable=("place", "place_tier"),
    **_COMMON,
)
