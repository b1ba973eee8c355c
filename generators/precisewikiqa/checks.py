"""Readers of the question writer's replies (HalluLens 3.1.2 filters): the question line, and the answer or why it
is rejected (unanswerable, longer than ``MAX_ANSWER_WORDS``)."""

from __future__ import annotations

import re

MAX_ANSWER_WORDS = 10
_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:question|q|answer|a)\s*[:.)-]\s*(?:\*\*)?\s*", re.IGNORECASE)
_UNANSWERABLE = re.compile(
    r"unanswerable|not answerable|cannot be answered|can't be answered|not (?:mentioned|stated|provided)", re.IGNORECASE
)


def parse_question(text: str) -> str | None:
    """The first line that reads as a question, without labels, numbering or quotes."""
    for line in text.splitlines():
        line = _PREFIX.sub("", re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", line)).strip().strip("*\"'` ")
        if "?" in line:
            question = line[: line.rindex("?") + 1].strip()
            if len(question.split()) >= 3:
                return question
    return None


def parse_answer(text: str) -> tuple[str | None, str | None]:
    """``(answer, None)`` or ``(None, rejection reason)`` following HalluLens' filters."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None, "empty_answer"
    answer = _PREFIX.sub("", re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", lines[0])).strip().strip("*\"'` ")
    answer = answer.rstrip(".").strip()
    if not answer:
        return None, "empty_answer"
    if _UNANSWERABLE.search(answer) or answer.lower().startswith("unfortunately"):
        return None, "unanswerable"
    if len(answer.split()) > MAX_ANSWER_WORDS:
        return None, "answer_too_long"
    return answer, None
