"""``hallubench report RESULTS...``: several models' results side by side, one table per benchmark as
in the papers (markdown and CSV), and per breakdown one comparison plot (a line or bar group per model).

Inputs are ``hallubench score`` RESULT.json files (overall numbers and breakdowns) or lm-eval
``results_*.json`` files (overall numbers of every hallubench task in them; lm-eval keeps no breakdowns)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from hallu_metrics.contract import Benchmark
from hallu_metrics.registry import TASKS
from hallubench.errors import HallubenchError
from hallubench.report import fmt, unit

Row = dict[str, Any]  # one model's result on one task, in the shared result shape


def _model_of_lm_eval(data: dict, path: Path) -> str:
    args = str(data.get("config", {}).get("model_args", ""))
    for part in args.split(","):
        if part.startswith("pretrained="):
            return Path(part.split("=", 1)[1]).name or part
    return data.get("model_name") or path.parent.name


def _from_lm_eval(data: dict, path: Path) -> list[Row]:
    rows = []
    model = _model_of_lm_eval(data, path)
    for task, values in data.get("results", {}).items():
        if task not in TASKS:
            continue
        row: Row = {
            "task": task,
            "model": model,
            "n": data.get("n-samples", {}).get(task, {}).get("effective"),
            "stderr": {},
            "breakdowns": {},
            "source": str(path),
        }
        for key, value in values.items():
            name, _, _filter = key.partition(",")
            if name.endswith("_stderr"):
                row["stderr"][name[: -len("_stderr")]] = value if isinstance(value, (int, float)) else None
            elif isinstance(value, (int, float)):
                row[name] = value
        rows.append(row)
    return rows


def load_results(paths: list[Path]) -> list[Row]:
    """One row per (model, task) from every file; one-line errors for unreadable files."""
    rows: list[Row] = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HallubenchError(f"{path}: not a readable JSON results file ({type(exc).__name__})") from exc
        if isinstance(data, dict) and "results" in data and "configs" in data:
            found = _from_lm_eval(data, path)
        elif isinstance(data, dict) and data.get("task") in TASKS:
            found = [{**data, "model": data.get("model") or path.stem, "source": str(path)}]
        else:
            raise HallubenchError(f"{path}: neither a hallubench RESULT.json nor an lm-eval results file")
        if not found:
            raise HallubenchError(f"{path}: holds no hallubench task results")
        rows.extend(found)
    return rows


def _number(value: Any) -> float | str:
    """A CSV cell: the number, or empty when undefined (None, NaN, lm-eval's "N/A")."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return ""
    return value


def tables(rows: list[Row]) -> tuple[str, str]:
    """(markdown, csv): per task, one row per model with the headline metrics (± stderr) in their units."""
    by_task: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_task[row["task"]].append(row)
    parts, buffer = [], io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["task", "model", "n", "metric", "value", "stderr", "unit"])
    for task in sorted(by_task):
        benchmark = TASKS[task]
        metrics = [benchmark.metric(m) for m in benchmark.headline_metrics]
        lines = [
            f"### {task} ({benchmark.paper})",
            "",
            "| model | n | " + " | ".join(f"{m.name} ({unit(m)})" for m in metrics) + " |",
            "|---|---:|" + "---:|" * len(metrics),
        ]
        for row in sorted(by_task[task], key=lambda r: str(r["model"])):
            cells = [fmt(m, row.get(m.name), row.get("stderr", {}).get(m.name)) for m in metrics]
            lines.append(f"| {row['model']} | {row.get('n', '')} | " + " | ".join(cells) + " |")
            for m in metrics:
                writer.writerow(
                    [
                        task,
                        row["model"],
                        row.get("n", ""),
                        m.name,
                        _number(row.get(m.name)),
                        _number(row.get("stderr", {}).get(m.name)),
                        unit(m),
                    ]
                )
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n", buffer.getvalue()


def _comparison_plot(task: str, benchmark: Benchmark, rows: list[Row], key: str, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    breakdown = next(b for b in benchmark.breakdowns if b.key == key)
    metrics = [benchmark.metric(m) for m in benchmark.headline_metrics if benchmark.metric(m).kind == "rate"][:3]
    metrics = metrics or [benchmark.metric(benchmark.headline_metrics[0])]
    values = sorted(
        {str(r["value"]) for row in rows for r in row["breakdowns"][key]},
        key=lambda v: (
            not v.replace(".", "", 1).lstrip("-").isdigit(),
            float(v) if v.replace(".", "", 1).lstrip("-").isdigit() else 0.0,
            v,
        ),
    )
    fig, axes = plt.subplots(
        len(metrics), 1, figsize=(max(7.0, 0.8 * len(values) + 3), 3.4 * len(metrics)), squeeze=False
    )
    width = 0.8 / len(rows)
    for ax, metric in zip(axes[:, 0], metrics):
        factor = 100.0 if metric.kind == "rate" else 1.0
        for k, row in enumerate(rows):
            by_value = {str(r["value"]): r for r in row["breakdowns"][key]}
            ys = [
                factor * by_value[v][metric.name]
                if v in by_value and by_value[v].get(metric.name) is not None
                else float("nan")
                for v in values
            ]
            errs = [
                factor * (by_value[v].get("stderr", {}).get(metric.name) or 0.0) if v in by_value else 0.0
                for v in values
            ]
            xs = [
                i + (k - (len(rows) - 1) / 2) * (width if breakdown.kind == "category" else 0.06)
                for i in range(len(values))
            ]
            if breakdown.kind == "ordered":
                ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=3, label=str(row["model"]))
            else:
                ax.bar(xs, ys, width, yerr=errs, capsize=3, label=str(row["model"]))
        ax.set_xticks(
            range(len(values)),
            values,
            rotation=0 if breakdown.kind == "ordered" else 30,
            ha="center" if breakdown.kind == "ordered" else "right",
        )
        ax.set_xlabel(breakdown.label)
        ax.set_ylabel(f"{metric.name} ({unit(metric)})")
        ax.legend(fontsize=8)
    fig.suptitle(f"{task}: models compared by {breakdown.label}", fontsize=10)
    fig.tight_layout()
    path = out / f"{task}_{key}.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plots(rows: list[Row], out: Path) -> list[Path]:
    """One comparison PNG per (task, breakdown) present in at least one RESULT.json."""
    out.mkdir(parents=True, exist_ok=True)
    by_task: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_task[row["task"]].append(row)
    written = []
    for task, task_rows in sorted(by_task.items()):
        benchmark = TASKS[task]
        for breakdown in benchmark.breakdowns:
            with_rows = [r for r in task_rows if r.get("breakdowns", {}).get(breakdown.key)]
            if with_rows:
                written.append(_comparison_plot(task, benchmark, with_rows, breakdown.key, out))
    return written
