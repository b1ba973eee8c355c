"""``custom_dataset`` hooks: a generated test set from a local ``save_to_disk`` folder or the Hub."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import datasets

from hallubench.errors import HallubenchError
from lm_eval_tasks.settings import task_setting


def load_test_set(task: str, required: Sequence[str], metadata: dict[str, Any]) -> datasets.DatasetDict:
    """Load the dataset named by the ``dataset`` setting and check its ``test`` split's columns."""
    location, source = task_setting(metadata, "dataset", task)
    if location is None:
        raise HallubenchError(
            f"{task}: no test set given; generate one (hallubench generate {task} ...) and pass it with {source}"
        )
    path = Path(location).expanduser()
    try:
        if path.exists():
            loaded = datasets.load_from_disk(str(path))
        elif location.count("/") == 1 and not location.startswith((".", "/")):
            loaded = datasets.load_dataset(location, revision=metadata.get("dataset_revision"))
        else:
            raise HallubenchError(f"{task}: dataset {location!r} (from {source}) is neither a folder nor a hub id")
    except HallubenchError:
        raise
    except Exception as exc:  # datasets raises many types for unreadable folders / hub failures
        raise HallubenchError(f"{task}: cannot load dataset {location!r} (from {source}): {exc}") from exc
    if isinstance(loaded, datasets.Dataset):
        loaded = datasets.DatasetDict({"test": loaded})
    if "test" not in loaded:
        raise HallubenchError(f"{task}: dataset {location!r} has no 'test' split (splits: {list(loaded)})")
    missing = [c for c in required if c not in loaded["test"].column_names]
    if missing:
        raise HallubenchError(
            f"{task}: dataset {location!r} (from {source}) lacks columns {missing}; is it a {task} set? "
            f"In a run of several tasks use dataset_{task}=..."
        )
    return loaded


def precisewikiqa(**metadata: Any) -> datasets.DatasetDict:
    from hallu_metrics.registry import BENCHMARKS

    return load_test_set("precisewikiqa", BENCHMARKS["precisewikiqa"].required_columns, metadata)


def mixedentities(**metadata: Any) -> datasets.DatasetDict:
    from hallu_metrics.registry import BENCHMARKS

    return load_test_set("mixedentities", BENCHMARKS["mixedentities"].required_columns, metadata)


def generatedentities(**metadata: Any) -> datasets.DatasetDict:
    from hallu_metrics.registry import BENCHMARKS

    return load_test_set("generatedentities", BENCHMARKS["generatedentities"].required_columns, metadata)
