"""LongWiki's judging chain (HalluLens section 3.2.2): refusal -> claims per sentence snippet -> evidence and
verification per claim. The checks are the shared long-form ones (hallu_metrics.longform)."""

from __future__ import annotations

import asyncio
from typing import Any

from hallu_metrics.benchmarks.longwiki.evidence import Evidence, open_evidence
from hallu_metrics.benchmarks.longwiki.options import claim_k
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.longform.claims import CLAIM_EXTRACTION, dedupe_claims
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.sentences import (
    KEPT_CHARS,
    cut_mark,
    finished_sentences,
    sentences_within_limits,
    snippets,
)
from hallu_metrics.longform.verification import VERIFICATION
from hallubench.core.backends.aio import in_cpu_lane


async def _verify(claim: str, doc: dict, evidence: Evidence, judges: JudgeSet) -> dict[str, Any]:
    passages = await in_cpu_lane(evidence.passages, doc["prompt"], claim, doc["title"])
    item = {"claim": claim, "passages": [{"title": p.title, "text": p.text} for p in passages]}
    verdict = await judges.get("judge_verify").ask(VERIFICATION, item)
    return {
        "claim": claim,
        "passages": [{"title": p.title, "index": p.index} for p in passages],
        "verification": verdict.to_dict(),
    }


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Refusal -> claims per sentence snippet -> evidence and verification per claim (section 3.2.2); the
    unfinished last fragment of a cut response yields no claim (``cut``)."""
    record: dict[str, Any] = {"response": response, "k": claim_k(doc, judges.settings), "snippets": [], "claims": [],
                              "n_claims": 0, "supported": 0}
    sentences, excess = sentences_within_limits(response)
    if excess:  # not judged: counted as too_long, in no metric
        return {**record, "response": response[:KEPT_CHARS], "outcome": "too_long", "too_long": excess}
    sentences, fragment = finished_sentences(sentences)
    record.update(cut_mark(fragment))
    knowledgeable = await judges.get("judge").ask(KNOWLEDGEABLE, {"question": doc["prompt"], "response": response})
    record["knowledgeable"] = knowledgeable.to_dict()
    if not knowledgeable.ok or not knowledgeable.label:  # unreadable, or not knowledgeable: a refusal
        record["outcome"] = "unjudged" if not knowledgeable.ok else "refused"
        return record
    units = snippets(sentences)
    extractor = judges.get("judge_claims")
    extractions = await asyncio.gather(*(
        extractor.ask(CLAIM_EXTRACTION, {"question": doc["prompt"], "snippet": s.text, "sentence": s.sentence})
        for s in units
    ))
    record["snippets"] = [{"index": s.index, "sentence": s.sentence, "extraction": v.to_dict()}
                          for s, v in zip(units, extractions)]
    if not all(v.ok for v in extractions):
        record["outcome"] = "unjudged"
        return record
    claims = dedupe_claims([claim for v in extractions for claim in v.label])
    if not claims:
        record["outcome"] = "no_claims"
        return record
    evidence = await asyncio.to_thread(open_evidence, judges.settings)
    await evidence.prepare(doc["title"], claims)
    record["claims"] = list(await asyncio.gather(*(_verify(c, doc, evidence, judges) for c in claims)))
    verdicts = [c["verification"] for c in record["claims"]]
    record["n_claims"] = len(claims)
    record["supported"] = sum(1 for v in verdicts if v["status"] == "ok" and v["label"])
    record["outcome"] = "judged" if all(v["status"] == "ok" for v in verdicts) else "unjudged"
    return record
