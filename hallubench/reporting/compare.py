"""``hallubench report RESULTS...``: several models' results side by side, one table per benchmark as
in the papers (markdown and CSV), and per breakdown one comparison plot (a line or bar group per model).

Inputs are ``hallubench score`` RESULT.json files (overall numbers and breakdowns) or lm-eval
``results_*.json`` files (overall numbers of every hallubench task in them; lm-eval keeps no breakdowns). Every
row names its model, judge, test set, shots and date; a table whose rows differ in judge, set or shots says so
under it. Predict-only lm-eval results (nothing judged) are left out with one note line each."""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from hallu_metrics.contract import Benchmark, Breakdown, Metric
from hallu_metrics.registry import TASKS
from hallu_metrics.stats import mean_of_shares_stderr
from hallubench.core.errors import HallubenchError
from hallubench.reporting.report import (
    ERROR_BAR_SOURCES,
    INTERVAL_NOTE,
    NO_READABLE_VALUE,
    cell,
    csv_unit,
    draw_series,
    fit_title,
    group_tick,
    interval,
    is_missing,
    judge_label,
    plotted_metrics,
    pyplot,
    save_figure,
    say_empty,
    set_value_axis,
    short_name,
    spread_line,
    unit,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Row = dict[str, Any]  # one model's result on one task, in the shared result shape, with the columns below
COLUMNS = ("model", "judge", "set", "shots", "date")  # what each row names besides its numbers
COMPARABLE = ("judge", "set", "shots")  # rows differing in these do not measure the same thing
CSV_HEADER = ("task", *COLUMNS, "judge_spec", "n", "metric", "value", "unit", "counted", "stderr", "wilson95_low",
              "wilson95_high", *(f"{source}_std" for source in ERROR_BAR_SOURCES))
SKIPPED_NOTE = "skipped (predict-only, not judged): {model} on {task} — judge with hallubench score"
FROM_DATASET = " (dataset, empty responses)"  # ends the `samples` of a result scored with --dataset: no items


def model_name(model_args: str | Mapping[str, Any]) -> str | None:
    """The model lm-eval's ``model_args`` name: a GGUF file's stem, else ``model=`` (API models such as
    local-chat-completions), else ``pretrained=``; a path shortened to its last part."""
    if isinstance(model_args, str):
        model_args = dict(part.partition("=")[::2] for part in model_args.split(","))
    return next((short_name(str(model_args[key])) for key in ("gguf_file", "model", "pretrained")
                 if model_args.get(key)), None)


def set_label(dataset: Mapping[str, Any]) -> str:
    """A test set's short name: the first 12 hex digits of its content fingerprint, else its revision."""
    fingerprint = str(dataset.get("fingerprint") or "")
    if fingerprint:
        return fingerprint.removeprefix("sha256:")[:12]
    revision = dataset.get("revision")
    return str(revision) if revision and revision != "unpinned" else "unknown"


def _date(recorded: Any, path: Path) -> str:
    """When a result was made (UTC): its recorded time (lm-eval's unix ``date``, score's ISO 8601 ``date``), else
    the file's modification time."""
    try:
        when = (datetime.fromisoformat(recorded.replace("Z", "+00:00")) if isinstance(recorded, str)
                else datetime.fromtimestamp(recorded, timezone.utc))
    except (TypeError, ValueError, OverflowError, OSError):  # none recorded, or not a time
        when = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M")


def _lm_eval_metrics(values: Mapping[str, Any], benchmark: Benchmark, n: Any, counted: Any) -> Row:
    """Metrics and stderr of one task's lm-eval results; ``counted`` is what hallubench's judging recorded in the
    task's metadata, else ``n`` for the metrics every sample counts toward, unknown for conditional ones (lm-eval keeps
    no count of them)."""
    row: Row = {"stderr": {}, "breakdowns": {}}
    for key, value in values.items():
        name, _, _filter = key.partition(",")
        if name.endswith("_stderr"):
            row["stderr"][name[: -len("_stderr")]] = value if isinstance(value, (int, float)) else None
        elif isinstance(value, (int, float)):
            row[name] = value
    row["counted"] = {m.name: n for m in benchmark.metrics if not m.conditional} if isinstance(n, int) else {}
    if isinstance(counted, dict):
        row["counted"].update({k: v for k, v in counted.items() if isinstance(v, int) and not isinstance(v, bool)})
    return row


def _leaves(group: str, subtasks: Mapping[str, Sequence[str]]) -> list[str]:
    """The tasks under an lm-eval group, its subgroups expanded."""
    return [leaf for member in subtasks.get(group, ()) for leaf in (_leaves(member, subtasks) if member in subtasks
                                                                    else [member])]


@functools.cache
def size_weighted(group: str) -> frozenset[str]:
    """The metrics a hallubench group's YAML aggregates weighted by size: a share over all its members' items, which
    gets a Wilson interval over lm-eval's sample count. Its other metrics are plain means of the members' values (the
    paper's macro average), shown with lm-eval's pooled stderr."""
    import yaml

    from hallubench_tasks import TASKS_DIR

    for path in TASKS_DIR.rglob("_*.yaml"):
        text = path.read_text(encoding="utf-8")
        config = yaml.safe_load(text) if "\ngroup:" in f"\n{text}" else None  # templates hold lm-eval's !function tags
        if isinstance(config, dict) and config.get("group") == group:
            return frozenset(m["metric"] for m in config.get("aggregate_metric_list") or () if m.get("weight_by_size"))
    return frozenset()


def _group_rows(data: dict, task_rows: Sequence[Row]) -> list[Row]:
    """One row per hallubench group of an lm-eval group run (``--tasks hallulens``): lm-eval's aggregate of each
    metric the group declares (weighted by size), with its per-metric sample count, its members named; the judges
    and sets are its members'. A group of other tasks, or one whose members were left out, gives no row."""
    subtasks = data.get("group_subtasks") or {}
    by_task = {row["task"]: row for row in task_rows}
    rows = []
    for group, values in (data.get("groups") or {}).items():
        members = _leaves(group, subtasks)
        if not members or any(member not in by_task for member in members):
            continue
        metrics: Row = {"stderr": {}, "counted": {}, "breakdowns": {}}
        counts = values.get("sample_count") if isinstance(values.get("sample_count"), dict) else {}
        for key, value in values.items():
            name, _, _filter = key.partition(",")
            if not _filter or not isinstance(value, (int, float)):
                continue
            if name.endswith("_stderr"):
                metrics["stderr"][name[: -len("_stderr")]] = value
            else:
                metrics[name] = value
                metrics["counted"][name] = counts.get(key) if name in size_weighted(group) else None
        for name in [n for n, count in metrics["counted"].items() if count is None]:
            metrics["stderr"][name] = _macro_stderr(name, [by_task[m] for m in members], metrics["stderr"].get(name))
        first = by_task[members[0]]
        judges: dict[str, str] = {}
        for member in members:
            judges.update(by_task[member]["judges"])
        rows.append({
            **metrics,
            "task": group,
            "members": members,
            "model": first["model"],
            "judges": judges,
            "set": " + ".join(dict.fromkeys(by_task[m]["set"] for m in members)),
            "dataset": {},
            "shots": first["shots"],
            "date": first["date"],
            "n": values.get("sample_len") if isinstance(values.get("sample_len"), int) else None,
            "of": sum(by_task[m]["of"] or by_task[m]["n"] or 0 for m in members)
            if any(by_task[m]["of"] for m in members) else None,
            "skipped": any(by_task[m]["skipped"] for m in members),
            "source": first["source"],
        })
    return rows


def _from_lm_eval(data: dict, path: Path) -> list[Row]:
    model = model_name(data.get("config", {}).get("model_args") or "")
    model = model or short_name(str(data.get("model_name") or path.parent.name))
    rows: list[Row] = []
    for task, values in data.get("results", {}).items():
        if task not in TASKS:
            continue
        metadata = (data.get("configs", {}).get(task) or {}).get("metadata") or {}
        sizes = data.get("n-samples", {}).get(task, {})
        n = sizes.get("effective")
        rows.append({
            **_lm_eval_metrics(values, TASKS[task], n, metadata.get("hallubench_counted")),
            "task": task,
            "model": model,
            "judges": metadata.get("hallubench_judges") or {},
            "set": set_label(metadata.get("hallubench_dataset") or {}),
            "dataset": metadata.get("hallubench_dataset") or {},  # location and fingerprint (trials: stability.py)
            "settings": metadata.get("hallubench_settings") or {},
            "shots": data.get("n-shot", {}).get(task, 0),  # hallubench tasks refuse --num_fewshot
            "date": _date(data.get("date"), path),
            "n": n,
            "of": sizes.get("original") if isinstance(n, int) and n < (sizes.get("original") or 0) else None,
            "skipped": str(metadata.get("hallubench_judging", "")).startswith("skipped"),
            "source": str(path),
        })
    return rows + _group_rows(data, rows)


def _from_score(data: dict, path: Path) -> Row:
    """A ``hallubench score`` RESULT.json: zero-shot by construction (it judges lm-eval's zero-shot samples)."""
    return {**data, "model": short_name(data.get("model") or path.stem), "judges": data.get("judges") or {},
            "set": set_label(data.get("dataset") or {}), "shots": 0, "date": _date(data.get("date"), path),
            "skipped": False, "source": str(path)}


def _judge_key(row: Row) -> str:
    return json.dumps(row["judges"], sort_keys=True)


def _label_judges(rows: list[Row]) -> None:
    """Each row's ``judge``: the short form of its judges; different judges whose short forms coincide (the same
    model name on two servers) get a hash of their full specs appended, so that no two read alike."""
    setups: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        setups[judge_label(row["judges"])].add(_judge_key(row))
    for row in rows:
        label = judge_label(row["judges"])
        digest = hashlib.sha256(_judge_key(row).encode()).hexdigest()[:6]
        row["judge"] = label if len(setups[label]) == 1 else f"{label} #{digest}"


_NUMBER = {"type": ["number", "null"]}
_COUNT = {"type": ["integer", "null"], "minimum": 0}
LM_EVAL_RESULTS = {  # the parts of lm-eval's results file a report reads
    "type": "object",
    "properties": {
        "results": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {"sample_count": {"type": "object", "additionalProperties": _COUNT}},  # groups' per metric
            "additionalProperties": {"type": ["number", "string", "null"]}}},
        "groups": {"type": "object", "additionalProperties": {"type": "object"}},
        "group_subtasks": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "configs": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"metadata": {"type": ["object", "null"]}}}},
        "n-samples": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"effective": _COUNT}}},
        "n-shot": {"type": "object", "additionalProperties": {"type": "integer"}},
        "config": {"type": "object", "properties": {"model_args": {"type": ["string", "object", "null"]}}},
        "model_name": {"type": ["string", "null"]},
        "date": {"type": ["number", "string", "null"]},
    },
}


