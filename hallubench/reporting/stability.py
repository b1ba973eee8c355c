"""Stability over regenerated test sets (HalluLens, appendix 9.1-9.2: three regenerated sets per model, within-model
standard deviation 0.64 / 1.01 / 0.56 points for PreciseWikiQA's false refusal, hallucination and correct rates).

``hallubench generate BENCH ... --trials N`` writes N sets and a manifest, ``PARENT/trials.json``;
``hallubench eval --trials PARENT ...`` runs lm-eval once per set; ``hallubench report`` recognises results whose sets
are the trials of one manifest (by the content fingerprint each result records) and adds, per benchmark:

- per model and headline metric, the mean and sample standard deviation (ddof=1) over the trials, and the
  within-model standard deviation averaged over models (the paper's figure);
- ranking stability: Kendall's tau-b between the models' values on every pair of trials (mean and minimum);
- for every pair of models, whether their difference exceeds the spread: a paired t-test over trials, and McNemar's
  exact test over the items both answered on the same sets (per-item outcomes from lm-eval's samples logs).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.contract import Metric
from hallu_metrics.registry import TASKS
from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import read_json_records
from hallubench.core.outputs import MARKER
from hallubench.reporting.report import (
    clipped,
    csv_unit,
    fit_title,
    plotted_metrics,
    pyplot,
    save_figure,
    set_value_axis,
    unit,
)
from hallubench_generators.cli import TRIALS_MANIFEST

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Row = dict[str, Any]
CSV_HEADER = ("task", "trials", "metric", "unit", "model", "versus", "trial_seed", "statistic", "value")
PAPER_NOTE = ("HalluLens (appendix 9.1) reports an average within-model standard deviation of 0.64, 1.01 and 0.56 "
              "points (false refusal, hallucination when not refused, correct answer rate) over three regenerated "
              "PreciseWikiQA sets, and 1.85 / 0.95 / 1.20 / 0.84 for LongWiki (9.2).")


# ---------------------------------------------------------------- manifests and evaluation

@dataclass(frozen=True)
class Manifest:
    """A ``trials.json``: the benchmark, and each trial's seed and folder by the set's content fingerprint."""

    path: Path
    benchmark: str
    seeds: tuple[int, ...]
    sets: dict[str, tuple[int, Path]]  # fingerprint -> (seed, folder)

    @property
    def label(self) -> str:
        return self.path.parent.name or str(self.path.parent)


def read_manifest(path: Path) -> Manifest:
    """The manifest at ``path`` (a trials folder or its ``trials.json``); one line naming the file when it is not one
    ``hallubench generate --trials`` wrote."""
    path = path / TRIALS_MANIFEST if path.is_dir() else path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("written_by") != f"{MARKER} generate":
            raise ValueError("no written_by mark")
        sets = {str(s["fingerprint"]): (int(s["seed"]), path.parent / str(s["folder"])) for s in data["sets"]}
        return Manifest(path, str(data["benchmark"]), tuple(int(s) for s in data["seeds"]), sets)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise HallubenchError(f"{path}: not a trials manifest written by hallubench generate --trials "
                              f"({type(exc).__name__}: {str(exc)[:80]})") from exc


def check_trial_set(folder: Path, fingerprint: str, seed: int) -> None:
    """The set of trial ``seed`` is there and is the one the manifest names (same content fingerprint)."""
    import datasets

    from hallubench.core.provenance import dataset_fingerprint

    try:
        found = dataset_fingerprint(datasets.load_from_disk(str(folder))["test"])
    except (FileNotFoundError, KeyError, ValueError) as exc:
        raise HallubenchError(f"--trials: trial {seed}'s set {folder} cannot be read ({type(exc).__name__}); "
                              "regenerate the trials with hallubench generate --trials") from exc
    if found != fingerprint:
        now, listed = (value.removeprefix("sha256:")[:12] for value in (found, fingerprint))
        raise HallubenchError(f"--trials: trial {seed}'s set {folder} changed since the manifest was written (set "
                              f"{now}, manifest {listed}); regenerate the trials with hallubench generate --trials")


# ---------------------------------------------------------------- grouping results into trials

@dataclass
class TrialGroup:
    """The results of one task and judge on the sets of one manifest: ``values[model][seed]`` is a result row."""

    manifest: Manifest
    task: str
    judge: str
    values: dict[str, dict[int, Row]] = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        return sorted(self.values)


def _location_manifest(row: Row) -> Path | None:
    location = (row.get("dataset") or {}).get("location")
    if not isinstance(location, str) or not location:
        return None
    candidate = Path(location).expanduser().parent / TRIALS_MANIFEST
    return candidate if candidate.is_file() else None


def trial_groups(rows: list[Row], explicit: Sequence[Path] = ()) -> tuple[list[TrialGroup], list[str]]:
    """Rows whose set's fingerprint is a trial of a manifest (named with ``report --trials``, or found beside the set's
    recorded location; for tasks that reshape rows into docs, whose results fingerprint the docs, the location alone),
    grouped by (manifest, task, judge); note lines for rows found beside a manifest that does not list their set and
    for repeated (model, trial) results (the newest is kept)."""
    manifests: dict[Path, Manifest] = {}
    for path in explicit:
        manifest = read_manifest(path)
        manifests[manifest.path.resolve()] = manifest
    groups: dict[tuple[Path, str, str], TrialGroup] = {}
    notes: list[str] = []
    for row in sorted(rows, key=lambda r: str(r["date"])):
        if row.get("skipped"):
            continue
        fingerprint = str((row.get("dataset") or {}).get("fingerprint") or "")
        beside = _location_manifest(row)
        if beside is not None and beside.resolve() not in manifests:
            try:
                manifests[beside.resolve()] = read_manifest(beside)
            except HallubenchError as exc:  # a trials.json of someone else's: not a trials folder
                notes.append(f"not counted as a trial: {row['model']} on {row['task']}: {exc}")
                beside = None
        match = next((m for m in manifests.values() if fingerprint in m.sets), None)
        seed = match.sets[fingerprint][0] if match is not None else None
        if match is None and beside is not None and TASKS[row["task"]].to_docs is not None:
            # the task reshapes rows into docs (LongWiki's k, SimpleQA, HaluEval): results fingerprint the docs, so the
            # set is recognised by its location in the trials folder
            match = manifests[beside.resolve()]
            folder = Path(str(row["dataset"]["location"])).name
            seed = next((s for s, path in match.sets.values() if path.name == folder), None)
            match = match if seed is not None else None
        if match is None or seed is None:
            if beside is not None:
                notes.append(f"not counted as a trial: {row['model']} on {row['task']} ({row['source']}): its set "
                             f"{row['set']} is not one listed in {beside} (regenerated since?)")
            continue
        group = groups.setdefault((match.path.resolve(), row["task"], row["judge"]),
                                  TrialGroup(match, row["task"], row["judge"]))
        if seed in group.values.get(row["model"], {}):
            notes.append(f"{row['model']} on {row['task']}, trial {seed}: several results; the newest is used "
                         f"({row['source']})")
        group.values.setdefault(row["model"], {})[seed] = row
    return [groups[key] for key in sorted(groups, key=lambda k: (k[1], str(k[0]), k[2]))], notes


# ---------------------------------------------------------------- statistics

def display(metric: Metric, value: Any) -> float:
    """A metric's value in table units (rates in percent), NaN when undefined."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return math.nan
    return float(value) * (100.0 if metric.kind == "rate" else 1.0)


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1) of the defined values; NaN where too few."""
    import numpy as np

    defined = [v for v in values if not math.isnan(v)]
    mean = float(np.mean(defined)) if defined else math.nan
    return mean, float(np.std(defined, ddof=1)) if len(defined) > 1 else math.nan


def rank_agreement(table: dict[str, dict[int, float]], seeds: Sequence[int]) -> list[float]:
    """Kendall's tau-b between the models' values on each pair of trials (models with a value on both; pairs with
    fewer than two such models, or constant values, give none)."""
    from scipy.stats import kendalltau

    taus = []
    for a, b in itertools.combinations(seeds, 2):
        both = [m for m in table if not math.isnan(table[m].get(a, math.nan))
                and not math.isnan(table[m].get(b, math.nan))]
        if len(both) < 2:
            continue
        tau = kendalltau([table[m][a] for m in both], [table[m][b] for m in both]).statistic
        if not math.isnan(tau):
            taus.append(float(tau))
    return taus


@dataclass(frozen=True)
class MetricStability:
    """One metric of a trial group: per-model values per trial, mean and std, their average std, Kendall's taus."""

    metric: Metric
    table: dict[str, dict[int, float]]
    summary: dict[str, tuple[float, float]]
    within_model_std: float
    taus: list[float]


