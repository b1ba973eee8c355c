"""What the plots of `score --plot`, `report --out`, the stability section and the faithfulness figure show, read off
the matplotlib Figure objects (no image comparison): a zero reads as zero and a missing value as n/a, every group names
its n, error bars stay within the metric's range, an empty panel says why; and stability.csv writes report.csv's
units."""

import csv
import io
import math
from typing import Any

import pytest

from hallu_metrics.benchmarks import nonexistent_refusal
from hallu_metrics.benchmarks.faithfulness import HHEM
from hallubench.reporting.compare import comparison_figure
from hallubench.reporting.faithfulness_report import build_figure
from hallubench.reporting.report import csv_unit
from hallubench.reporting.stability import Manifest, TrialGroup, stability_figure, stability_tables

BENCH = nonexistent_refusal.GENERATED
RATE = "false_acceptance_rate"
DOMAIN = BENCH.breakdowns[0]


def group(value: str, n: int, rate: float | None, counted: int | None = None, stderr: float | None = None) -> dict:
    """A breakdown row in the shared result shape."""
    return {"value": value, "n": n, RATE: rate, "counted": {RATE: counted}, "stderr": {RATE: stderr}}


def result(model: str, *groups: dict) -> dict[str, Any]:
    """A report row of one model with its domain breakdown."""
    return {"model": model, "judge": "rule", "set": "s", "shots": 0, "breakdowns": {"domain": list(groups)}}


def texts(ax: Any) -> list[tuple[float, str]]:
    return [(round(t.get_position()[0], 3), t.get_text()) for t in ax.texts]


def error_spans(ax: Any) -> list[tuple[float, float]]:
    """(bottom, top) of every error bar drawn on ``ax``."""
    return [(min(s[0][1], s[1][1]), max(s[0][1], s[1][1])) for c in ax.collections for s in c.get_segments()]


def test_a_zero_bar_reads_zero_and_a_missing_value_reads_na():
    """A's business rate is 0 of 4 (a bar of no height): a tick at 0 as wide as the bar and the label 0; A's product
    rate is undefined (no item counted): n/a, no tick. Bars of 2 series are 0.4 wide, A's at x - 0.2."""
    rows = [result("A", group("business", 4, 0.0, 4), group("product", 1, None, 0)),
            result("B", group("business", 2, 0.5, 2), group("product", 4, 0.25, 4))]
    ax = comparison_figure("generatedentities", BENCH, rows, DOMAIN).axes[0]
    assert texts(ax) == [(-0.2, "0"), (0.8, "n/a")]
    [tick] = [line for line in ax.get_lines() if line.get_gid() == "floor-value"]
    assert list(tick.get_xdata()) == pytest.approx([-0.4, 0.0]) and list(tick.get_ydata()) == [0.0, 0.0]
    assert not tick.get_clip_on()
    heights = [bar.get_height() for bar in ax.patches]
    assert heights[:1] == [0.0] and math.isnan(heights[1])


def test_an_ordered_breakdown_labels_its_missing_values_na():
    """On a line (ordered breakdown) a zero is a marker at 0; an undefined value, which the line skips, reads n/a."""
    tiers = BENCH.breakdowns[1]
    rows = [{**result("A"), "breakdowns": {"place_tier": [group("high", 2, 0.0, 2), group("low", 1, None, 0)]}}]
    ax = comparison_figure("generatedentities", BENCH, rows, tiers).axes[0]
    assert texts(ax) == [(1.0, "n/a")]


def test_each_group_names_its_n_per_result():
    """Under each group, its item count per result (in legend order), one number when they agree, – where a result
    lacks the group; as `score --plot` does for one result."""
    rows = [result("A", group("business", 4, 0.5, 4), group("product", 3, 0.5, 3), group("tech", 2, 0.5, 2)),
            result("B", group("business", 2, 0.5, 2), group("product", 3, 0.5, 3))]
    ax = comparison_figure("generatedentities", BENCH, rows, DOMAIN).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["business\n(n=4/2)", "product\n(n=3)", "tech\n(n=2/–)"]


def test_rate_error_bars_stay_within_0_and_100_percent():
    """Without an item count a rate falls back to ± stderr: 98% ± 5 reaches 100, not 103; 2% ± 5 reaches 0, not -3."""
    rows = [result("A", group("business", 9, 0.98, None, 0.05), group("product", 9, 0.02, None, 0.05))]
    ax = comparison_figure("generatedentities", BENCH, rows, DOMAIN).axes[0]
    assert [pytest.approx(span) for span in sorted(error_spans(ax))] == [(0.0, 7.0), (93.0, 100.0)]


