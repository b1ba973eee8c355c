"""WildHallucinations (Zhao et al., 2024): a paragraph about a real-world entity, fact-checked against that entity's
own web pages with the FActScore pipeline (section 2.3): abstention (Appendix B's phrase list, plus an optional LLM
refusal check, ``knowledgeable``) -> sentences -> atomic facts per sentence -> top passages per fact from the
entity's pages only -> supported / not supported per fact. Metrics: WildFActScore (supported facts / facts, over
responses that do not abstain) and WildFActScore-Strict (1 when every fact is supported, 0 when any is not or the
model abstains, over all responses), per domain, Wikipedia / non-Wikipedia entity and rarity."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.rules import contains_abstention_phrase
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.embeddings import OFFLINE_SPEC, embedder_from_spec
from hallu_metrics.longform.passages import Passage, cut_passages, page_passages
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.retrieval import METHODS, TOP_K, Retriever, query
from hallu_metrics.longform.sentences import MIN_SENTENCE_CHARS, split_sentences
from hallu_metrics.longform.verification import VERIFICATION
from hallu_metrics.settings import option
from hallubench.backends.aio import in_cpu_lane
from hallubench.errors import HallubenchError

QUESTION = "In a paragraph, could you tell me what you know about {entity}?"  # section 3, "Inference"
LENGTH_PENALTY_GAMMA = 10  # FActScore's length penalty (Min et al., 2023, section 4.3)
OUTCOMES = ("abstained", "all_supported", "some_unsupported", "no_facts", "unjudged")
WIKIPEDIA_DOMAIN = "wikipedia.org"


# --- the entity's knowledge source -------------------------------------------------------------------------

def readable(text: str) -> str:
    """``text`` with anything that is not valid UTF-8 (lone surrogates from a bad decode) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