def score_result_schema(benchmark: Benchmark) -> dict[str, Any]:
    """The shape of a ``hallubench score`` RESULT.json of ``benchmark``: what a report reads, typed."""
    metrics = {metric.name: _NUMBER for metric in benchmark.metrics}
    return {
        "type": "object",
        "required": ["task", "n"],
        "properties": {
            **metrics,
            "task": {"type": "string"},
            "n": {"type": "integer", "minimum": 0},
            "model": {"type": ["string", "null"]},
            "judges": {"type": "object", "additionalProperties": {"type": "string"}},
            "dataset": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
            "date": {"type": ["string", "number", "null"]},
            "stderr": {"type": "object", "additionalProperties": _NUMBER},
            "counted": {"type": "object", "additionalProperties": _COUNT},
            "error_bars": {"type": "object", "additionalProperties": {
                "type": "object", "required": ["n", "std"],
                "properties": {"n": _COUNT, "std": {"type": "object", "additionalProperties": _NUMBER}}}},
            "breakdowns": {"type": "object", "additionalProperties": {"type": "array", "items": {
                "type": "object", "required": ["value"], "properties": {**metrics, "n": _COUNT}}}},
        },
    }


def _check_shape(data: Any, schema: dict[str, Any], path: Path, kind: str) -> None:
    """One line naming the file, the first wrong field and what was expected."""
    import jsonschema  # only `hallubench report` checks shapes; score imports this module for a constant

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        raise HallubenchError(f"{path}: not a valid {kind}: {error.json_path}: {error.message[:200]}")


