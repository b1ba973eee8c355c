"""FaithEval's judged records: no judge, the reply is read (keyword rules or the chosen option)."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.faitheval.prompts import KeywordTask
from hallu_metrics.benchmarks.faitheval.readers import matches_official, read_choice, read_keyword
from hallu_metrics.judges.judge_set import JudgeSet


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


def keyword_judge(task: KeywordTask):
    """The ``judge_item`` of a keyword task."""
    async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
        """No judge: keyword matching on the reply."""
        return read_keyword_reply(task, response)

    return judge_item


async def judge_choice(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """No judge: the chosen option is read from the reply."""
    return read_choice_reply(response, doc)
