"""Inspect eval logs (``.eval``, or ``.json`` as ``inspect eval --log-format json`` writes them) of hallubench's Inspect
tasks, read as lm-eval samples logs are: each sample becomes an lm-eval samples line (``doc`` from the sample's
metadata, ``resps`` its output, ``filtered_resps`` the judged record its score holds), so ``hallubench score``
re-judges a log and ``report`` / ``view`` show it beside lm-eval runs. ``inspect_ai`` is imported only when a log is
read: telling a log from other files needs none."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallubench.core.errors import HallubenchError
from hallubench.inspect_tasks import DATASET_KEY, RECORD_KEY

TASK_PREFIX = "hallubench/"
_LOG_HEAD = re.compile(r'\s*\{\s*"version"\s*:')  # an Inspect JSON log starts with its format version


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect log: an ``.eval`` file, or a ``.json`` whose top holds ``eval`` and ``version``
    (not lm-eval's results file, nor a `hallubench score` result)."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return bool(_LOG_HEAD.match(head)) and '"eval"' in head


def read_log(path: Path, header_only: bool = False) -> Any:
    """The ``EvalLog`` at ``path`` (one line when it cannot be read)."""
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # zip, JSON and schema errors of many types
        raise HallubenchError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {exc})") from exc


@dataclass(frozen=True)
class InspectRun:
    """What an Inspect log's header tells of its run: the hallubench task, the model, the set, when it ran."""

    task: str
    model: str
    dataset: Mapping[str, Any]
    date: str


def run_of(path: Path) -> InspectRun:
    """The run of a log of a hallubench Inspect task; one line for a log of another task."""
    log = read_log(path, header_only=True)
    name = log.eval.task
    if not name.startswith(TASK_PREFIX):
        raise HallubenchError(f"{path}: an Inspect log of task {name!r}, not of a hallubench task "
                              f"({TASK_PREFIX}<task>)")
    dataset = (log.eval.metadata or {}).get(DATASET_KEY)
    return InspectRun(name.removeprefix(TASK_PREFIX), str(log.eval.model),
                      dataset if isinstance(dataset, dict) else {}, str(log.eval.created))


def _judged(sample: Any) -> tuple[dict | None, dict[str, Any]]:
    """The judged record a sample's score holds, and the score's metric values; (None, {}) when it has none."""
    for score in (sample.scores or {}).values():
        record = (score.metadata or {}).get(RECORD_KEY)
        if isinstance(record, dict):
            return record, dict(score.value) if isinstance(score.value, Mapping) else {}
    return None, {}


def sample_lines(path: Path, task: str) -> list[dict[str, Any]]:
    """The log's samples of the first epoch as lm-eval samples lines, in the set's order; one line when the log is
    of another task or holds no samples. A sample without a judged record (an error before scoring) has none."""
    import hallubench.inspect_tasks.grader  # noqa: F401  (its judge spec may be among the recorded settings)

    run = run_of(path)
    if run.task != task:
        raise HallubenchError(f"{path} is an Inspect log of {run.task}, not of --task {task}")
    log = read_log(path)
    samples = sorted((s for s in log.samples or () if s.epoch == 1), key=lambda s: s.id)
    if not samples:
        raise HallubenchError(f"{path} holds no samples")
    lines = []
    for sample in samples:
        record, values = _judged(sample)
        lines.append({
            "doc_id": sample.id, "doc": dict(sample.metadata or {}),
            "arguments": {"gen_args_0": {"arg_0": sample.input if isinstance(sample.input, str) else ""}},
            "resps": [[sample.output.completion if sample.output else ""]],
            "filtered_resps": [json.dumps(record, ensure_ascii=False)] if record is not None else [],
            "target": sample.target, **values, "metrics": list(values)})
    return lines