def load_results(paths: list[Path]) -> list[Row]:
    """One row per (model, task) from every file (lm-eval results, score results, Inspect logs); one-line errors for
    unreadable files."""
    from hallubench.reporting.inspect_logs import is_inspect_log
    from hallubench.reporting.scoring import inspect_log_result  # inspect_ai only when a log is given

    rows: list[Row] = []
    for path in paths:
        if is_inspect_log(path):  # an Inspect log of a hallubench task: summarised from its verdicts
            rows.append(_from_score(inspect_log_result(path), path))
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HallubenchError(f"{path}: not a readable JSON results file ({type(exc).__name__})") from exc
        if isinstance(data, dict) and "results" in data and "configs" in data:
            _check_shape(data, LM_EVAL_RESULTS, path, "lm-eval results file")
            found = _from_lm_eval(data, path)
        elif isinstance(data, dict) and data.get("task") in TASKS:
            _check_shape(data, score_result_schema(TASKS[data["task"]]), path, "hallubench RESULT.json")
            found = [_from_score(data, path)]
        else:
            raise HallubenchError(f"{path}: neither a hallubench RESULT.json nor an lm-eval results file")
        if not found:
            raise HallubenchError(f"{path}: holds no hallubench task results")
        rows.extend(found)
    _label_judges(rows)
    return rows


