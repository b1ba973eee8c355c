"""`evaluate` module: HHEM leaderboard rates from summaries and their consistency scores."""

import evaluate

from hallu_metrics.benchmarks.hhem_summarization import BENCHMARK, summary_record
from hallu_metrics.evaluate_metrics import HALLULENS_CITATION, check_range, metric_info

_DESCRIPTION = """HHEM leaderboard summarization (HalluLens section 4.1): a summary is valid with at least 5 words and
not a refusal; hallucination_rate = valid summaries scored below 0.5 / valid scored summaries,
factual_consistency_rate = 1 - that, answer_rate = valid / N, average_summary_length = words per valid summary,
judge_unparseable_rate = valid summaries without a readable score / N; stderr, counted, counts."""

_INPUTS = """
Args:
    predictions: the summaries.
    scores: per summary P(consistent) from HHEM (or another scorer), None when not scored.
    scorer_inputs: optional, per summary the judged record's `scorer_input` (how much of the pair a windowed
        classifier saw: `windows`, `cut`, ...; None when not told), for scorer_cut_rate and `scorer_input`.
Returns: the result shape `hallubench score` writes (docs/results.md).
"""


class HhemSummarization(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, HALLULENS_CITATION, {"predictions": "string", "scores": "float64"})

    def _compute(self, predictions, scores, scorer_inputs=None):
        check_range("scores", scores, 0.0, 1.0)
        records = [summary_record(p, s) for p, s in zip(predictions, scores)]
        if scorer_inputs is not None:
            records = [{**r, "scorer_input": seen} for r, seen in zip(records, scorer_inputs)]
        return BENCHMARK.summarize(records, [{}] * len(records))
