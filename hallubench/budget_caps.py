"""``--max-calls N`` and ``--max-cost USD`` on ``score`` and ``eval`` (docs/cost.md, budget caps): refused up front when
the plan's expected calls or cost exceed a cap; during the run, ``hallubench.backends.budget.Budget`` refuses every
new call from the one that would pass a cap on, so the run stops cleanly, keeping every verdict so far."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.judges.accounting import ALL_ROLES, Price, price_for
from hallubench.backends.budget import Budget
from hallubench.costs import money
from hallubench.errors import HallubenchError

if TYPE_CHECKING:
    from hallubench.scoring import ScoreOptions


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected US dollars, e.g. 5 or 0.50, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected US dollars, 0 or more, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of calls, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of calls, 0 or more, got {text!r}")
    return value


def add_cap_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-cost", type=_usd, metavar="USD",
                        help="refuse a run whose planned judge cost exceeds USD, and stop judging before the new calls "
                        "(cache hits are free) would pass it; needs prices (--price / --price-file; docs/cost.md)")
    parser.add_argument("--max-calls", type=_count, metavar="N",
                        help="refuse a run whose planned judge calls exceed N, and stop judging before the N+1st new "
                        "call; the verdicts so far are kept (result and cache)")


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
    from hallubench.plan import claims_per_sentence, make_plan
    from hallubench.scoring import judging_plan, read_samples

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


def split_eval_args(args: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """``eval``'s own flags (caps and prices) and the arguments left for lm-eval."""
    from hallubench.cli import add_price_flags

    parser = argparse.ArgumentParser(prog="hallubench eval", add_help=False, allow_abbrev=False, exit_on_error=False)
    add_cap_flags(parser)
    add_price_flags(parser)
    try:
        return parser.parse_known_args(args)
    except argparse.ArgumentError as exc:
        raise HallubenchError(f"eval: {exc}") from None


def eval_prices(caps: argparse.Namespace) -> dict[str, Price]:
    """``eval --price`` / ``--price-file``: a flag may name any benchmark's judge role."""
    from hallu_metrics.registry import BENCHMARKS
    from hallubench.costs import gather_prices

    roles = tuple(dict.fromkeys(role for benchmark in BENCHMARKS.values() for role in benchmark.judge_roles))
    return gather_prices(caps.price, caps.price_file, roles)


def plan_eval(args: list[str], prices: Mapping[str, Price]) -> dict[str, Any]:
    """One plan over every hallubench task an lm-eval command line names: its test set (``--limit`` applied) with
    stand-in responses (``plan --dataset``), judged as its ``--metadata`` says."""
    from lm_eval.tasks import TaskManager

    from hallu_metrics.registry import benchmark_for_task
    from hallubench.eval_checks import hallubench_tasks, parse_lm_eval_args
    from hallubench.plan import MODES, make_plan, stand_in_response
    from hallubench_tasks import TASKS_DIR
    from hallubench_tasks.dataset_loading import load

    namespace = parse_lm_eval_args(args)
    names = [n for name in (namespace.tasks if namespace else None) or [] for n in name.split(",") if n]
    own = TaskManager(include_path=str(TASKS_DIR), include_defaults=False)
    tasks, _ = hallubench_tasks(names, own.task_index, lambda name: own.match_tasks([name]))
    metadata = {**(namespace.model_args or {}), **(namespace.metadata or {})} if namespace else {}
    limit = namespace.limit if namespace else None
    plans = []
    for task in tasks:
        docs = list(load(task, **metadata)["test"])
        if limit is not None:
            docs = docs[: int(limit * len(docs)) if limit < 1 else int(limit)]
        long_form = benchmark_for_task(task).name in ("longwiki", "wildhallucinations")
        plans.append(make_plan(task, docs, [stand_in_response(doc, long_form) for doc in docs], {}, prices=prices,
                               stated=metadata))
    total = {mode: {key: sum(plan["total"][mode].get(key, 0) for plan in plans)
                    for key in {k for plan in plans for k in plan["total"][mode]}} for mode in MODES}
    roles = {f"{plan['task']} {role}": entry for plan in plans for role, entry in plan["roles"].items()}
    return {"task": ", ".join(tasks) or "no hallubench task", "items": sum(plan["items"] for plan in plans),
            "roles": roles, "total": total}
