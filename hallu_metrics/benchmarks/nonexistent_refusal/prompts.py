"""NonExistentRefusal's judge prompt (HalluLens section 3.3): does the reply believe the named entity exists
(few-shot)."""

from __future__ import annotations

from hallu_metrics.judges.prompts import data_block, few_shot_judgement

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


def does_believe_messages(item: dict) -> list[dict[str, str]]:
    entity = data_block("entity", item["name"])
    intro = f"Now judge this conversation about the {item['type']} named in this block.\n{entity}"
    return few_shot_judgement(_SYSTEM, "does_believe", _EXAMPLES, intro, item["prompt"], item["response"])
