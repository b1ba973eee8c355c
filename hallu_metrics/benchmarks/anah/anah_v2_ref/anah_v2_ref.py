"""`evaluate` module: ANAH 2.0 (with reference) hallucination rates from sentence labels."""

import evaluate

from hallu_metrics.benchmarks.anah import BENCHMARK, OFFICIAL_LABELS, SENTENCE_LABELS, response_outcome

_DESCRIPTION = """ANAH 2.0 with reference (Gu et al., 2024; HalluLens section 4.2) from per-sentence labels ("ok",
"nofact", "contradictory", "unverifiable", "unparseable"). Sentence-pooled, as the official scorer:
hallucination_rate = (contradictory + unverifiable) / sentences without the unparseable ones,
hallucination_rate_official = the same over all sentences (unparseable counted as not hallucinated), stderr and
per-language numbers under `sentence_level`; per response (means over answers): response_hallucination_rate,
response_hallucination_rate_official, judge_unparseable_rate, empty_response_rate; breakdown by language."""

_INPUTS = """
Args:
    sentence_labels: per answer, the list of its sentences' labels.
    languages: per answer "en" or "zh".
    official_labels: optional, per answer the official replay's sentence labels ("ok", "nofact", "contradictory",
        "unverifiable", "unreadable"; the judged records' `sentences[].official.label`, None read as "unreadable").
        Without them the official columns are eval.py's aggregation of `sentence_labels`.
Returns: the result shape `hallubench score` writes (docs/results.md).
"""

_CITATION = """@inproceedings{gu2024anahv2, title={ANAH-v2: Scaling Analytical Hallucination Annotation of Large
Language Models}, author={Gu, Yuzhe and Ji, Ziwei and Zhang, Wenwei and Lyu, Chengqi and Lin, Dahua and Chen, Kai},
booktitle={NeurIPS}, year={2024}}"""


class AnahV2Ref(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        import datasets

        features = datasets.Features({"sentence_labels": datasets.Sequence(datasets.Value("string")),
                                      "languages": datasets.Value("string")})
        return evaluate.MetricInfo(description=_DESCRIPTION, citation=_CITATION, inputs_description=_INPUTS,
                                   features=features)

    def _compute(self, sentence_labels, languages, official_labels=None):
        unknown = {label for labels in sentence_labels for label in labels} - set(SENTENCE_LABELS)
        if unknown:
            raise ValueError(f"unknown sentence labels {sorted(unknown)} (expected: {', '.join(SENTENCE_LABELS)})")
        records = [{"counts": {label: list(labels).count(label) for label in SENTENCE_LABELS},
                    "outcome": response_outcome(labels)} for labels in sentence_labels]
        if official_labels is not None:
            official = [[label or "unreadable" for label in labels] for labels in official_labels]
            unknown = {label for labels in official for label in labels} - set(OFFICIAL_LABELS)
            if unknown:
                raise ValueError(f"unknown official labels {sorted(unknown)} (expected: {', '.join(OFFICIAL_LABELS)})")
            records = [{**r, "official_counts": {label: labels.count(label) for label in OFFICIAL_LABELS}}
                       for r, labels in zip(records, official)]
        return BENCHMARK.summarize(records, [{"language": lang} for lang in languages])
