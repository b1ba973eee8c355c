"""HaluEval's recognition prompts (Li et al., 2023; Tables 2, 8, 11, 12, 15, 16, in this project's words): the
tasks' field layouts and prompt vocabulary, the hallucination patterns with their worked examples (also used by the
generator) and the prompt the model under test answers Yes / No."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hallubench.core.seeding import seeded_rng

YES, NO = "Yes", "No"
VARIANTS = ("standard", "knowledge", "cot", "contrast")


@dataclass(frozen=True)
class Pattern:
    """One hallucination pattern: how to produce it, what to check for, one worked example."""

    name: str
    produce: str
    detect: str
    demo: dict[str, str]


@dataclass(frozen=True)
class TaskSpec:
    """Field layout of one HaluEval task's official file and its prompt vocabulary."""

    name: str
    unit: str  # "answer", "response", "summary"
    context: tuple[tuple[str, str], ...]  # (field, label) shown before the judged text
    knowledge_fields: tuple[str, ...]  # context fields shown only in the knowledge variant
    right: str = ""
    hallucinated: str = ""
    label_field: str = ""  # general: human label instead of a right/hallucinated pair
    patterns: tuple[Pattern, ...] = ()
    role: str = "answer judge"

    @property
    def columns(self) -> tuple[str, ...]:
        """Columns the official file (and a generated set) must have."""
        judged = (self.right, self.label_field) if self.label_field else (self.right, self.hallucinated)
        return tuple(f for f, _ in self.context) + judged

    def variants(self) -> tuple[str, ...]:
        """Table 9: knowledge only where the prompt hides some; no contrast without a pair."""
        return tuple(
            v
            for v in VARIANTS
            if not (v == "knowledge" and not self.knowledge_fields) and not (v == "contrast" and self.label_field)
        )


_QA_KNOWLEDGE_EIFFEL = "The Eiffel Tower in Paris was opened in 1889 as the entrance arch of the World's Fair."
QA = TaskSpec(
    name="qa",
    unit="answer",
    context=(("knowledge", "Knowledge"), ("question", "Question")),
    knowledge_fields=("knowledge",),
    right="right_answer",
    hallucinated="hallucinated_answer",
    patterns=(
        Pattern(
            "comprehension",
            "The answer misreads what the question is asking about, so it answers a different question.",
            "Does the answer misread the context or the intention of the question?",
            {
                "knowledge": "Budapest, the capital of Hungary, is divided by the Danube into Buda and Pest.",
                "question": "Which river flows through the capital of Hungary?",
                "right_answer": "The Danube",
                "hallucinated_answer": "Budapest",
            },
        ),
        Pattern(
            "factuality",
            "The answer contradicts the facts; you may invent details that the knowledge does not contain.",
            "Does the answer contradict the facts, possibly with invented details?",
            {
                "knowledge": _QA_KNOWLEDGE_EIFFEL,
                "question": "In which year did the Eiffel Tower open?",
                "right_answer": "1889",
                "hallucinated_answer": "1901",
            },
        ),
        Pattern(
            "specificity",
            "The answer is too vague or too detailed to match the level of detail the question asks for.",
            "Is the answer too general or too specific for what the question asks?",
            {
                "knowledge": "Pierre Curie was a French physicist who shared the 1903 Nobel Prize in Physics.",
                "question": "What was Pierre Curie's profession?",
                "right_answer": "Physicist",
                "hallucinated_answer": "He worked in a field of study",
            },
        ),
        Pattern(
            "inference",
            "The answer draws a wrong conclusion from the knowledge through faulty reasoning.",
            "Does the answer draw a conclusion that does not follow from the knowledge?",
            {
                "knowledge": "Apple was founded in California. Microsoft was founded in New Mexico.",
                "question": "Were Apple and Microsoft founded in the same country?",
                "right_answer": "Both were founded in the United States",
                "hallucinated_answer": "They were not, since New Mexico was outside the United States when "
                    "Microsoft was founded",
            },
        ),
    ),
)

_DIALOGUE_DEMO = {
    "knowledge": "Inception is a 2010 film written and directed by Christopher Nolan. Christopher Nolan also "
        "directed Interstellar.",
    "dialogue_history": "[Human]: I just watched Inception. Do you know who made it?",
    "right_response": "Christopher Nolan directed it; he also made Interstellar.",
}
DIALOGUE = TaskSpec(
    name="dialogue",
    unit="response",
    context=(("knowledge", "Knowledge"), ("dialogue_history", "Dialogue History")),
    knowledge_fields=("knowledge",),
    right="right_response",
    hallucinated="hallucinated_response",
    role="response judge",
    patterns=(
        Pattern(
            "extrinsic-soft",
            "Swap a true entity for a closely similar one.",
            "Was a true entity replaced by a closely similar entity?",
            {**_DIALOGUE_DEMO, "hallucinated_response": "Denis Villeneuve directed it; he also made Interstellar."},
        ),
        Pattern(
            "extrinsic-hard",
            "Swap a true entity for a clearly different one of the same kind.",
            "Was a true entity replaced by a clearly different entity?",
            {**_DIALOGUE_DEMO, "hallucinated_response": "Nora Ephron directed it; she also made Interstellar."},
        ),
        Pattern(
            "extrinsic-grouped",
            "Swap a true entity for a different one of another entity type.",
            "Was a true entity replaced by an entity of another type?",
            {
                **_DIALOGUE_DEMO,
                "hallucinated_response": "Pixar Animation Studios directed it; it also made Interstellar.",
            },
        ),
    ),
)

