"""``hallubench new-benchmark``: write every piece of a working benchmark, registered (docs/design.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hallubench.core.errors import HallubenchError
from hallubench.scaffold import command as scaffold
from hallubench.scaffold.layout import piece_path
from hallubench.scaffold.names import check_new_name
from hallubench.scaffold.writer import DEFAULT_PAPER, Request, apply, plan


def new_benchmark(args: argparse.Namespace) -> int:
    if len(args.paper) > scaffold.MAX_PAPER:
        raise HallubenchError(f"--paper is {len(args.paper)} characters; cite it in at most {scaffold.MAX_PAPER} "
                              "(authors, year, section) and give the rest in the family README")
    root = scaffold.repository_root()
    request = Request(args.name, args.family, args.generator, args.judged, args.paper)
    check_new_name(root, request.name, request.family)
    planned = plan(root, request)
    apply(root, planned)
    print(f"wrote {len(planned.created)} files and edited {len(planned.edited)}:")
    for path in (*planned.created, *planned.edited):
        print(f"  {'edited ' if path in planned.edited else ''}{path}")
    for note in planned.notes:
        print(f"note: {note}")
    package = Path(piece_path("declaration", request.name, request.family)).parent
    print("next, edit the content (the contract tests pass as written):")
    for step in scaffold.NEXT_STEPS:
        print("  - " + step.format(package=package, family=request.family, name=request.name))
    return 0


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    parser = subparsers.add_parser(
        "new-benchmark", help="write every piece of a new benchmark, registered, for its content to be edited",
        description="Write a working benchmark: declaration, checks, chain, metrics, evaluate module, lm-eval YAML, "
                    "docs, tests and (--generator) a generator, registered where they must be.")
    parser.add_argument("name", help="benchmark and lm-eval task name (a lower-case Python identifier)")
    parser.add_argument("--family", required=True,
                        help="task family folder under lm_eval_tasks/ (a new one gets its README and group)")
    parser.add_argument("--generator", action="store_true", help="also write a test-set generator")
    parser.add_argument("--judged", action="store_true",
                        help="a judge grades each reply (else the model's own reply is read)")
    parser.add_argument("--paper", default=DEFAULT_PAPER,
                        help=f"the paper and section, as the docs cite it (at most {scaffold.MAX_PAPER} characters)")
    parser.set_defaults(handler=new_benchmark)
