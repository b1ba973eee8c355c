"""The one ``custom_dataset`` hook of every hallubench task (``lm_eval_tasks/_judged_template.yaml``).

Where a task's data comes from, first match wins (``TASK`` is the lm-eval task name):
1. ``--metadata dataset_TASK=...`` / ``dataset=...`` (or ``$HALLUBENCH_DATASET[_TASK]``): a ``save_to_disk``
   folder, a Hub id (``dataset_revision`` pins it), a ``.jsonl``/``.json``/``.parquet``/``.csv`` file, or a folder
   of the benchmark's official files (HaluEval);
2. the benchmark's legacy data key (HaluEval: ``halueval_data``);
3. the benchmark's official download, when it has one (HaluEval); otherwise a one-line error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets

from hallu_metrics.contract import Benchmark
from hallu_metrics.registry import benchmark_for_task
from hallu_metrics.settings import task_setting
from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import read_json_records

_TABLE_BUILDERS = {".parquet": "parquet", ".csv": "csv"}


def _is_saved_dataset(path: Path) -> bool:
    return any((path / name).is_file() for name in ("dataset_dict.json", "dataset_info.json", "state.json"))


def _from_location(benchmark: Benchmark, location: str, source: str, revision: str | None) -> datasets.Dataset:
    path = Path(location).expanduser()
    if path.is_dir() and _is_saved_dataset(path):
        loaded = datasets.load_from_disk(str(path))
    elif path.is_dir() and benchmark.read_official is not None:
        return datasets.Dataset.from_list(benchmark.read_official(str(path)))
    elif path.is_dir():
        raise HallubenchError(
            f"{location!r} (from {source}) is a folder but not a saved dataset (no dataset_dict.json)"
        )
    elif path.is_file() and path.suffix in (".json", ".jsonl"):
        return datasets.Dataset.from_list(read_json_records(path))
    elif path.is_file() and path.suffix in _TABLE_BUILDERS:
        loaded = datasets.load_dataset(_TABLE_BUILDERS[path.suffix], data_files=str(path), split="train")
    elif path.is_file():
        raise HallubenchError(
            f"{location!r} (from {source}): unsupported file type (use .jsonl, .json, .parquet, .csv)"
        )
    elif location.count("/") == 1 and not location.startswith((".", "/", "~")):
        loaded = datasets.load_dataset(location, revision=revision)
    else:
        raise HallubenchError(f"dataset {location!r} (from {source}) is neither a folder, a file nor a hub id")
    if isinstance(loaded, datasets.DatasetDict):
        loaded = _test_split(loaded, location)
    return loaded


def _test_split(loaded: datasets.DatasetDict, location: str) -> datasets.Dataset:
    """The ``test`` split, or the only split whatever its name (the WildHallucinations Hub set has just ``train``)."""
    if "test" in loaded:
        return loaded["test"]
    if len(loaded) == 1:
        return next(iter(loaded.values()))
    raise HallubenchError(f"dataset {location!r} has no 'test' split and several others (splits: {list(loaded)})")


def load_rows(task: str, options: dict[str, Any]) -> datasets.Dataset:
    """The test-set rows of ``task`` (before any transformation into lm-eval docs)."""
    benchmark = benchmark_for_task(task)
    location, source = task_setting(options, "dataset", task)
    for alias in benchmark.data_aliases:
        if location is None:
            location, source = task_setting(options, alias, task)
    if location is None and benchmark.read_official is None:
        raise HallubenchError(
            f"{task}: no test set given; generate one (hallubench generate {benchmark.generator_name or task} ...) "
            f"and pass it with {source}"
        )
    try:
        if location is None:
            rows = datasets.Dataset.from_list(benchmark.read_official(None))  # type: ignore[misc]
        else:
            rows = _from_location(benchmark, location, source, task_setting(options, "dataset_revision", task)[0])
    except HallubenchError as exc:
        raise HallubenchError(f"{task}: {exc}") from exc
    except Exception as exc:  # datasets raises many types for unreadable folders / hub failures
        raise HallubenchError(f"{task}: cannot load dataset {location!r} (from {source}): {exc}") from exc
    missing = [c for c in benchmark.columns if c not in rows.column_names]
    if missing:
        raise HallubenchError(
            f"{task}: dataset {location!r} (from {source}) lacks columns {missing}; is it a {benchmark.name} set? "
            f"In a run of several tasks use dataset_{task}=..."
        )
    return rows


def load(task: str, **options: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the task's docs as a ``test`` split."""
    benchmark = benchmark_for_task(task)
    rows = load_rows(task, options)
    docs = benchmark.to_docs(rows, options) if benchmark.to_docs else rows
    return datasets.DatasetDict({"test": docs})
