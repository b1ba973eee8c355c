"""`evaluate` module: HalluLens LongWiki claim-level metrics from judged outcomes and claim counts."""

import evaluate

from hallu_metrics.benchmarks.longwiki import BENCHMARK
from hallu_metrics.evaluate_metrics import HALLULENS_CITATION, check_counts, check_outcomes, metric_info

_DESCRIPTION = """LongWiki (HalluLens section 3.2): false_refusal_rate (refused / judged responses), and over
responses that were judged with at least one claim: precision (supported / claims), recall_at_k (min(supported / K,
1)) and f1_at_k (their harmonic mean), macro-averaged; no_claim_rate (claim-less / judged), abstain_rate_reference
(the HalluLens reference code's abstain ratio: refused or claim-less / judged) and judge_unparseable_rate (unjudged
/ N); stderr, counts, claim totals and the same metrics per level (`breakdowns.level`). An unjudged response counts
toward no metric but judge_unparseable_rate."""

_INPUTS = """
Args:
    outcomes: per response "refused", "no_claims", "judged", "unjudged" or "too_long" (the judged records' `outcome`).
    claims: per response the number of de-duplicated claims verified (0 unless judged).
    supported: per response the number of claims judged supported.
    ks: per response the K of recall@K (32 in the paper).
    levels: per response the WikiRank level (5-9), or None for a set without levels.
Returns: the result shape `hallubench score` writes (docs/results.md).
"""


class HallulensLongwiki(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        columns = {"outcomes": "string", "claims": "int32", "supported": "int32", "ks": "int32", "levels": "int32"}
        return metric_info(_DESCRIPTION, _INPUTS, HALLULENS_CITATION, columns)

    def _compute(self, outcomes, claims, supported, ks, levels):
        check_outcomes(BENCHMARK, outcomes)
        check_counts("claims", claims)
        check_counts("supported", supported, at_most=claims, at_most_name="claims")
        check_counts("ks", ks, low=1)
        records = [{"outcome": o, "n_claims": c, "supported": s, "k": k}
                   for o, c, s, k in zip(outcomes, claims, supported, ks)]
        return BENCHMARK.summarize(records, [{"level": level} for level in levels])
