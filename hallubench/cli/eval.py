"""``hallubench eval``: lm_eval's own CLI with hallubench's tasks included, after every check that can be made before a
model loads (``eval_checks``), with budget caps."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallubench.cli.eval_checks import option_value, parse_lm_eval_args
from hallubench.cli.options import add_cap_flags, add_price_flags
from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    pass

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hallu_metrics.judges.accounting import Price
from hallubench.reporting.stability import check_trial_set, read_manifest

if TYPE_CHECKING:
    pass


def run_lm_eval(lm_eval_args: list[str]) -> int:
    """Run lm-eval's own CLI in-process with hallubench's task folder included, after the checks of
    ``hallubench.cli.eval_checks`` (all made before any model loads). Exit 2 when judging raised after generation (the
    responses are saved for ``hallubench score``; the message says where)."""
    from lm_eval.__main__ import cli_evaluate

    from hallubench.cli.eval_checks import check_eval_args, own_tasks_only
    from hallubench.core.backends.budget import RUN_BUDGET
    from hallubench.reporting.budget import check_planned, eval_prices, make_budget
    from hallubench_tasks import TASKS_DIR
    from hallubench_tasks.judged_task import JUDGING_FAILURES

    caps, lm_eval_args = split_eval_args(lm_eval_args)  # --max-calls / --max-cost and their prices are hallubench's
    if "--include_path" in lm_eval_args or any(a.startswith("--include_path=") for a in lm_eval_args):
        raise HallubenchError("hallubench eval adds --include_path itself; call lm_eval directly to pass another one")
    prices = eval_prices(caps.price, caps.price_file)
    budget = make_budget(caps.max_calls, caps.max_cost, prices)
    only_ours = check_eval_args(lm_eval_args, TASKS_DIR)
    if budget is not None:  # refused before the model loads when the plan's estimate passes a cap
        check_planned(plan_eval(lm_eval_args, prices), budget)
    sys.argv = ["lm_eval", *lm_eval_args, "--include_path", str(TASKS_DIR)]
    del JUDGING_FAILURES[:]
    token = RUN_BUDGET.set(budget)
    try:
        with own_tasks_only(only_ours):
            cli_evaluate()
    except ValueError as exc:  # lm-eval's own errors on bad arguments
        raise HallubenchError(f"lm_eval: {exc}") from exc
    finally:
        RUN_BUDGET.reset(token)
    if budget is not None and budget.stopped:
        raise HallubenchError(f"stopped on budget ({budget.caps()}: {budget.calls} new judge calls, ${budget.spent:.4f}"
                              "); every verdict so far is in lm-eval's samples log and the call cache, the results "
                              "name the items judged (hallubench_budget); the other items' responses are saved (paths "
                              "above): judge them with hallubench score and a higher cap")
    if JUDGING_FAILURES:
        raise HallubenchError("; ".join(
            f"{task}: judging failed after generation ({error}); the responses are saved in {path or 'no file'}: "
            f"judge them with hallubench score --task {task} --samples {path or '<samples file>'}"
            for task, path, error in JUDGING_FAILURES
        ))
    return 0


def split_eval_args(args: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """``eval``'s own flags (caps and prices) and the arguments left for lm-eval."""

    parser = argparse.ArgumentParser(prog="hallubench eval", add_help=False, allow_abbrev=False, exit_on_error=False)
    add_cap_flags(parser)
    add_price_flags(parser)
    try:
        return parser.parse_known_args(args)
    except argparse.ArgumentError as exc:
        raise HallubenchError(f"eval: {exc}") from None


def plan_eval(args: list[str], prices: Mapping[str, Price]) -> dict[str, Any]:
    """One plan over every hallubench task an lm-eval command line names: its test set (``--limit`` applied) with
    stand-in responses (``plan --dataset``), judged as its ``--metadata`` says."""
    from lm_eval.tasks import TaskManager

    from hallu_metrics.registry import benchmark_for_task
    from hallubench.cli.eval_checks import hallubench_tasks, parse_lm_eval_args
    from hallubench.reporting.plan import MODES, make_plan, stand_in_response
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


def _without(args: Sequence[str], name: str) -> list[str]:
    """``args`` without ``--name VALUE`` / ``--name=VALUE``."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            kept.append(arg)
    return kept


def run_eval_trials(lm_eval_args: list[str], run_lm_eval: Callable[[list[str]], int]) -> int:
    """``hallubench eval --trials PARENT ... --output_path OUT``: one lm-eval run per trial of the manifest, its set
    passed as ``--metadata '{"dataset": FOLDER}'`` (merged with the given metadata), outputs under
    ``OUT/trial-<seed>/``."""
    parent = option_value(lm_eval_args, "--trials")
    output = option_value(lm_eval_args, "--output_path") or option_value(lm_eval_args, "-o")
    if not parent:
        raise HallubenchError("--trials: expected the folder written by hallubench generate --trials")
    if not output:
        raise HallubenchError("--trials needs --output_path OUT: each trial's results go to OUT/trial-<seed>/")
    manifest = read_manifest(Path(parent))
    rest = _without(_without(_without(lm_eval_args, "--trials"), "--output_path"), "-o")
    namespace = parse_lm_eval_args(rest)
    given = sorted(k for k in ((namespace.metadata or {}) if namespace else {})
                   if k.startswith("dataset") and k != "dataset_revision")
    if given:
        raise HallubenchError(f"--metadata {given[0]}: with --trials each trial's set is passed for you; drop it")
    trials = sorted(manifest.sets.items(), key=lambda item: item[1][0])
    for fingerprint, (seed, folder) in trials:  # every set, before the first run loads a model
        check_trial_set(folder, fingerprint, seed)
    for fingerprint, (seed, folder) in trials:
        print(f"[hallubench] trial {seed}: {folder} (set {fingerprint.removeprefix('sha256:')[:12]})", file=sys.stderr)
        run_lm_eval([*rest, "--output_path", str(Path(output) / f"trial-{seed}"),
                     "--metadata", json.dumps({"dataset": str(folder)})])
    return 0


def main(args: list[str]) -> int:
    """``hallubench eval ARGS``: one lm_eval run, or with ``--trials PARENT`` one per regenerated set."""
    if any(a == "--trials" or a.startswith("--trials=") for a in args):
        return run_eval_trials(args, run_lm_eval)
    return run_lm_eval(args)
