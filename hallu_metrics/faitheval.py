"""FaithEval (Ming et al., 2024; HalluLens section 4.3): contextual faithfulness in three tasks.

- unanswerable: the context lacks the answer; the model should say "unknown";
- inconsistent: the context's documents support different answers; the model should say "conflict";
- counterfactual: the context states something against world knowledge (ARC-style multiple choice); the model
  should choose the option the context supports.

Replies are read without a judge. Unanswerable / inconsistent use FaithEval's keyword matching on the normalised
reply: strict (the one keyword) and non-strict (the published keyword list). The reference matches keywords as
substrings, so "not" matches inside "nothing" or "note"; each accuracy is reported both ways (``_official`` =
substring, as published; the unsuffixed metric matches whole words).
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric
from hallu_metrics.judges.judge_set import JudgeSet
from hallubench.errors import HallubenchError

HUB_IDS = {
    "unanswerable": "Salesforce/FaithEval-unanswerable-v1.0",
    "inconsistent": "Salesforce/FaithEval-inconsistent-v1.0",
    "counterfactual": "Salesforce/FaithEval-counterfactual-v1.0",
}


@dataclass(frozen=True)
class KeywordTask:
    """A FaithEval task answered by a keyword: the instruction naming it and the published keyword lists."""

    name: str
    instruction: str
    strict: tuple[str, ...]
    lenient: tuple[str, ...]


# Keyword lists as published in FaithEval's evaluation code (README quick start).
UNANSWERABLE = KeywordTask(
    "unanswerable",
    "If the context does not provide the answer, reply 'unknown'.",
    strict=("unknown",),
    lenient=("unknown", "no answer", "no information", "not", "unclear"),
)
INCONSISTENT = KeywordTask(
    "inconsistent",
    "If the context gives conflicting information or more than one answer, reply 'conflict'.",
    strict=("conflict",),
    lenient=("conflict", "multiple answers", "disagreement", "inconsistent", "contradictory", "contradiction",
             "inconsistency", "two answers", "2 answers", "conflicting"),
)
KEYWORD_TASKS = {t.name: t for t in (UNANSWERABLE, INCONSISTENT)}

# The paper's prompt structure (a retrieval QA expert, the exact answer only, the task's instruction, context,
# question, "Answer:"), in this project's words.
_HEAD = ("You are an expert at answering questions from retrieved documents. Reply with the exact answer only, "
         "without explanation or extra information.")
COUNTERFACTUAL_INSTRUCTION = "Choose the option that the context supports and reply with its letter."


def keyword_prompt(task: KeywordTask, context: str, question: str) -> str:
    return f"{_HEAD}\n{task.instruction}\nContext: {context}\nQuestion: {question}\nAnswer:"


def choice_prompt(context: str, question: str, labels: list[str], texts: list[str]) -> str:
    options = "\n".join(f"{label}. {text}" for label, text in zip(labels, texts))
    return f"{_HEAD}\n{COUNTERFACTUAL_INSTRUCTION}\nContext: {context}\nQuestion: {question}\n{options}\nAnswer:"


# ---------------------------------------------------------------- reading replies

_PUNCTUATION = set(string.punctuation + "\u2018\u2019\u00b4`")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def final_text(reply: str) -> str | None:
    """The reply without its reasoning: closed ``<think>...</think>`` blocks removed, and everything before a lone
    ``</think>`` (the opening tag was in the prompt); None when nothing is left or a ``<think>`` block never closes
    (the reply was cut off while reasoning)."""
    text = _THINK.sub(" ", reply)
    lower = text.lower()
    if "</think>" in lower:
        text = text[lower.rindex("</think>") + len("</think>"):]
    elif "<think>" in lower:
        return None
    return text.strip() or None


def normalize_answer(text: str) -> str:
    """FaithEval's (SQuAD-style) normalisation: lower case, underscores and punctuation to spaces, articles
    removed, whitespace collapsed."""
    text = "".join(" " if ch in _PUNCTUATION else ch for ch in text.lower().replace("_", " "))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def matches_official(reply: str, keywords: tuple[str, ...]) -> bool:
    """The reference rule, replayed exactly: any keyword as a substring of the normalised reply ("not" inside
    "nothing", "knot", "another"; the reference strips the reply first, which normalisation makes a no-op)."""
    normalized = normalize_answer(reply)
    return any(keyword in normalized for keyword in keywords)


# Word forms the project's rule accepts for a published keyword (regular expressions over normalised text; a keyword
# not listed matches only itself): inflections and the verb of a listed noun ("conflicting", "disagree"); for "not"
# the negations the reference's substring test catches ("cannot", "nothing") and the contraction "n't", which
# normalises to "n t" ("doesn t"); never "note", "knot", "another" or "Nottingham".
KEYWORD_FORMS: dict[str, str] = {
    "not": r"not|cannot|nothing|\w+n t",
    "no answer": r"no answers?",
    "conflict": r"conflict(?:s|ing|ed)?",
    "disagreement": r"disagree(?:s|d|ment|ments)?",
    "contradiction": r"contradict(?:s|ed|ion|ions)?",
    "inconsistency": r"inconsistenc(?:y|ies)",
}
# Keyword phrases are matched within one clause: "No, the answer is Paris" does not hold "no answer".
_CLAUSE = re.compile(r"[.,;:!?()\[\]{}\"\n\u201c\u201d]+")


@functools.lru_cache(maxsize=64)
def _keyword_pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    forms = "|".join(KEYWORD_FORMS.get(keyword, re.escape(keyword)) for keyword in keywords)
    return re.compile(rf"(?<!\w)(?:{forms})(?!\w)")


def matches_words(reply: str, keywords: tuple[str, ...]) -> bool:
    """The project's rule: a keyword, or one of its word forms (``KEYWORD_FORMS``), as whole words within one clause
    of the normalised reply."""
    pattern = _keyword_pattern(tuple(keywords))
    return any(pattern.search(normalize_answer(clause)) for clause in _CLAUSE.split(reply))


def read_keyword(reply: str, task: str, strict: bool = False) -> bool | None:
    """Whether a reply to a ``task`` ("unanswerable" / "inconsistent") item holds the task's keyword (``strict``:
    the single keyword, else the published list) by ``matches_words``, reasoning blocks left out; None when nothing
    readable is left (empty, punctuation only, or cut off inside a ``<think>`` block)."""
    text = final_text(reply)
    if text is None or not normalize_answer(text):
        return None
    spec = KEYWORD_TASKS[task]
    return matches_words(text, spec.strict if strict else spec.lenient)


# Words after which a bare "A" / "I" is still a label, not the article or the pronoun ("A because ...").
_CONNECTIVES = "because|since|as|given|based|according|per|which|or|and|is|was|would|seems|from"
_WORDLIKE = {"a", "i"}


@functools.lru_cache(maxsize=64)
def _choice_patterns(labels: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...],
                                                         re.Pattern[str]]:
    """(statement patterns, mention patterns, one-label pattern) for a question's option labels."""
    alternatives = []
    for label in sorted(labels, key=len, reverse=True):
        guard = r"(?![\w'\u2019])(?!-\w)"
        if label.lower() in _WORDLIKE:
            guard += rf"(?![ \t]+(?!(?:{_CONNECTIVES})\b)[^\W\d_])"
        alternatives.append(re.escape(label) + guard)
    one = rf"(?<![\w'\u2019])(?:{'|'.join(alternatives)})"
    item = rf"(?:(?:option|choice|letter)\s*)?[(\[]?{one}[)\]]?"
    many = rf"{item}(?:\s*(?:/|\||,|\bor\b|\band\b)\s*{item})*"
    flags = re.IGNORECASE | re.MULTILINE
    statements = (
        # the line is the label: "C", "(C)", "C)", "Option C", "Answer: C", "A/B/C/D" (an echoed placeholder)
        rf"^[^\w\n]*(?:(?:final\s+)?(?:answer|option|choice|letter)\s*[:=\-]?\s*)?{many}[^\w\n]*$",
        # "the answer is C", "Answer: C. Reason: ...", "correct option: (C)", JSON "answer": "C"
        rf"\b(?:answer|option|choice|letter)s?\b[\"'\u2019]?(?:\s*[:=\-\u2013]\s*|\s+(?:is|would\s+be|should\s+be|"
        rf"will\s+be|must\s+be)\s*:?\s*)[\"'\u201c]?{many}",
        rf"\b(?:choose|chose|choosing|pick|picked|select|selected|go\s+with|going\s+with|opt\s+for)\s+{many}",
        rf"{many}\s+(?:is|would\s+be|seems)\s+(?:the\s+)?(?:correct|right|best|true|supported)",
        rf"\\boxed\{{{many}\}}",
    )
    mentions = (
        rf"^[^\w\n]*[(\[]?{one}(?:[)\].:]|\s+[-\u2013\u2014])",  # "B. green", "B) green", "- C: red"
        rf"[(\[]{one}[)\]]",  # "(B)" anywhere
        rf"\b(?:option|choice)\s+{one}",  # "option B"
    )
    return (tuple(re.compile(p, flags) for p in statements), tuple(re.compile(p, flags) for p in mentions),
            re.compile(one, re.IGNORECASE))