def attach_set_spread(groups: Sequence[TrialGroup]) -> None:
    """The first of the three error bars: each trial row's ``error_bars`` gain ``set``, its model's standard deviation
    over the regenerated sets of its group (per headline metric), shown on report's spread line beside the run and
    judge spreads that ``score`` records."""
    from hallubench.reporting.scoring import spread

    for group in groups:
        names = TASKS[group.task].headline_metrics
        for by_seed in group.values.values():
            rows = list(by_seed.values())
            bar = {"n": len(rows), "std": {name: spread([row.get(name) for row in rows]) for name in names}}
            for row in rows:
                row["error_bars"] = {"set": bar, **(row.get("error_bars") or {})}


def metric_stability(group: TrialGroup, metric: Metric) -> MetricStability:
    table = {model: {seed: display(metric, row.get(metric.name)) for seed, row in by_seed.items()}
             for model, by_seed in group.values.items()}
    summary = {model: mean_std([by_seed[s] for s in sorted(by_seed)]) for model, by_seed in table.items()}
    stds = [std for _, std in summary.values() if not math.isnan(std)]
    within = float(sum(stds) / len(stds)) if stds else math.nan
    return MetricStability(metric, table, summary, within, rank_agreement(table, group.manifest.seeds))


def trial_difference(a: dict[int, float], b: dict[int, float]) -> tuple[list[float], float]:
    """Per-trial differences a - b over trials where both are defined, and the paired t-test's two-sided p-value
    (NaN with fewer than two trials or no spread)."""
    from scipy.stats import ttest_rel

    seeds = [s for s in sorted(a) if s in b and not math.isnan(a[s]) and not math.isnan(b[s])]
    diffs = [a[s] - b[s] for s in seeds]
    if len(diffs) < 2 or len(set(diffs)) < 2:
        return diffs, math.nan
    return diffs, float(ttest_rel([a[s] for s in seeds], [b[s] for s in seeds]).pvalue)


