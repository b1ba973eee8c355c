"""The ``hallubench`` command: generate test sets, run lm-eval with hallubench's tasks, re-score samples."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallubench.errors import HallubenchError


def _tasks_path(args: argparse.Namespace) -> int:
    from lm_eval_tasks import TASKS_DIR

    print(TASKS_DIR)
    return 0


def _model_args(args: argparse.Namespace) -> int:
    from hallubench.backends import embedded_model_args

    print(",".join(f"{k}={v}" for k, v in embedded_model_args().items()))
    return 0


def run_lm_eval(lm_eval_args: list[str]) -> int:
    """Run lm-eval's own CLI in-process with hallubench's task folder included."""
    from lm_eval.__main__ import cli_evaluate
    from lm_eval_tasks import TASKS_DIR

    if "--include_path" in lm_eval_args:
        raise HallubenchError("hallubench eval adds --include_path itself; call lm_eval directly to pass another one")
    sys.argv = ["lm_eval", *lm_eval_args, "--include_path", str(TASKS_DIR)]
    cli_evaluate()
    return 0


def _score(args: argparse.Namespace) -> int:
    from hallubench import report
    from hallubench.scoring import score, write_json_atomic
    from hallu_metrics.registry import BENCHMARKS

    result, _ = score(args.task, args.samples, args.judge)
    write_json_atomic(args.out, result)
    metrics = BENCHMARKS[args.task].headline
    print(report.table(result, metrics))
    if args.plot:
        report.plot(result, metrics[:3], args.plot)
        print(f"[hallubench] plot written to {args.plot}", file=sys.stderr)
    print(f"[hallubench] results written to {args.out}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from generators.cli import add_parsers
    from hallu_metrics.judges import DEFAULT_JUDGE

    parser = argparse.ArgumentParser(prog="hallubench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    add_parsers(sub)
    sub.add_parser("tasks-path", help="print the folder to pass to lm_eval --include_path").set_defaults(handler=_tasks_path)
    sub.add_parser("model-args", help="print lm_eval --model_args for the embedded SmolLM2-135M-Instruct").set_defaults(handler=_model_args)
    sub.add_parser("eval", help="lm_eval with hallubench's tasks included (all arguments pass through)", add_help=False)
    score = sub.add_parser("score", help="judge saved lm-eval samples without re-running the model")
    score.add_argument("--task", required=True)
    score.add_argument("--samples", type=Path, required=True, help="lm-eval samples_<task>_*.jsonl")
    score.add_argument("--judge", default=DEFAULT_JUDGE, help=f"judge spec (default {DEFAULT_JUDGE!r})")
    score.add_argument("--out", type=Path, required=True, help="RESULT.json to write")
    score.add_argument("--plot", type=Path, help="also draw the per-bin rates to this PNG")
    score.set_defaults(handler=_score)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["eval"]:
            return run_lm_eval(argv[1:])
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except HallubenchError as exc:
        print(f"hallubench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hallubench: interrupted (finished model calls are cached; re-run to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
