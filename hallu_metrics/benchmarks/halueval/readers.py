"""HaluEval's readers of the recogniser's reply: the official evaluation's Yes / No rule replayed exactly and the
project's reading (the reply's own final conclusion, markdown ignored, unreadable replies None)."""

from __future__ import annotations

import re

from hallu_metrics.benchmarks.halueval.prompts import NO, YES
from hallu_metrics.judges.parsing import Statement, decide, statements

_VERDICT = r"(?<![\w'\u2019])(?:yes|no)(?![\w'\u2019])(?!-\w)"
_VERDICTS = rf"{_VERDICT}(?:\s*(?:/|\||\bor\b)\s*{_VERDICT})*"  # "Yes/No", "Yes or No": an echoed placeholder
# After a label, "no" followed by a word is the determiner ("the answer: no evidence ..."), unless that word goes on
# the sentence ("Answer: No because ...").
_AFTER_NO = "because|since|as|it|this|that|the|there|i|and|but|so|not|wait|for"
_LABEL_VERDICT = rf"{_VERDICT}(?!(?<=no)[ \t]+(?!(?:{_AFTER_NO})\b)[^\W\d_])"
_LABEL_VERDICTS = rf"{_LABEL_VERDICT}(?:\s*(?:/|\||\bor\b)\s*{_LABEL_VERDICT})*"
# Where a statement states its verdict (case-insensitive, markdown emphasis removed first).
_LABELLED = tuple(re.compile(p, re.IGNORECASE) for p in (
    # "#Your Judgement#: Yes", "Judgement: No", "Final answer: No", "The answer is yes", JSON "judgement": "Yes",
    # "Hallucination: No", "hallucinated? Yes", "I would say no"
    rf"\b(?:judge?ment|answer|verdict|conclusion|hallucinated|hallucinations?)\b(?:\s*[:=\-\u2013#\"'?]+\s*|\s+is\s*:?"
    rf"\s*|\s+would\s+be\s+)[\"'\u201c]?{_LABEL_VERDICTS}",
    rf"\b(?:say|says|judge|conclude)\s+[\"'\u201c]?{_LABEL_VERDICTS}",
))
_ALONE = re.compile(rf"^[^\w]*{_VERDICTS}[^\w]*$", re.IGNORECASE)  # only the verdict: "Yes", "**No**", "No."
_OPENING = re.compile(rf"^[^\w]*{_VERDICTS}\s*(?:[,.;:!)\-\u2013\u2014]|$)", re.IGNORECASE)  # "No, because ..."
_FIRST_WORD = re.compile(rf"^[^\w]*({_VERDICT})", re.IGNORECASE)  # "No hallucination.", "Yes it is"
_ONE = re.compile(_VERDICT, re.IGNORECASE)


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
    """The project's reading: ``"Yes"``, ``"No"`` or ``None`` (unreadable), case-insensitive, from the reply's
    statements (``judges.parsing.statements``: reasoning blocks, quoted material, hypotheticals and questions left
    out, markdown emphasis ignored), the final conclusion kept (``judges.parsing.decide``: a later take-back wins).

    (1) Verdicts stated as such: after a label ("#Your Judgement#: Yes", "Answer: No", "the answer is yes",
    JSON ``"judgement": "No"``), a statement that is only the verdict ("**Yes**"), or a first (or revising)
    statement opening with it and punctuation ("No, because ..."); such a bare word inside a line ("..., so yes")
    only when no other yes / no is written since the last take-back. Both ("Yes ... Judgement: No", an echoed
    "Yes/No") are unreadable unless the later takes the earlier back. (2) Only when none is stated: a first word
    Yes / No followed by more words ("No hallucination."), provided the reply holds no other yes / no. A yes or no
    elsewhere in the prose is never read ("there is no doubt it is invented" states no verdict).
    """
    parts = statements(text)
    if parts is None:
        return None
    start = max((i for i, part in enumerate(parts) if part.retracts), default=0)
    words = {word.lower() for part in parts for word in _ONE.findall(f"{part.opening} {part.full}")}
    final_words = {word.lower() for part in parts[start:] for word in _ONE.findall(f"{part.opening} {part.full}")}

    def read(part: Statement) -> tuple[set[str], set[str]]:
        bare = []
        if part.whole_line or part.first or part.last or part.revises:
            bare.append(_ALONE)
        if part.first or part.revises:
            bare.append(_OPENING)
        if not (part.first or part.whole_line) and len(final_words) > 1:
            bare = []  # "No source supports this, so yes.": a bare word inside a line, another one beside it
        stated = {verdict.capitalize() for pattern in (*_LABELLED, *bare) for match in pattern.finditer(part.text)
                  for verdict in _ONE.findall(match.group(0))}
        first = _FIRST_WORD.match(part.text) if part.first and len(words) == 1 else None
        return stated, {first.group(1).capitalize()} if first else set()

    return decide([(part, read(part)) for part in parts])
