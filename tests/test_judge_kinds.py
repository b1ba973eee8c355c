"""The judge kinds table: every spec kind builds its judge, unknown kinds are refused, and the
classifier-scorer kind batches pairs from concurrent items and caches each score like an LLM call."""

import pytest

from hallu_metrics.judges import JudgeSet, LLMJudge, RuleJudge, ScorerJudge, judge_kind, make_judge
from hallu_metrics.judges.base import Check
from hallu_metrics.pipeline import judge_all
from hallubench.core.backends import CallCache
from hallubench.core.backends.aio import run_sync
from hallubench.core.errors import HallubenchError


class CountingScorer:
    """A classifier double: P(consistent) = share of hypothesis words found in the premise; logs batches."""

    identity = "test/overlap-scorer"

    def __init__(self):
        self.batches = []

    def score(self, pairs):
        self.batches.append(len(pairs))
        return [sum(w in p.split() for w in h.split()) / len(h.split()) for p, h in pairs]


SUPPORTED = Check(
    name="supported", pair=lambda item: (item["premise"], item["hypothesis"]), from_probability=lambda p: p >= 0.5
)


def test_kinds_resolve_and_unknown_kinds_are_refused(tmp_path):
    """rule / LLM backends / none resolve to their kind; a typo names the known kinds."""
    cache = CallCache(tmp_path / "c.sqlite")
    assert isinstance(make_judge("rule", cache), RuleJudge)
    assert isinstance(make_judge("openai:base_url=http://127.0.0.1:9/v1,model=m", cache), LLMJudge)
    assert judge_kind("none") == "none" and judge_kind("hhem:model=x") == "hhem" and judge_kind("nli:model=x") == "nli"
    known = "none, rule, openai, openai-batch, hf, smollm2, hhem, nli"
    with pytest.raises(HallubenchError, match=f"expected one of: {known}"):
        judge_kind("gpt5")


def test_scorer_judge_batches_concurrent_items_and_caches_scores(tmp_path):
    """Pairs of items judged at once share one batch; labels come from the probability; a second judge
    over the same cache scores nothing."""
    from hallu_metrics.contract import Benchmark, Metric

    async def judge_item(doc, response, judges):
        verdict = await judges.get().ask(SUPPORTED, {"premise": doc["premise"], "hypothesis": response})
        return {"supported": verdict.label, "p": float(verdict.raw)}

    bench = Benchmark(
        name="toy",
        family="toy",
        paper="",
        column_types={},
        judge_item=judge_item,
        metrics=(Metric("supported_rate", "rate", True, ""),),
        sample_metrics=lambda record, doc: {"supported_rate": float(record["supported"])},
    )
    docs = [{"premise": "the cat sat on the mat"}] * 3
    responses = ["the cat sat", "a dog ran", "the mat"]
    cache = CallCache(tmp_path / "c.sqlite")
    scorer = CountingScorer()
    judges = JudgeSet({"judge": "rule"}, cache=cache)
    judges.use("rule", ScorerJudge(scorer, cache, "test"))
    records = run_sync(judge_all(bench, responses, docs, judges))
    assert [r["supported"] for r in records] == [True, False, True] and records[1]["p"] == 0.0
    assert scorer.batches == [3]
    again = CountingScorer()
    judges.use("rule", ScorerJudge(again, cache, "test"))
    assert run_sync(judge_all(bench, responses, docs, judges)) == records and again.batches == []
