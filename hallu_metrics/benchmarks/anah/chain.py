"""ANAH-v2's judging chain: each sentence of the answer annotated in one chained three-turn conversation
(:func:`annotate_chain`), then the official eval.py replayed on the same judge's replies (:func:`official_replay`)."""

from __future__ import annotations

import asyncio
from typing import Any

from hallu_metrics.benchmarks.anah.checks import (
    FACTS,
    FACTS_REPLY,
    HALLUCINATION,
    HALLUCINATION_REPLY,
    REFERENCE,
    REFERENCE_REPLY,
)
from hallu_metrics.benchmarks.anah.metrics import OFFICIAL_LABELS, SENTENCE_LABELS, response_outcome
from hallu_metrics.benchmarks.anah.prompts import NO_REFERENCE
from hallu_metrics.benchmarks.anah.readers import official_label, parse_reference, split_answer
from hallu_metrics.judges.base import Judge
from hallu_metrics.judges.judge_set import JudgeSet


async def official_replay(judge: Judge, item: dict) -> dict[str, Any]:
    """eval.py's flow and reading on the judge's first reply to each turn of this project's prompts. Requests the
    project's chain already made come from the call cache; the replay asks further turns only where eval.py goes on
    and the project's chain stopped. Returns the official label and the replies read (a failed call: label None and
    the failed verdict)."""
    replies: list[str] = []
    steps = (FACTS_REPLY, REFERENCE_REPLY, HALLUCINATION_REPLY)
    for step, check in enumerate(steps):
        verdict = await judge.ask(check, item)
        if not verdict.ok:
            return {"label": None, "replies": replies, "failed": verdict.to_dict()}
        replies.append(verdict.label)
        try:
            return {"label": official_label(replies), "replies": replies}
        except ValueError:
            pass
        if step == 0:
            item = {**item, "facts_reply": verdict.raw}
        else:  # turn 3 gets the points as the project's chain passes them, so its request is the chain's own
            points = parse_reference(verdict.label)
            item = {**item, "reference_reply": verdict.raw,
                    "reference": points if points not in (None, NO_REFERENCE) else verdict.label.strip()}
    raise AssertionError("unreachable: the official flow ends by turn 3")


async def annotate_sentence(judge: Judge, item: dict) -> dict[str, Any]:
    """The project's chain (:func:`annotate_chain`), then the official replay (:func:`official_replay`) under
    ``official``, unless a judge call of the chain failed (the sentence is re-judged on a re-run)."""
    record = await annotate_chain(judge, item)
    failed = any((record[turn] or {}).get("status") == "failed" for turn in ("facts", "reference", "hallucination"))
    record["official"] = {"label": None, "replies": []} if failed else await official_replay(judge, item)
    return record


async def annotate_chain(judge: Judge, item: dict) -> dict[str, Any]:
    """Turns 1-3 for one sentence, each turn carrying the judge's earlier replies; stops at "no facts" or "no
    reference information". An unreadable or failed turn makes the sentence ``unparseable``."""
    record: dict[str, Any] = {"sentence": item["sentence"], "facts": None, "reference": None, "hallucination": None}
    facts = await judge.ask(FACTS, item)
    record["facts"] = facts.to_dict()
    if not facts.ok or facts.label is False:
        return {**record, "label": "nofact" if facts.ok else "unparseable"}
    item = {**item, "facts_reply": facts.raw}
    reference = await judge.ask(REFERENCE, item)
    record["reference"] = reference.to_dict()
    if not reference.ok or reference.label == NO_REFERENCE:
        return {**record, "label": "unverifiable" if reference.ok else "unparseable"}
    item = {**item, "reference_reply": reference.raw, "reference": reference.label}
    verdict = await judge.ask(HALLUCINATION, item)
    record["hallucination"] = verdict.to_dict()
    return {**record, "label": verdict.label if verdict.ok else "unparseable"}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Every sentence of the answer annotated concurrently (one chained conversation each)."""
    judge = judges.get("judge")
    base = {"question": doc["question"], "document": doc["document"], "language": doc["language"]}
    sentences = await asyncio.gather(*(annotate_sentence(judge, {**base, "sentence": s})
                                       for s in split_answer(response, doc["language"])))
    labels = [s["label"] for s in sentences]
    official = [s["official"]["label"] or "unreadable" for s in sentences]
    return {"response": response, "language": doc["language"], "sentences": list(sentences),
            "counts": {label: labels.count(label) for label in SENTENCE_LABELS},
            "official_counts": {label: official.count(label) for label in OFFICIAL_LABELS},
            "outcome": response_outcome(labels)}
