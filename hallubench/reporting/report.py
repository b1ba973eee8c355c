"""Human-facing views of a result in the shared shape: markdown tables and plots, formatted by what
each metric is (rates in percent with a Wilson interval, scores on their own scale, counts as counts), and the
short names (models, judges, test sets) that tables and plot titles show."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.contract import MISSING_GROUPS, UNREADABLE_METRIC, Benchmark, Breakdown, Metric
from hallu_metrics.stats import wilson_interval
from hallubench.core.outputs import MARKER, replaced_atomically

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

INTERVAL_NOTE = (
    "Rates in %. Shares of items with the 95% Wilson score interval [low, high] over the items counted; means of "
    "per-item fractions (e.g. LongWiki precision, WildFActScore) and other metrics ± standard error, on their own "
    "scale. A share shown with ± standard error has no known item count (lm-eval records none for conditional "
    "metrics; hallubench score on its samples gives the interval)."
)
_JUDGE_MODEL_KEYS = ("gguf_file", "model", "pretrained")  # the first one present names a judge's model
_JUDGE_VERDICT_OPTIONS = ("kind", "structured", "template")  # spec keys that change verdicts, kept in short forms


def unit(metric: Metric) -> str:
    """How a metric's values are shown: ``%`` for rates, the scale for scores, ``count`` for counts."""
    if metric.kind == "rate":
        return "%"
    if metric.kind == "score":
        low, high = metric.scale
        return f"{low:g}-{high:g}"
    return "count"


def csv_unit(metric: Metric) -> str:
    """How a metric's values are written to CSV: rates as fractions, scores on their scale, counts as counts."""
    return "fraction" if metric.kind == "rate" else unit(metric)


def is_missing(value: Any) -> bool:
    """None, NaN (lm-eval's undefined mean) or anything that is not a number (lm-eval's "N/A" stderr)."""
    return not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value)


def interval(metric: Metric, value: Any, counted: Any) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a proportion (a rate of 0/1 items) over its ``counted`` items; None for other
    metrics (scores, counts, means of per-item fractions such as LongWiki precision), undefined values and unknown
    counts."""
    if metric.kind != "rate" or not metric.proportion or is_missing(value) or is_missing(counted) or counted < 1:
        return None
    return wilson_interval(float(value), int(counted))


def fmt(metric: Metric, value: Any, stderr: Any = None, counted: Any = None) -> str:
    """A value in the metric's unit: a rate with its Wilson interval when ``counted`` is known, else with
    ± ``stderr`` when given; ``n/a`` when undefined (None or NaN)."""
    if is_missing(value):
        return "n/a"
    factor = 100.0 if metric.kind == "rate" else 1.0
    digits = 1 if metric.kind == "rate" else 2
    text = f"{factor * value:.{digits}f}"
    bounds = interval(metric, value, counted)
    if bounds is not None:
        return f"{text} [{factor * bounds[0]:.{digits}f}, {factor * bounds[1]:.{digits}f}]"
    return f"{text} ± {factor * stderr:.{digits}f}" if not is_missing(stderr) else text


def cell(metric: Metric, row: Mapping[str, Any]) -> str:
    """A metric's table cell in a row of the shared shape (value, ``stderr``, ``counted``)."""
    return fmt(metric, row.get(metric.name), (row.get("stderr") or {}).get(metric.name),
               (row.get("counted") or {}).get(metric.name))


def short_name(value: str) -> str:
    """A model name as shown: a file-system path becomes its last part (a GGUF file its stem); hub ids
    (``org/name``) and API model names stay whole."""
    text = str(value).rstrip("/\\")
    if not (text.startswith(("/", "~", ".")) or "\\" in text or text.count("/") > 1 or text.lower().endswith(".gguf")):
        return text
    name = re.split(r"[/\\]", text)[-1]
    return name[: -len(".gguf")] if name.lower().endswith(".gguf") else name


def short_judge(spec: str) -> str:
    """A public judge spec's short form, ``kind:model`` (``openai:gpt-4o-mini``): server, concurrency and
    timeouts dropped, the options that change verdicts kept (``openai:m (structured=true)``)."""
    kind, _, rest = str(spec).partition(":")
    args = dict(pair.partition("=")[::2] for pair in rest.split(",") if "=" in pair)
    model = next((short_name(args[key]) for key in _JUDGE_MODEL_KEYS if args.get(key)), "")
    options = [f"{key}={args[key].split('@')[0]}" for key in _JUDGE_VERDICT_OPTIONS if key in args]
    return kind + (f":{model}" if model else "") + (f" ({' '.join(options)})" if options else "")