_SUMMARY_DEMO = {
    "document": "Harlow town council voted on Tuesday to close Westgate library in March, citing a budget gap of "
    "200,000 pounds. About 300 residents had signed a petition against the closure. The council said "
    "the library's books would move to the central library.",
    "right_summary": "Harlow council has voted to close Westgate library in March to cover a budget gap, "
        "despite a residents' petition.",
}
SUMMARIZATION = TaskSpec(
    name="summarization",
    unit="summary",
    context=(("document", "Document"),),
    knowledge_fields=(),
    right="right_summary",
    hallucinated="hallucinated_summary",
    role="summary judge",
    patterns=(
        Pattern(
            "factual",
            "Add information that may be true but cannot be inferred from the document.",
            "Does the summary state something, perhaps true, that the document does not support?",
            {
                **_SUMMARY_DEMO,
                "hallucinated_summary": "Harlow council in Essex has voted to close Westgate library, which "
                    "opened in 1964, to cover a budget gap.",
            },
        ),
        Pattern(
            "non-factual",
            "Add invented, incorrect information that the document does not contain.",
            "Does the summary contain invented, incorrect information?",
            {
                **_SUMMARY_DEMO,
                "hallucinated_summary": "Harlow council has voted to close Westgate library after its lottery "
                    "funding was withdrawn, despite a petition.",
            },
        ),
        Pattern(
            "intrinsic",
            "Contradict what the document says.",
            "Does the summary contradict the document?",
            {
                **_SUMMARY_DEMO,
                "hallucinated_summary": "Harlow council has voted to close the central library in March, "
                    "despite a residents' petition.",
            },
        ),
    ),
)

GENERAL = TaskSpec(
    name="general",
    unit="response",
    context=(("user_query", "User Query"),),
    knowledge_fields=(),
    right="chatgpt_response",
    label_field="hallucination",
    role="response judge",
)

TASKS: dict[str, TaskSpec] = {t.name: t for t in (QA, DIALOGUE, SUMMARIZATION, GENERAL)}


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an" as it is spoken ("an answer judge", "a summary")."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _fields(spec: TaskSpec, record: dict[str, Any], with_knowledge: bool) -> str:
    return "\n".join(
        f"#{label}#: {record[field]}"
        for field, label in spec.context
        if with_knowledge or field not in spec.knowledge_fields
    )


def _judged_example(spec: TaskSpec, demo: dict[str, str], with_knowledge: bool) -> str:
    unit = spec.unit.capitalize()
    return "\n\n".join(
        f"{_fields(spec, demo, with_knowledge)}\n#{unit}#: {demo[key]}\n#Your Judgement#: {label}"
        for key, label in ((spec.right, NO), (spec.hallucinated, YES))
    )


def recognition_prompt(
    spec: TaskSpec, record: dict[str, Any], candidate: str, variant: str, other: str | None = None
) -> str:
    """Instruction + patterns with demonstrations + the item, ending in ``#Your Judgement#:``."""
    with_knowledge = variant == "knowledge"
    unit = spec.unit
    parts = [
        f"You are acting as {with_article(spec.role)}. You will see {with_article(unit)} together with what it "
        f"responds to. Decide whether the {unit} contains information that is non-factual, invented or unsupported. "
        "Use your knowledge of the "
        + ("world." if not spec.patterns else "world and look for the following kinds of hallucination.")
    ]
    for pattern in spec.patterns:
        parts.append(f"Kind: {pattern.name}. {pattern.detect}\n\n{_judged_example(spec, pattern.demo, with_knowledge)}")
    if variant == "cot":
        rule = (
            f"Think it through step by step in a few sentences, then finish with a last line of exactly "
            f'"#Your Judgement#: Yes" if the {unit} is hallucinated or "#Your Judgement#: No" if it is not.'
        )
    else:
        rule = f'Reply "Yes" if the {unit} is hallucinated and "No" if it is not. Your reply MUST be "Yes" or "No".'
    parts.append(rule)
    item = _fields(spec, record, with_knowledge)
    if other is not None:
        pair = sorted([candidate, other], key=lambda text: seeded_rng("contrast", text).random())
        item += (
            f"\nTwo candidate {unit}s were written for this input:\n1. {pair[0]}\n2. {pair[1]}\nJudge this one of them."
        )
    parts.append(f"{item}\n#{unit.capitalize()}#: {candidate}\n#Your Judgement#:")
    return "\n\n".join(parts)
