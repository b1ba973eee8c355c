"""``hallubench score``: judge saved lm-eval samples (or Inspect logs) without re-running the model."""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hallubench.cli.options import add_cap_flags, add_price_flags, judge_role, key_value, settings_flags, share
from hallubench.core.errors import HallubenchError


def _score(args: argparse.Namespace) -> int:
    from hallu_metrics.judges.kinds import check_judge_spec
    from hallu_metrics.registry import ALL_CHECKS, benchmark_for_task
    from hallubench.core.outputs import check_output_file, check_replaceable, exclusive_output
    from hallubench.reporting.costs import gather_prices

    benchmark = benchmark_for_task(args.task)
    check_output_file(args.out, "--out")
    if args.plot is not None:
        check_output_file(args.plot, "--plot", ".png")
        if Path(args.plot).resolve() == Path(args.out).resolve():
            raise HallubenchError(f"--plot {args.plot} is also --out; choose two different files")
    flags = settings_flags(args)
    prices = gather_prices(args.price, args.price_file, benchmark.judge_roles)
    inputs = _input_paths(args, flags)
    check_replaceable(Path(args.out), "--out", "score", overwrite=args.overwrite, inputs=inputs)
    if args.plot is not None:
        check_replaceable(Path(args.plot), "--plot", "score", overwrite=args.overwrite, inputs=inputs)
    for role in benchmark.judge_roles:
        if flags.get(role):
            check_judge_spec(flags[role], checks=ALL_CHECKS)  # a bad spec fails before any work
    if args.judge_panel:
        if args.judge or len(args.judge_panel) < 2:
            raise HallubenchError("--judge-panel needs two or more judge specs, and no --judge (the panel replaces it)")
        for spec in args.judge_panel:
            check_judge_spec(spec, checks=ALL_CHECKS)
    if args.generation_runs and not args.samples:
        raise HallubenchError("--generation-runs scores several --samples runs; --dataset has no responses")
    with exclusive_output(Path(args.out), "--out"):  # a second run writing this --out is refused, not raced
        return _judge_and_write(args, benchmark, flags, prices)