def test_stability_std_bars_stay_within_0_and_100_percent(tmp_path):
    """Trials at 0, 0 and 30%: mean 10, std sqrt(300) = 17.32; the bar runs from 0 (not -7.32) to 27.32."""
    manifest = Manifest(tmp_path / "sets" / "trials.json", "mixedentities", (0, 1, 2), {})
    trials = TrialGroup(manifest, "mixedentities", "rule",
                        {"A": {seed: {RATE: value} for seed, value in enumerate((0.0, 0.0, 0.3))}})
    ax = stability_figure(trials).axes[0]
    assert error_spans(ax) == [pytest.approx((0.0, 10 + math.sqrt(300)))]


def test_comparison_panel_without_any_value_says_why():
    rows = [result("A", group("business", 2, None, 0)), result("B", group("business", 1, None, 0))]
    ax = comparison_figure("generatedentities", BENCH, rows, DOMAIN).axes[0]
    assert [t.get_text().split("\n")[0] for t in ax.texts] == [
        "no value: no item has a readable verdict for these metrics"]


def faithfulness(scores: list[float | None], types: tuple[str, ...]) -> dict[str, Any]:
    """An HHEM result: one pair per type (progression pairs intrinsic, shares 0 and 1), expected score 5."""
    docs = [{"type": t, "expected_score": 5, "hallucinated_share": float(i % 2),
             "progression_kind": "intrinsic" if t == "progression" else None} for i, t in enumerate(types)]
    return {**HHEM.summarize([{"score": s} for s in scores], docs), "task": "faithfulness_hhem"}


def test_empty_faithfulness_panels_say_why():
    """Every pair unreadable: the residual panel and both progression panels say so instead of staying blank."""
    unreadable = faithfulness([None, None], ("gold_full", "progression"))
    intrinsic, extrinsic, residual = build_figure([unreadable]).axes
    for ax in (intrinsic, extrinsic, residual):
        assert any(t.get_text().startswith("no readable scores: every pair unreadable") for t in ax.texts)


def test_a_faithfulness_panel_with_scores_elsewhere_names_what_is_missing():
    """Only progression pairs scored: the residual panel says no pair of the paper's types was; the intrinsic panel
    draws its line, the extrinsic one says it has no pair."""
    progression_only = faithfulness([5.0, 1.0], ("progression", "progression"))
    intrinsic, extrinsic, residual = build_figure([progression_only]).axes
    assert not intrinsic.texts and len(intrinsic.get_lines()) == 1
    assert [t.get_text() for t in extrinsic.texts] == ["no readable score of an extrinsic progression pair"]
    assert "no readable score of a gold_full/gold_sentence/intrinsic/extrinsic pair" in [t.get_text()
                                                                                          for t in residual.texts]


def test_a_perfect_residual_reads_zero():
    """A gold pair scored 5 of 5: residual 0, a bar of no height, labelled 0; types without pairs read n/a."""
    perfect = faithfulness([5.0], ("gold_full",))
    residual = build_figure([perfect]).axes[2]
    labels = [t.get_text() for t in residual.texts]
    assert labels == ["0", "n/a", "n/a", "n/a", "0"]  # gold_full, gold_sentence, intrinsic, extrinsic, all


def test_stability_csv_writes_report_csv_units(tmp_path):
    """Rates as fractions with unit `fraction` (as report.csv), Kendall's tau unitless: trials 10/20/30% and 40% x3."""
    manifest = Manifest(tmp_path / "sets" / "trials.json", "mixedentities", (0, 1, 2), {})
    values = {"A": (0.1, 0.2, 0.3), "B": (0.4, 0.4, 0.4)}
    trials = TrialGroup(manifest, "mixedentities", "rule",
                        {m: {seed: {RATE: v, "source": str(tmp_path / f"{m}{seed}.json")}
                             for seed, v in enumerate(vs)} for m, vs in values.items()})
    lines = list(csv.DictReader(io.StringIO(stability_tables([trials], [])[1])))
    by = {(r["model"], r["versus"], r["trial_seed"], r["statistic"]): (r["unit"], r["value"]) for r in lines
          if r["metric"] == RATE}
    assert csv_unit(BENCH.metric(RATE)) == "fraction"
    assert by[("A", "", "1", "value")] == ("fraction", "0.2")
    assert by[("A", "", "", "std_ddof1")][0] == "fraction" and float(by[("A", "", "", "std_ddof1")][1]) == \
        pytest.approx(0.1)
    assert by[("A", "B", "", "difference_mean")][0] == "fraction"
    assert float(by[("A", "B", "", "difference_mean")][1]) == pytest.approx(-0.2)
    assert by[("", "", "", "kendall_tau_mean")][0] == "unitless"
    assert by[("A", "B", "", "paired_t_p")][0] == "unitless"
    assert by[("A", "B", "", "items_paired")][0] == "count"
