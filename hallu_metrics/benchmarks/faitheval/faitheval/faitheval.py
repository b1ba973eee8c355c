"""`evaluate` module: FaithEval accuracies from the model's raw replies."""

import evaluate

from hallu_metrics.benchmarks.faitheval import BENCHMARKS, KEYWORD_TASKS, read_choice_reply, read_keyword_reply
from hallu_metrics.evaluate_metrics import metric_info

_DESCRIPTION = """FaithEval (Ming et al., 2024; HalluLens section 4.3). Unanswerable / inconsistent contexts:
`accuracy` (a keyword of the published list or one of its word forms in the normalised reply, as whole words),
`accuracy_strict` (the single keyword "unknown" / "conflict"), and the reference's substring matching as
`accuracy_official` / `accuracy_strict_official` ("not" matches inside "knot"). Counterfactual contexts: `accuracy`
(the option read from the reply is the answer key), `accuracy_key_substring` (the answer key letter anywhere in the
reply; no published rule), `invalid_rate`."""

_INPUTS = """
Args:
    predictions: the model's raw replies.
    task: "unanswerable", "inconsistent" or "counterfactual".
    answer_keys, choice_labels, choice_texts: counterfactual only: per reply the key of the option the context
        supports, the option labels and the option texts.
Returns: the result shape `hallubench score` writes (docs/results.md).
"""

_CITATION = """@article{ming2024faitheval, title={FaithEval: Can Your Language Model Stay Faithful to Context, Even If
"The Moon is Made of Marshmallows"}, author={Ming, Yifei and others}, journal={arXiv preprint arXiv:2410.03727},
year={2024}}"""


class Faitheval(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return metric_info(_DESCRIPTION, _INPUTS, _CITATION, {"predictions": "string"})

    def _compute(self, predictions, task, answer_keys=None, choice_labels=None, choice_texts=None):
        benchmark = next(b for b in BENCHMARKS if b.name == f"faitheval_{task}")
        if task in KEYWORD_TASKS:
            docs = [{"subset": None}] * len(predictions)
            return benchmark.summarize([read_keyword_reply(KEYWORD_TASKS[task], p) for p in predictions], docs)
        docs = [{"answer_key": k, "choice_labels": labels, "choice_texts": texts}
                for k, labels, texts in zip(answer_keys, choice_labels, choice_texts)]
        return benchmark.summarize([read_choice_reply(p, d) for p, d in zip(predictions, docs)], docs)
