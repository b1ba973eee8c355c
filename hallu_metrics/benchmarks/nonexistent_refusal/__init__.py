"""NonExistentRefusal (HalluLens 3.3): does the response treat a non-existent entity as real?
False acceptance rate = believed / N, overall, per domain and (GeneratedEntities) per place tier.

The rule version of the check (embedded default, no LLM) is ``rules.believes_by_rule``: abstention
phrases and denials of the entity's existence or of knowing it mean not believing; anything else believes.

Prompt in ``prompts``, the check in ``checks``, the judging chain in ``chain``, per-sample metrics in ``metrics``;
the ``evaluate`` module (both test sets) is ``hallulens_nonexistent_refusal/``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.nonexistent_refusal.chain import judge_item
from hallu_metrics.benchmarks.nonexistent_refusal.checks import DOES_BELIEVE
from hallu_metrics.benchmarks.nonexistent_refusal.metrics import OUTCOMES, sample_metrics
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric, unreadable_share

__all__ = ["DOES_BELIEVE", "GENERATED", "MIXED", "OUTCOMES", "judge_item", "sample_metrics"]

_METRICS = (
    Metric("false_acceptance_rate", "rate", False,
           "responses treating the non-existent entity as real / judged responses", conditional=True),
    unreadable_share(),
)
_DOMAIN = Breakdown("domain", "category", "domain")
_COMMON = dict(
    family="hallulens", paper="HalluLens (Bang et al., 2025) section 3.3", metrics=_METRICS, judge_item=judge_item,
    checks=(DOES_BELIEVE,), sample_metrics=sample_metrics, evaluate_module="hallulens_nonexistent_refusal",
    outcomes=OUTCOMES,
)

MIXED = Benchmark(
    name="mixedentities",
    column_types=dict.fromkeys(("id", "name", "domain", "type", "prompt"), "string"),
    breakdowns=(_DOMAIN,),
    generator="nonexistent_refusal.mixedentities",
    about=About(paper_title="HalluLens: LLM Hallucination Benchmark", paper_url="https://arxiv.org/abs/2504.17550",
                section="section 3.3", network=False, gpu=False, weights=False, judge=True, runtime="fast",
                offline=True),
    **_COMMON,
)
GENERATED = Benchmark(
    name="generatedentities",
    column_types=dict.fromkeys(("id", "name", "type", "domain", "place", "place_tier", "prompt"), "string"),
    breakdowns=(_DOMAIN, Breakdown("place_tier", "ordered", "place frequency tier", order=("high", "mid", "low"))),
    generator="nonexistent_refusal.generatedentities",
    # slow: its set is written by a model
    about=About(paper_title="HalluLens: LLM Hallucination Benchmark", paper_url="https://arxiv.org/abs/2504.17550",
                section="section 3.3", network=False, gpu=False, weights=False, judge=True, runtime="slow",
                offline=True),
    nullable=("place", "place_tier"),
    **_COMMON,
)
