"""``hallubench view``: one static HTML page to read the items behind the numbers (docs/viewer.md): per item the
prompt, the model's response, every judge step with its raw reply and reading, long-form claims with their evidence
and verdicts, and other models' answers to the same item side by side."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallubench.outputs import check_output_file, check_replaceable, remove_stale_temporaries, write_text_atomic
from hallubench.viewer.items import find_sources, gather
from hallubench.viewer.page import PAGE_HEAD, render

PAGE_NAME = "view.html"


def _ours(path: Path) -> bool:
    """Whether ``path`` is a page `hallubench view` wrote (its first lines carry the mark)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(len(PAGE_HEAD)) == PAGE_HEAD
    except OSError:
        return False


def write_view(inputs: list[Path], out: Path, *, model: str | None = None, task: str | None = None,
               knowledge: Path | None = None, overwrite: bool = False) -> Path:
    """Gather the items of ``inputs`` and write ``out``/view.html; returns the page's path."""
    page = out / PAGE_NAME
    check_output_file(page, "view --out page", ".html")
    sources = find_sources(inputs, model, task)
    check_replaceable(page, "view page", "view", overwrite=overwrite or _ours(page), inputs=[s.path for s in sources])
    data = gather(sources, knowledge)
    title = "hallubench items: " + ", ".join(data["tasks"])
    remove_stale_temporaries(page)
    write_text_atomic(page, render(data, title))
    return page


def _view(args: argparse.Namespace) -> int:
    page = write_view(args.inputs, args.out, model=args.model, task=args.task, knowledge=args.knowledge,
                      overwrite=args.overwrite)
    print(f"[hallubench] viewer page written to {page} (open it in a browser; filters go in the URL after #, e.g. "
          f"{page.name}#task=TASK&model=MODEL)", file=sys.stderr)
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
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
