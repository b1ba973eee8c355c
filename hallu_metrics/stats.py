"""Shared statistics for every benchmark: means of per-sample values with standard errors, and
breakdown rows. One result shape for all benchmarks (see docs/results.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Value = float | None  # a per-sample metric value; None = this sample does not count for the metric


def proportion_stderr(p: float | None, n: int) -> float | None:
    """Standard error of a proportion over ``n`` samples (unbiased, ``n - 1``); None when undefined."""
    return math.sqrt(p * (1 - p) / (n - 1)) if p is not None and n > 1 else None


def mean_stderr(values: Sequence[float]) -> float | None:
    """Standard error of a mean: sample standard deviation / sqrt(n); None for fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def mean_of_counted(values: Sequence[Value]) -> float:
    """lm-eval aggregation: mean over the samples that count (not None); NaN when none do."""
    counted = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(counted) / len(counted) if counted else math.nan


def counted_stderr(values: Sequence[Value]) -> float | str:
    """lm-eval's stderr for ``mean_of_counted``: the same standard error as ``describe`` (and so as
    ``hallubench score``), or lm-eval's ``"N/A"`` when fewer than two samples count."""
    stderr = describe(values)[1]
    return "N/A" if stderr is None else stderr


def describe(values: Sequence[Value]) -> tuple[float | None, float | None, int]:
    """(mean, stderr, number counted) of one metric's per-sample values. Values that are all 0/1
    get the binomial stderr, others the stderr of a mean (the two agree up to rounding)."""
    counted = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not counted:
        return None, None, 0
    mean = sum(counted) / len(counted)
    binary = all(v in (0.0, 1.0) for v in counted)
    return mean, proportion_stderr(mean, len(counted)) if binary else mean_stderr(counted), len(counted)


def summarize_values(per_sample: Sequence[Mapping[str, Value]], metrics: Sequence[str]) -> dict[str, Any]:
    """``{"n", metric: mean, "stderr": {metric: se}, "counted": {metric: k}}`` over samples."""
    row: dict[str, Any] = {"n": len(per_sample), "stderr": {}, "counted": {}}
    for metric in metrics:
        mean, se, counted = describe([sample.get(metric) for sample in per_sample])
        row[metric], row["stderr"][metric], row["counted"][metric] = mean, se, counted
    return row


def breakdown_rows(
    per_sample: Sequence[Mapping[str, Value]],
    keys: Sequence[str | None],
    metrics: Sequence[str],
    order: Callable[[str], Any] | None = None,
) -> list[dict[str, Any]]:
    """One row per distinct key (``None`` and ``""`` become ``"none"``): ``{"value": key, **summarize_values}``."""
    groups: dict[str, list[Mapping[str, Value]]] = {}
    for sample, key in zip(per_sample, keys):
        groups.setdefault("none" if key is None or key == "" else str(key), []).append(sample)
    names = sorted(groups, key=order) if order else sorted(groups)
    return [{"value": name, **summarize_values(groups[name], metrics)} for name in names]


def wilson_interval(p: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a share ``p`` of ``n`` items: never zero-width at 0 or 1,
    unlike ``p ± stderr``."""
    if n < 1:
        raise ValueError(f"a Wilson interval needs at least one item, got n={n}")
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if p <= 0 else max(0.0, center - half)  # exact bounds at 0 and 1, no rounding residue
    high = 1.0 if p >= 1 else min(1.0, center + half)
    return low, high


def mean_of_shares_stderr(shares: Sequence[tuple[float, int]], z: float = 1.959963984540054) -> float:
    """Standard error of the unweighted mean of independent shares (``p`` of ``n`` items each), each share's variance
    taken at its Agresti-Coull centre (p n + z^2/2) / (n + z^2): sqrt(sum p~(1 - p~) / (n + z^2)) / K. Unlike the
    pooled stderr of the shares' plain variances, it is never 0 for shares of 0 or 1 on a few items."""
    if not shares or any(n < 1 for _, n in shares):
        raise ValueError("every share needs at least one item")
    total = 0.0
    for p, n in shares:
        centre = (p * n + z * z / 2) / (n + z * z)
        total += centre * (1 - centre) / (n + z * z)
    return math.sqrt(total) / len(shares)
