"""Standard errors in lm-eval's table for conditional metrics (rates over the samples that count, e.g. the
hallucination rate among attempted answers). lm-eval 0.4.13 gives a stderr only to aggregations it knows by
identity (``mean`` closed-form, a fixed list bootstrapped) and prints ``N/A`` for any other; hallubench's
``mean_of_counted`` is taught to it here, with the closed-form stderr ``hallubench score`` reports. lm-eval is
pinned (pyproject.toml); tests/test_lm_eval_usage.py fails if a new version stops calling this hook."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import lm_eval.evaluator_utils as evaluator_utils

from hallu_metrics.stats import counted_stderr, mean_of_counted

StderrFn = Callable[[Sequence[Any]], Any]


def _stderr_for_metric(lm_eval_lookup: Callable[..., StderrFn | None]) -> Callable[..., StderrFn | None]:
    def stderr_for_metric(metric: Callable, bootstrap_iters: int) -> StderrFn | None:
        if metric is mean_of_counted:
            return counted_stderr if bootstrap_iters > 0 else None
        return lm_eval_lookup(metric=metric, bootstrap_iters=bootstrap_iters)

    stderr_for_metric.hallubench_hook = True  # type: ignore[attr-defined]
    return stderr_for_metric


def install() -> None:
    """Wrap lm-eval's stderr lookup once (idempotent); every other aggregation keeps lm-eval's own answer."""
    current = evaluator_utils.stderr_for_metric
    if not getattr(current, "hallubench_hook", False):
        evaluator_utils.stderr_for_metric = _stderr_for_metric(current)