def _number(value: Any) -> float | str:
    """A CSV cell: the number, or empty when undefined (None, NaN, lm-eval's "N/A")."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return ""
    return value


def _by_task(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """Judged rows per task, each task's rows in table order (model, judge, set, shots, date)."""
    by_task: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if not row["skipped"]:
            by_task[row["task"]].append(row)
    return {task: sorted(by_task[task], key=lambda r: [str(r[c]) for c in COLUMNS]) for task in sorted(by_task)}


def incomparable(rows: Sequence[Row]) -> str:
    """The warning line of a table whose rows differ in judge, set, shots or item count, or that holds ``--limit``
    runs (a part of their set); empty when none of that holds."""
    differing = [f"{column}: {', '.join(sorted({str(r[column]) for r in rows}))}" for column in (*COMPARABLE, "n")
                 if len({str(r[column]) for r in rows}) > 1]
    limited = [f"{r['model']} ({n_cell(r)})" for r in rows if r.get("of")]
    warnings = [f"rows differ in {'; '.join(differing)}" if differing else "",
                f"--limit runs scored a part of their set: {', '.join(limited)}" if limited else ""]
    found = "; ".join(w for w in warnings if w)
    return f"**warning:** {found}; numbers are not comparable" if found else ""


def _macro_stderr(name: str, members: Sequence[Row], pooled: Any) -> Any:
    """The stderr of a group metric that is the plain mean of its members' shares: from each member's share and item
    count (``mean_of_shares_stderr``: a share of 0 or 1 keeps its uncertainty; lm-eval pools the members' plain
    variances, which gives 100.0 ± 0.0 when every member scored 1); lm-eval's ``pooled`` one where a member's share or
    count is unknown, or the metric is not a share of items."""
    shares = []
    for row in members:
        metric = TASKS[row["task"]].metric(name) if name in TASKS[row["task"]].metric_names else None
        value, count = row.get(name), (row.get("counted") or {}).get(name)
        if (metric is None or metric.kind != "rate" or not metric.proportion or not isinstance(value, (int, float))
                or math.isnan(value) or not isinstance(count, int) or count < 1):
            return pooled
        shares.append((float(value), count))
    return mean_of_shares_stderr(shares)


def n_cell(row: Row) -> str:
    """The item count of a row; ``3 of 30`` for a ``--limit`` run."""
    return f"{row.get('n')} of {row['of']}" if row.get("of") else str(row.get("n"))


