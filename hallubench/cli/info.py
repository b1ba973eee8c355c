"""``hallubench tasks-path`` and ``hallubench model-args``: what to pass to plain lm_eval."""

from __future__ import annotations

import argparse


def _tasks_path(args: argparse.Namespace) -> int:
    from hallubench_tasks import TASKS_DIR

    print(TASKS_DIR)
    return 0


def _model_args(args: argparse.Namespace) -> int:
    from hallubench.core.backends import embedded_model_args

    print(",".join(f"{k}={v}" for k, v in embedded_model_args().items()))
    return 0


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    from hallubench.cli import SUBCOMMANDS

    handler = _tasks_path if name == "tasks-path" else _model_args
    subparsers.add_parser(name, help=SUBCOMMANDS[name][1]).set_defaults(handler=handler)