def entity_pages(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(url, text) of the entity's knowledge pages: ``info`` entries with status 200 and some text."""
    return [
        (str(page.get("url") or ""), readable(page["text"]))
        for page in doc.get("info") or []
        if page.get("status_code") == 200 and isinstance(page.get("text"), str) and page["text"].strip()
    ]


def is_wikipedia_url(url: str) -> bool:
    """True for wikipedia.org and its language subdomains (en.wikipedia.org, en.m.wikipedia.org, ...)."""
    try:
        host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    return host == WIKIPEDIA_DOMAIN or host.endswith(f".{WIKIPEDIA_DOMAIN}")


def wiki_group(doc: Mapping[str, Any]) -> str:
    """``wiki`` when any knowledge page's URL is on wikipedia.org (section 5: entities "that have Wikipedia
    pages" as part of their knowledge source), else ``non-wiki``."""
    return "wiki" if any(is_wikipedia_url(str(page.get("url") or "")) for page in doc.get("info") or []) else "non-wiki"


def rarity_bin(doc: Mapping[str, Any]) -> int | None:
    """Order of magnitude of the entity's perplexity, floor(log10(ppl)) (section 5: 0 = most frequent);
    None when the set has no perplexity for it."""
    perplexity = doc.get("perplexity")
    if not isinstance(perplexity, (int, float)) or not math.isfinite(perplexity) or perplexity <= 0:
        return None
    return max(0, math.floor(math.log10(perplexity)))


# --- evidence settings and retrieval ------------------------------------------------------------------------

@dataclass(frozen=True)
class EvidenceSettings:
    """How facts are checked; from the run's settings (lm-eval ``--metadata``) or ``$HALLUBENCH_<KEY>``:
    ``retrieval`` (embedding | bm25), ``embedder`` (``minilm`` or a sentence-transformers id), ``top_k``
    (passages per fact) and ``refusal_check`` (also ask the judge the ``knowledgeable`` check: a response that is
    not knowledgeable declines)."""

    retrieval: str = "embedding"
    embedder: str = OFFLINE_SPEC
    top_k: int = TOP_K
    refusal_check: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> EvidenceSettings:
        def value(key: str, default: Any) -> Any:
            return option(settings, key, "wildhallucinations", default)

        retrieval = str(value("retrieval", cls.retrieval))
        if retrieval not in METHODS:
            raise HallubenchError(f"retrieval must be one of {', '.join(METHODS)}, not {retrieval!r}")
        try:
            top_k = int(value("top_k", cls.top_k))
        except ValueError as exc:
            raise HallubenchError(f"top_k must be a whole number: {exc}") from exc
        refusal = str(value("refusal_check", "false")).strip().lower()
        if refusal not in ("true", "false", "1", "0", "yes", "no"):
            raise HallubenchError(f"refusal_check must be true or false, not {refusal!r}")
        return cls(retrieval, str(value("embedder", cls.embedder)), top_k, refusal in ("true", "1", "yes"))


_RETRIEVERS: dict[tuple[str, str, int], Retriever] = {}
_RETRIEVERS_LOCK = threading.Lock()


def retriever_for(settings: EvidenceSettings) -> Retriever:
    """One retriever (and embedding model) per process and setting, shared by all items."""
    key = (settings.retrieval, settings.embedder, settings.top_k)
    with _RETRIEVERS_LOCK:
        if key not in _RETRIEVERS:
            embedder = embedder_from_spec(settings.embedder) if settings.retrieval == "embedding" else None
            _RETRIEVERS[key] = Retriever(None, embedder, top_k=settings.top_k, method=settings.retrieval)
        return _RETRIEVERS[key]


def page_passages_of(doc: Mapping[str, Any], words: int) -> list[Passage]:
    """Every passage of the entity's own pages (each page cut into windows of ``words`` words, titled by URL)."""
    return [passage for url, text in entity_pages(doc) for passage in page_passages(url, cut_passages(text, words))]


def top_passages(retriever: Retriever, entity: str, facts: Sequence[str], passages: Sequence[Passage]
                 ) -> list[list[Passage]]:
    """The top passages for each fact, query = entity + fact (FActScore's topic + atomic fact); with embedding
    ranking, ``Retriever.prepare_queries`` embeds the queries first."""
    return [retriever.rank(query(entity, fact), passages) for fact in facts]


# --- judging chain ------------------------------------------------------------------------------------------

def verification_item(fact: str, passages: Sequence[Passage]) -> dict[str, Any]:
    """The shared verification check's item; a passage's title is its page URL."""
    return {"claim": fact, "passages": [{"title": p.title, "text": p.text} for p in passages]}


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Abstention, then per sentence: atomic facts -> evidence from the entity's pages -> verification of each
    fact; each sentence's chain runs as soon as its facts are known (no barrier between sentences)."""
    settings = EvidenceSettings.from_settings(judges.settings)
    entity, text = readable(str(doc["entity"])), readable(response)
    record: dict[str, Any] = {"response": text, "abstention_phrase": contains_abstention_phrase(text),
                              "knowledgeable": None, "abstained": None, "sentences": [], "n_facts": 0, "n_supported": 0}
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

    sentences = [s for s in split_sentences(text) if len(s) >= MIN_SENTENCE_CHARS]
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


# --- metrics ------------------------------------------------------------------------------------------------

def length_penalty(n_facts: int, gamma: int = LENGTH_PENALTY_GAMMA) -> float:
    """FActScore's penalty for short responses: 1 above ``gamma`` facts, else exp(1 - gamma / n)."""
    return 1.0 if n_facts > gamma else math.exp(1 - gamma / n_facts)


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values (None = does not count) from the record's ``outcome``, ``n_facts`` and ``n_supported``.
    A response without facts counts as responding, is left out of WildFActScore (as FActScore skips it) and scores
    0 on WildFActScore-Strict (nothing in it was verified). An unjudged response (any unreadable or failed verdict)
    counts only in ``judge_unparseable_rate``, whatever its other verdicts said."""
    result = record["outcome"]
    if result == "unjudged":
        return {"response_rate": None, "judge_unparseable_rate": 1.0, "wildfactscore": None,
                "wildfactscore_strict": None, "facts_per_response": None, "facts_per_response_reference": None,
                "wildfactscore_length_penalized": None}
    abstained = result == "abstained"
    n_facts = int(record.get("n_facts") or 0)
    score = record["n_supported"] / n_facts if n_facts else None
    return {
        "response_rate": float(not abstained),
        "judge_unparseable_rate": 0.0,
        "wildfactscore": score,
        "wildfactscore_strict": float(result == "all_supported"),
        "facts_per_response": None if abstained else float(n_facts),
        "facts_per_response_reference": float(n_facts) if not abstained and n_facts else None,
        "wildfactscore_length_penalized": None if score is None else score * length_penalty(n_facts),
    }


BENCHMARK = Benchmark(
    name="wildhallucinations",
    family="wildhallucinations",
    paper="WildHallucinations (Zhao et al., 2024) sections 2.3 and 4",
    columns=datasets.Features({
        "entity": datasets.Value("string"),
        "perplexity": datasets.Value("float64"),
        "info": datasets.List(
            {"status_code": datasets.Value("int64"), "text": datasets.Value("string"), "url": datasets.Value("string")}
        ),
        "category": datasets.Value("string"),
    }),
    metrics=(
        Metric("wildfactscore", "rate", True, "supported facts / facts, mean over responses that do not abstain",
               conditional=True, proportion=False),
        Metric("wildfactscore_strict", "rate", True,
               "1 if every fact is supported, 0 if any is not or the model abstained; mean over all responses",
               conditional=True),
        Metric("response_rate", "rate", True, "responses that do not abstain / judged responses", conditional=True),
        Metric("facts_per_response", "count", None, "atomic facts per response that does not abstain",
               scale=(0.0, 100.0), conditional=True),
        Metric("facts_per_response_reference", "count", None, "FActScore's '# facts': atomic facts per response "
               "with at least one fact (not abstained)", scale=(0.0, 100.0), conditional=True),
        Metric("wildfactscore_length_penalized", "rate", True,
               f"WildFActScore x FActScore's length penalty (gamma = {LENGTH_PENALTY_GAMMA})", conditional=True,
               proportion=False),
        unreadable_share(),
    ),
    judge_item=judge_item,
    sample_metrics=sample_metrics,
    breakdowns=(
        Breakdown("category", "category", "domain (paper Table 2)"),
        Breakdown("wiki", "category", "knowledge source (wiki = a page on wikipedia.org)", of_doc=wiki_group),
        Breakdown("rarity", "ordered", "rarity: perplexity order of magnitude (0 = most frequent)", of_doc=rarity_bin),
    ),
    headline=("wildfactscore", "wildfactscore_strict", "response_rate", "facts_per_response",
              "facts_per_response_reference", "judge_unparseable_rate"),
    tasks=("wildhallucinations", "wildhallucinations_greedy"),
    generator="wildhallucinations",
    evaluate_module="wildhallucinations",
    judge_roles=("judge", "judge_facts", "judge_verify"),
    options={"retrieval": EvidenceSettings.retrieval, "embedder": EvidenceSettings.embedder,
             "top_k": EvidenceSettings.top_k, "refusal_check": EvidenceSettings.refusal_check},
    checks=(KNOWLEDGEABLE, ATOMIC_FACTS, VERIFICATION),  # KNOWLEDGEABLE with --metadata refusal_check=true
    outcomes=OUTCOMES,
    nullable=("perplexity",),
)