def _has_items(row: Row) -> bool:
    """Whether the row's result has items to view: not one that ``score --dataset`` judged (no responses logged)."""
    return not str(row.get("samples", "")).endswith(FROM_DATASET)


def item_links(view: str, task: str, model: str) -> str:
    """Links to the items behind a row in a ``hallubench view`` page (its filters are read from the URL hash)."""
    where = urlencode({"task": task, "model": model})
    return f"[all]({view}#{where}) · [judge failures]({view}#{where}&fail=1)"


def _table_metrics(task: str, rows: Sequence[Row]) -> tuple[str, list[Metric]]:
    """A table's title and metrics: a benchmark's headline metrics; for an lm-eval group, the metrics its rows
    aggregate, as its members declare them."""
    if task in TASKS:
        benchmark = TASKS[task]
        return f"{task} ({benchmark.paper})", [benchmark.metric(m) for m in benchmark.headline_metrics]
    members = rows[0]["members"]
    names = dict.fromkeys(name for row in rows for name in row["counted"])
    metrics = [next(TASKS[m].metric(name) for m in members if name in TASKS[m].metric_names) for name in names
               if any(name in TASKS[m].metric_names for m in members)]
    pooled = [m.name for m in metrics if m.name in size_weighted(task)]
    means = [m.name for m in metrics if m.name not in size_weighted(task)]
    how = "; ".join(part for part in (
        f"{', '.join(pooled)} over all their items" if pooled else "",
        f"{', '.join(means)} the unweighted mean of the members' values" if means else "") if part)
    return f"{task} (lm-eval group of {', '.join(members)}: {how})", metrics


def _markdown(task: str, rows: Sequence[Row], view: str | None = None) -> str:
    title, metrics = _table_metrics(task, rows)
    header = ["model", "judge", "set", "shots", "date (UTC)", "n", *(f"{m.name} ({unit(m)})" for m in metrics)]
    links = [(f" {item_links(view, task, str(r['model']))} |" if _has_items(r) else " (no items: scored from the "
              "dataset) |") if view else "" for r in rows]
    lines = [
        f"### {title}",
        "",
        "| " + " | ".join(header) + " |" + (" items |" if view else ""),
        "|---|---|---|---:|---|---:|" + "---:|" * len(metrics) + ("---|" if view else ""),
        *("| " + " | ".join([*(str(r[c]) for c in COLUMNS), n_cell(r), *(cell(m, r) for m in metrics)]) + " |"
          + link for r, link in zip(rows, links)),
    ]
    spreads = [f"- {line}" for r in rows
               if (line := spread_line(r.get("error_bars") or {}, metrics, str(r["model"])))]
    warning = incomparable(rows)
    return "\n".join([*lines, *(["", *spreads] if spreads else []), *(["", warning] if warning else [])])


def _csv_rows(task: str, row: Row, metrics: Sequence[Metric]) -> list[list[Any]]:
    """One CSV line per headline metric: rates as fractions (unit ``fraction``), with their Wilson interval and the
    standard deviations of the result's error bars (empty when it has none)."""
    lines = []
    bars = row.get("error_bars") or {}
    for metric in metrics:
        stds = [_number(((bars.get(source) or {}).get("std") or {}).get(metric.name)) for source in ERROR_BAR_SOURCES]
        counted = (row.get("counted") or {}).get(metric.name)
        bounds = interval(metric, row.get(metric.name), counted) or ("", "")
        lines.append([task, *(row[c] for c in COLUMNS), json.dumps(row["judges"], sort_keys=True), row.get("n", ""),
                      metric.name, _number(row.get(metric.name)), csv_unit(metric), _number(counted),
                      _number((row.get("stderr") or {}).get(metric.name)), *bounds, *stds])
    return lines


