"""The ``hallubench`` command: generate test sets, run lm-eval with hallubench's tasks, re-score samples.

One module per subcommand in this package, each with ``add_parser(subparsers, argv)``; ``SUBCOMMANDS`` is the table
of them. Only the chosen subcommand's module is imported, so `hallubench --help` and `tasks-path` load nothing heavy
and `generate NAME` only that generator."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from hallubench.core.errors import HallubenchError

# name -> (module of this package, help); `hallubench --help` lists them without importing any
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "generate": ("generate", "materialise a fresh test set as a Hugging Face dataset"),
    "knowledge": ("knowledge", "build or index a knowledge store for long-form evidence"),
    "judge-templates": ("judge_templates", "list judge checks and their template fields, or print one built-in "
                        "prompt as a template file"),
    "tasks-path": ("info", "print the folder to pass to lm_eval --include_path"),
    "model-args": ("info", "print lm_eval --model_args for the embedded SmolLM2-135M-Instruct"),
    "eval": ("eval", "lm_eval with hallubench's tasks included (all arguments pass through)"),
    "jobs": ("jobs", "one hallubench eval per model x set: print the commands or run one (job arrays, xargs -P)"),
    "score": ("score", "judge saved lm-eval samples without re-running the model"),
    "report": ("report", "compare models: one table per benchmark (markdown + CSV) and plots"),
    "agreement": ("agreement", "calibrate a judge: agreement with the shipped labels, your labels, or another judge"),
    "view": ("view", "write one static HTML page to browse scored items (prompt, response, judge steps, evidence)"),
    "plan": ("plan", "expected judge calls, tokens, time and cost of judging a set, before anything is judged"),
    "new-benchmark": ("new_benchmark", "write every piece of a new benchmark, registered, for its content to be "
                      "edited"),
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser. With ``argv`` only the subcommand it names is built in full (and only its module is
    imported); without, every subcommand."""
    parser = argparse.ArgumentParser(prog="hallubench", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_text) in SUBCOMMANDS.items():
        if name != "eval" and (argv is None or argv[:1] == [name]):
            import_module(f"{__name__}.{module}").add_parser(sub, name, argv)
        else:  # eval passes its arguments to lm_eval (main), not through this parser
            sub.add_parser(name, help=help_text, add_help=name != "eval")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["eval"]:
            from hallubench.cli import eval as eval_command

            return eval_command.main(argv[1:])
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
    from hallubench.core.backends.cache import default_cache_path

    kept = f"finished judge calls are cached in {default_cache_path()}, so a re-run does not pay for them again"
    if not evaluating:
        return kept
    return (f"{kept}; a task interrupted while judging saved its responses (the path is printed above). The model's "
            "generations are not kept by hallubench: pass lm-eval's --use_cache PATH to keep them for a re-run")

