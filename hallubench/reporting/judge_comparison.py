"""``hallubench agreement --judge A --vs B --samples LOG`` (issue 25): two judges through a benchmark's real judging
chain on the items of an lm-eval samples log, as ``hallubench score`` judges them (``judge_responses`` with the
run's recorded settings; ``--role R`` swaps only that role's judge). Every question a judge is asked is recorded, so
the two runs are compared check by check on the steps both judged (B's verdicts as the labels), and headline by
headline: A's value, B's value and the move B - A, with a paired bootstrap 95% interval over items (both headlines
recomputed on the same resampled items). Both runs share the call cache: a re-run makes no calls."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.base import Check, Judge, Verdict
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import benchmark_for_task
from hallu_metrics.settings import resolve_settings
from hallu_metrics.stats import describe
from hallubench.reporting.agreement_figures import bootstrap_draws, percentile_interval
from hallubench.reporting.scoring import check_judgeable, read_samples, recorded_settings

Asked = dict[tuple[str, str, str], Verdict]  # (role, check, item as JSON) -> the verdict


class _Recorder:
    """One role's judge, recording each verdict it gives by (role, check, item)."""

    def __init__(self, inner: Judge, role: str, asked: Asked):
        self.inner, self.role, self.asked, self.spec = inner, role, asked, inner.spec

    async def ask(self, check: Check, item: dict) -> Verdict:
        verdict = await self.inner.ask(check, item)
        self.asked[(self.role, check.name, json.dumps(item, sort_keys=True, default=str))] = verdict
        return verdict

    def __getattr__(self, name: str) -> Any:  # what chains read of a judge beyond ask (a scorer's coverage)
        return getattr(self.inner, name)

    def report(self) -> dict[str, int]:
        return self.inner.report()

    def close(self) -> None:
        self.inner.close()


class RecordingJudgeSet(JudgeSet):
    """A ``JudgeSet`` whose ``get(role)`` records every verdict the role's judge gives, in ``asked``."""

    def __init__(self, specs: dict[str, str], **kwargs: Any):
        super().__init__(specs, **kwargs)
        self.asked: Asked = {}

    def get(self, role: str = "judge") -> Judge:
        return _Recorder(super().get(role), role, self.asked)


@dataclass(frozen=True)
class JudgedRun:
    """One judge's run over the log: its judge per role, the records, the summary and every verdict asked."""

    judges: dict[str, str]
    records: list[dict]
    summary: dict[str, Any]
    asked: Asked


def judge_log(benchmark: Benchmark, task: str, samples_path: Path, spec: str, role: str | None,
              settings_flags: Mapping[str, Any]) -> JudgedRun:
    """Judge every item of the log with ``spec`` in ``role`` (every judge role when None), the other settings from
    ``settings_flags`` (e.g. ``knowledge``), else as the run recorded them, else the defaults, as ``hallubench score
    --rejudge`` would."""
    samples = read_samples(samples_path, task)
    docs = [s.doc for s in samples]
    flags = {**settings_flags, **({role: spec} if role else dict.fromkeys(benchmark.judge_roles, spec))}
    settings = resolve_settings(benchmark, task, {}, flags=flags, recorded=recorded_settings(samples))
    check_judgeable(benchmark, settings, task)
    specs = {r: settings[r] for r in benchmark.judge_roles if settings[r]}
    judges = RecordingJudgeSet(specs, settings=settings)
    try:
        records = judge_responses(benchmark, [s.response for s in samples], docs, judges, desc=f"judge {task}")
    finally:
        judges.close()
    return JudgedRun(judges.public_specs(), records, benchmark.summarize(records, docs), judges.asked)


def paired_steps(a: Asked, b: Asked, role: str | None, check: str | None) -> dict[str, list[tuple[Verdict, Verdict]]]:
    """Per check, the (A, B) verdicts of the questions both judges were asked (same role, check and item), in the
    order A asked them; only ``role``'s questions and ``check``'s when given."""
    steps: dict[str, list[tuple[Verdict, Verdict]]] = {}
    for key, verdict in a.items():
        asked_role, name, _ = key
        if key in b and role in (None, asked_role) and check in (None, name):
            steps.setdefault(name, []).append((verdict, b[key]))
    return steps


def headline_moves(benchmark: Benchmark, run_a: JudgedRun, run_b: JudgedRun, docs: Sequence[dict], seed: int
                   ) -> dict[str, dict[str, Any]]:
    """Per headline metric: A's and B's values as the result reports them, the move B - A, and its paired bootstrap
    95% interval over items (None for a figure the result does not compute as a mean of per-item values)."""
    per_a = [benchmark.sample_metrics(r, d) for r, d in zip(run_a.records, docs)]
    per_b = [benchmark.sample_metrics(r, d) for r, d in zip(run_b.records, docs)]
    draws = bootstrap_draws(len(docs), seed, "judge comparison bootstrap")
    moves = {}
    for name in benchmark.headline_metrics:
        value_a, value_b = run_a.summary.get(name), run_b.summary.get(name)
        values_a, values_b = [p.get(name) for p in per_a], [p.get(name) for p in per_b]
        means = describe(values_a)[0] == value_a and describe(values_b)[0] == value_b
        difference = None if value_a is None or value_b is None else value_b - value_a
        moves[name] = {"a": value_a, "b": value_b, "difference": difference,
                       "interval95": percentile_interval(_resampled_means(values_b, draws)
                                                         - _resampled_means(values_a, draws)) if means else None,
                       "kind": benchmark.metric(name).kind if name in benchmark.metric_names else None}
    return moves


def _resampled_means(values: Sequence[float | None], draws: np.ndarray) -> np.ndarray:
    """The mean over counted items (None does not count) of every resample; NaN where none counts."""
    counted = np.array([v is not None for v in values])
    numbers = np.array([0.0 if v is None else float(v) for v in values])
    totals, counts = numbers[draws].sum(axis=1), counted[draws].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, totals / counts, np.nan)


def compare_judges(task: str, samples_path: Path, specs: tuple[str, str], role: str | None, check: str | None,
                   seed: int, settings_flags: Mapping[str, Any]
                   ) -> tuple[JudgedRun, JudgedRun, dict[str, list[tuple[Verdict, Verdict]]], dict]:
    """Both runs (judge A, judge B), the paired steps per check and the headline moves."""
    benchmark = benchmark_for_task(task)
    run_a, run_b = (judge_log(benchmark, task, samples_path, spec, role, settings_flags) for spec in specs)
    docs = [s.doc for s in read_samples(samples_path, task)]
    return run_a, run_b, paired_steps(run_a.asked, run_b.asked, role, check), headline_moves(
        benchmark, run_a, run_b, docs, seed)
