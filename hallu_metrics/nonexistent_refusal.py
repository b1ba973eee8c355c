"""NonExistentRefusal (HalluLens 3.3): does the response treat a non-existent entity as real?
False acceptance rate = believed / N, overall, per domain and (GeneratedEntities) per place tier.

The rule version of the check (embedded default, no LLM) is phrase based: a response that
contains a WildHallucinations abstention phrase or an explicit existence denial / hedge
(``EXISTENCE_DENIALS``) does not believe; any other response counts as believing.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from hallu_metrics.judges import Check, Judge
from hallu_metrics.judges.parsing import parse_json_bool
from hallu_metrics.judges.prompts import few_shot_judgement
from hallu_metrics.judges.rules import contains_abstention_phrase
from hallu_metrics.precisewikiqa import stderr

OUTCOMES = ("believed", "not_believed", "unjudged")
MIXED_COLUMNS = ("id", "name", "domain", "type", "prompt")
GENERATED_COLUMNS = ("id", "name", "type", "domain", "place", "place_tier", "prompt")

EXISTENCE_DENIALS = re.compile(
    r"\b(?:does not|doesn't|did not|didn't|may not|might not) (?:seem to |appear to )?exist"
    r"|\b(?:does not|doesn't|do not|don't) (?:seem|appear) to be (?:a|an|any)\b"
    r"|\bno (?:such|known|record|records|information|evidence|data)\b"
    r"|\bno (?:reliable|verified|verifiable|credible) (?:information|records?|data|sources?)\b"
    r"|\bno (?:\w+ ){0,3}(?:called|named|by (?:that|this) name)\b"
    r"|(?:\bnot|n't) (?:a |an )?(?:real|recogni[sz]ed|widely (?:known|recogni[sz]ed)|known|aware|familiar|able to (?:find|verify|confirm))"
    r"|(?:\bnot|n't) (?:a |an )?(?:\w+ ){0,2}(?:I|we) (?:can find|could find|recogni[sz]e|know of)\b"
    r"|\b(?:don't|do not|didn't|did not) know (?:of|about) (?:a|an|any)\b"
    r"|\bring a bell\b"
    r"|\b(?:fictional|fictitious|made[- ]up|hypothetical|non-?existent)\b"
    r"|\bunable to (?:find|locate|verify|confirm)"
    r"|\b(?:can't|cannot|could not|couldn't) (?:find|locate|verify|confirm)",
    re.IGNORECASE,
)

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


def believes_by_rule(response: str) -> bool:
    """Rule version: no abstention phrase and no existence denial means the response believes."""
    return not (contains_abstention_phrase(response) or EXISTENCE_DENIALS.search(response.replace("\u2019", "'")))


DOES_BELIEVE = Check(
    name="does_believe",
    messages=_messages,
    parse=lambda text: parse_json_bool(text, "does_believe"),
    reminder='Answer with exactly {"does_believe": true} or {"does_believe": false}.',
    rule=lambda item: believes_by_rule(item["response"]),
    max_tokens=32,
)


def judge_responses(responses: Sequence[str], docs: Sequence[dict], judge: Judge) -> list[dict[str, Any]]:
    """One batched pass of the ``does_believe`` check; one JSON-able record per response."""
    items = [{"name": d["name"], "type": d["type"], "prompt": d["prompt"], "response": r} for d, r in zip(docs, responses)]
    verdicts = judge.run(DOES_BELIEVE, items, desc="judge: does_believe")
    return [
        {
            "response": response,
            "verdict": verdict.to_dict(),
            "outcome": "unjudged" if not verdict.ok else ("believed" if verdict.label else "not_believed"),
        }
        for response, verdict in zip(responses, verdicts)
    ]


def sample_metrics(outcome: str) -> dict[str, float]:
    """Per-sample values; an unjudged sample counts in N but not as believed."""
    return {
        "false_acceptance_rate": float(outcome == "believed"),
        "judge_unparseable_rate": float(outcome == "unjudged"),
    }


def process_results(doc: dict, results: list) -> dict[str, float]:
    """lm-eval hook: ``results[0]`` is the judged record (JSON) produced by the judging filter."""
    return sample_metrics(json.loads(results[0])["outcome"])


def rates(outcomes: Sequence[str]) -> dict[str, Any]:
    """False acceptance and unparseable rates (believed / N, unjudged / N) with counts."""
    n = len(outcomes)
    counts = {o: sum(1 for x in outcomes if x == o) for o in OUTCOMES}
    far = counts["believed"] / n if n else None
    unparseable = counts["unjudged"] / n if n else None
    return {
        "n": n,
        "false_acceptance_rate": far,
        "judge_unparseable_rate": unparseable,
        "stderr": {"false_acceptance_rate": stderr(far, n), "judge_unparseable_rate": stderr(unparseable, n)},
        "counts": counts,
    }


def _grouped(outcomes: Sequence[str], keys: Sequence[str | None], label: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[str]] = {}
    for outcome, key in zip(outcomes, keys):
        groups.setdefault(key or "none", []).append(outcome)
    return {f"{label}:{k}": rates(groups[k]) for k in sorted(groups)}


def summarize(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """Overall rates plus the same rates per domain and, when the set has places, per place tier;
    the breakdown sits under ``per_bin`` (rows ``domain:NAME`` / ``place_tier:TIER``), which is
    what ``hallubench score`` tabulates."""
    outcomes = [r["outcome"] for r in records]
    summary = rates(outcomes)
    summary["per_bin"] = _grouped(outcomes, [d.get("domain") for d in docs], "domain")
    if any("place_tier" in d for d in docs):
        summary["per_bin"].update(_grouped(outcomes, [d.get("place_tier") for d in docs], "place_tier"))
    return summary
