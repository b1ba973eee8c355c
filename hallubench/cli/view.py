"""``hallubench view``: one static HTML page of the items behind the numbers (docs/viewer.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallubench.reporting.viewer import write_view


def _view(args: argparse.Namespace) -> int:
    page = write_view(args.inputs, args.out, model=args.model, task=args.task, knowledge=args.knowledge,
                      overwrite=args.overwrite)
    print(f"[hallubench] viewer page written to {page} (open it in a browser; filters go in the URL after #, e.g. "
          f"{page.name}#task=TASK&model=MODEL)", file=sys.stderr)
    return 0


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    """The ``view`` subcommand."""
    view = subparsers.add_parser(
        "view", help="write one static HTML page to browse scored items (prompt, response, judge steps, evidence)",
        description="Write OUT/view.html: every item of lm-eval samples logs (samples_<task>_*.jsonl, or any samples "
        "file named itself) and of the samples logs that hallubench score results name, with filters (task, model, "
        "run, set, date, ...), judge steps (the rule judge's reasons, both replies around a reminder turn) and "
        "long-form evidence.")
    view.add_argument("inputs", nargs="+", type=Path, metavar="RUN_DIR_OR_FILES",
                      help="samples files (any name), score result.json files, Inspect logs (.eval, .json) of "
                      "hallubench's Inspect tasks, or folders searched for samples_<task>_<date>.jsonl, result.json "
                      "files and Inspect logs")
    view.add_argument("--out", required=True, type=Path, help="folder for view.html")
    view.add_argument("--model", help="model name for samples logs that no result names (default: their folder)")
    view.add_argument("--task", help="task of the samples files named on the command line (default: the one their "
                      "name samples_<task>_<date>.jsonl or their records tell)")
    view.add_argument("--knowledge", type=Path,
                      help="knowledge store for LongWiki evidence texts (default: the one the run recorded)")
    view.add_argument("--overwrite", action="store_true",
                      help="replace a view.html that hallubench view did not write (never an input)")
    view.set_defaults(handler=_view)
