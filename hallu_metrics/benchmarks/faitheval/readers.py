"""FaithEval's readers of the model's replies (no judge): the reference's keyword matching replayed exactly
(substrings), the project's whole-word keyword rule, and the counterfactual option reader."""

from __future__ import annotations

import functools
import re
import string

from hallu_metrics.benchmarks.faitheval.prompts import KEYWORD_TASKS
from hallu_metrics.judges.parsing import Statement, conclusion_text, decide, statements

_PUNCTUATION = set(string.punctuation + "\u2018\u2019\u00b4`")


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
    """Whether a reply to a ``task`` ("unanswerable" / "inconsistent") item concludes with the task's keyword
    (``strict``: the single keyword, else the published list) by ``matches_words``: read in
    ``judges.parsing.conclusion_text``, so reasoning blocks, quoted material (blockquotes, quoting code fences),
    hypothetical clauses ("if it were ..., unknown"), questions and what comes before a take-back ("Unknown. Wait,
    the context says ...") are left out; None when nothing readable is left (empty, punctuation only, or cut off
    inside a ``<think>`` block)."""
    text = conclusion_text(reply)
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
        # the statement is the label: "C", "(C)", "C)", "Option C", "Answer: C", "A/B/C/D" (an echoed placeholder),
        # also after a stance word: "CLEARLY C", "Still B."
        rf"^[^\w\n]*(?:(?:final\s+)?(?:answer|option|choice|letter)\s*[:=\-]?\s*|(?:clearly|definitely|certainly|"
        rf"obviously|surely|probably|likely|still)\s+)?{many}[^\w\n]*$",
        # "the answer is C", "Answer: C. Reason: ...", "correct option: (C)", JSON "answer": "C"
        rf"\b(?:answer|option|choice|letter)s?\b[\"'\u2019]?(?:\s*[:=\-\u2013]\s*|\s+(?:is|would\s+be|should\s+be|"
        rf"will\s+be|must\s+be)\s*:?\s*)[\"'\u201c]?{many}",
        rf"\b(?:choose|chose|choosing|pick|picked|select|selected|go\s+with|going\s+with|opt\s+for|say)\s+{many}",
        rf"{many}\s+(?:is|would\s+be|seems)\s+(?:the\s+)?(?:correct|right|best|true|supported)",
        rf"\\boxed\{{{many}\}}",
        # the label closing a statement after a comma, a colon or "it is" ("According to the context, C", "Based on
        # it: B", "... it is B."), or opening one before a comma ("B, clearly.")
        rf"(?:[,:]|\b(?:it|this|that)(?:\s+is|['\u2019]s))\s*{item}[^\w\n]*$",
        rf"^[^\w\n]*{item}\s*,",
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
    """The option a reply chooses, or None when unreadable. Read per statement of the reply's own text
    (``judges.parsing.statements``: reasoning blocks, quoted material, hypotheticals and questions left out, markdown
    emphasis ignored), the final conclusion kept (``judges.parsing.decide``: "B. Actually, the answer is C." is C).
    (1) Labels stated as the answer ("C", "**C**", "(C)", "Option C", "Answer: C", "the answer is C", "I choose C",
    "I'd say C", "C is correct", "CLEARLY C", "According to the context, C"); else (2) labels in option position
    ("C. red" / "C) red" at a statement start, "(C)", "option C"). The first of these that states any label decides;
    two different labels there are unreadable. (3) Only when no label is stated: the one option whose normalised
    text the reply names as whole words. A bare capital letter counts only in these positions, so "A cat ..." and
    "I think ..." state no label."""
    parts = statements(reply)
    if parts is None:
        return None
    canonical = {label.lower(): label for label in labels}
    stated, mentions, one = _choice_patterns(tuple(labels))
    options = [(label, normalize_answer(option)) for label, option in zip(labels, texts) if normalize_answer(option)]

    def read(part: Statement) -> tuple[set[str], set[str], set[str]]:
        named = {label.lower() for label, option in options if _has_phrase(part.text, option)}
        return _labels_in(stated, one, part.text), _labels_in(mentions, one, part.text), named

    found = decide([(part, read(part)) for part in parts])
    return None if found is None else canonical[found]


def _has_phrase(text: str, phrase: str) -> bool:
    """Whether the normalised ``phrase`` occurs as whole words in the normalised ``text``."""
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", normalize_answer(text)) is not None
