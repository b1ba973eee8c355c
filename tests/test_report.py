"""Tables and plots of results in the shared shape, formatted by metric kind."""

from hallu_metrics import nonexistent_refusal, precisewikiqa
from hallu_metrics.contract import Benchmark, Breakdown, Metric
from hallubench import report


def test_plots_difficulty_bins_and_categories_including_empty_rates(tmp_path):
    """A binned result (with a bin where hallucination_rate is None) and a per-domain/tier result both
    render to PNG files; the table lists every row with its n and names the unit (percent)."""
    binned = precisewikiqa.BENCHMARK.summarize(
        [{"outcome": o} for o in ("abstained", "correct", "hallucinated")], [{"difficulty": d} for d in (0, 1, 1)])
    binned.update(task="precisewikiqa", judges={"judge": "rule"})
    assert binned["breakdowns"]["difficulty"][0]["hallucination_rate"] is None
    categorical = nonexistent_refusal.GENERATED.summarize(
        [{"outcome": "believed"}, {"outcome": "not_believed"}],
        [{"domain": "business", "place_tier": "high"}, {"domain": "product", "place_tier": None}])
    categorical.update(task="generatedentities", judges={"judge": "rule"})
    for name, result, benchmark in (("bins", binned, precisewikiqa.BENCHMARK),
                                    ("domains", categorical, nonexistent_refusal.GENERATED)):
        path = tmp_path / f"{name}.png"
        report.plot(result, benchmark, path, model="tiny")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = report.table(categorical, nonexistent_refusal.GENERATED)
    assert "| business | 1 |" in table and "| none | 1 |" in table
    assert "false_acceptance_rate (%)" in table and "| **all** | 2 | 50.0 ± 50.0" in table


def test_scores_print_on_their_own_scale_not_as_percent():
    """A 1-5 score mean prints as 3.50, not 350.00, and its header names the scale."""
    score = Metric("rubric_score", "score", True, "mean rubric score", scale=(1, 5))
    bench = Benchmark(name="toy", family="toy", paper="", columns=None, metrics=(score,), judge_item=None,
                      sample_metrics=lambda record, doc: {"rubric_score": record["s"]},
                      breakdowns=(Breakdown("kind", "category", "type"),))
    result = bench.summarize([{"s": 3}, {"s": 4}], [{"kind": "a"}, {"kind": "b"}])
    result["task"] = "toy"
    table = report.table(result, bench)
    assert "rubric_score (1-5)" in table and "| **all** | 2 | 3.50 ± 0.50 |" in table
    assert report.fmt(score, 3.5) == "3.50"


def test_longwiki_table_prints_the_reference_abstain_ratio_and_the_unreadable_share():
    """The LongWiki table (score's and report's) has the paper's columns, the reference code's abstain ratio and the
    unreadable share; an undefined metric prints n/a, never 0."""
    from hallu_metrics import longwiki

    records = [{"outcome": o, "n_claims": 0, "supported": 0, "k": 32} for o in ("refused", "no_claims", "unjudged")]
    result = longwiki.BENCHMARK.summarize(records, [{"level": None}] * 3)
    result["task"] = "longwiki"
    header, _, row = report.table(result, longwiki.BENCHMARK).splitlines()[:3]
    assert header.endswith("| abstain_rate_reference (%) | judge_unparseable_rate (%) |")
    assert row == "| **all** | 3 | 50.0 ± 50.0 | n/a | n/a | n/a | 100.0 ± 0.0 | 33.3 ± 33.3 |"


def test_nan_and_lm_eval_na_stderr_print_as_na():
    """lm-eval's undefined mean (NaN) and its "N/A" stderr are shown as n/a, not "nan"."""
    rate = precisewikiqa.BENCHMARK.metric("hallucination_rate")
    assert report.fmt(rate, float("nan")) == "n/a"
    assert report.fmt(rate, 0.25, "N/A") == "25.0" and report.fmt(rate, 0.25, float("nan")) == "25.0"


def test_unreadable_banner_names_the_share_and_failures():
    text = report.unreadable_banner("mixedentities", "judge_unparseable_rate", 0.25, 2, 8, 1, "re-run")
    assert "mixedentities: 2 of 8 items have UNREADABLE or failed judge verdicts (judge_unparseable_rate 25.0%;" in text
    assert "1 JUDGE VERDICTS FAILED after retries" in text and "[hallubench] re-run" in text
    assert "count toward no other metric" in text