def _labels_in(patterns: tuple[re.Pattern[str], ...], one: re.Pattern[str], text: str) -> set[str]:
    return {label.lower() for pattern in patterns for match in pattern.finditer(text)
            for label in one.findall(match.group(0))}


def read_choice(reply: str, labels: list[str], texts: list[str]) -> str | None:
    """The option a reply chooses, or None when unreadable. Reasoning blocks and markdown emphasis are ignored.
    (1) Labels stated as the answer ("C", "**C**", "(C)", "Option C", "Answer: C", "the answer is C", "I choose C",
    "C is correct"); else (2) labels in option position ("C. red" / "C) red" at a line start, "(C)", "option C").
    The first of these that states any label decides; two different labels there are unreadable. (3) Only when no
    label is stated: the one option whose normalised text the reply names as whole words. A bare capital letter
    counts only in these positions, so "A cat ..." and "I think ..." state no label."""
    text = final_text(reply)
    if text is None:
        return None
    text = text.replace("*", "").replace("`", "").replace("__", "")
    canonical = {label.lower(): label for label in labels}
    statements, mentions, one = _choice_patterns(tuple(labels))
    for patterns in (statements, mentions):
        stated = _labels_in(patterns, one, text)
        if stated:
            return canonical[stated.pop()] if len(stated) == 1 else None
    named = [label for label, option in zip(labels, texts)
             if normalize_answer(option) and _has_phrase(text, normalize_answer(option))]
    return named[0] if len(named) == 1 else None


