"""HaluEval's readers of the recogniser's reply: the official evaluation's Yes / No rule replayed exactly and the
project's reading (reasoning blocks and markdown ignored, unreadable replies None)."""

from __future__ import annotations

import re

from hallu_metrics.halueval.prompts import NO, YES
from hallu_metrics.judges.parsing import final_text

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
