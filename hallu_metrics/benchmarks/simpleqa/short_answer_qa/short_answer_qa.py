"""`evaluate` module: SimpleQA / PopQA hallucination-proxy rates from three-way grades."""

import evaluate

from hallu_metrics.benchmarks.simpleqa import BENCHMARK
from hallu_metrics.evaluate_metrics import HALLULENS_CITATION, check_outcomes, metric_info

_DESCRIPTION = """Short-answer QA graded correct / incorrect / not attempted, read as in HalluLens section 5.2 (the
metrics of `simpleqa_hallu` and `popqa_hallu`): hallucination_rate = incorrect / attempted, false_refusal_rate =
not attempted / graded, correct_rate = correct / graded, accuracy_given_attempted = correct / attempted, f_score
(harmonic mean of correct_rate and accuracy_given_attempted), not_attempted_rate_reference = (not attempted +
ungraded) / N as simple-evals counts it, judge_unparseable_rate = ungraded / N; stderr, counts, and the rates per
group when `groups` is given (`breakdowns.group`). An ungraded ("unjudged") reply counts toward no other rate."""

_INPUTS = """
Args:
    grades: per reply "correct", "incorrect", "not_attempted" or "unjudged" (the judged records' `outcome`).
    groups: optional per reply group key (topic, answer type, popularity bin, ...).
Returns: the result shape `hallubench score` writes (docs/results.md).
"""


class ShortAnswerQa(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, HALLULENS_CITATION, {"grades": "string"})

    def _compute(self, grades, groups=None):
        check_outcomes(BENCHMARK, grades, "grades")
        from hallu_metrics.stats import breakdown_rows

        records = [{"outcome": g} for g in grades]
        result = BENCHMARK.summarize(records, [{}] * len(records))
        if groups is not None:
            per_sample = [BENCHMARK.sample_metrics(r, {}) for r in records]
            result["breakdowns"]["group"] = breakdown_rows(per_sample, list(groups), BENCHMARK.metric_names)
        return result