def judge_label(judges: Mapping[str, str]) -> str:
    """The short form of a result's judges (role -> spec): the main judge, then each role judged otherwise."""
    if not judges:
        return "none"
    main = judges.get("judge") or next(iter(judges.values()))
    others = [f"{role.removeprefix('judge_')}={short_judge(spec)}" for role, spec in judges.items() if spec != main]
    return "; ".join([short_judge(main), *others])


def _row(label: str, row: Mapping[str, Any], metrics: Sequence[Metric]) -> str:
    return f"| {label} | {row['n']} | " + " | ".join(cell(m, row) for m in metrics) + " |"


def judge_line(result: Mapping[str, Any], benchmark: Benchmark) -> str:
    """Which judges produced the numbers, saying what the benchmark's ``rule`` judge is when it is used."""
    judges = result.get("judges") or {}
    if not judges:
        return "judge: none (the model's replies are read directly)"
    text = ", ".join(f"{role}={spec}" for role, spec in judges.items())
    embedded = any(spec == "rule" for spec in judges.values())
    return f"judge: {text}" + (f" ({benchmark.rule_label})" if embedded else "")


def table(result: Mapping[str, Any], benchmark: Benchmark, metric_names: Sequence[str] | None = None) -> str:
    """Markdown: the overall row (and the spread line of its error bars), then one table per breakdown (in the
    breakdown's order); headers name each metric's unit, a closing line the interval."""
    metrics = [benchmark.metric(n) for n in (metric_names or benchmark.headline_metrics)]
    header = "| {} | n | " + " | ".join(f"{m.name} ({unit(m)})" for m in metrics) + " |"
    rule = "|---|---:|" + "---:|" * len(metrics)
    spread = spread_line(result.get("error_bars") or {}, metrics)
    parts = ["\n".join([header.format(result["task"]), rule, _row("**all**", result, metrics),
                        *(["", spread] if spread else [])])]
    for breakdown, rows in _breakdowns(result, benchmark):
        lines = [header.format(breakdown.label), rule, *(_row(str(r["value"]), r, metrics) for r in rows)]
        parts.append("\n".join(lines))
    return "\n\n".join([*parts, INTERVAL_NOTE])


ERROR_BAR_SOURCES = {"set": "sets", "generation": "runs", "judge": "judges"}  # error_bars key -> what its n counts


def spread_line(error_bars: Mapping[str, Any], metrics: Sequence[Metric], label: str = "") -> str:
    """``spread: hallucination_rate generation ±2.0 (3 runs) · judge ±1.2 (3 judges); ...``: per headline metric,
    each source's standard deviation in the metric's unit (rates in points); empty when there is none."""
    parts = []
    for metric in metrics:
        factor = 100.0 if metric.kind == "rate" else 1.0
        bars = [f"{source} ±{factor * bar['std'][metric.name]:.2f} ({bar['n']} {ERROR_BAR_SOURCES[source]})"
                for source, bar in error_bars.items()
                if source in ERROR_BAR_SOURCES and not is_missing((bar.get("std") or {}).get(metric.name))]
        parts += [f"{metric.name} {' · '.join(bars)}"] if bars else []
    return f"spread{f' ({label})' if label else ''}: {'; '.join(parts)}" if parts else ""


# ---------------------------------------------------------------- breakdown order

def _breakdowns(result: Mapping[str, Any], benchmark: Benchmark) -> list[tuple[Breakdown, list[dict]]]:
    """The result's breakdowns the benchmark declares, each one's rows in its order."""
    present = result.get("breakdowns") or {}
    return [(b, _sorted_rows(b, present[b.key])) for b in benchmark.breakdowns if present.get(b.key)]


def _sorted_rows(breakdown: Breakdown, rows: Sequence[dict]) -> list[dict]:
    """A breakdown's rows in its order."""
    key = breakdown.sort_key
    return sorted(rows, key=lambda row: key(str(row["value"])))


# ---------------------------------------------------------------- plots

def plotted_metrics(benchmark: Benchmark) -> list[Metric]:
    """The metrics a plot draws: the headline metrics but the unreadable share (tables print it)."""
    return [benchmark.metric(n) for n in benchmark.headline_metrics if n != UNREADABLE_METRIC]


def axis_groups(metrics: Sequence[Metric]) -> list[list[Metric]]:
    """Metrics that may share a value axis: same kind and same scale (a 0-4 residual never beside a 1-5 score)."""
    groups: dict[tuple, list[Metric]] = {}
    for metric in metrics:
        groups.setdefault((metric.kind, metric.scale), []).append(metric)
    return list(groups.values())