def tables(rows: list[Row], view: str | None = None) -> tuple[str, str]:
    """(markdown, csv): per task, one row per result with the headline metrics. Markdown shows rates in percent
    (an interval note first), the CSV fractions; predict-only results are a note line each, in neither table.
    ``view``: a ``hallubench view`` page each markdown row links to (its items, its judge failures)."""
    by_task = _by_task(rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_HEADER)
    for task, task_rows in by_task.items():
        metrics = _table_metrics(task, task_rows)[1]
        for row in task_rows:
            writer.writerows(_csv_rows(task, row, metrics))
    skipped = [SKIPPED_NOTE.format(model=r["model"], task=r["task"]) for r in rows if r["skipped"]]
    parts = [INTERVAL_NOTE, *(_markdown(task, task_rows, view) for task, task_rows in by_task.items())]
    parts += ["\n".join(skipped)] if skipped else []
    return "\n\n".join(parts) + "\n", buffer.getvalue()


def _series_label(row: Row, rows: Sequence[Row]) -> str:
    """A plot legend entry: the model, with the columns in which the plotted rows differ."""
    differing = [str(row[c]) for c in COMPARABLE if len({str(r[c]) for r in rows}) > 1]
    return f"{row['model']} ({', '.join(differing)})" if differing else str(row["model"])


def comparison_figure(task: str, benchmark: Benchmark, rows: Sequence[Row], breakdown: Breakdown) -> Figure:
    """One panel per plotted metric (its own axis and scale), a line (ordered breakdown, in its order) or a bar
    group (category) per result, each group's n per result under it; the title names the judge when all rows share
    one."""
    metrics = plotted_metrics(benchmark)
    values = sorted({str(r["value"]) for row in rows for r in row["breakdowns"][breakdown.key]},
                    key=breakdown.sort_key)
    columns = 1 if len(metrics) < 3 else 2
    fig, axes = pyplot().subplots(
        math.ceil(len(metrics) / columns), columns, figsize=(max(7.0, 0.8 * len(values) + 3) * columns,
                                                             3.4 * math.ceil(len(metrics) / columns)),
        squeeze=False, layout="constrained",
    )
    ordered = breakdown.kind == "ordered"
    width = 0.8 / len(rows)
    by_value = [{str(r["value"]): r for r in row["breakdowns"][breakdown.key]} for row in rows]
    ticks = [group_tick(v, [(groups.get(v) or {}).get("n") for groups in by_value]) for v in values]
    for ax, metric in zip(axes.flat, metrics):
        empty = all(is_missing(g.get(metric.name)) for groups in by_value for g in groups.values())
        for k, (row, groups) in enumerate(zip(rows, by_value)):
            offset = (k - (len(rows) - 1) / 2) * (width if not ordered else 0.06)
            if not empty:
                draw_series(ax, [i + offset for i in range(len(values))], [groups.get(v) for v in values], metric,
                            _series_label(row, rows), ordered, width)
        ax.set_xticks(range(len(values)), ticks, rotation=0 if ordered else 30, ha="center" if ordered else "right")
        ax.set_xlabel(breakdown.label)
        set_value_axis(ax, [metric])
        if empty:
            say_empty(ax, NO_READABLE_VALUE)
        else:
            ax.legend(fontsize=8)
    for ax in axes.flat[len(metrics):]:
        ax.set_visible(False)
    judges = {str(r["judge"]) for r in rows}
    judge = f" | judge: {judges.pop()}" if len(judges) == 1 else ""
    fit_title(fig, f"{task}: models compared by {breakdown.label}{judge}")
    return fig


@dataclass(frozen=True)
class PlannedPlot:
    """One comparison PNG: a task's breakdown over the results that have it."""

    path: Path
    task: str
    breakdown: Breakdown
    rows: list[Row]


def planned_plots(rows: list[Row], out: Path) -> list[PlannedPlot]:
    """One comparison PNG per (task, breakdown) present in at least one RESULT.json (named before any is drawn, so
    that every output path can be checked first)."""
    return [
        PlannedPlot(out / f"{task}_{breakdown.key}.png", task, breakdown, with_rows)
        for task, task_rows in _by_task(rows).items()
        for breakdown in (TASKS[task].breakdowns if task in TASKS else ())  # an lm-eval group has no breakdowns
        if (with_rows := [r for r in task_rows if r.get("breakdowns", {}).get(breakdown.key)])
    ]


def draw(plot: PlannedPlot) -> None:
    save_figure(comparison_figure(plot.task, TASKS[plot.task], plot.rows, plot.breakdown), plot.path, "report")
