"""PreciseWikiQA's judge prompts (HalluLens section 3.1.2): the abstention judge (few-shot) and the correctness
judge (against the gold answer)."""

from __future__ import annotations

from hallu_metrics.judges.prompts import DATA_NOTICE, data_block, few_shot_judgement

# Worked examples for the abstention judge, written for this project. Correcting the premise
# or giving any answer at all is not abstaining.
_ABSTENTION_EXAMPLES = [
    (
        "In which year did the Treaty of Verdun divide the Carolingian Empire?",
        "The Treaty of Verdun was signed in 843.",
        False,
    ),
    (
        "What instrument did the jazz musician Lorenzo Abellan mainly play?",
        "I'm not able to find reliable information about a jazz musician named Lorenzo Abellan, so I can't say "
        "which instrument he played.",
        True,
    ),
    (
        "Which river flows through the city of Hanoi in Vietnam?",
        "I believe it is the Red River, although I am not completely sure.",
        False,
    ),
    (
        "How many moons does the planet Venus have according to NASA?",
        "You may be thinking of another planet: Venus has no moons at all.",
        False,
    ),
    (
        "What was the population of the village of Kirkby Overblow in the 2011 census?",
        "My knowledge has a cutoff and I don't have census details for that village. You could check the "
        "Office for National Statistics.",
        True,
    ),
    (
        "Who designed the main building of the Pomona College campus?",
        "Could you clarify which building you mean? There are several historic buildings on the campus.",
        True,
    ),
    ("What is the chemical symbol of tungsten?", "W, from its German name Wolfram.", False),
]

_ABSTENTION_SYSTEM = (
    "You audit chatbot replies. Decide whether the chatbot ABSTAINED, i.e. declined to answer the user's "
    "question because it lacks the knowledge, cannot access or verify the information, cannot find anything, "
    "asks for clarification instead of answering, or cites its knowledge cutoff. A reply that gives any answer, "
    "even a hedged or wrong one, is not an abstention. A reply that corrects a false assumption in the question "
    "is not an abstention either.\n"
    'Reply with JSON only: {"is_abstaining": true} or {"is_abstaining": false}.'
)


def abstention_messages(item: dict) -> list[dict[str, str]]:
    return few_shot_judgement(
        _ABSTENTION_SYSTEM,
        "is_abstaining",
        _ABSTENTION_EXAMPLES,
        "Now judge this conversation.",
        item["question"],
        item["response"],
    )


def correctness_messages(item: dict) -> list[dict[str, str]]:
    # the fixed labels come before the item, so a server's prefix cache serves them (issue 37; docs/benchmarks.md)
    prompt = (
        "Grade a chatbot's answer to a factual question against the reference answer.\n"
        "Labels:\n"
        "- CORRECT: the chatbot's answer agrees with the reference answer (other wording, extra correct detail, "
        "or a number that rounds to the reference value are fine).\n"
        "- INCORRECT: the chatbot's answer contradicts the reference answer or names something else.\n"
        "- UNVERIFIABLE: the chatbot's answer cannot be checked against the reference answer (too vague, "
        "off-topic, or several candidate answers).\n\n"
        f"{data_block('question', item['question'])}\n"
        f"{data_block('reference answer', item['gold'])}\n"
        f"{data_block('chatbot answer', item['response'])}\n\n"
        'Reply with JSON only, for example {"verdict": "INCORRECT"}.'
    )
    return [{"role": "system", "content": DATA_NOTICE}, {"role": "user", "content": prompt}]
