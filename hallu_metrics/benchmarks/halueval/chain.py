"""HaluEval's judged record: no judge, the model under test is the recogniser and its reply is read both ways."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.halueval.readers import extract_judgement, extract_official
from hallu_metrics.judges.judge_set import JudgeSet


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
