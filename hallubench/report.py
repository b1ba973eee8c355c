"""Human-facing views of a result in the shared shape: markdown tables and plots, formatted by what
each metric is (rates in percent, scores on their own scale, counts as counts)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hallu_metrics.contract import Benchmark, Metric


def unit(metric: Metric) -> str:
    """How a metric's values are shown: ``%`` for rates, the scale for scores, ``count`` for counts."""
    if metric.kind == "rate":
        return "%"
    if metric.kind == "score":
        low, high = metric.scale
        return f"{low:g}-{high:g}"
    return "count"


def _missing(value: Any) -> bool:
    """None, NaN (lm-eval's undefined mean) or anything that is not a number (lm-eval's "N/A" stderr)."""
    return not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value)


def fmt(metric: Metric, value: float | None, stderr: float | None = None) -> str:
    """A value (with ± stderr when given) in the metric's unit; ``n/a`` when undefined (None or NaN)."""
    if _missing(value):
        return "n/a"
    factor = 100.0 if metric.kind == "rate" else 1.0
    digits = 1 if metric.kind == "rate" else 2
    text = f"{factor * value:.{digits}f}"
    return f"{text} ± {factor * stderr:.{digits}f}" if not _missing(stderr) else text


def unreadable_banner(task: str, metric: str, share: float | None, items: int, n: int, failed: int,
                      advice: str) -> str:
    """The stderr banner announcing judge verdicts that cannot be used: unparseable replies and failed calls."""
    bar = "!" * 78
    failures = f"; {failed} JUDGE VERDICTS FAILED after retries" if failed else ""
    share_text = "n/a" if share is None else f"{share:.1%}"
    return (
        f"\n{bar}\n[hallubench] {task}: {items} of {n} items have UNREADABLE or failed judge verdicts ({metric} "
        f"{share_text}{failures}).\n[hallubench] They count toward no other metric: every other number is over "
        f"readable verdicts only.\n[hallubench] {advice}\n{bar}\n"
    )


def _row(label: str, row: Mapping[str, Any], metrics: Sequence[Metric]) -> str:
    cells = [fmt(m, row.get(m.name), row.get("stderr", {}).get(m.name)) for m in metrics]
    return f"| {label} | {row['n']} | " + " | ".join(cells) + " |"


def judge_line(result: Mapping[str, Any]) -> str:
    """Which judges produced the numbers, saying so when it is the embedded offline rule judge."""
    judges = result.get("judges") or {}
    if not judges:
        return "judge: none (the model's replies are read directly)"
    text = ", ".join(f"{role}={spec}" for role, spec in judges.items())
    embedded = any(spec == "rule" for spec in judges.values())
    return f"judge: {text}" + (" (embedded offline rule judge, not the paper's LLM judge)" if embedded else "")


def table(result: Mapping[str, Any], benchmark: Benchmark, metric_names: Sequence[str] | None = None) -> str:
    """Markdown: the overall row, then one table per breakdown; headers name each metric's unit."""
    metrics = [benchmark.metric(n) for n in (metric_names or benchmark.headline_metrics)]
    header = "| {} | n | " + " | ".join(f"{m.name} ({unit(m)})" for m in metrics) + " |"
    rule = "|---|---:|" + "---:|" * len(metrics)
    parts = ["\n".join([header.format(result["task"]), rule, _row("**all**", result, metrics)])]
    labels = {b.key: b.label for b in benchmark.breakdowns}
    for key, rows in result.get("breakdowns", {}).items():
        lines = [header.format(labels.get(key, key)), rule, *(_row(str(r["value"]), r, metrics) for r in rows)]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _panel(ax, rows: Sequence[Mapping[str, Any]], metrics: Sequence[Metric], ordered: bool) -> None:
    """One breakdown, one metric kind: lines (ordered keys) or grouped bars (categories), error bars,
    and markers dodged sideways so that equal values stay visible."""
    factor = 100.0 if metrics[0].kind == "rate" else 1.0
    positions = list(range(len(rows)))
    width = 0.8 / len(metrics)
    for k, metric in enumerate(metrics):
        offset = (k - (len(metrics) - 1) / 2) * (width if not ordered else 0.08)
        xs = [x + offset for x in positions]
        values = [float("nan") if r.get(metric.name) is None else factor * r[metric.name] for r in rows]
        errors = [
            0.0 if r.get("stderr", {}).get(metric.name) is None else factor * r["stderr"][metric.name] for r in rows
        ]
        if ordered:
            ax.errorbar(xs, values, yerr=errors, marker="o", capsize=3, label=metric.name)
        else:
            ax.bar(xs, values, width, yerr=errors, capsize=3, label=metric.name)
    ax.set_xticks(
        positions,
        [f"{r['value']}\n(n={r['n']})" for r in rows],
        rotation=0 if ordered else 30,
        ha="center" if ordered else "right",
    )
    low, high = metrics[0].scale
    ax.set_ylim(factor * low, factor * high * (1.05 if metrics[0].kind != "count" else 1.0))
    if metrics[0].kind == "count":
        ax.set_ylim(bottom=0)
        ax.autoscale(axis="y")
    ax.set_ylabel(unit(metrics[0]) if metrics[0].kind != "score" else f"score ({unit(metrics[0])})")
    ax.legend(fontsize=8, loc="best")


def plot(
    result: Mapping[str, Any],
    benchmark: Benchmark,
    path: Path,
    metric_names: Sequence[str] | None = None,
    model: str | None = None,
) -> None:
    """One panel per breakdown (rows) and metric kind (columns); the title names task, model and judge."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [benchmark.metric(n) for n in (metric_names or benchmark.headline_metrics)]
    kinds = list(dict.fromkeys(m.kind for m in metrics))
    breakdowns = [b for b in benchmark.breakdowns if result.get("breakdowns", {}).get(b.key)]
    if not breakdowns:
        breakdowns_rows = [("overall", [{**result, "value": "all"}], False)]
    else:
        breakdowns_rows = [(b.label, result["breakdowns"][b.key], b.kind == "ordered") for b in breakdowns]
    width = max(7.0, 0.9 * max(len(rows) for _, rows, _ in breakdowns_rows) + 3)
    fig, axes = plt.subplots(
        len(breakdowns_rows), len(kinds), figsize=(width * len(kinds), 3.8 * len(breakdowns_rows)), squeeze=False
    )
    for i, (label, rows, ordered) in enumerate(breakdowns_rows):
        for j, kind in enumerate(kinds):
            _panel(axes[i][j], rows, [m for m in metrics if m.kind == kind], ordered)
            axes[i][j].set_xlabel(label)
    judges = ", ".join(f"{role}={spec}" for role, spec in result.get("judges", {}).items()) or "none"
    fig.suptitle(
        f"{result['task']} | model: {model or result.get('model') or 'unknown'} | judge: {judges}", fontsize=10
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
