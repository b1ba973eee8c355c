"""LongWiki metric definitions (HalluLens 3.2.1) on hand-built judged records: refused and claim-less responses,
all-supported responses, the K cap of recall@K, unjudged responses, per-level rows, and agreement between
`summarize`, the lm-eval per-sample hook and the `evaluate` module."""

import json
import math

import pytest
from support import evaluate_module

from hallu_metrics.benchmarks import longwiki as lw
from hallu_metrics.stats import mean_of_counted
from hallubench_tasks.judged_task import RecordMetrics


def record(outcome, claims=0, supported=0, k=32):
    return {"outcome": outcome, "n_claims": claims, "supported": supported, "k": k}


def summary(records, levels=None):
    levels = levels or [None] * len(records)
    return lw.BENCHMARK.summarize(records, [{"level": level} for level in levels])


def test_metric_functions_follow_the_paper():
    """precision = supported / claims, recall@K = min(supported / K, 1), F1 harmonic, 0 when both are 0."""
    assert lw.precision(3, 4) == 0.75
    assert lw.recall_at_k(8, 32) == 0.25 and lw.recall_at_k(40, 32) == 1.0
    assert lw.f1_at_k(0.75, 0.25) == pytest.approx(2 * 0.75 * 0.25 / 1.0)
    assert lw.f1_at_k(0.0, 0.0) == 0.0


def test_refused_and_claimless_responses_count_only_in_their_rates():
    """A refused or claim-less response adds to FRR / no-claim rate over N and is left out of the claim metrics."""
    r = summary([record("refused"), record("no_claims"), record("judged", 4, 2), record("judged", 10, 10)])
    assert r["n"] == 4
    assert r["false_refusal_rate"] == 0.25 and r["no_claim_rate"] == 0.25
    assert r["abstain_rate_reference"] == 0.5  # the reference code's abstain ratio: refused + claim-less
    assert r["counted"]["precision"] == 2
    assert r["precision"] == pytest.approx((0.5 + 1.0) / 2)
    assert r["recall_at_k"] == pytest.approx((2 / 32 + 10 / 32) / 2)
    assert r["counts"] == {"refused": 1, "no_claims": 1, "judged": 2, "unjudged": 0, "too_long": 0}
    assert r["claims"] == 14 and r["supported_claims"] == 12 and r["k"] == [32]


def test_all_supported_response_has_precision_one_and_recall_capped_at_k():
    """Every claim supported: precision 1; recall@K reaches 1 only at K supported claims and never exceeds it."""
    short, exact, long = (lw.sample_metrics(record("judged", n, n)) for n in (8, 32, 50))
    assert short["precision"] == exact["precision"] == long["precision"] == 1.0
    assert short["recall_at_k"] == 0.25 and short["f1_at_k"] == pytest.approx(0.4)
    assert exact["recall_at_k"] == long["recall_at_k"] == 1.0 and long["f1_at_k"] == 1.0
    assert lw.sample_metrics(record("judged", 50, 10, k=5))["recall_at_k"] == 1.0  # K is the record's


def test_no_supported_claim_gives_zero_not_missing():
    """A response whose claims are all unsupported counts with precision, recall and F1 of 0."""
    values = lw.sample_metrics(record("judged", 6, 0))
    assert values["precision"] == values["recall_at_k"] == values["f1_at_k"] == 0.0


def test_unjudged_response_counts_only_in_the_judge_unparseable_rate():
    """An unreadable verdict anywhere in the chain leaves the response out of every metric (claim metrics, FRR,
    no-claim and abstain rates: numerator and denominator) but the unparseable rate."""
    values = lw.sample_metrics(record("unjudged", 5, 3))
    assert values["judge_unparseable_rate"] == 1.0
    assert all(values[m] is None for m in lw.BENCHMARK.metric_names if m != "judge_unparseable_rate")
    r = summary([record("refused"), record("judged", 4, 4), record("unjudged", 5, 3)])
    assert r["false_refusal_rate"] == 0.5 and r["counted"]["false_refusal_rate"] == 2
    assert r["judge_unparseable_rate"] == pytest.approx(1 / 3)
    assert lw.sample_metrics({"response": "x", "outcome": "unjudged", "judge": "none"})["precision"] is None


def test_all_refused_leaves_claim_metrics_undefined():
    """Nothing judged with claims: the conditional metrics are None (NaN in lm-eval), never 0."""
    r = summary([record("refused")] * 3)
    assert r["false_refusal_rate"] == 1.0 and r["precision"] is None and r["counted"]["recall_at_k"] == 0
    assert math.isnan(mean_of_counted([lw.sample_metrics(record("refused"))["precision"]] * 3))


def test_levels_are_ordered_rows_and_a_set_without_levels_has_none():
    """Per-level rows in numeric order with their own n; an unleveled set has no level breakdown."""
    r = summary([record("judged", 2, 2), record("judged", 2, 0), record("refused")], levels=[9, 5, 5])
    rows = r["breakdowns"]["level"]
    assert [row["value"] for row in rows] == ["5", "9"] and [row["n"] for row in rows] == [2, 1]
    assert rows[0]["precision"] == 0.0 and rows[0]["false_refusal_rate"] == 0.5
    assert "level" not in summary([record("judged", 1, 1)])["breakdowns"]


def test_lm_eval_hook_and_evaluate_module_agree_with_summarize():
    """The lm-eval per-sample values, aggregated as the task declares, and the `evaluate` module match `score`."""
    records = [record("refused"), record("judged", 4, 3), record("judged", 40, 20), record("no_claims"),
               record("unjudged", 3, 1)]
    expected = summary(records, [5, 5, 6, 7, 7])
    hook = RecordMetrics(lw.BENCHMARK)
    per_sample = [hook({}, [json.dumps(r)]) for r in records]
    for entry in lw.BENCHMARK.lm_eval_metric_list():
        values = [s[entry["metric"]] for s in per_sample]
        aggregate = mean_of_counted if callable(entry["aggregation"]) else (lambda xs: sum(xs) / len(xs))
        assert aggregate(values) == pytest.approx(expected[entry["metric"]])
    module = evaluate_module("hallulens_longwiki")
    result = module.compute(outcomes=[r["outcome"] for r in records], claims=[r["n_claims"] for r in records],
                            supported=[r["supported"] for r in records], ks=[32] * 5, levels=[5, 5, 6, 7, 7])
    assert result["f1_at_k"] == pytest.approx(expected["f1_at_k"])
    assert [row["value"] for row in result["breakdowns"]["level"]] == ["5", "6", "7"]
