"""``hallubench plan``: expected judge calls, tokens, time and cost before judging (docs/cost.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallu_metrics.registry import TASKS, benchmark_for_task
from hallu_metrics.settings import resolve_settings
from hallubench.core.errors import HallubenchError
from hallubench.reporting.costs import gather_prices
from hallubench.reporting.plan import MAX_LATENCY_S, claims_per_sentence, make_plan, plan_table, stand_in_response


def _plan(args: argparse.Namespace) -> int:
    from hallubench.cli.options import settings_flags
    from hallubench.core.outputs import check_output_file, check_replaceable
    from hallubench.reporting.scoring import check_judgeable, find_samples, read_samples, write_json_atomic

    if args.samples is None and args.dataset is None:
        raise HallubenchError("plan: pass --dataset (the test set) or --samples (a samples log with responses)")
    if args.latency is not None and not 0 <= args.latency <= MAX_LATENCY_S:
        raise HallubenchError(f"--latency {args.latency}: expected seconds per call, 0 to {MAX_LATENCY_S:g}")
    if args.out:  # before any work
        check_output_file(args.out, "--out")
        inputs = [Path(p) for p in (args.samples, args.dataset, args.knowledge) if p is not None]
        check_replaceable(Path(args.out), "--out", "plan", overwrite=args.overwrite, inputs=inputs)
    benchmark = benchmark_for_task(args.task)
    flags = settings_flags(args)
    check_judgeable(benchmark, resolve_settings(benchmark, args.task, {}, flags=flags), args.task)
    long_form = benchmark.name in ("longwiki", "wildhallucinations")
    claims = None
    if args.samples is not None:
        samples = read_samples(find_samples([args.samples], args.task), args.task)
        docs, responses = [s.doc for s in samples], [s.response for s in samples]
        claims = claims_per_sentence([s.record for s in samples if s.record]) if long_form else None
    else:
        from hallubench_tasks.dataset_loading import load

        docs = list(load(args.task, dataset=args.dataset)["test"])
        responses = [stand_in_response(doc, long_form) for doc in docs]
    prices = gather_prices(args.price, args.price_file, benchmark.judge_roles)
    plan = make_plan(args.task, docs, responses, flags, claims, prices, args.latency)
    print(plan_table(plan))
    if args.out:
        write_json_atomic(Path(args.out), plan, "plan")
        print(f"[hallubench] plan written to {args.out}", file=sys.stderr)
    return 0


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    """``hallubench plan``."""
    from hallubench.cli.options import add_price_flags, judge_role, key_value

    plan = subparsers.add_parser("plan", help="expected judge calls, tokens, time and cost before judging",
                                 description="Expected judge calls and tokens per role (expected, low-high), time and "
                                 "cost, from the benchmark's prompts rendered on the set (docs/cost.md).")
    plan.add_argument("--task", required=True, choices=sorted(TASKS), metavar="TASK")
    plan.add_argument("--dataset", help="the test set (responses are stood in for: docs/cost.md)")
    plan.add_argument("--samples", type=Path, help="an lm-eval samples log (or a folder holding one): its docs and "
                      "the model's responses")
    plan.add_argument("--judge", help="judge spec (as for score)")
    plan.add_argument("--judge-role", type=judge_role, action="append", metavar="judge_ROLE=SPEC")
    plan.add_argument("--knowledge", type=Path, help="knowledge store (LongWiki evidence)")
    plan.add_argument("--set", type=key_value, action="append", metavar="KEY=VALUE", help="a run setting of the task")
    plan.add_argument("--latency", type=float, metavar="SECONDS", help="seconds per judge call, for the time column")
    add_price_flags(plan)
    plan.add_argument("--out", help="also write the plan as JSON")
    plan.add_argument("--overwrite", action="store_true", help="replace an --out file that plan did not write")
    plan.set_defaults(handler=_plan)
