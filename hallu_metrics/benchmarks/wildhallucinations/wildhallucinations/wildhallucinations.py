"""`evaluate` module: WildHallucinations' WildFActScore and WildFActScore-Strict from judged facts."""

import datasets
import evaluate

from hallu_metrics.benchmarks.wildhallucinations import BENCHMARK
from hallu_metrics.evaluate_metrics import check_counts, check_outcomes

_CITATION = (
    "@article{zhao2024wildhallucinations, title={WildHallucinations: Evaluating Long-form Factuality in LLMs with "
    "Real-World Entity Queries}, author={Zhao, Wenting and Goyal, Tanya and Chiu, Yu Ying and Jiang, Liwei and "
    "Newman, Benjamin and Ravichander, Abhilasha and Chandu, Khyathi and Le Bras, Ronan and Cardie, Claire and "
    "Deng, Yuntian and Choi, Yejin}, journal={arXiv preprint arXiv:2407.17468}, year={2024}}"
)

_DESCRIPTION = """WildHallucinations (Zhao et al., 2024, section 2.3) from judged responses: wildfactscore (supported
facts / facts, mean over responses that do not abstain and have facts), wildfactscore_strict (1 when every fact is
supported, 0 when any is not or the model abstained), response_rate (responses that do not abstain / judged
responses), facts_per_response (over responses that do not abstain), facts_per_response_reference (FActScore's
"# facts": over responses with at least one fact), the FActScore length-penalised score (gamma = 10) and
judge_unparseable_rate, with stderr, outcome counts and breakdowns per
domain (`category`), Wikipedia / non-Wikipedia entity (`wiki`: any knowledge URL on wikipedia.org) and rarity
(`rarity`: perplexity order of magnitude)."""

_INPUTS = """
Args:
    outcomes: per response "abstained", "all_supported", "some_unsupported", "no_facts", "unjudged" or "too_long"
        (the judged records' `outcome`, as in an lm-eval samples log). An unjudged response does not count for any
        metric but judge_unparseable_rate; a too_long one (over the size limits) for none.
    supported_facts: per response the number of atomic facts judged supported.
    total_facts: per response the number of atomic facts.
    categories: per response the entity's domain.
    knowledge_urls: per response the URLs of the entity's knowledge pages (`info[].url`).
    perplexities: per response the entity's perplexity, or None.
Returns: the result shape `hallubench score` writes (docs/results.md).
"""


class Wildhallucinations(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        features = datasets.Features({
            "outcomes": datasets.Value("string"),
            "supported_facts": datasets.Value("int64"),
            "total_facts": datasets.Value("int64"),
            "categories": datasets.Value("string"),
            "knowledge_urls": datasets.Sequence(datasets.Value("string")),
            "perplexities": datasets.Value("float64"),
        })
        return evaluate.MetricInfo(description=_DESCRIPTION, citation=_CITATION, inputs_description=_INPUTS,
                                   features=features)

    def _compute(self, outcomes, supported_facts, total_facts, categories, knowledge_urls, perplexities):
        check_outcomes(BENCHMARK, outcomes)
        check_counts("total_facts", total_facts)
        check_counts("supported_facts", supported_facts, at_most=total_facts, at_most_name="total_facts")
        records = [
            {"outcome": o, "n_supported": s, "n_facts": n}
            for o, s, n in zip(outcomes, supported_facts, total_facts)
        ]
        docs = [
            {"category": c, "perplexity": p, "info": [{"url": u, "status_code": 200, "text": ""} for u in urls]}
            for c, urls, p in zip(categories, knowledge_urls, perplexities)
        ]
        return BENCHMARK.summarize(records, docs)
