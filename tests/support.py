"""Helpers shared by the test modules (fixtures built on them live in conftest.py).

- ``task_manager``: lm-eval's task index over hallubench's folder only (0.3 s, against 10-20 s for lm-eval's
  ~15k built-in tasks); exactly one slow test (test_contract) builds the full index to prove no name clashes.
- ``run_cli``: the ``hallubench`` command in-process (``main(argv)``), its exit code and what it printed.
- ``write_jsonl`` / ``save_set``: JSON lines and saved ``DatasetDict`` test sets.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def task_manager(metadata: Mapping[str, Any] | None = None, *, include_defaults: bool = False):
    """A ``TaskManager`` indexing hallubench's tasks (and lm-eval's own only when asked)."""
    from lm_eval.tasks import TaskManager

    from hallubench_tasks import TASKS_DIR

    return TaskManager(include_path=str(TASKS_DIR), include_defaults=include_defaults,
                       metadata=dict(metadata) if metadata is not None else None)


def load_task(name: str, metadata: Mapping[str, Any] | None = None):
    """One hallubench task built by lm-eval from its YAML with ``metadata`` (as ``--metadata`` passes it)."""
    return task_manager(metadata).load([name])["tasks"][name]


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*argv: str | Path) -> CliRun:
    """``hallubench ARGV`` in this process: exit code and captured output (as a subprocess would give them)."""
    from hallubench.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return CliRun(code, out.getvalue(), err.getvalue())


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """``rows`` as JSON lines (UTF-8, non-ASCII kept); returns ``path``."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def save_set(path: Path, rows: list[Mapping[str, Any]], split: str = "test") -> Path:
    """``rows`` saved as a ``DatasetDict`` with one split (what ``hallubench generate`` writes); returns ``path``."""
    import datasets

    datasets.DatasetDict({split: datasets.Dataset.from_list(list(rows))}).save_to_disk(str(path))
    return path