def value_range(metric: Metric) -> tuple[float, float]:
    """The values a metric takes in display units: rates [0, 100] %, scores their scale, counts from 0."""
    if metric.kind == "rate":
        return 0.0, 100.0
    if metric.kind == "score":
        return float(metric.scale[0]), float(metric.scale[1])
    return 0.0, math.inf


def set_value_axis(ax: Axes, metrics: Sequence[Metric]) -> None:
    """Rates on [0, 100] %, scores on their scale, counts from 0 (metrics of one kind and scale); the label names
    the metric, or the unit when several share the axis."""
    metric = metrics[0]
    low, high = value_range(metric)
    ax.set_ylim(low, high if math.isfinite(high) else max(1.0, ax.get_ylim()[1]))
    ax.set_ylabel(f"{metric.name} ({unit(metric)})" if len(metrics) == 1 else unit(metric))


def clipped(metric: Metric, value: float, below: float, above: float) -> tuple[float, float]:
    """Error bar lengths (below, above) ``value`` cut at the metric's range: a rate's ± stderr never past 0 or 100 %."""
    low, high = value_range(metric)
    return max(0.0, min(below, value - low)), max(0.0, min(above, high - value))


def _point(metric: Metric, row: Mapping[str, Any] | None) -> tuple[float, float, float]:
    """(value, error below, error above) in display units: the Wilson interval of a rate, else ± stderr, within the
    metric's range."""
    value = None if row is None else row.get(metric.name)
    if is_missing(value):
        return math.nan, 0.0, 0.0
    factor = 100.0 if metric.kind == "rate" else 1.0
    bounds = interval(metric, value, (row.get("counted") or {}).get(metric.name))
    if bounds is not None:
        return factor * value, factor * (value - bounds[0]), factor * (bounds[1] - value)
    stderr = (row.get("stderr") or {}).get(metric.name)
    error = 0.0 if is_missing(stderr) else factor * stderr
    return factor * value, *clipped(metric, factor * value, error, error)


def mark_unseen(ax: Axes, xs: Sequence[float], ys: Sequence[float], metric: Metric, color: Any,
                width: float | None = None) -> None:
    """Values a plot would not show are labelled: a missing one (NaN) ``n/a``; with ``width`` (bars), one at the
    axis floor (a zero rate: a bar of no height) a tick at the floor and its value."""
    floor = value_range(metric)[0]
    style = {"ha": "center", "va": "bottom", "fontsize": 7, "color": color,
             "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 0.5}}  # readable over an error bar
    for x, y in zip(xs, ys):
        if math.isnan(y):
            ax.text(x, floor, "n/a", rotation=90, gid="missing-value", **style)
        elif width is not None and y <= floor:
            ax.plot([x - width / 2, x + width / 2], [floor, floor], color=color, linewidth=3, solid_capstyle="butt",
                    clip_on=False, gid="floor-value")
            ax.text(x, floor, f"{y:g}", gid="floor-value", **style)


def draw_bars(ax: Axes, xs: Sequence[float], ys: Sequence[float], metric: Metric, label: str, width: float,
              errors: Sequence[Sequence[float]] | None = None) -> None:
    """One series of bars (NaN: missing), zeros and missing values labelled (``mark_unseen``)."""
    bars = ax.bar(xs, ys, width, yerr=errors, capsize=3, label=label)
    mark_unseen(ax, xs, ys, metric, bars.patches[0].get_facecolor(), width)


def draw_series(ax: Axes, xs: Sequence[float], rows: Sequence[Mapping[str, Any] | None], metric: Metric,
                label: str, ordered: bool, width: float) -> None:
    """One metric of one series over a breakdown's values (``rows[i]`` is the row at ``xs[i]``, None when absent):
    grouped bars for categories; for ordered values a line with error bars, the missing-key group (``none``) a
    separate marker that the line does not join. Zero bars and missing values are labelled (``mark_unseen``)."""
    points = [_point(metric, row) for row in rows]
    ys = [p[0] for p in points]
    errors = [[p[1] for p in points], [p[2] for p in points]]
    if not ordered:
        draw_bars(ax, xs, ys, metric, label, width, errors)
        return
    joined = [i for i, row in enumerate(rows) if row is None or str(row["value"]) not in MISSING_GROUPS]
    (line,) = ax.plot([xs[i] for i in joined], [ys[i] for i in joined], marker="o", label=label, clip_on=False)
    ax.errorbar(xs, ys, yerr=errors, fmt="none", ecolor=line.get_color(), capsize=3, clip_on=False)
    apart = [i for i in range(len(rows)) if i not in joined]
    if apart:
        ax.plot([xs[i] for i in apart], [ys[i] for i in apart], marker="s", linestyle="none",
                color=line.get_color(), gid="missing-group", clip_on=False)
    mark_unseen(ax, xs, ys, metric, line.get_color())


def group_tick(value: Any, counts: Sequence[Any]) -> str:
    """A breakdown group's tick label: its value over its item count per series (``n=3``; ``n=3/5/–`` when the
    series differ, ``–`` where one lacks the group)."""
    shown = ["–" if n is None else str(n) for n in counts]
    return f"{value}\n(n={shown[0] if len(set(shown)) == 1 else '/'.join(shown)})"


def say_empty(ax: Axes, why: str) -> None:
    """An empty panel says why it is empty, in its middle."""
    ax.text(0.5, 0.5, why, transform=ax.transAxes, ha="center", va="center", fontsize=9, color="dimgray",
            gid="empty-panel")


def fit_title(fig: Figure, text: str, fontsize: int = 10) -> None:
    """The figure's title, wrapped to its width (at most 0.6 em per character)."""
    chars = max(20, int(fig.get_figwidth() * 72 / (0.6 * fontsize)))
    fig.suptitle(textwrap.fill(text, chars), fontsize=fontsize)


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend, imported on first use (reports import fast)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Figure, path: Path, command: str) -> None:
    """Write ``fig`` to the PNG ``path`` atomically (its folder made), marked as written by ``hallubench COMMAND``,
    and free it."""
    try:
        with replaced_atomically(path) as tmp:
            fig.savefig(tmp, dpi=120, metadata={"Software": f"{MARKER} {command}"})
    finally:
        pyplot().close(fig)


