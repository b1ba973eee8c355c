"""WildHallucinations (Zhao et al., 2024): a paragraph about a real-world entity, fact-checked against that entity's
own web pages with the FActScore pipeline (section 2.3): abstention (Appendix B's phrase list, plus an optional LLM
refusal check, ``knowledgeable``) -> sentences -> atomic facts per sentence -> top passages per fact from the
entity's pages only -> supported / not supported per fact. Metrics: WildFActScore (supported facts / facts, over
responses that do not abstain) and WildFActScore-Strict (1 when every fact is supported, 0 when any is not or the
model abstains, over all responses), per domain, Wikipedia / non-Wikipedia entity and rarity.

The question asked is in ``prompts`` (every check and its prompt is in the shared long-form layer,
hallu_metrics.longform), the entity's pages and retrieval in ``evidence``, the judging chain in ``chain``, the metrics
and breakdowns in ``metrics``; the ``evaluate`` module is ``wildhallucinations/``."""

from __future__ import annotations

from hallu_metrics.benchmarks.wildhallucinations.chain import judge_item
from hallu_metrics.benchmarks.wildhallucinations.evidence import EvidenceSettings, entity_pages
from hallu_metrics.benchmarks.wildhallucinations.metrics import (
    LENGTH_PENALTY_GAMMA,
    OUTCOMES,
    cut_summary,
    is_wikipedia_url,
    length_penalty,
    rarity_bin,
    sample_metrics,
    wiki_group,
)
from hallu_metrics.benchmarks.wildhallucinations.prompts import QUESTION
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.verification import VERIFICATION

__all__ = ["BENCHMARK", "QUESTION", "EvidenceSettings", "entity_pages", "is_wikipedia_url", "judge_item",
           "length_penalty", "rarity_bin", "sample_metrics", "wiki_group"]

BENCHMARK = Benchmark(
    name="wildhallucinations",
    family="wildhallucinations",
    paper="WildHallucinations (Zhao et al., 2024) sections 2.3 and 4",
    column_types={"entity": "string", "perplexity": "float64",
                  "info": [{"status_code": "int64", "text": "string", "url": "string"}], "category": "string"},
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
    # network: the entities' web pages (offline: entities and pages from the shipped Wikipedia sample)
    about=About(paper_title="WildHallucinations: Evaluating Long-form Factuality in LLMs with Real-World Entity "
                "Queries", paper_url="https://arxiv.org/abs/2407.17468", section="sections 2.3 and 4",
                network=True, gpu=False, weights=True, judge=True, runtime="slow", offline=True),
    judge_roles=("judge", "judge_facts", "judge_verify"),
    options={"retrieval": EvidenceSettings.retrieval, "embedder": EvidenceSettings.embedder,
             "top_k": EvidenceSettings.top_k, "refusal_check": EvidenceSettings.refusal_check},
    checks=(KNOWLEDGEABLE, ATOMIC_FACTS, VERIFICATION),  # KNOWLEDGEABLE with --metadata refusal_check=true
    outcomes=OUTCOMES,
    extra_summary=cut_summary,
    nullable=("perplexity",),
)
