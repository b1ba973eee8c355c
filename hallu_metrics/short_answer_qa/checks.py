"""The short-answer grade check: its reader (:func:`parse_grade`) and rule stand-in (:func:`rule_grade`).

The public grader reads its reply with ``re.search("(A|B|C)")``, which finds capitals inside words ("Correct" gives
C); :func:`parse_grade` accepts only whole-token letters or label words and calls anything else unparseable.
"""

from __future__ import annotations

from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import VerdictReader
from hallu_metrics.judges.rules import abstention_precisewikiqa, gold_reason, is_abstention_precisewikiqa, matches_gold
from hallu_metrics.short_answer_qa.prompts import grader_messages

LETTERS = {"A": "CORRECT", "B": "INCORRECT", "C": "NOT_ATTEMPTED"}

_GRADE = VerdictReader(
    {**LETTERS, **{label: label for label in LETTERS.values()}, "NOT ATTEMPTED": "NOT_ATTEMPTED"}, key="grade"
)


def parse_grade(text: str) -> str | None:
    """The grade a grader reply concludes with (docs/design.md reader rules, ``judges.parsing.VerdictReader``): a
    grade letter (A/B/C, capitals only: "a" is an article) or label word (CORRECT, INCORRECT, NOT_ATTEMPTED / NOT
    ATTEMPTED, any case) given as the reply, its first word (``B: INCORRECT - ...``, ``**C**``), a ``Grade: X`` line,
    a statement of its own, ``I'd say X``, a JSON ``{"grade": ...}`` field, or a closing ``... the grade is X.``
    with no other grade named. Letters and words in the grader's reasoning, a quotation (``> Grade: A``), a
    hypothetical ("it would be A if ...") or a grade taken back are not the grade; a letter opening a name ("B.
    Obama") is none either. A negated word ("not correct") is unreadable: it does not tell INCORRECT from
    NOT_ATTEMPTED. Two different final grades are unreadable (None)."""
    return _GRADE(text)


def rule_grade(item: dict) -> str:
    """Offline stand-in: PreciseWikiQA's abstention rule -> NOT_ATTEMPTED; a gold answer in the reply
    (``matches_gold``) -> CORRECT; anything else -> INCORRECT. Agreement with hand labels: docs/benchmarks.md."""
    if is_abstention_precisewikiqa(item["response"]):
        return "NOT_ATTEMPTED"
    return "CORRECT" if any(matches_gold(item["response"], gold) for gold in item["golds"]) else "INCORRECT"


def grade_reason(item: dict) -> str:
    """Why ``rule_grade`` graded as it did: the abstention phrase it matched, the gold answer it found, or the gold
    answers it looked for and did not find."""
    abstention = abstention_precisewikiqa(item["response"])
    if abstention is not None:
        return abstention
    found = [gold for gold in item["golds"] if matches_gold(item["response"], gold)]
    reasons = [gold_reason(item["response"], gold) for gold in (found[:1] or item["golds"])]
    return "; ".join(reasons) or "no gold answer given"


GRADE = Check(
    name="short_answer_grade",
    fields=("question", "golds", "response"),
    messages=grader_messages,
    parse=parse_grade,
    reminder="Reply with exactly one letter: A (CORRECT), B (INCORRECT) or C (NOT_ATTEMPTED).",
    rule=rule_grade,
    why=grade_reason,
    structured=structured.label("grade", ("A", "B", "C"), as_text=str),
    max_tokens=16,
)
