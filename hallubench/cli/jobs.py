"""``hallubench jobs``: one ``hallubench eval`` per model x set, printed or run one at a time (job arrays)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hallubench.core.errors import HallubenchError
from hallubench.reporting.jobs import finished, make_jobs, read_list


def run_jobs(args: argparse.Namespace) -> int:
    from hallubench.cli.eval import run_lm_eval

    eval_args = list(args.eval_args)
    if eval_args[:1] == ["--"]:
        eval_args = eval_args[1:]
    jobs = make_jobs(read_list(args.models, "models"), read_list(args.sets, "sets"), args.output_root, eval_args)
    if args.print:
        print("\n".join(job.command() for job in jobs))
        return 0
    if not 0 <= args.index < len(jobs):
        raise HallubenchError(f"jobs: --index {args.index} is outside the list's {len(jobs)} jobs (0-{len(jobs) - 1})")
    job = jobs[args.index]
    done = finished(job)
    if done is not None:
        print(f"[hallubench] job {args.index} ({job.model_args} on {job.dataset}) is done: {done}")
        return 0
    print(f"[hallubench] job {args.index} of {len(jobs)}: {job.command()}")
    return run_lm_eval(list(job.eval_args))


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    parser = subparsers.add_parser(
        "jobs", help="one hallubench eval per model x set: print the commands or run one (job arrays, xargs -P)",
        description=__doc__.splitlines()[0] + " Arguments after -- are hallubench eval's, shared by every job "
        "(--model, --tasks, --metadata with the judge, ...).")
    parser.add_argument("--models", type=Path, required=True,
                        help="file with one --model_args value per line, e.g. pretrained=Qwen/Qwen2.5-7B-Instruct")
    parser.add_argument("--sets", type=Path, required=True,
                        help="file with one test set per line: a folder or Hub id, optionally a space and a revision")
    parser.add_argument("--output-root", type=Path, required=True, help="jobs write OUTPUT_ROOT/<model>/<set>/")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--print", action="store_true", help="print one hallubench eval command per job")
    action.add_argument("--index", type=int, metavar="I",
                        help="run job I (0-based, models outer), e.g. --index \"$SLURM_ARRAY_TASK_ID\"")
    parser.add_argument("eval_args", nargs=argparse.REMAINDER, help="-- then hallubench eval's shared arguments")
    parser.set_defaults(handler=run_jobs)
