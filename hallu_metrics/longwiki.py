"""LongWiki (HalluLens 3.2): long-form answers checked claim by claim against Wikipedia passages.

Per response (section 3.2.2): refusal evaluation (the ``knowledgeable`` check: True = it tries to answer); for
answers that were not refused, the response is split into sentences, claims are extracted from each sentence's
snippet (fanned out), de-duplicated, and each claim is checked against its top passages from the knowledge store
(retrieval in the CPU lane, verification fanned out). Metrics (section 3.2.1): per response precision = supported /
claims, recall@K = min(supported / K, 1), F1@K their harmonic mean; macro-averaged over responses that are neither
refused nor claim-less. The false refusal rate and the no-claim rate are shares of the responses whose verdicts
could all be read (an unjudged response counts only in ``judge_unparseable_rate``). Roles: ``judge``
(knowledgeable), ``judge_claims`` (extraction), ``judge_verify`` (verification); each falls back to ``judge``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.longform.candidates import candidate_titles
from hallu_metrics.longform.claims import CLAIM_EXTRACTION, dedupe_claims
from hallu_metrics.longform.entities import NER, SpacyNER
from hallu_metrics.longform.knowledge import KnowledgeStore
from hallu_metrics.longform.passages import Passage
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.retrieval import Retriever, query
from hallu_metrics.longform.sentences import snippets, split_sentences
from hallu_metrics.longform.verification import VERIFICATION
from hallu_metrics.settings import option, task_setting
from hallubench.backends.aio import in_cpu_lane
from hallubench.errors import HallubenchError

TASK = "longwiki"
DEFAULT_K = 32
# Run settings LongWiki reads (hallu_metrics/settings.py): the evidence store, its retrieval, and K of recall@K
# (unset: the doc's k from the task's dataset_kwargs, else DEFAULT_K).
OPTIONS = {"knowledge": None, "embedder": "minilm", "retrieval": "embedding", "longwiki_k": None}
OUTCOMES = ("refused", "no_claims", "judged", "unjudged")


def precision(supported: int, claims: int) -> float:
    """Supported claims / claims of one response (section 3.2.1); only defined when it has claims."""
    return supported / claims


def recall_at_k(supported: int, k: int) -> float:
    """min(supported / K, 1): SAFE's recall against K wanted facts (Wei et al., 2024)."""
    return min(supported / k, 1.0)


def f1_at_k(precision_value: float, recall_value: float) -> float:
    """Harmonic mean of precision and recall@K; 0 when both are 0."""
    total = precision_value + recall_value
    return 2 * precision_value * recall_value / total if total else 0.0


# Evidence: one knowledge store, retriever and NER model per process, shared by every item.


@dataclass(frozen=True)
class Evidence:
    """Candidate pages from the question's named entities, then the top passages for a claim (section 3.2.2)."""

    store: KnowledgeStore
    retriever: Retriever
    ner: NER

    def passages(self, question: str, claim: str, title: str) -> list[Passage]:
        titles = candidate_titles(self.store, question, claim, title, self.ner)
        return self.retriever.retrieve(claim, titles, topic=title)

    async def prepare(self, title: str, claims: list[str]) -> None:
        """Embed a response's retrieval queries ahead of ranking, batched with other responses' queries
        (``Retriever.prepare_queries``), so that no claim runs the embedding model alone."""
        await self.retriever.prepare_queries([query(title, claim) for claim in claims])


_OPENED: dict[tuple[str, str, str], Evidence] = {}
_OPEN_LOCK = threading.Lock()


def evidence_settings(settings: Mapping[str, Any]) -> tuple[str, str, str]:
    """(knowledge store, embedder spec, retrieval method) from the run's settings: ``--metadata knowledge=PATH``
    (or ``$HALLUBENCH_KNOWLEDGE``, ``hallubench score --knowledge``), optional ``embedder`` (default ``minilm``;
    the paper's ``sentence-transformers/gtr-t5-large``) and ``retrieval`` (``embedding``, or FActScore's
    ``bm25``)."""
    knowledge = option(settings, "knowledge", TASK)
    if knowledge is None:
        raise HallubenchError(
            f"{TASK} needs a knowledge store for evidence: pass --knowledge PATH to hallubench score, "
            "--metadata knowledge=PATH to lm_eval, or set $HALLUBENCH_KNOWLEDGE (build one with: hallubench knowledge "
            "build)"
        )
    return str(knowledge), str(option(settings, "embedder", TASK, OPTIONS["embedder"])), str(
        option(settings, "retrieval", TASK, OPTIONS["retrieval"]))


def open_evidence(settings: Mapping[str, Any]) -> Evidence:
    """The process's evidence for these settings, opened on first use (store, title index, embedder, NER)."""
    key = evidence_settings(settings)
    with _OPEN_LOCK:
        if key not in _OPENED:
            from hallu_metrics.longform.embeddings import embedder_from_spec

            knowledge, embedder, method = key
            store = KnowledgeStore.open(knowledge, progress=False)
            model = embedder_from_spec(embedder) if method == "embedding" else None
            _OPENED[key] = Evidence(store, Retriever(store, model, method=method), SpacyNER())
        return _OPENED[key]


