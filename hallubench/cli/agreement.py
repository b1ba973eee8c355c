"""``hallubench agreement``: a judge's agreement with shipped labels, your labels, or another judge
(docs/agreement.md)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallubench.core.errors import HallubenchError
from hallubench.reporting.agreement_figures import (
    KINDS,
)

if TYPE_CHECKING:
    pass
from hallubench.reporting.agreement import (
    SPLITS,
    AgreementRun,
    markdown,
    shipped_sections,
    user_label_sections,
    versus_sections,
)


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    parser = subparsers.add_parser(
        "agreement", help="a judge's agreement with labels: shipped sets, your labels, or another judge",
        description="Calibrate a judge: on the labelled sets shipped for the task (default), on --labels FILE, or "
        "against another judge (--vs SPEC --samples LOG). docs/agreement.md.")
    parser.add_argument("--task", required=True, help="the benchmark's lm-eval task name (e.g. precisewikiqa)")
    parser.add_argument("--judge", required=True, help="the judge spec to calibrate (rule, openai:..., hf:...)")
    parser.add_argument("--role", help="only the checks this judge role answers (e.g. judge_verify)")
    parser.add_argument("--check", help="only this check (hallubench judge-templates lists them)")
    parser.add_argument("--split", choices=SPLITS, default="all",
                        help="the part of the shipped sets to judge (default all; holdout figures shown unless tuning)")
    parser.add_argument("--labels", type=Path,
                        help="your labels instead of the shipped ones: JSON lines, the check's fields and 'label'")
    parser.add_argument("--kind", choices=KINDS,
                        help="kind of --labels (default: the shipped set's kind for that check, else categorical)")
    parser.add_argument("--vs", metavar="SPEC", help="a second judge to compare with (needs --samples)")
    parser.add_argument("--samples", type=Path, help="lm-eval samples log whose items both judges judge (with --vs): "
                        "samples_<TASK>_<date>.jsonl, or a folder holding one run's")
    parser.add_argument("--knowledge", type=Path, help="knowledge store for long-form evidence with --vs (LongWiki; "
                        "default: the one the samples log records, else $HALLUBENCH_KNOWLEDGE)")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an --out file that hallubench agreement did not write (never an input)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals (default 0)")
    parser.set_defaults(handler=agreement_command)


def _check_flags(args: argparse.Namespace, benchmark: Any) -> None:
    """One-line errors for flags that do not go together or name nothing of the task."""
    pairs = [(args.vs and not args.samples, "--vs needs --samples (the lm-eval samples log both judges judge)"),
             (args.samples and not args.vs, "--samples needs --vs SPEC (the judge to compare --judge with)"),
             (args.labels and args.samples, "--labels and --samples do not go together: labels calibrate against "
              "people, --vs --samples against another judge"),
             (args.labels and not args.check, "--labels needs --check (the check the labels answer)"),
             (args.kind and not args.labels, "--kind describes --labels; the shipped sets and --vs know their kinds"),
             (args.split != "all" and (args.labels or args.vs), "--split chooses part of the shipped sets; it does "
              "not apply to --labels or --vs"),
             (args.knowledge and not args.vs, "--knowledge is evidence for judging a samples log with --vs")]
    for wrong, message in pairs:
        if wrong:
            raise HallubenchError(message)
    if not benchmark.judge_roles:
        raise HallubenchError(f"--task {args.task}: no judge to calibrate (its metrics read the model's own replies)")
    checks = [check.name for check in benchmark.checks]
    if args.check is not None and args.check not in checks:
        raise HallubenchError(f"--check {args.check}: {args.task} has no such check (its checks: "
                              f"{', '.join(dict.fromkeys(checks)) or 'none'})")
    if args.role is not None and args.role not in benchmark.judge_roles:
        raise HallubenchError(f"--role {args.role}: {args.task} has no such judge role (its roles: "
                              f"{', '.join(benchmark.judge_roles) or 'none'})")


def agreement_command(args: argparse.Namespace) -> int:
    from hallu_metrics.judges.kinds import check_judge_spec
    from hallu_metrics.registry import ALL_CHECKS, benchmark_for_task
    from hallubench.core.outputs import MARKER, check_output_file, check_replaceable, write_text_atomic
    from hallubench.core.specs import redact_known

    benchmark = benchmark_for_task(args.task)
    _check_flags(args, benchmark)
    run = AgreementRun(**{field.name: getattr(args, field.name) for field in fields(AgreementRun)})
    check_judge_spec(args.judge, checks=ALL_CHECKS)
    if args.vs:
        check_judge_spec(args.vs, checks=ALL_CHECKS)
    if args.out is not None:
        check_output_file(args.out, "--out", ".json")
        check_replaceable(args.out, "--out", "agreement", overwrite=args.overwrite,
                          inputs=[p for p in (args.labels, args.samples) if p is not None])
    extra = None
    if args.vs:
        sections, extra = versus_sections(run)
    elif args.labels:
        sections = user_label_sections(run)
    else:
        sections = shipped_sections(run)
    judge = redact_known(args.judge)
    print(markdown(args.task, judge, sections, extra))
    if args.out is not None:
        payload = {"written_by": f"{MARKER} agreement", "task": args.task, "judge": judge, "seed": args.seed,
                   **(extra or {}), "checks": sections}
        write_text_atomic(args.out, json.dumps(payload, indent=2, default=str) + "\n")
        print(f"[hallubench] figures written to {args.out}", file=sys.stderr)
    return 0
