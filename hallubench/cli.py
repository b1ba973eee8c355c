"""The ``hallubench`` command: generate test sets, run lm-eval with hallubench's tasks, re-score samples."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hallubench.errors import HallubenchError


def _tasks_path(args: argparse.Namespace) -> int:
    from hallubench_tasks import TASKS_DIR

    print(TASKS_DIR)
    return 0


def _model_args(args: argparse.Namespace) -> int:
    from hallubench.backends import embedded_model_args

    print(",".join(f"{k}={v}" for k, v in embedded_model_args().items()))
    return 0


def run_lm_eval(lm_eval_args: list[str]) -> int:
    """Run lm-eval's own CLI in-process with hallubench's task folder included, after the checks of
    ``hallubench.eval_checks`` (all made before any model loads). Exit 2 when judging raised after generation (the
    responses are saved for ``hallubench score``; the message says where)."""
    from lm_eval.__main__ import cli_evaluate

    from hallubench.backends.budget import RUN_BUDGET
    from hallubench.budget_caps import check_planned, eval_prices, make_budget, plan_eval, split_eval_args
    from hallubench.eval_checks import check_eval_args, own_tasks_only
    from hallubench_tasks import TASKS_DIR
    from hallubench_tasks.judged_task import JUDGING_FAILURES

    caps, lm_eval_args = split_eval_args(lm_eval_args)  # --max-calls / --max-cost and their prices are hallubench's
    if "--include_path" in lm_eval_args or any(a.startswith("--include_path=") for a in lm_eval_args):
        raise HallubenchError("hallubench eval adds --include_path itself; call lm_eval directly to pass another one")
    prices = eval_prices(caps)
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


def _flags(args: argparse.Namespace) -> dict[str, str]:
    """score's settings flags (they override what the samples log recorded): ``--judge``, ``--judge-role``,
    ``--knowledge`` and ``--set KEY=VALUE`` for any option the benchmark declares."""
    from hallu_metrics.registry import benchmark_for_task
    from hallu_metrics.settings import setting_keys

    benchmark = benchmark_for_task(args.task)
    flags = dict(args.set or [])
    unknown = sorted(set(flags) - set(benchmark.options))
    if unknown:
        known = ", ".join(benchmark.options) or "none"
        raise HallubenchError(f"--set {unknown[0]}: not a setting of {args.task} (its settings: {known})")
    flags.update(args.judge_role or [])
    stray = sorted(set(flags) - set(setting_keys(benchmark)))
    if stray:
        raise HallubenchError(f"--judge-role {stray[0]}: {args.task} has no such judge role (its roles: "
                              f"{', '.join(benchmark.judge_roles) or 'none'})")
    if args.judge:
        flags["judge"] = args.judge
    if args.knowledge:
        flags["knowledge"] = str(args.knowledge)
    return flags


def _score(args: argparse.Namespace) -> int:
    from hallu_metrics.judges.kinds import check_judge_spec
    from hallu_metrics.registry import benchmark_for_task
    from hallubench.costs import gather_prices
    from hallubench.outputs import check_output_file, check_replaceable, exclusive_output

    benchmark = benchmark_for_task(args.task)
    check_output_file(args.out, "--out")
    if args.plot is not None:
        check_output_file(args.plot, "--plot", ".png")
        if Path(args.plot).resolve() == Path(args.out).resolve():
            raise HallubenchError(f"--plot {args.plot} is also --out; choose two different files")
    flags = _flags(args)
    prices = gather_prices(args.price, args.price_file, benchmark.judge_roles)
    inputs = _input_paths(args, flags)
    check_replaceable(Path(args.out), "--out", "score", overwrite=args.overwrite, inputs=inputs)
    if args.plot is not None:
        check_replaceable(Path(args.plot), "--plot", "score", overwrite=args.overwrite, inputs=inputs)
    for role in benchmark.judge_roles:
        if flags.get(role):
            check_judge_spec(flags[role])  # a bad spec fails before any work
    if args.judge_panel:
        if args.judge or len(args.judge_panel) < 2:
            raise HallubenchError("--judge-panel needs two or more judge specs, and no --judge (the panel replaces it)")
        for spec in args.judge_panel:
            check_judge_spec(spec)
    if args.generation_runs and not args.samples:
        raise HallubenchError("--generation-runs scores several --samples runs; --dataset has no responses")
    with exclusive_output(Path(args.out), "--out"):  # a second run writing this --out is refused, not raced
        return _judge_and_write(args, benchmark, flags, prices)


def _judge_and_write(args: argparse.Namespace, benchmark: Any, flags: dict[str, str], prices: Any) -> int:
    """score's work once its checks passed: judge, write the result (and plot), print the table and warnings."""
    from hallu_metrics.contract import unreadable_banner
    from hallu_metrics.judges import failed_verdicts
    from hallubench import report
    from hallubench.budget_caps import check_planned, make_budget, plan_samples, stopped_message
    from hallubench.compare import FROM_DATASET
    from hallubench.costs import summary_lines
    from hallubench.dataset_samples import write_dataset_samples
    from hallubench.judge_failures import failure_causes
    from hallubench.scoring import ScoreOptions, find_runs, find_samples, score_with_error_bars, write_json_atomic

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
    share = unreadable["share"] or 0.0
    if share > args.max_unreadable:
        raise HallubenchError(
            f"{args.task}: {share:.1%} of the judge verdicts are unreadable ({unreadable['metric']} {share:.3f} > "
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


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return value


def _report(args: argparse.Namespace) -> int:
    from hallubench.compare import CSV_HEADER, draw, load_results, planned_plots, tables
    from hallubench.jobs import results_files
    from hallubench.outputs import MARKDOWN_MARK, check_replaceable, write_text_atomic
    from hallubench.stability import CSV_HEADER as STABILITY_HEADER
    from hallubench.stability import (
        attach_set_spread,
        draw_stability,
        stability_plot_path,
        stability_tables,
        trial_groups,
    )

    sources = results_files([Path(p) for p in args.results])  # a folder: its runs' newest lm-eval results files
    if args.paper:
        from hallubench.paper_tables import paper_report

        return paper_report(args.paper, sources, args.out, args.overwrite)
    if not sources:
        raise HallubenchError("report: expected RESULTS (RESULT.json or lm-eval results_*.json files), or --paper")
    rows = load_results(sources)
    groups, trial_notes = trial_groups(rows, [Path(p) for p in args.trials or []])
    attach_set_spread(groups)  # the set's spread beside the run and judge spreads on each row's spread line
    if args.push_results or args.results_dir:
        from hallubench.hub_results import publish

        publish(rows, args.push_results, args.repo_type, args.results_dir, args.benchmark)
    markdown, csv_text = tables(rows, args.view)
    stable_markdown, stable_csv = stability_tables(groups, trial_notes)
    markdown += f"\n{stable_markdown}" if stable_markdown else ""
    print(markdown)
    if args.out:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise HallubenchError(f"--out {out} is a file; expected a folder for the report")
        plots = planned_plots(rows, out)
        stable_plots = [(g, stability_plot_path(g, out)) for g in groups]
        for path in (out / "report.md", out / "report.csv", *(p.path for p in plots), *(p for _, p in stable_plots)):
            check_replaceable(path, "--out", "report", overwrite=args.overwrite, inputs=sources,
                              csv_header=",".join(CSV_HEADER))
        if groups:
            check_replaceable(out / "stability.csv", "--out", "report", overwrite=args.overwrite, inputs=sources,
                              csv_header=",".join(STABILITY_HEADER))
        write_text_atomic(out / "report.md", f"{MARKDOWN_MARK}\n{markdown}")
        write_text_atomic(out / "report.csv", csv_text)
        if groups:
            write_text_atomic(out / "stability.csv", stable_csv)
        for group, path in stable_plots:
            draw_stability(group, path)
            print(f"[hallubench] plot written to {path}", file=sys.stderr)
        for plot in plots:
            draw(plot)
            print(f"[hallubench] plot written to {plot.path}", file=sys.stderr)
        print(f"[hallubench] tables written to {out / 'report.md'} and {out / 'report.csv'}", file=sys.stderr)
    return 0


def add_price_flags(parser: argparse.ArgumentParser) -> None:
    """``--price ROLE=IN/OUT`` and ``--price-file`` (docs/cost.md)."""
    parser.add_argument("--price", action="append", metavar="ROLE=IN/OUT",
                        help="USD per 1M input/output tokens of a judge role (judge: every role), e.g. "
                        "judge=0.15/0.60; repeatable (docs/cost.md)")
    parser.add_argument("--price-file", type=Path, metavar="YAML",
                        help="prices by role, judge spec or model name: KEY: IN/OUT (docs/cost.md)")


def _role(text: str) -> tuple[str, str]:
    role, sep, spec = text.partition("=")
    if not sep or not role.startswith("judge_") or not spec:
        raise argparse.ArgumentTypeError(f"expected judge_ROLE=SPEC, got {text!r}")
    return role, spec


SUBCOMMANDS: dict[str, str] = {  # name -> help, listed by `hallubench --help` without importing any of them
    "generate": "materialise a fresh test set as a Hugging Face dataset",
    "knowledge": "build or index a knowledge store for long-form evidence",
    "judge-templates": "list judge checks and their template fields, or print one built-in prompt as a template file",
    "tasks-path": "print the folder to pass to lm_eval --include_path",
    "model-args": "print lm_eval --model_args for the embedded SmolLM2-135M-Instruct",
    "eval": "lm_eval with hallubench's tasks included (all arguments pass through)",
    "jobs": "one hallubench eval per model x set: print the commands or run one (job arrays, xargs -P)",
    "score": "judge saved lm-eval samples without re-running the model",
    "report": "compare models: one table per benchmark (markdown + CSV) and plots",
    "agreement": "calibrate a judge: agreement with the shipped labels, your labels, or another judge",
    "view": "write one static HTML page to browse scored items (prompt, response, judge steps, evidence)",
    "plan": "expected judge calls, tokens, time and cost of judging a set, before anything is judged",
    "new-benchmark": "write every piece of a new benchmark, registered, for its content to be edited",
}


def _add_score(subparsers: argparse._SubParsersAction) -> None:
    from hallu_metrics.judges import DEFAULT_JUDGE
    from hallu_metrics.registry import TASKS
    from hallubench.budget_caps import add_cap_flags

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
        type=_role,
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
        type=_key_value,
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
        type=_share,
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


def _add_report(subparsers: argparse._SubParsersAction) -> None:
    compare = subparsers.add_parser(
        "report",
        help="compare models: one table per benchmark (markdown + CSV) and plots",
        description="Tables and comparison plots from RESULT.json / lm-eval results files.",
    )
    compare.add_argument("results", nargs="*", help="hallubench score RESULT.json files, lm-eval results_*.json or "
                         "Inspect logs (.eval, .json) of hallubench's Inspect tasks (optional with --paper); a "
                         "folder stands for the newest results_*.json of every folder under it (hallubench jobs)")
    compare.add_argument("--paper", metavar="BENCH", help="print a paper's published table for BENCH (e.g. "
                         "precisewikiqa, halueval) with your results for the same models beside it; --out writes "
                         "paper.md")
    compare.add_argument("--out", help="folder for report.md, report.csv and one PNG per task and breakdown")
    compare.add_argument("--overwrite", action="store_true",
                         help="replace files in --out that hallubench report did not write (never an input)")
    compare.add_argument("--view", metavar="PAGE", help="link each table row to its items in this hallubench view "
                         "page, as report.md reaches it (e.g. view.html when written into --out; docs/viewer.md)")
    compare.add_argument("--trials", action="append", metavar="PARENT",
                         help="a trials folder of generate --trials (repeatable): results on its sets get a stability "
                         "section (docs/stability.md); found by itself beside the sets the results name")
    hub = compare.add_argument_group("Hub leaderboards (README, publishing results)")
    hub.add_argument("--push-results", metavar="REPO", help="publish the results to this Hub repo in the Hub's "
                     ".eval_results format, one commit (token: HF_TOKEN), shown on the benchmark's leaderboards")
    hub.add_argument("--repo-type", choices=("model", "dataset"), default="model",
                     help="--push-results REPO is a model repo (one model's results; default) or a leaderboard dataset")
    hub.add_argument("--results-dir", type=Path, metavar="DIR",
                     help="write the files --push-results would push under DIR to inspect them (alone: nothing pushed)")
    hub.add_argument("--benchmark", metavar="REPO@REVISION", help="the Hub release the results were made on (default: "
                     "the dataset and revision each result records)")
    compare.set_defaults(handler=_report)


Builder = Callable[[argparse._SubParsersAction], None]


def _add_simple(name: str, handler: Callable[[argparse.Namespace], int]) -> Builder:
    return lambda subparsers: subparsers.add_parser(name, help=SUBCOMMANDS[name]).set_defaults(handler=handler)


def _builders(argv: list[str] | None) -> dict[str, Builder]:
    """Each subcommand's full parser builder (imports happen inside, when it is built)."""

    def generate(subparsers: argparse._SubParsersAction) -> None:
        from hallubench_generators.cli import add_parsers

        add_parsers(subparsers, only=None if argv is None else (argv[1:2] or [""])[0])

    def knowledge(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.knowledge_cli import add_parser

        add_parser(subparsers)

    def judge_templates(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.judge_templates_cli import add_parser

        add_parser(subparsers)

    def agreement(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.agreement import add_parser

        add_parser(subparsers)

    def view(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.viewer import add_parser

        add_parser(subparsers)

    def plan(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.plan import add_parser

        add_parser(subparsers)

    def jobs(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.jobs import add_parser

        add_parser(subparsers)

    def new_benchmark(subparsers: argparse._SubParsersAction) -> None:
        from hallubench.scaffold.command import add_parser

        add_parser(subparsers)

    return {"generate": generate, "knowledge": knowledge, "judge-templates": judge_templates, "agreement": agreement,
            "view": view, "plan": plan, "tasks-path": _add_simple("tasks-path", _tasks_path),
            "model-args": _add_simple("model-args", _model_args), "score": _add_score, "report": _add_report,
            "new-benchmark": new_benchmark, "jobs": jobs}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser. With ``argv`` only the subcommand it names is built in full (and only its modules are
    imported: `hallubench --help` and `tasks-path` load nothing heavy); without, every subcommand."""
    parser = argparse.ArgumentParser(prog="hallubench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    builders = _builders(argv)
    for name, help_text in SUBCOMMANDS.items():
        if name in builders and (argv is None or argv[:1] == [name]):
            builders[name](sub)
        else:
            sub.add_parser(name, help=help_text, add_help=name != "eval")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["eval"] and any(a == "--trials" or a.startswith("--trials=") for a in argv[1:]):
            from hallubench.stability import run_eval_trials

            return run_eval_trials(argv[1:], run_lm_eval)
        if argv[:1] == ["eval"]:
            return run_lm_eval(argv[1:])
        try:
            args = build_parser(argv).parse_args(argv)
        except SystemExit as exc:  # argparse: usage + one-line error already printed
            return int(exc.code or 0)
        return args.handler(args)
    except HallubenchError as exc:
        print(f"hallubench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"hallubench: interrupted; {interrupted_note(argv[:1] == ['eval'])}", file=sys.stderr)
        return 130


def interrupted_note(evaluating: bool) -> str:
    """What an interrupted run keeps, and where: judge calls in the call cache; for ``eval``, the responses of a task
    interrupted while judging (saved by its filter, path printed above), not the model's generations."""
    from hallubench.backends.cache import default_cache_path

    kept = f"finished judge calls are cached in {default_cache_path()}, so a re-run does not pay for them again"
    if not evaluating:
        return kept
    return (f"{kept}; a task interrupted while judging saved its responses (the path is printed above). The model's "
            "generations are not kept by hallubench: pass lm-eval's --use_cache PATH to keep them for a re-run")


if __name__ == "__main__":
    sys.exit(main())
