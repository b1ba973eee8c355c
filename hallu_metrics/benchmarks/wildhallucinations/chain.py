"""WildHallucinations' judging chain (FActScore pipeline, section 2.3): abstention (phrase list, optional LLM refusal
check) -> sentences -> atomic facts per sentence -> top passages per fact from the entity's pages -> verification."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from hallu_metrics.benchmarks.wildhallucinations.evidence import (
    EvidenceSettings,
    page_passages_of,
    readable,
    retriever_for,
    top_passages,
)
from hallu_metrics.benchmarks.wildhallucinations.prompts import QUESTION
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.rules import contains_abstention_phrase
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.passages import Passage
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.retrieval import query
from hallu_metrics.longform.sentences import (
    KEPT_CHARS,
    MIN_SENTENCE_CHARS,
    cut_mark,
    finished_sentences,
    sentences_within_limits,
)
from hallu_metrics.longform.verification import VERIFICATION
from hallubench.core.backends.aio import in_cpu_lane


def verification_item(fact: str, passages: Sequence[Passage]) -> dict[str, Any]:
    """The shared verification check's item; a passage's title is its page URL."""
    return {"claim": fact, "passages": [{"title": p.title, "text": p.text} for p in passages]}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Abstention, then per sentence: atomic facts -> evidence from the entity's pages -> verification of each
    fact; each sentence's chain runs as soon as its facts are known (no barrier between sentences). The unfinished
    last fragment of a cut response yields no fact (``cut``)."""
    settings = EvidenceSettings.from_settings(judges.settings)
    entity, text = readable(str(doc["entity"])), readable(response)
    record: dict[str, Any] = {"response": text, "abstention_phrase": contains_abstention_phrase(text),
                              "knowledgeable": None, "abstained": None, "sentences": [], "n_facts": 0, "n_supported": 0}
    all_sentences, excess = sentences_within_limits(text)
    if excess:  # not judged: counted as too_long, in no metric
        return {**record, "response": text[:KEPT_CHARS], "outcome": "too_long", "too_long": excess}
    all_sentences, fragment = finished_sentences(all_sentences)
    record.update(cut_mark(fragment))
    if record["abstention_phrase"]:
        return {**record, "abstained": True, "outcome": "abstained"}
    if settings.refusal_check:
        knowledgeable = await judges.get("judge").ask(
            KNOWLEDGEABLE, {"question": QUESTION.format(entity=entity), "response": text})
        record["knowledgeable"] = knowledgeable.to_dict()
        if not knowledgeable.ok:
            return {**record, "outcome": "unjudged"}
        if knowledgeable.label is False:  # not knowledgeable: the response declines
            return {**record, "abstained": True, "outcome": "abstained"}
    record["abstained"] = False
    retriever = retriever_for(settings)
    passages: asyncio.Future[list[Passage]] | None = None

    def item_passages() -> asyncio.Future[list[Passage]]:
        """The entity's passages, cut once per item (in the CPU lane) when the first sentence needs them."""
        nonlocal passages
        if passages is None:
            passages = asyncio.ensure_future(in_cpu_lane(page_passages_of, doc, retriever.passage_words))
        return passages

    async def sentence_chain(sentence: str) -> dict[str, Any]:
        extraction = await judges.get("judge_facts").ask(ATOMIC_FACTS, {"entity": entity, "sentence": sentence})
        out: dict[str, Any] = {"sentence": sentence, "extraction": extraction.to_dict(), "facts": []}
        if not extraction.ok or not extraction.label:
            return out
        facts = list(extraction.label)
        found_passages = await item_passages()
        if found_passages:
            await retriever.prepare_queries([query(entity, fact) for fact in facts])
        evidence = await in_cpu_lane(top_passages, retriever, entity, facts, found_passages)
        verdicts = await asyncio.gather(*(
            judges.get("judge_verify").ask(VERIFICATION, verification_item(fact, found))
            for fact, found in zip(facts, evidence)
        ))
        out["facts"] = [
            {"fact": fact, "evidence": [{"url": p.title, "passage": p.index} for p in found], "verdict": v.to_dict()}
            for fact, found, v in zip(facts, evidence, verdicts)
        ]
        return out

    sentences = [s for s in all_sentences if len(s) >= MIN_SENTENCE_CHARS]
    record["sentences"] = list(await asyncio.gather(*(sentence_chain(s) for s in sentences)))
    facts = facts_of(record)
    return {**record, "n_facts": len(facts), "n_supported": sum(1 for f in facts if f["verdict"]["label"] is True),
            "outcome": outcome(record)}


def facts_of(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [fact for sentence in record.get("sentences") or [] for fact in sentence["facts"]]


def outcome(record: Mapping[str, Any]) -> str:
    """The item's outcome once every step has answered: any unreadable or failed verdict makes it unjudged."""
    sentences = record["sentences"]
    if any(s["extraction"]["status"] != "ok" for s in sentences):
        return "unjudged"
    facts = facts_of(record)
    if any(f["verdict"]["status"] != "ok" for f in facts):
        return "unjudged"
    if not facts:
        return "no_facts"
    return "all_supported" if all(f["verdict"]["label"] for f in facts) else "some_unsupported"