def mcnemar_exact(pairs: Sequence[tuple[float, float]]) -> tuple[int, int, float]:
    """McNemar's exact test on paired 0/1 outcomes: (a=1,b=0 count, a=0,b=1 count, two-sided binomial p-value over the
    discordant pairs; 1.0 when there are none)."""
    from scipy.stats import binomtest

    only_a = sum(1 for x, y in pairs if x == 1 and y == 0)
    only_b = sum(1 for x, y in pairs if x == 0 and y == 1)
    if only_a + only_b == 0:
        return 0, 0, 1.0
    return only_a, only_b, float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


_LM_EVAL_RESULTS = re.compile(r"results_(?P<date>.+)\.json")


def samples_file(row: Row) -> Path | None:
    """The lm-eval samples log holding the per-item outcomes behind a result row: beside an lm-eval results file (same
    date stamp), or the log a ``hallubench score`` result reused every verdict of (a re-judged result has none)."""
    source = Path(row["source"])
    found = _LM_EVAL_RESULTS.fullmatch(source.name)
    if found:
        path = source.with_name(f"samples_{row['task']}_{found['date']}.jsonl")
        return path if path.is_file() else None
    verdicts = row.get("verdicts") or {}
    if row.get("samples") and verdicts.get("judged") == 0:
        path = Path(str(row["samples"]))
        return path if path.is_file() else None
    return None