def _has_phrase(text: str, phrase: str) -> bool:
    """Whether the normalised ``phrase`` occurs as whole words in the normalised ``text``."""
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", normalize_answer(text)) is not None


# ---------------------------------------------------------------- judging and metrics

def read_keyword_reply(task: KeywordTask, response: str) -> dict[str, Any]:
    """The judged record of an unanswerable / inconsistent reply: each keyword rule's verdict (the project's rule
    counts an unreadable reply as holding no keyword; the ``_official`` verdicts replay the reference on the raw
    reply)."""
    strict, lenient = read_keyword(response, task.name, strict=True), read_keyword(response, task.name)
    return {
        "response": response,
        "strict": strict is True,
        "strict_official": matches_official(response, task.strict),
        "lenient": lenient is True,
        "lenient_official": matches_official(response, task.lenient),
        "outcome": "correct" if lenient is True else "wrong",
    }


def read_choice_reply(response: str, doc: dict) -> dict[str, Any]:
    """The judged record of a counterfactual reply: the option read, and whether the answer key letter occurs
    anywhere in the raw reply (a naive substring baseline, not a replay: FaithEval publishes no counterfactual
    scoring code)."""
    choice = read_choice(response, list(doc["choice_labels"]), list(doc["choice_texts"]))
    return {
        "response": response,
        "choice": choice,
        "official": doc["answer_key"] in response,  # the answer key letter as a case-sensitive substring
        "outcome": "invalid" if choice is None else ("correct" if choice == doc["answer_key"] else "wrong"),
    }


def keyword_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float]:
    return {
        "accuracy": float(record["lenient"]),
        "accuracy_official": float(record["lenient_official"]),
        "accuracy_strict": float(record["strict"]),
        "accuracy_strict_official": float(record["strict_official"]),
    }


def choice_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float]:
    return {
        "accuracy": float(record["outcome"] == "correct"),
        "accuracy_key_substring": float(record["official"]),
        "invalid_rate": float(record["outcome"] == "invalid"),
    }


def _keyword_judge(task: KeywordTask):
    async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
        """No judge: keyword matching on the reply."""
        return read_keyword_reply(task, response)

    return judge_item


