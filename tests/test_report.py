"""Tables and plots of results in the shared shape, formatted by metric kind: rates with a Wilson interval,
scores on their scale, plot axes on each metric's scale, short model and judge names."""

import pytest

from hallu_metrics.benchmarks import nonexistent_refusal, precisewikiqa
from hallu_metrics.benchmarks.faithfulness import HHEM
from hallu_metrics.contract import Benchmark, Breakdown, Metric, unreadable_banner
from hallu_metrics.stats import wilson_interval
from hallubench.reporting import report
from hallubench.reporting.faithfulness_report import build_figure, scorer_label

LLM_JUDGE = "openai:base_url=http://a-long-judge-host.example.internal:8000/v1,model=gpt-4o-mini,concurrency=16"


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
    assert "false_acceptance_rate (%)" in table and "| **all** | 2 | 50.0 [9.5, 90.5]" in table
    assert table.endswith(report.INTERVAL_NOTE) and "95% Wilson score interval" in table


def test_scores_print_on_their_own_scale_not_as_percent():
    """A 1-5 score mean prints as 3.50, not 350.00, and its header names the scale."""
    score = Metric("rubric_score", "score", True, "mean rubric score", scale=(1, 5))
    bench = Benchmark(name="toy", family="toy", paper="", column_types={}, metrics=(score,), judge_item=None,
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
    from hallu_metrics.benchmarks import longwiki

    records = [{"outcome": o, "n_claims": 0, "supported": 0, "k": 32} for o in ("refused", "no_claims", "unjudged")]
    result = longwiki.BENCHMARK.summarize(records, [{"level": None}] * 3)
    result["task"] = "longwiki"
    header, _, row = report.table(result, longwiki.BENCHMARK).splitlines()[:3]
    assert header.endswith("| abstain_rate_reference (%) | judge_unparseable_rate (%) |")
    assert row == "| **all** | 3 | 50.0 [9.5, 90.5] | n/a | n/a | n/a | 100.0 [34.2, 100.0] | 33.3 [6.1, 79.2] |"


def test_nan_and_lm_eval_na_stderr_print_as_na():
    """lm-eval's undefined mean (NaN) and its "N/A" stderr are shown as n/a, not "nan"."""
    rate = precisewikiqa.BENCHMARK.metric("hallucination_rate")
    assert report.fmt(rate, float("nan")) == "n/a"
    assert report.fmt(rate, 0.25, "N/A") == "25.0" and report.fmt(rate, 0.25, float("nan")) == "25.0"


def test_unreadable_banner_names_the_share_and_failures():
    text = unreadable_banner("mixedentities", "judge_unparseable_rate", 0.25, 2, 8, 1, "re-run")
    assert "mixedentities: 2 of 8 items have UNREADABLE or failed judge verdicts (judge_unparseable_rate 25.0%;" in text
    assert "1 JUDGE VERDICTS FAILED after retries" in text and "[hallubench] re-run" in text
    assert "count toward no other metric" in text


@pytest.mark.parametrize(("p", "n", "low", "high"), [
    (1.0, 3, 0.4385, 1.0),  # 3 of 3: not a certain 100%
    (0.0, 10, 0.0, 0.2775),
    (0.5, 100, 0.4038, 0.5962),
    (0.25, 4, 0.0456, 0.6994),
])
def test_wilson_interval_matches_the_closed_form(p, n, low, high):
    assert wilson_interval(p, n) == pytest.approx((low, high), abs=1e-4)


def test_rates_print_a_wilson_interval_and_fall_back_to_stderr_without_a_count():
    """100% of 3 items is "100.0 [43.9, 100.0]", never "± 0.0"; without the count, ± stderr; scores keep ±."""
    rate = precisewikiqa.BENCHMARK.metric("correct_rate")
    assert report.fmt(rate, 1.0, 0.0, 3) == "100.0 [43.9, 100.0]"
    assert report.fmt(rate, 1.0, 0.0) == "100.0 ± 0.0"
    residual = HHEM.metric("residual")
    assert report.fmt(residual, 1.5, 0.25, 8) == "1.50 ± 0.25"
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


@pytest.mark.parametrize(("spec", "short"), [
    ("rule", "rule"),
    (LLM_JUDGE, "openai:gpt-4o-mini"),
    ("openai:model=gpt-4o-mini,base_url=http://h/v1,structured=true", "openai:gpt-4o-mini (structured=true)"),
    ("openai:base_url=http://h/v1,model=j,template=mine.json@sha256:0123456789abcdef", "openai:j (template=mine.json)"),
    ("hf:pretrained=/home/x/models/Qwen2.5-1.5B-Instruct,device=cpu", "hf:Qwen2.5-1.5B-Instruct"),
    ("hf:pretrained=/m,gguf_file=smollm2-q8_0.gguf", "hf:smollm2-q8_0"),
    ("hhem:model=vectara/hallucination_evaluation_model", "hhem:vectara/hallucination_evaluation_model"),
    ("smollm2", "smollm2"),
])
def test_judge_specs_shorten_to_kind_and_model(spec, short):
    assert report.short_judge(spec) == short


def test_judge_label_names_other_roles_only_when_they_differ():
    assert report.judge_label({"judge": LLM_JUDGE, "judge_facts": LLM_JUDGE}) == "openai:gpt-4o-mini"
    assert report.judge_label({"judge": LLM_JUDGE, "judge_verify": "rule"}) == "openai:gpt-4o-mini; verify=rule"
    assert report.judge_label({}) == "none"


def _faithfulness_result():
    docs = [{"type": t, "expected_score": 5, "hallucinated_share": s, "progression_kind": k}
            for t, s, k in (("gold_full", 0.0, None), ("progression", 0.0, "intrinsic"),
                            ("progression", 0.4, "intrinsic"), ("progression", 1.0, "intrinsic"))]
    result = HHEM.summarize([{"score": s} for s in (5.0, 5.0, 3.0, 1.0)], docs)
    return {**result, "task": "faithfulness_hhem", "judges": {"judge": "hhem:model=/models/HHEM-2.1-Open"}}


def test_score_plots_put_each_scale_on_its_own_axis_and_fit_the_title():
    """A residual (0-4) and a score (1-5) never share an axis, each keeps its scale, the unreadable share is not
    drawn; the title (short judge) fits the figure."""
    fig = report.figure({**_faithfulness_result(), "judges": {"judge": LLM_JUDGE}}, HHEM, model="m" * 40)
    fig.canvas.draw()
    limits = {ax.get_ylabel(): ax.get_ylim() for ax in fig.axes}
    assert limits == {"residual (0-4)": (0.0, 4.0), "score (1-5)": (1.0, 5.0)}
    assert not any(t.get_text() == "judge_unparseable_rate" for ax in fig.axes for t in ax.get_legend().get_texts())
    title = fig._suptitle
    assert "judge: openai:gpt-4o-mini" in title.get_text() and "base_url" not in title.get_text()
    box = title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width


def test_score_plots_leave_the_missing_group_off_the_line():
    """An ordered breakdown with a none group: the line joins the bins only."""
    result = precisewikiqa.BENCHMARK.summarize([{"outcome": "correct"}] * 3, [{"difficulty": d} for d in (1, 0, None)])
    result["task"] = "precisewikiqa"
    ax = report.figure(result, precisewikiqa.BENCHMARK).axes[0]
    assert [t.get_text().split()[0] for t in ax.get_xticklabels()] == ["0", "1", "none"]
    line = next(line for line in ax.get_lines() if line.get_label() == "correct_rate")
    assert len(line.get_xdata()) == 2 and max(line.get_xdata()) < 2
    assert any(m.get_gid() == "missing-group" for m in ax.get_lines())


def test_faithfulness_figure_uses_the_metrics_scales_and_short_judges():
    result = _faithfulness_result()
    assert scorer_label(result) == "faithfulness_hhem (hhem:HHEM-2.1-Open)"
    progression, _, residual = build_figure([result]).axes
    assert progression.get_ylim() == HHEM.metric("score").scale
    assert residual.get_ylim() == HHEM.metric("residual").scale


def test_ordered_breakdowns_follow_their_declared_order():
    """Place tiers run high -> mid -> low (not alphabetically), numeric bins numerically, the missing group last,
    in score's result rows and so in every table and plot drawn from them."""
    from hallu_metrics.registry import BENCHMARKS

    generated = BENCHMARKS["generatedentities"]
    docs = [{"place_tier": tier, "domain": "animal"} for tier in ("low", None, "high", "mid", "low")]
    records = [{"outcome": "not_believed"} for _ in docs]
    rows = generated.summarize(records, docs)["breakdowns"]["place_tier"]
    assert [r["value"] for r in rows] == ["high", "mid", "low", "none"]
    [bins] = [b for b in BENCHMARKS["precisewikiqa"].breakdowns if b.kind == "ordered"]
    assert sorted(["10", "none", "2", "9"], key=bins.sort_key) == ["2", "9", "10", "none"]


def test_the_judge_line_says_what_a_rule_judge_is_and_an_empty_panel_says_why(tmp_path):
    """The ROUGE/BLEU/BERTScore baseline is not called an offline LLM-judge stand-in; a panel whose metrics have no
    value (every verdict unreadable) says so instead of staying blank."""
    from hallu_metrics.registry import BENCHMARKS
    from hallubench.reporting.report import figure, judge_line

    baseline, rubric = BENCHMARKS["faithfulness_baseline"], BENCHMARKS["faithfulness_rubric"]
    assert "ROUGE-L / BLEU / BERTScore" in judge_line({"judges": {"judge": "rule"}}, baseline)
    assert "embedded offline rule judge" in judge_line({"judges": {"judge": "rule"}}, BENCHMARKS["precisewikiqa"])
    empty = {"task": "faithfulness_rubric_so", "n": 2, "residual": None, "score": None, "judge_unparseable_rate": 1.0,
             "stderr": {}, "counted": {"residual": 0, "score": 0, "judge_unparseable_rate": 2}, "breakdowns": {}}
    fig = figure(empty, rubric)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts and all("no item has a readable verdict" in t for t in texts)


def test_wilson_intervals_only_for_shares_of_items():
    """A Wilson interval is for a share of 0/1 items; a mean of per-item fractions (LongWiki precision) keeps its
    standard error."""
    from hallu_metrics.registry import BENCHMARKS
    from hallubench.reporting.report import fmt

    longwiki = BENCHMARKS["longwiki"]
    assert fmt(longwiki.metric("precision"), 0.5, 0.1, counted=5) == "50.0 ± 10.0"
    assert fmt(longwiki.metric("false_refusal_rate"), 1.0, 0.0, counted=3) == "100.0 [43.9, 100.0]"