def item_outcomes(path: Path, metric: str) -> dict[str, float]:
    """Per-item values of ``metric`` in a samples log, by the item's ``doc_hash`` (items where it is undefined, e.g. a
    conditional rate on an item that does not count toward it, are left out)."""
    outcomes = {}
    for number, record in enumerate(read_json_records(path), start=1):
        value = record.get(metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
            outcomes[str(record.get("doc_hash", number))] = float(value)
    return outcomes


def paired_items(group: TrialGroup, metric: Metric, model_a: str, model_b: str) -> list[tuple[float, float]] | None:
    """Both models' per-item outcomes on the same items of the same trials (None when a samples log is missing)."""
    pairs: list[tuple[float, float]] = []
    for seed in sorted(set(group.values[model_a]) & set(group.values[model_b])):
        paths = [samples_file(group.values[m][seed]) for m in (model_a, model_b)]
        if None in paths:
            return None
        a, b = (item_outcomes(p, metric.name) for p in paths if p is not None)
        pairs.extend((a[key], b[key]) for key in sorted(a.keys() & b.keys()))
    return pairs


# ---------------------------------------------------------------- tables and plots

def _fmt(value: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _group_title(group: TrialGroup) -> str:
    manifest = group.manifest
    return (f"{group.task}: {len(manifest.seeds)} trials (seeds {', '.join(map(str, manifest.seeds))}; "
            f"{manifest.path}), judge {group.judge}")


_UNITLESS = ("kendall_tau_mean", "kendall_tau_min", "paired_t_p", "mcnemar_exact_p")
_ITEM_COUNTS = ("items_paired", "items_a_only", "items_b_only")


def _write(writer: Any, group: TrialGroup, metric: Metric, statistic: str, value: float, model: str = "",
           versus: str = "", seed: int | str = "") -> None:
    """One stability.csv line in report.csv's units: a value in the metric's unit (``value`` is in table units) as
    report.csv writes it (rates as fractions, ``fraction``); Kendall's tau and p-values ``unitless``, item counts
    ``count``; an undefined value an empty cell."""
    if statistic in _UNITLESS:
        shown, written = "unitless", value
    elif statistic in _ITEM_COUNTS:
        shown, written = "count", value
    else:
        shown, written = csv_unit(metric), value / (100.0 if metric.kind == "rate" else 1.0)
    writer.writerow([group.task, group.manifest.label, metric.name, shown, model, versus, seed, statistic,
                     "" if isinstance(written, float) and math.isnan(written) else written])


def _sensitivity_lines(group: TrialGroup, stats: list[MetricStability], writer: Any) -> list[str]:
    lines = ["", "| model A − model B | metric | per-trial differences | mean ± std | paired t p | items: A only / "
             "B only | McNemar exact p |", "|---|---|---|---:|---:|---:|---:|"]
    for a, b in itertools.combinations(group.models, 2):
        for stat in stats:
            diffs, p_trials = trial_difference(stat.table[a], stat.table[b])
            mean, std = mean_std(diffs)
            pairs = paired_items(group, stat.metric, a, b) if stat.metric.kind == "rate" else None
            only_a, only_b, p_items = mcnemar_exact(pairs) if pairs else (0, 0, math.nan)
            items = f"{only_a} / {only_b} of {len(pairs)}" if pairs else "n/a"
            lines.append(f"| {a} − {b} | {stat.metric.name} | {', '.join(_fmt(d, 1) for d in diffs)} | "
                         f"{_fmt(mean)} ± {_fmt(std)} | {_fmt(p_trials, 3)} | {items} | {_fmt(p_items, 3)} |")
            for name, value in (("difference_mean", mean), ("difference_std", std), ("paired_t_p", p_trials),
                                ("items_paired", len(pairs) if pairs else math.nan), ("items_a_only", only_a),
                                ("items_b_only", only_b), ("mcnemar_exact_p", p_items)):
                _write(writer, group, stat.metric, name, value, a, b)
    lines.append("")
    lines.append("Trials: a paired t-test over the per-trial differences (N trials give N − 1 degrees of freedom: "
                 "with 3, only a large, steady gap reaches a small p). Items: McNemar's exact test over the items both "
                 "models were judged on, pooled over the trials (each trial's items are paired within its own set).")
    return lines


def stability_tables(groups: list[TrialGroup], notes: Sequence[str]) -> tuple[str, str]:
    """(markdown, csv) of every trial group: per-model mean ± std per headline metric, the average within-model
    std, Kendall's tau between trials, and the pairwise sensitivity tables. Empty markdown without groups."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_HEADER)
    parts = []
    for group in groups:
        stats = [metric_stability(group, m) for m in plotted_metrics(TASKS[group.task])]
        header = ["model", "trials", *(f"{s.metric.name} ({unit(s.metric)}) mean ± std" for s in stats)]
        lines = [f"### Stability over regenerated sets — {_group_title(group)}", "",
                 "| " + " | ".join(header) + " |", "|---|---:|" + "---:|" * len(stats)]
        for model in group.models:
            cells = [f"{_fmt(s.summary[model][0])} ± {_fmt(s.summary[model][1])}" for s in stats]
            lines.append(f"| {model} | {len(group.values[model])} | " + " | ".join(cells) + " |")
        lines += ["", "| metric | within-model std, averaged over models | Kendall's tau between trials: mean | min "
                  "| trial pairs |", "|---|---:|---:|---:|---:|"]
        for s in stats:
            tau_mean = sum(s.taus) / len(s.taus) if s.taus else math.nan
            tau_min = min(s.taus) if s.taus else math.nan
            lines.append(f"| {s.metric.name} | {_fmt(s.within_model_std)} | {_fmt(tau_mean)} | {_fmt(tau_min)} | "
                         f"{len(s.taus)} |")
            for model, by_seed in s.table.items():
                for seed, value in sorted(by_seed.items()):
                    _write(writer, group, s.metric, "value", value, model, seed=seed)
                for name, value in zip(("mean", "std_ddof1"), s.summary[model]):
                    _write(writer, group, s.metric, name, value, model)
            for name, value in (("within_model_std_mean", s.within_model_std), ("kendall_tau_mean", tau_mean),
                                ("kendall_tau_min", tau_min)):
                _write(writer, group, s.metric, name, value)
        lines += ["", "Standard deviations are sample standard deviations (ddof=1) over the trials, in the metric's "
                  f"unit (rates in points). {PAPER_NOTE}"]
        if len(group.models) > 1:
            lines += _sensitivity_lines(group, stats, writer)
        parts.append("\n".join(lines))
    if notes:
        parts.append("\n".join(notes))
    return ("\n\n".join(parts) + "\n" if parts else ""), buffer.getvalue()


def stability_figure(group: TrialGroup) -> Figure:
    """Per model, each trial's value as a point and the mean with a ±std bar; one panel per plotted metric."""
    stats = [metric_stability(group, m) for m in plotted_metrics(TASKS[group.task])]
    models = group.models
    fig, axes = pyplot().subplots(1, len(stats), figsize=(max(4.0, 1.2 * len(models) + 2) * len(stats), 4.0),
                                  squeeze=False, layout="constrained")
    for ax, stat in zip(axes.flat, stats):
        for x, model in enumerate(models):
            values = [stat.table[model][s] for s in sorted(stat.table[model])]
            ax.plot([x - 0.12] * len(values), values, "o", color="tab:blue", alpha=0.6,
                    label="trial" if x == 0 else None, clip_on=False)
            mean, std = stat.summary[model]
            spread = 0.0 if math.isnan(std) else std
            below, above = clipped(stat.metric, mean, spread, spread)  # within the metric's range
            ax.errorbar([x + 0.12], [mean], yerr=[[below], [above]], fmt="s", color="black",
                        capsize=4, label="mean ± std" if x == 0 else None, clip_on=False)
        ax.set_xticks(range(len(models)), models, rotation=20, ha="right")
        ax.set_xlim(-0.6, len(models) - 0.4)
        set_value_axis(ax, [stat.metric])
        ax.set_title(f"{stat.metric.name}: avg std {_fmt(stat.within_model_std)}", fontsize=9)
        ax.legend(fontsize=8, loc="best")
    fit_title(fig, f"Stability over regenerated sets | {_group_title(group)}")
    return fig


def stability_plot_path(group: TrialGroup, out: Path) -> Path:
    """``OUT/stability_<task>_<trials folder>.png``."""
    folder = re.sub(r"[^A-Za-z0-9_.-]+", "_", group.manifest.label)
    return out / f"stability_{group.task}_{folder}.png"


def draw_stability(group: TrialGroup, path: Path) -> None:
    save_figure(stability_figure(group), path, "report")
