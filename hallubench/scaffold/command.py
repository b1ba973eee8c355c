"""The ``new-benchmark`` subcommand: refuse a taken or malformed name, plan, write, and say what to edit next."""

from __future__ import annotations

import argparse
from pathlib import Path

from hallubench.errors import HallubenchError
from hallubench.scaffold.layout import piece_path
from hallubench.scaffold.names import check_new_name
from hallubench.scaffold.writer import DEFAULT_PAPER, Request, apply, plan

MAX_PAPER = 100  # a citation that fits one code line of the declaration
NEXT_STEPS = (
    "the columns, metrics and breakdowns in {package}/__init__.py and metrics.py",
    "the judging chain in {package}/chain.py and the checks and prompts it asks (judged)",
    "the labelled set and its provenance under {package}/labels/, and the reply corpus in tests/reply_corpora/",
    "the paper, citation and task section in lm_eval_tasks/{family}/README.md, and docs/{name}.md",
    "the metric-path case {name}_case in tests/test_metric_paths.py, to cover the real chain's branches",
)


def repository_root() -> Path:
    """The checkout holding this ``hallubench`` package: the scaffold writes source files, not an installed copy."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file() or not (root / "hallu_metrics" / "registry.py").is_file():
        raise HallubenchError(f"new-benchmark writes into a source checkout, and {root} is none: run it from an "
                              "editable install (pip install -e .) or with PYTHONPATH set to the checkout")
    return root


def new_benchmark(args: argparse.Namespace) -> int:
    if len(args.paper) > MAX_PAPER:
        raise HallubenchError(f"--paper is {len(args.paper)} characters; cite it in at most {MAX_PAPER} (authors, "
                              "year, section) and give the rest in the family README")
    root = repository_root()
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
    for step in NEXT_STEPS:
        print("  - " + step.format(package=package, family=request.family, name=request.name))
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
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
                        help=f"the paper and section, as the docs cite it (at most {MAX_PAPER} characters)")
    parser.set_defaults(handler=new_benchmark)
