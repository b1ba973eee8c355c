"""Readers of the prompt writer's replies (HalluLens 3.2.2 rejections): the question, unless it is the escape
reply, empty or leans on the unseen section; the mock answer, unless unanswerable or under ``MIN_MOCK_SENTENCES``."""

from __future__ import annotations

import re

from hallubench_generators.common.chunking import split_sentences
from hallubench_generators.common.question_checks import unresolved_reference
from hallubench_generators.longwiki.prompts import NO_QUESTION

MIN_MOCK_SENTENCES = 4
_LABEL = re.compile(r"^\s*(?:\*\*)?(?:question|q)\s*[:.)-]\s*(?:\*\*)?\s*", re.IGNORECASE)


def parse_prompt(text: str) -> tuple[str | None, str | None]:
    """``(question, None)`` or ``(None, rejection reason)``: the escape reply, nothing, or a question that leans
    on text the user does not have."""
    if NO_QUESTION.lower() in text.lower():
        return None, "no_question_marker"
    lines = [_LABEL.sub("", line).strip().strip("*\"'` ") for line in text.strip().splitlines() if line.strip()]
    question = " ".join(line for line in lines if line)
    if not question:
        return None, "empty_question"
    if unresolved_reference(question):
        return None, "not_self_contained"
    return question, None


def mock_answer_problem(text: str) -> str | None:
    """Why a mock answer rejects its question (HalluLens 3.2.2), or None."""
    answer = text.strip()
    if not answer or "unanswerable" in answer.lower() or answer.lower().startswith("unfortunately"):
        return "unanswerable"
    if len(split_sentences(" ".join(answer.split()))) < MIN_MOCK_SENTENCES:
        return "mock_answer_too_short"
    return None
