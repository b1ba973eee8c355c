"""``custom_dataset`` hook of the HaluEval tasks: source records -> judged items (``test`` split).

Where the records come from, first match wins (``<name>`` is e.g. ``halueval_qa``):
1. ``--metadata dataset_<name>=DIR_OR_HUB_ID`` (or ``dataset=``): a set made by ``hallubench generate halueval``;
2. ``--metadata halueval_data_<name>=PATH`` (or ``halueval_data=PATH``): an official JSON-lines file, or a
   folder holding ``<task>_data.json`` (or one ``<task>_data*.json``, e.g. ``qa_data_first1000.json``);
3. the official file from GitHub (RUCAIBox/HaluEval ``data/<task>_data.json``), downloaded once and cached.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
from datasets.utils.file_utils import cached_path

from hallu_metrics.halueval import OFFICIAL_URL, TASKS, build_items
from hallubench.errors import HallubenchError
from lm_eval_tasks.dataset_loading import load_test_set
from lm_eval_tasks.settings import task_setting


def load(halueval_task: str, halueval_variant: str = "standard", **metadata: Any) -> datasets.DatasetDict:
    """Judged items of one HaluEval task and prompt variant."""
    name = f"halueval_{halueval_task}" + ("" if halueval_variant == "standard" else f"_{halueval_variant}")
    if task_setting(metadata, "dataset", name)[0] is not None:
        records = load_test_set(name, TASKS[halueval_task].columns, metadata)["test"].to_list()
    else:
        location, _ = task_setting(metadata, "halueval_data", name)
        records = read_records(halueval_task, location)
    items = build_items(halueval_task, records, halueval_variant)
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(items)})


def official_file(task: str, location: str | None) -> str:
    """A local file for ``task``: the given file, the task's file in the given folder, or the cached download."""
    if location is None:
        url = OFFICIAL_URL.format(task=task)
        try:
            return cached_path(url)
        except Exception as exc:  # offline, HTTP errors, ...
            raise HallubenchError(f"cannot download {url} ({type(exc).__name__}: {exc}); pass a local copy with --metadata halueval_data=PATH") from exc
    path = Path(location).expanduser()
    if path.is_file():
        return str(path)
    if not path.is_dir():
        raise HallubenchError(f"{location}: no such file or folder")
    candidates = [path / f"{task}_data.json"] if (path / f"{task}_data.json").is_file() else sorted(path.glob(f"{task}_data*.json"))
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise HallubenchError(f"{location}: need one {task}_data*.json in this folder for the {task} task (found: {found})")
    return str(candidates[0])


def read_json_records(path: str) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file (HaluEval's ``.json`` files are JSON lines) or of a JSON array."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        if text.lstrip().startswith("["):
            records = json.loads(text)
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise HallubenchError(f"{path}: neither JSON lines nor a JSON array ({exc})") from exc
    if not all(isinstance(r, dict) for r in records):
        raise HallubenchError(f"{path}: every record must be a JSON object")
    return records


def read_records(task: str, location: str | None) -> list[dict[str, Any]]:
    """The records of an official-format JSON-lines file, checked for the task's columns."""
    path = official_file(task, location)
    records = read_json_records(path)
    required = TASKS[task].columns
    bad = next((i for i, r in enumerate(records) if any(c not in r for c in required)), None)
    if bad is not None:
        raise HallubenchError(f"{path}: line {bad + 1} lacks some of the {task} columns {list(required)}")
    return records
