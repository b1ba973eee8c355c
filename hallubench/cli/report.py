"""``hallubench report``: tables, plots, stability sections and Hub results from result files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallubench.core.errors import HallubenchError


def _report(args: argparse.Namespace) -> int:
    from hallubench.core.outputs import MARKDOWN_MARK, check_replaceable, write_text_atomic
    from hallubench.reporting.compare import CSV_HEADER, draw, load_results, planned_plots, tables
    from hallubench.reporting.jobs import results_files
    from hallubench.reporting.stability import CSV_HEADER as STABILITY_HEADER
    from hallubench.reporting.stability import (
        attach_set_spread,
        draw_stability,
        stability_plot_path,
        stability_tables,
        trial_groups,
    )

    sources = results_files([Path(p) for p in args.results])  # a folder: its runs' newest lm-eval results files
    if args.paper:
        from hallubench.reporting.paper_tables import paper_report

        return paper_report(args.paper, sources, args.out, args.overwrite)
    if not sources:
        raise HallubenchError("report: expected RESULTS (RESULT.json or lm-eval results_*.json files), or --paper")
    rows = load_results(sources)
    groups, trial_notes = trial_groups(rows, [Path(p) for p in args.trials or []])
    attach_set_spread(groups)  # the set's spread beside the run and judge spreads on each row's spread line
    if args.push_results or args.results_dir:
        from hallubench.reporting.hub_results import publish

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


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
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
