"""`evaluate` module: HalluLens PreciseWikiQA rates from judged outcomes."""

import evaluate

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK
from hallu_metrics.evaluate_metrics import HALLULENS_CITATION, check_outcomes, metric_info

_DESCRIPTION = """PreciseWikiQA (HalluLens section 3.1) from judged outcomes: false_refusal_rate (abstained /
judged), hallucination_rate (hallucinated / attempted; None when nothing was attempted), correct_rate (correct /
judged), judge_unparseable_rate (unjudged / N), binomial stderr, counts, and the same rates per difficulty bin
(`breakdowns.difficulty`). "Judged" samples have readable verdicts: an unjudged sample counts toward no rate but
judge_unparseable_rate, and a rate with no judged sample is None."""

_INPUTS = """
Args:
    outcomes: per sample "abstained", "correct", "hallucinated" or "unjudged" (the judged records'
        `outcome`, as in an lm-eval samples log).
    difficulties: per sample the difficulty bin (0 = hardest), or None for an unbinned set.
Returns: the result shape `hallubench score` writes (docs/results.md): rates, stderr, counts, breakdowns.
"""


class HallulensPrecisewikiqa(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, HALLULENS_CITATION, {"outcomes": "string", "difficulties": "int32"})

    def _compute(self, outcomes, difficulties):
        check_outcomes(BENCHMARK, outcomes)
        return BENCHMARK.summarize([{"outcome": o} for o in outcomes], [{"difficulty": d} for d in difficulties])
