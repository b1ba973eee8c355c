"""`evaluate` module: HaluEval recognition accuracy from the recogniser's raw replies."""

import evaluate

from hallu_metrics.evaluate_metrics import metric_info
from hallu_metrics.halueval import process_results
from hallu_metrics.precisewikiqa import stderr

_DESCRIPTION = """HaluEval (Li et al., 2023) recognition: the model answers whether a response contains
hallucinated information. Replies are read with the documented Yes/No extraction rule; a reply with
neither is wrong and counted in invalid_rate. Returns accuracy (paper Table 6), accuracy on gold-Yes
(hallucinated) and gold-No (correct) items, invalid_rate, each with binomial stderr, and n."""

_INPUTS = """
Args:
    predictions: the model's raw replies.
    references: the gold labels, "Yes" (hallucinated) or "No".
"""

_CITATION = """@inproceedings{li2023halueval, title={HaluEval: A Large-Scale Hallucination Evaluation Benchmark for
Large Language Models}, author={Li, Junyi and Cheng, Xiaoxue and Zhao, Wayne Xin and Nie, Jian-Yun and Wen, Ji-Rong},
booktitle={EMNLP}, year={2023}}"""


class HaluevalRecognition(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, _CITATION, {"predictions": "string", "references": "string"})

    def _compute(self, predictions, references):
        values: dict[str, list[float]] = {}
        for reply, label in zip(predictions, references):
            for name, value in process_results({"label": label}, [reply]).items():
                values.setdefault(name, []).append(value)
        result: dict = {"n": len(predictions)}
        for name in ("accuracy", "accuracy_hallucinated", "accuracy_correct", "invalid_rate"):
            scores = values.get(name, [])
            mean = sum(scores) / len(scores) if scores else None
            result[name] = mean
            result[f"{name}_stderr"] = stderr(mean, len(scores))
        return result
