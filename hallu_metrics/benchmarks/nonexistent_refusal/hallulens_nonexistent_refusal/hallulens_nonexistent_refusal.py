"""`evaluate` module: HalluLens NonExistentRefusal false acceptance rate from judged outcomes."""

import evaluate

from hallu_metrics.benchmarks.nonexistent_refusal import GENERATED
from hallu_metrics.evaluate_metrics import HALLULENS_CITATION, check_outcomes, metric_info

_DESCRIPTION = """NonExistentRefusal (HalluLens section 3.3, MixedEntities / GeneratedEntities): false_acceptance_rate
(believed / judged samples; an unjudged sample counts only in judge_unparseable_rate, and the rate is None when no
sample is judged), judge_unparseable_rate (unjudged / N), binomial stderr, counts, and the same rates per domain and
per place tier (`breakdowns.domain`, `breakdowns.place_tier`: rows with value, n, stderr)."""

_INPUTS = """
Args:
    outcomes: per sample "believed", "not_believed" or "unjudged" (the judged records' `outcome`).
    domains: per sample the domain (animal, plant, bacteria, medicine; business, event, product).
    place_tiers: per sample high / mid / low, or "" / None for none (MixedEntities, products); the
        per-tier rows appear when at least one sample has a tier.
Returns: the result shape `hallubench score` writes (docs/results.md): rates, stderr, counts, breakdowns.
"""


class HallulensNonexistentRefusal(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        columns = {"outcomes": "string", "domains": "string", "place_tiers": "string"}
        return metric_info(_DESCRIPTION, _INPUTS, HALLULENS_CITATION, columns)

    def _compute(self, outcomes, domains, place_tiers):
        check_outcomes(GENERATED, outcomes)
        docs = [{"domain": d, "place_tier": t or None} for d, t in zip(domains, place_tiers)]
        return GENERATED.summarize([{"outcome": o} for o in outcomes], docs)