def claim_k(doc: Mapping[str, Any], settings: Mapping[str, Any]) -> int:
    """K of recall@K: ``--metadata longwiki_k`` (or ``$HALLUBENCH_LONGWIKI_K``), else the doc's ``k`` (set from
    the task's ``dataset_kwargs: {k: ...}``), else 32 as in the paper."""
    value = option(settings, "longwiki_k", TASK) or doc.get("k") or DEFAULT_K
    try:
        k = int(value)
    except (TypeError, ValueError):
        raise HallubenchError(f"longwiki_k must be a whole number, got {value!r}") from None
    if k < 1:
        raise HallubenchError(f"longwiki_k must be at least 1, got {k}")
    return k


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
    """Refusal -> claims per sentence snippet -> evidence and verification per claim (section 3.2.2)."""
    record: dict[str, Any] = {"response": response, "k": claim_k(doc, judges.settings), "snippets": [], "claims": [],
                              "n_claims": 0, "supported": 0}
    knowledgeable = await judges.get("judge").ask(KNOWLEDGEABLE, {"question": doc["prompt"], "response": response})
    record["knowledgeable"] = knowledgeable.to_dict()
    if not knowledgeable.ok or not knowledgeable.label:  # unreadable, or not knowledgeable: a refusal
        record["outcome"] = "unjudged" if not knowledgeable.ok else "refused"
        return record
    units = snippets(split_sentences(response))
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


def sample_metrics(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> dict[str, float | None]:
    """Per-response values; precision, recall@K and F1@K are None unless the response was judged with claims.
    An unjudged response (any unreadable or failed verdict) counts only in ``judge_unparseable_rate``: every other
    rate is over responses with readable verdicts. ``abstain_rate_reference`` is the HalluLens reference code's
    abstain ratio (refused or claim-less)."""
    outcome = record["outcome"]
    judged = outcome != "unjudged"
    values: dict[str, float | None] = {"precision": None, "recall_at_k": None, "f1_at_k": None}
    if outcome == "judged":
        p = precision(record["supported"], record["n_claims"])
        r = recall_at_k(record["supported"], record["k"])
        values = {"precision": p, "recall_at_k": r, "f1_at_k": f1_at_k(p, r)}
    return {
        "false_refusal_rate": float(outcome == "refused") if judged else None,
        **values,
        "no_claim_rate": float(outcome == "no_claims") if judged else None,
        "abstain_rate_reference": float(outcome in ("refused", "no_claims")) if judged else None,
        "judge_unparseable_rate": float(not judged),
    }


def claim_totals(records: Sequence[Mapping[str, Any]], docs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Numbers that are not per-response means: K used, claims verified and supported over the whole run."""
    judged = [r for r in records if r.get("outcome") == "judged"]
    return {
        "k": sorted({r["k"] for r in records if "k" in r}),
        "claims": sum(r["n_claims"] for r in judged),
        "supported_claims": sum(r["supported"] for r in judged),
    }


def with_k(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs: the test set plus ``k`` (``--metadata longwiki_k``, else ``dataset_kwargs: {k: ...}``, else
    32), so that a samples log re-scores with the same K. Checks at task load, before the model runs, that the
    knowledge store opens (unless judging is off with ``judge: none``)."""
    if task_setting(options, "judge", TASK)[0] != "none":
        knowledge = evidence_settings(options)[0]
        KnowledgeStore.open(knowledge, progress=False).close()
    k = claim_k({"k": options.get("k")}, options)
    return rows.map(lambda _: {"k": k}) if "k" not in rows.column_names else rows


BENCHMARK = Benchmark(
    name="longwiki",
    family="hallulens",
    paper="HalluLens (Bang et al., 2025) section 3.2",
    columns=datasets.Features({
        "id": datasets.Value("string"),
        "prompt": datasets.Value("string"),
        "title": datasets.Value("string"),
        "reference": datasets.Value("string"),
        "level": datasets.Value("int32"),
    }),
    metrics=(
        Metric("false_refusal_rate", "rate", False, "refused responses / judged responses", conditional=True),
        Metric("recall_at_k", "rate", True, "mean of min(supported / K, 1) over responses with claims (K=32 default)",
               conditional=True, proportion=False),
        Metric("precision", "rate", True, "mean of supported / claims over responses with claims", conditional=True,
               proportion=False),
        Metric("f1_at_k", "rate", True, "mean of the harmonic mean of precision and recall@K over responses with "
               "claims", conditional=True, proportion=False),
        Metric("no_claim_rate", "rate", False, "responses not refused but without any verifiable claim / judged "
               "responses", conditional=True),
        Metric("abstain_rate_reference", "rate", False, "the HalluLens reference code's abstain ratio: refused or "
               "claim-less responses / judged responses (= false_refusal_rate + no_claim_rate)", conditional=True),
        unreadable_share(),
    ),
    judge_item=judge_item,
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("level", "ordered", "WikiRank level (5 = least central of the easier half, 9 = most)"),),
    headline=("false_refusal_rate", "recall_at_k", "precision", "f1_at_k", "abstain_rate_reference",
              "judge_unparseable_rate"),
    generator="longwiki",
    evaluate_module="hallulens_longwiki",
    judge_roles=("judge", "judge_claims", "judge_verify"),
    options=OPTIONS,
    checks=(KNOWLEDGEABLE, CLAIM_EXTRACTION, VERIFICATION),
    to_docs=with_k,
    extra_summary=claim_totals,
    outcomes=OUTCOMES,
    nullable=("level",),
)
