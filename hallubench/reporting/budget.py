"""``--max-calls N`` and ``--max-cost USD`` on ``score`` and ``eval`` (docs/cost.md, budget caps): refused up front when
the plan's expected calls or cost exceed a cap; during the run, ``hallubench.core.backends.budget.Budget`` refuses every
new call from the one that would pass a cap on, so the run stops cleanly, keeping every verdict so far."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.judges.accounting import ALL_ROLES, Price, price_for
from hallubench.core.backends.budget import Budget
from hallubench.core.errors import HallubenchError
from hallubench.reporting.costs import money

if TYPE_CHECKING:
    from hallubench.reporting.scoring import ScoreOptions


def make_budget(max_calls: int | None, max_cost: float | None, prices: Mapping[str, Price]) -> Budget | None:
    """The run's budget (None without caps); calls are priced by role and spec as the accounting prices them."""
    if max_calls is None and max_cost is None:
        return None
    if max_cost is not None and not prices:
        raise HallubenchError("--max-cost needs the judge's prices: --price judge=IN/OUT (USD per 1M input/output "
                              "tokens) or --price-file")
    return Budget(max_calls, max_cost, lambda role, spec: price_for(role or ALL_ROLES, spec, prices))


def check_planned(plan: Mapping[str, Any], budget: Budget, runs: int = 1) -> None:
    """Refuse (one line) when the plan's expected calls or cost, times ``runs`` (generation runs x panel judges), pass
    a cap, or when a role that makes calls has no price under ``--max-cost``."""
    expected = plan["total"]["expected"]
    calls = expected["calls"] * runs
    what = f"plan for {plan['task']}: {plan['items']} items x {runs} run(s)" if runs > 1 else \
        f"plan for {plan['task']}: {plan['items']} items"
    if budget.max_calls is not None and calls > budget.max_calls:
        raise HallubenchError(f"{what} expects {calls} judge calls (low {plan['total']['low']['calls'] * runs}), over "
                              f"--max-calls {budget.max_calls}; raise the cap or judge fewer items")
    if budget.max_cost is None:
        return
    unpriced = [role for role, entry in plan["roles"].items()
                if entry["expected"]["calls"] and "cost_usd" not in entry["expected"]]
    if unpriced:
        raise HallubenchError(f"--max-cost: no price for judge role(s) {', '.join(unpriced)}; pass --price "
                              f"{unpriced[0].split()[-1]}=IN/OUT or a --price-file entry")  # eval: "TASK ROLE"
    cost = expected.get("cost_usd", 0.0) * runs
    if cost > budget.max_cost:
        raise HallubenchError(f"{what} expects {money(cost)} of judge calls, over --max-cost {budget.max_cost:g}; "
                              "raise the cap, judge fewer items, or use a cheaper judge (openai-batch: about half)")


def plan_samples(task: str, samples: Path, options: ScoreOptions) -> dict[str, Any]:
    """The plan of what ``score`` judges in a samples log: the items without a reusable verdict, with the run's
    settings (flags over what the log recorded)."""
    from hallu_metrics.registry import benchmark_for_task
    from hallubench.reporting.plan import claims_per_sentence, make_plan
    from hallubench.reporting.scoring import judging_plan, read_samples

    benchmark = benchmark_for_task(task)
    rows = read_samples(samples, task)
    settings, _, _, todo = judging_plan(benchmark, task, rows, options)
    long_form = benchmark.name in ("longwiki", "wildhallucinations")
    claims = claims_per_sentence([s.record for s in rows if s.record]) if long_form else None
    return make_plan(task, [rows[i].doc for i in todo], [rows[i].response for i in todo], {}, claims, options.prices,
                     stated=settings.record())


def stopped_message(budget: Mapping[str, Any], where: str) -> str:
    """"stopped on budget (...): 12 of 40 items judged; ..."."""
    return (f"stopped on budget: {budget['items_judged']} of {budget['items']} items judged ({budget['calls']} new "
            f"calls, {money(budget['cost_usd'])}); every verdict so far is kept in {where} and the call cache: re-run "
            "with a higher cap to judge the rest")


def eval_prices(price: list[str] | None, price_file: Path | None) -> dict[str, Price]:
    """``eval --price`` / ``--price-file``: a flag may name any benchmark's judge role."""
    from hallu_metrics.registry import BENCHMARKS
    from hallubench.reporting.costs import gather_prices

    roles = tuple(dict.fromkeys(role for benchmark in BENCHMARKS.values() for role in benchmark.judge_roles))
    return gather_prices(price, price_file, roles)
