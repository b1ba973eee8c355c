"""`evaluate` module: faithfulness-scorer residuals and progression sensitivity from rubric replies."""

import evaluate

from hallu_metrics.benchmarks.faithfulness import RUBRIC_TASK, read_reply
from hallu_metrics.evaluate_metrics import check_outcomes, check_range, metric_info

_DESCRIPTION = """Jing et al., "On A Scale From 1 to 5" (2025): a scorer grades (reference, hypothesis) pairs on a
1-5 faithfulness rubric. Replies are read as {"score": n}; a score outside 1-5, fractional or missing is unparseable
(counted in judge_unparseable_rate, left out of the means). `residual` = mean |expected - predicted| over the
gold_full, gold_sentence, intrinsic and extrinsic pairs (pair-weighted), per type in breakdowns["type"]; `score`;
progression pairs: mean score per hallucinated share and delta_per_step_intrinsic / _extrinsic =
(score at share 1 - score at share 0) / 5."""

_INPUTS = """
Args:
    predictions: the scorer's raw replies (JSON with a "score" key).
    references: the expected scores (5 gold, 1 hallucinated, 5 - 4 x share on the progression set).
    types: gold_full, gold_sentence, intrinsic, extrinsic or progression.
    hallucinated_shares: share of hallucinated sentences (0 to 1).
    progression_kinds: intrinsic, extrinsic or none.
    scores: optional, per pair the 1-5 score a classifier or baseline judge gave (faithfulness_hhem,
        faithfulness_baseline), None when unreadable or failed; when given, `predictions` are not read.
    outcomes: optional with `scores`: per pair "scored", "unparseable" or "failed" (the judged records' `outcome`;
        default: scored when there is a score, else unparseable).
Returns: the result shape `hallubench score` writes (docs/results.md).
"""

_CITATION = """@inproceedings{jing2025scale, title={On A Scale From 1 to 5: Quantifying Hallucination in Faithfulness
Evaluation}, author={Jing, Xiaonan and Billa, Srinivas and Godbout, Danny}, year={2025}}"""


class FaithfulnessRubric(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, _CITATION, {
            "predictions": "string", "references": "float64", "types": "string", "hallucinated_shares": "float64",
            "progression_kinds": "string"})

    def _compute(self, predictions, references, types, hallucinated_shares, progression_kinds, scores=None,
                 outcomes=None):
        docs = [{"expected_score": e, "type": t, "hallucinated_share": s, "progression_kind": k}
                for e, t, s, k in zip(references, types, hallucinated_shares, progression_kinds)]
        if scores is None:
            return RUBRIC_TASK.summarize([read_reply(p) for p in predictions], docs)
        check_range("scores", scores, 1, 5)
        outcomes = outcomes or ["scored" if s is not None else "unparseable" for s in scores]
        check_outcomes(RUBRIC_TASK, outcomes)
        return RUBRIC_TASK.summarize([{"score": s, "outcome": o} for s, o in zip(scores, outcomes)], docs)
