"""HaluEval (Li et al., 2023): hallucination *recognition*. Each source example yields judged
items with a gold Yes (hallucinated) / No label; the model under test must answer Yes or No.

Patterns, demonstrations and instructions follow the paper's structure (Tables 2, 8, 11, 12,
15, 16) but are written for this project. The same pattern definitions drive the generator.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric
from hallu_metrics.judges.judge_set import JudgeSet
from hallubench.seeding import seeded_rng
from hallubench.sources.halueval import read_records

YES, NO = "Yes", "No"
VARIANTS = ("standard", "knowledge", "cot", "contrast")
PAIRINGS = ("draw", "both")  # paper: one of the two answers drawn per record; variant: both judged
DRAW_SEED = 0  # the official evaluation draws unseeded; we seed it (docs/halueval.md)


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


# ---------------------------------------------------------------- answer extraction

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_VERDICT = r"(?<![\w'\u2019])(?:yes|no)(?![\w'\u2019])(?!-\w)"
_VERDICTS = rf"{_VERDICT}(?:\s*(?:/|\||\bor\b)\s*{_VERDICT})*"  # "Yes/No", "Yes or No": an echoed placeholder
# After a label, "no" followed by a word is the determiner ("the answer: no evidence ..."), unless that word goes on
# the sentence ("Answer: No because ...").
_AFTER_NO = "because|since|as|it|this|that|the|there|i|and|but|so|not|wait|for"
_LABEL_VERDICT = rf"{_VERDICT}(?!(?<=no)[ \t]+(?!(?:{_AFTER_NO})\b)[^\W\d_])"
_LABEL_VERDICTS = rf"{_LABEL_VERDICT}(?:\s*(?:/|\||\bor\b)\s*{_LABEL_VERDICT})*"
# Where a reply states its verdict (case-insensitive, markdown emphasis removed first).
_STATED = tuple(re.compile(p, re.IGNORECASE | re.MULTILINE) for p in (
    # "#Your Judgement#: Yes", "Judgement: No", "Final answer: No", "The answer is yes", JSON "judgement": "Yes",
    # "Hallucination: No", "hallucinated? Yes", "I would say no"
    rf"\b(?:judge?ment|answer|verdict|conclusion|hallucinated|hallucinations?)\b(?:\s*[:=\-\u2013#\"'?]+\s*|\s+is\s*:?"
    rf"\s*|\s+would\s+be\s+)[\"'\u201c]?{_LABEL_VERDICTS}",
    rf"\b(?:say|says|judge|conclude)\s+[\"'\u201c]?{_LABEL_VERDICTS}",
    rf"^[^\w\n]*{_VERDICTS}[^\w\n]*$",  # a line that is only the verdict: "Yes", "**No**", "No."
    rf"\A[^\w]*{_VERDICTS}\s*(?:[,.;:!)\-\u2013\u2014]|$)",  # the first word, then punctuation: "No, because ..."
))
_FIRST_WORD = re.compile(rf"\A[^\w]*({_VERDICT})", re.IGNORECASE)  # "No hallucination.", "Yes it is"
_ONE = re.compile(_VERDICT, re.IGNORECASE)


def final_text(reply: str) -> str | None:
    """The reply without its reasoning: closed ``<think>...</think>`` blocks removed, and everything before a lone
    ``</think>``; None when nothing is left or a ``<think>`` block never closes (cut off while reasoning)."""
    text = _THINK.sub(" ", reply)
    lower = text.lower()
    if "</think>" in lower:
        text = text[lower.rindex("</think>") + len("</think>"):]
    elif "<think>" in lower:
        return None
    return text.strip() or None


def extract_official(text: str) -> str | None:
    """The official evaluation's rule (paper section 3, official ``evaluate.py``), replayed exactly: after removing
    full stops, a reply holding both "Yes" and "No" or neither (case-sensitive substrings) is a failure (None,
    counted as wrong); otherwise the one it holds. As in the official code, "No" also matches inside words such as
    "Not" or "None", and "Yes" inside "Yesterday"."""
    text = text.replace(".", "")
    has_yes, has_no = YES in text, NO in text
    if has_yes == has_no:
        return None
    return YES if has_yes else NO


def extract_judgement(text: str) -> str | None:
    """The project's reading: ``"Yes"``, ``"No"`` or ``None`` (unreadable), case-insensitive, with reasoning blocks
    and markdown emphasis ignored.

    (1) Verdicts stated as such: after a label ("#Your Judgement#: Yes", "Answer: No", "the answer is yes",
    JSON ``"judgement": "No"``), alone on a line ("**Yes**"), or as the first word followed by punctuation ("No,
    because ..."). One verdict there decides; both ("Yes ... Judgement: No", an echoed "Yes/No") are unreadable.
    (2) Only when none is stated: a first word Yes / No followed by more words ("No hallucination."), provided the
    reply holds no other yes / no. A yes or no elsewhere in the prose is never read ("there is no doubt it is
    invented" states no verdict).
    """
    reply = final_text(text)
    if reply is None:
        return None
    reply = reply.replace("*", "").replace("`", "").replace("__", "")
    stated = {verdict.capitalize() for pattern in _STATED for match in pattern.finditer(reply)
              for verdict in _ONE.findall(match.group(0))}
    if stated:
        return stated.pop() if len(stated) == 1 else None
    first = _FIRST_WORD.match(reply)
    if first is None or len({word.lower() for word in _ONE.findall(reply)}) > 1:
        return None
    return first.group(1).capitalize()


# ---------------------------------------------------------------- prompts


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


# ---------------------------------------------------------------- items


def build_items(
    task: str,
    records: Iterable[dict[str, Any]],
    variant: str = "standard",
    pairing: str = "draw",
    seed: int = DRAW_SEED,
) -> list[dict[str, Any]]:
    """Judged items. Pair records (qa/dialogue/summarization): with ``pairing="draw"`` (the paper's
    protocol) one of the right / hallucinated texts is drawn per record under ``seed``; with
    ``"both"`` both are judged (gold No and Yes). ``general``: one item per human-labelled record.
    Keys: id, label, candidate, pattern, prompt."""
    spec = TASKS[task]
    if variant not in spec.variants():
        raise ValueError(f"halueval_{task} has no {variant!r} variant (has {', '.join(spec.variants())})")
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, not {pairing!r}")
    items = []
    for index, record in enumerate(records):
        judged = _judged(spec, record)
        if pairing == "draw" and len(judged) == 2:
            judged = [judged[seeded_rng(seed, task, index).random() < 0.5]]
        for label, candidate, other in judged:
            items.append(
                {
                    "id": f"{task}-{index}-{label.lower()}",
                    "label": label,
                    "candidate": candidate,
                    "pattern": str(record.get("pattern") or ""),
                    "prompt": recognition_prompt(
                        spec, record, candidate, variant, other if variant == "contrast" else None
                    ),
                }
            )
    return items


def _judged(spec: TaskSpec, record: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(gold label, judged text, its counterpart) for one record."""
    if spec.label_field:
        label = str(record[spec.label_field]).strip().lower()
        if label not in ("yes", "no"):
            raise ValueError(f"{spec.name}: hallucination label {record[spec.label_field]!r} is neither yes nor no")
        return [(label.capitalize(), record[spec.right], "")]
    right, hallucinated = record[spec.right], record[spec.hallucinated]
    return [(NO, right, hallucinated), (YES, hallucinated, right)]


# ---------------------------------------------------------------- metrics


def read_reply(response: str, doc: dict) -> dict[str, Any]:
    """The judged record of one reply: ``prediction`` by the official rule replayed exactly on the raw reply
    (``extract_official``), ``prediction_lenient`` by the project's reader (``extract_judgement``; None when
    unreadable)."""
    official, lenient = extract_official(response), extract_judgement(response)
    return {
        "response": response,
        "prediction": official,
        "prediction_lenient": lenient,
        "outcome": "invalid" if official is None else ("correct" if official == doc["label"] else "wrong"),
    }


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """No judge: the model under test is the recogniser."""
    return read_reply(response, doc)


def sample_metrics(record: dict[str, Any], doc: dict) -> dict[str, float | None]:
    """``accuracy`` (official rule; a failure is wrong), ``accuracy_lenient`` (documented lenient rule),
    per-gold-class accuracy (None for the other class) and ``invalid_rate`` (official failures)."""
    correct = float(record["prediction"] == doc["label"])
    return {
        "accuracy": correct,
        "accuracy_lenient": float(record["prediction_lenient"] == doc["label"]),
        "accuracy_hallucinated": correct if doc["label"] == YES else None,
        "accuracy_correct": correct if doc["label"] == NO else None,
        "invalid_rate": float(record["prediction"] is None),
    }


def items_of(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs from a HaluEval set's rows (``dataset_kwargs``: halueval_task, halueval_variant,
    halueval_pairing, halueval_seed)."""
    items = build_items(
        options["halueval_task"],
        rows.to_list(),
        options.get("halueval_variant", "standard"),
        options.get("halueval_pairing", "draw"),
        int(options.get("halueval_seed", DRAW_SEED)),
    )
    return datasets.Dataset.from_list(items)


_METRICS = (
    Metric("accuracy", "rate", True, "replies matching the gold label / N (official extraction; failures wrong)"),
    Metric("accuracy_lenient", "rate", True, "the same with the lenient extraction rule"),
    Metric("accuracy_hallucinated", "rate", True, "accuracy on gold-Yes (hallucinated) items", conditional=True),
    Metric("accuracy_correct", "rate", True, "accuracy on gold-No items", conditional=True),
    Metric("invalid_rate", "rate", False, "replies with both or neither of Yes/No / N"),
)


def _benchmark(spec: TaskSpec) -> Benchmark:
    name = f"halueval_{spec.name}"
    return Benchmark(
        name=name,
        family="halueval",
        paper="HaluEval (Li et al., 2023) section 3, Table 6",
        columns=datasets.Features({c: datasets.Value("string") for c in spec.columns}),
        doc_columns=("id", "label", "candidate", "pattern", "prompt"),
        to_docs=items_of,
        metrics=_METRICS,
        judge_item=judge_item,
        sample_metrics=sample_metrics,
        breakdowns=(
            Breakdown("label", "category", "gold label"),
            Breakdown("pattern", "category", "pattern", lambda d: d.get("pattern") or None),
        ),
        tasks=(
            name,
            *(f"{name}_{v}" for v in spec.variants() if v != "standard"),
            *((f"{name}_paired",) if not spec.label_field else ()),
        ),
        generator=None if spec.label_field else "halueval",
        evaluate_module="halueval_recognition",
        judge_roles=(),
        read_official=lambda location: read_records(spec.name, location, spec.columns),
        data_aliases=("halueval_data",),
        outcomes=("correct", "wrong", "invalid"),
    )


BENCHMARKS = tuple(_benchmark(spec) for spec in TASKS.values())
