"""`evaluate` module: HaluEval recognition accuracy from the recogniser's raw replies."""

import evaluate

from hallu_metrics.benchmarks.halueval import BENCHMARKS, read_reply
from hallu_metrics.evaluate_metrics import metric_info

_DESCRIPTION = """HaluEval (Li et al., 2023) recognition: the model answers whether a response contains
hallucinated information. `accuracy` reads replies with the official rule (a reply holding both or neither
of "Yes"/"No" is a failure, counted wrong and in invalid_rate); `accuracy_lenient` with the documented
lenient rule; per-class accuracy on gold-Yes (hallucinated) and gold-No items; binomial stderr; n."""

_INPUTS = """
Args:
    predictions: the model's raw replies.
    references: the gold labels, "Yes" (hallucinated) or "No".
Returns: the result shape `hallubench score` writes (docs/results.md).
"""

_CITATION = """@inproceedings{li2023halueval, title={HaluEval: A Large-Scale Hallucination Evaluation Benchmark for
Large Language Models}, author={Li, Junyi and Cheng, Xiaoxue and Zhao, Wayne Xin and Nie, Jian-Yun and Wen, Ji-Rong},
booktitle={EMNLP}, year={2023}}"""


class HaluevalRecognition(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, _CITATION, {"predictions": "string", "references": "string"})

    def _compute(self, predictions, references):
        docs = [{"label": label, "pattern": ""} for label in references]
        return BENCHMARKS[0].summarize([read_reply(r, d) for r, d in zip(predictions, docs)], docs)