NO_READABLE_VALUE = ("no value: no item has a readable verdict for these metrics\n(see the unreadable share in the "
                     "table)")


def _panel(ax: Axes, rows: Sequence[Mapping[str, Any]], metrics: Sequence[Metric], ordered: bool) -> None:
    """One breakdown, metrics of one kind and scale: lines (ordered keys) or grouped bars (categories), with
    markers dodged sideways so that equal values stay visible; without any value, the reason instead."""
    width = 0.8 / len(metrics)
    empty = all(is_missing(row.get(m.name)) for row in rows for m in metrics)
    for k, metric in enumerate(() if empty else metrics):
        offset = (k - (len(metrics) - 1) / 2) * (width if not ordered else 0.08)
        draw_series(ax, [x + offset for x in range(len(rows))], rows, metric, metric.name, ordered, width)
    ax.set_xticks(
        range(len(rows)),
        [group_tick(r["value"], [r["n"]]) for r in rows],
        rotation=0 if ordered else 30,
        ha="center" if ordered else "right",
    )
    set_value_axis(ax, metrics)
    if empty:
        say_empty(ax, NO_READABLE_VALUE)
    else:
        ax.legend(fontsize=8, loc="best")


def figure(result: Mapping[str, Any], benchmark: Benchmark, model: str | None = None) -> Figure:
    """One panel per breakdown (rows) and group of plotted metrics sharing an axis (columns); the title names task,
    model and the judge's short form."""
    groups = axis_groups(plotted_metrics(benchmark))
    panels = [(b.label, rows, b.kind == "ordered") for b, rows in _breakdowns(result, benchmark)]
    panels = panels or [("overall", [{**result, "value": "all"}], False)]
    width = max(7.0, 0.9 * max(len(rows) for _, rows, _ in panels) + 3)
    fig, axes = pyplot().subplots(len(panels), len(groups), figsize=(width * len(groups), 3.8 * len(panels)),
                                  squeeze=False, layout="constrained")
    for i, (label, rows, ordered) in enumerate(panels):
        for j, group in enumerate(groups):
            _panel(axes[i][j], rows, group, ordered)
            axes[i][j].set_xlabel(label)
    model_name = model or result.get("model") or "unknown"
    fit_title(fig, f"{result['task']} | model: {model_name} | judge: {judge_label(result.get('judges') or {})}")
    return fig


def plot(result: Mapping[str, Any], benchmark: Benchmark, path: Path, model: str | None = None) -> None:
    """Draw ``figure`` to the PNG ``path``."""
    save_figure(figure(result, benchmark, model), path, "score")