def _judge_and_write(args: argparse.Namespace, benchmark: Any, flags: dict[str, str], prices: Any) -> int:
    """score's work once its checks passed: judge, write the result (and plot), print the table and warnings."""
    from hallu_metrics.contract import unreadable_banner
    from hallu_metrics.judges import failed_verdicts
    from hallubench.reporting import report
    from hallubench.reporting.budget import check_planned, make_budget, plan_samples, stopped_message
    from hallubench.reporting.compare import FROM_DATASET
    from hallubench.reporting.costs import summary_lines
    from hallubench.reporting.dataset_samples import write_dataset_samples
    from hallubench.reporting.judge_failures import failure_causes
    from hallubench.reporting.scoring import (
        ScoreOptions,
        find_runs,
        find_samples,
        score_with_error_bars,
        write_json_atomic,
    )

    with tempfile.TemporaryDirectory() as tmp:
        runs = (find_runs(args.samples, args.task) if args.generation_runs
                else [find_samples(args.samples, args.task) if args.samples else Path(tmp) / "samples.jsonl"])
        if args.generation_runs and len(runs) < 2:
            raise HallubenchError(f"--generation-runs needs two or more samples files of {args.task}; found {runs[0]}")
        if args.dataset:  # the judge scores each doc itself; the responses stay empty
            write_dataset_samples(args.task, args.dataset, runs[0])
        budget = make_budget(args.max_calls, args.max_cost, prices)
        options = ScoreOptions(flags, args.rejudge, args.retry_unparseable, prices, budget)
        if budget is not None:  # refused before any call when the plan's estimate passes a cap
            planned = ScoreOptions({**flags, "judge": args.judge_panel[0]}, args.rejudge, args.retry_unparseable,
                                   prices) if args.judge_panel else options  # a panel: its first judge, times its size
            check_planned(plan_samples(args.task, runs[0], planned), budget, len(runs) * len(args.judge_panel or [1]))
        result, records = score_with_error_bars(args.task, runs, options, args.judge_panel or ())
    if args.dataset:
        result["samples"] = f"{args.dataset}{FROM_DATASET}"
        result["dataset"].update(location=args.dataset, revision="unpinned")
    if args.model:
        result["model"] = args.model
    result["unreadable"]["max"] = args.max_unreadable
    result["date"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_json_atomic(Path(args.out), result)
    print(report.judge_line(result, benchmark))
    if result["accounting"]["total"]["calls"]:  # a judge was called (not the rule judge, not all verdicts reused)
        print("\n".join(summary_lines(result["accounting"])))
    print(report.table(result, benchmark))
    if args.plot:
        report.plot(result, benchmark, Path(args.plot))
        print(f"[hallubench] plot written to {args.plot}", file=sys.stderr)
    print(f"[hallubench] results written to {args.out}", file=sys.stderr)
    if result.get("budget", {}).get("stopped"):
        raise HallubenchError(f"{args.task}: {stopped_message(result['budget'], args.out)}")
    for warning in benchmark.run_warnings(records) if benchmark.run_warnings else ():
        print(f"[hallubench] {args.task}: warning: {warning}", file=sys.stderr)
    too_long = result.get("counts", {}).get("too_long")
    if too_long:
        print(f"[hallubench] {args.task}: {too_long} response(s) over the size limits were not judged (outcome "
              "too_long; see docs/reliability.md); they count toward no metric", file=sys.stderr)
    unreadable = result["unreadable"]
    if unreadable["items"] or result["judge_failed"]:
        served = [str(spec) for spec in result["judges"].values() if str(spec).startswith("openai:")]
        tip = ("" if not served else "; structured=false is set: without it each check's JSON schema is sent"
               if any("structured=false" in spec for spec in served) else "; each check's JSON schema was sent: if "
               "the server ignored or refused response_format (said above), a server that honours it keeps replies "
               "in shape")
        advice = "re-run to resume failed calls; --retry-unparseable re-asks unreadable replies" + tip
        print(unreadable_banner(args.task, unreadable["metric"] or "judge_unparseable_rate",
                                       unreadable["share"], unreadable["items"], result["n"], result["judge_failed"],
                                       advice), file=sys.stderr)
    if result["judge_failed"]:
        causes = failure_causes(failed_verdicts(records), result["judges"])
        for cause in causes:
            print(f"[hallubench] {args.task}: {cause}", file=sys.stderr)
        more = f"; {len(causes) - 1} more cause(s) above" if len(causes) > 1 else ""
        raise HallubenchError(
            f"{result['judge_failed']} verdicts failed ({causes[0]}{more}); fix that and re-run to resume (finished "
            "calls are cached; the result counts them as unjudged)"
        )
    unreadable_share = unreadable["share"] or 0.0
    if unreadable_share > args.max_unreadable:
        raise HallubenchError(
            f"{args.task}: {unreadable_share:.1%} of the judge verdicts are unreadable ({unreadable['metric']} "
            f"{unreadable_share:.3f} > "
            f"--max-unreadable {args.max_unreadable:g}); the result leaves them out of every metric: fix the judge's "
            "format or re-ask with --retry-unparseable"
        )
    return 0


def _input_paths(args: argparse.Namespace, flags: dict[str, str]) -> list[Path]:
    """Every file or folder this score run reads: samples, dataset, and any path named by a flag or a judge spec."""
    values: list[str] = [*(args.samples or []), *([args.dataset] if args.dataset else [])]
    for value in flags.values():
        values.extend([value, *(part.partition("=")[2] for part in value.split(","))])
    return [Path(v) for v in values if v and Path(v).exists()]


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    from hallu_metrics.judges import DEFAULT_JUDGE
    from hallu_metrics.registry import TASKS

    score = subparsers.add_parser(
        "score",
        help="judge saved lm-eval samples without re-running the model",
        description="Judge saved lm-eval samples and write RESULT.json (docs/results.md).",
    )
    score.add_argument(
        "--task",
        required=True,
        choices=sorted(TASKS),
        metavar="TASK",
        help="the lm-eval task the samples belong to: " + ", ".join(sorted(TASKS)),
    )
    given = score.add_mutually_exclusive_group(required=True)
    given.add_argument(
        "--samples",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="lm-eval's samples_<TASK>_<date>.jsonl (written with --log_samples), or folders holding it (searched "
        "recursively, e.g. out/), or an Inspect log (.eval, .json) of `inspect eval hallubench/<TASK>`; several "
        "files or folders may be given (a shell glob) but they must come down to "
        "one run of --task: several runs are refused, listed newest first, unless --generation-runs",
    )
    given.add_argument(
        "--dataset",
        help="a test set instead of samples, every response empty: for tasks whose "
        "judge scores the doc itself (faithfulness_hhem, faithfulness_baseline)",
    )
    score.add_argument(
        "--judge",
        help="judge spec: rule, openai:..., hf:..., smollm2, hhem:..., nli:... (default: the judge the samples log "
        f"records, else the task's default judge, {DEFAULT_JUDGE!r} for most tasks)",
    )
    score.add_argument(
        "--judge-panel",
        nargs="+",
        metavar="SPEC",
        help="several judges (each as --judge SPEC): per item the reported record is the majority outcome's (a "
        "tie: the earliest judge's), and the result gives the std of the judges' values "
        "(error_bars.judge; docs/stability.md, three error bars)",
    )
    score.add_argument(
        "--generation-runs",
        action="store_true",
        help="the --samples files are several runs of one model on one set (seeds): score them all, report their "
        "pooled values and the std across runs (error_bars.generation; docs/stability.md, three error bars)",
    )
    score.add_argument(
        "--judge-role",
        type=judge_role,
        action="append",
        metavar="judge_ROLE=SPEC",
        help="a judge for one role of a multi-step benchmark (e.g. judge_claims=SPEC)",
    )
    score.add_argument(
        "--retry-unparseable", action="store_true", help="re-ask judge replies that were cached but could not be read"
    )
    score.add_argument(
        "--rejudge",
        action="store_true",
        help="judge every item again (default: reuse the verdicts lm-eval's run left in the samples log and judge only "
        "items without one; a flag that changes a setting of the run, e.g. another judge, also judges everything)",
    )
    score.add_argument(
        "--set",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a run setting of the task (e.g. retrieval=bm25, longwiki_k=64, top_k=5), overriding what the samples "
        "log recorded (docs/results.md, run settings)",
    )
    score.add_argument(
        "--knowledge",
        type=Path,
        help="knowledge store for long-form evidence (LongWiki; default $HALLUBENCH_KNOWLEDGE)",
    )
    score.add_argument(
        "--max-unreadable",
        type=share,
        default=0.05,
        metavar="SHARE",
        help="exit 2 when the share of items without a readable judge verdict (judge_unparseable_rate) exceeds SHARE "
        "(default: 0.05); the result is written either way",
    )
    add_price_flags(score)
    add_cap_flags(score)
    score.add_argument("--model", help="name of the model under test, for tables and plots")
    score.add_argument("--out", required=True, help="RESULT.json to write")
    score.add_argument("--plot", help="also draw the breakdowns to this PNG")
    score.add_argument("--overwrite", action="store_true",
                       help="replace --out / --plot files that hallubench score did not write (never an input)")
    score.set_defaults(handler=_score)