async def judge_choice(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """No judge: the chosen option is read from the reply."""
    return read_choice_reply(response, doc)


# ---------------------------------------------------------------- data

def _choices(row: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    choices = row["choices"]
    if not isinstance(choices, Mapping) or not {"label", "text"} <= set(choices):
        raise HallubenchError(f"faitheval_counterfactual: choices must be {{label: [...], text: [...]}}: {choices!r}")
    return [str(label) for label in choices["label"]], [str(text) for text in choices["text"]]


def _row_id(row: Mapping[str, Any], index: int) -> str:
    return str(row.get("id") or row.get("qid") or index)


def keyword_docs(task: KeywordTask):
    def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
        """Docs with the prompt; ``subset`` (the source QA dataset) kept for the breakdown when present."""
        return datasets.Dataset.from_list([
            {"id": _row_id(row, i), "subset": str(row.get("subset") or ""),
             "prompt": keyword_prompt(task, row["context"], row["question"])}
            for i, row in enumerate(rows)
        ])

    return to_docs


def choice_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs with the multiple-choice prompt, the option labels / texts and the context's answer key."""
    docs = []
    for i, row in enumerate(rows):
        labels, texts = _choices(row)
        if row["answerKey"] not in labels:
            raise HallubenchError(f"faitheval_counterfactual: row {i} answerKey {row['answerKey']!r} not in {labels}")
        docs.append({"id": _row_id(row, i), "subset": "", "prompt": choice_prompt(row["context"], row["question"],
                     labels, texts), "choice_labels": labels, "choice_texts": texts, "answer_key": row["answerKey"]})
    return datasets.Dataset.from_list(docs)


def read_official_for(task: str):
    def read_official(location: str | None) -> list[dict[str, Any]]:
        """The Hub test split (``location`` None), or the parquet / JSON-lines files of a folder (e.g. a
        snapshot of the Hub repository, whose ``data/`` holds ``test-*.parquet``)."""
        if location is None:
            return datasets.load_dataset(HUB_IDS[task], split="test").to_list()
        folder = Path(location)
        files = sorted(p for p in folder.rglob("*") if p.suffix in (".parquet", ".jsonl"))
        if not files:
            raise HallubenchError(f"{location}: no .parquet or .jsonl files of {HUB_IDS[task]}")
        builder = "parquet" if files[0].suffix == ".parquet" else "json"
        same_kind = [str(p) for p in files if p.suffix == files[0].suffix]
        return datasets.load_dataset(builder, data_files=same_kind, split="train").to_list()

    return read_official


_PAPER = "FaithEval (Ming et al., 2024); HalluLens (Bang et al., 2025) section 4.3"
_KEYWORD_METRICS = (
    Metric("accuracy", "rate", True, "replies with a keyword of the published list, as whole words / N"),
    Metric("accuracy_official", "rate", True, "the same with the reference's substring matching ('not' in 'nothing')"),
    Metric("accuracy_strict", "rate", True, "replies with the task's single keyword, as a whole word / N"),
    Metric("accuracy_strict_official", "rate", True, "the same with the reference's substring matching"),
)
_TEXT = datasets.Value("string")


def _keyword_benchmark(task: KeywordTask) -> Benchmark:
    return Benchmark(
        name=f"faitheval_{task.name}",
        family="hallulens_intrinsic",
        paper=_PAPER,
        columns=datasets.Features({"question": _TEXT, "context": _TEXT}),
        doc_columns=("id", "subset", "prompt"),
        to_docs=keyword_docs(task),
        metrics=_KEYWORD_METRICS,
        judge_item=_keyword_judge(task),
        sample_metrics=keyword_metrics,
        breakdowns=(Breakdown("subset", "category", "source QA dataset", lambda d: d.get("subset") or None),),
        headline=("accuracy", "accuracy_strict"),
        generator=None,
        evaluate_module="faitheval",
        judge_roles=(),
        read_official=read_official_for(task.name),
        outcomes=("correct", "wrong"),
    )


COUNTERFACTUAL = Benchmark(
    name="faitheval_counterfactual",
    family="hallulens_intrinsic",
    paper=_PAPER,
    columns=datasets.Features({"question": _TEXT, "context": _TEXT, "answerKey": _TEXT,
                               "choices": {"label": datasets.Sequence(_TEXT), "text": datasets.Sequence(_TEXT)}}),
    doc_columns=("id", "subset", "prompt", "choice_labels", "choice_texts", "answer_key"),
    to_docs=choice_docs,
    metrics=(
        Metric("accuracy", "rate", True, "replies choosing the option the context supports / N"),
        Metric("accuracy_key_substring", "rate", True,
               "replies containing the answer key letter anywhere (a naive baseline, no published rule) / N"),
        Metric("invalid_rate", "rate", False, "replies naming no option or several / N"),
    ),
    judge_item=judge_choice,
    sample_metrics=choice_metrics,
    headline=("accuracy", "invalid_rate"),
    generator=None,
    evaluate_module="faitheval",
    judge_roles=(),
    read_official=read_official_for("counterfactual"),
    outcomes=("correct", "wrong", "invalid"),
)

BENCHMARKS = (_keyword_benchmark(UNANSWERABLE), _keyword_benchmark(INCONSISTENT), COUNTERFACTUAL)
